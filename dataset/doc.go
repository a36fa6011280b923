// Package dataset holds data sets in memory (Set) and reads and writes them.
//
// # Reading
//
// Load(path, opt) reads a file ("-" = standard input, a directory = "pgmdir"); Read(r, name, opt)
// reads a stream, using name for messages and format detection. Gzip is recognised by its magic
// bytes, never by the name, for every format. The format is Options.Format or, when that is empty,
// chosen by the extension after stripping ".gz" (.csv, .tsv/.tab, .arff, .mtx, .cod, *-ubyte/.idx)
// and otherwise by sniffing the content: IDX magic, "%%MatrixMarket", "@relation" after "%"
// comments, a lone integer dimension line (SOM_PAK), a single TAB followed by words (label<TAB>text),
// a TAB (TSV), a comma (CSV), else white space ("ws").
//
// Formats:
//
//   - csv, tsv, ws: numeric tables. CSV fields may be double-quoted (RFC 4180, but not across
//     lines); white space around fields is ignored; ws splits on runs of blanks. Header "auto"
//     takes the first row as a header when one of its fields is text in a column that is numeric
//     in the next rows. With Header "auto" a CSV whose first line is "n,H,class0,class1,…" followed
//     by rows of H numbers and a class index is recognised as scikit-learn's layout: the first line
//     gives the class names and the row count, which is checked. The class names must be text: a
//     first row whose fields are all numbers is always data, and labels read back as written.
//   - arff: Weka ARFF, keywords in any case, quoted names and values ('build wind float'),
//     "%" comments, CRLF, ", " separators, sparse rows "{i v, …}" and instance weights. Numeric,
//     real and integer attributes give one column each. A nominal attribute with k values gives k
//     one-hot columns named "attr=value": integer codes would invent an order and distances
//     between categories, while one-hot puts every pair of different values at the same distance
//     (√2). String and date attributes are skipped with a warning. The label defaults to the last
//     attribute: if nominal it gives Labels with ClassNames in declared order (values no row uses
//     are left out); if numeric it is a regression target and becomes Set.Target only, with no
//     Labels. Naming a numeric attribute in Options.Label makes classes of its values as for CSV.
//   - idx: MNIST's IDX (all element types). The first dimension counts rows, the product of the
//     others is the number of features; values are stored as read (MNIST pixels 0..255, not
//     scaled). Load of ".../X-images-idx3-ubyte[.gz]" picks up ".../X-labels-idx1-ubyte[.gz]";
//     LoadIDX names both files. Truncated files and bad magic numbers are errors.
//   - sompak: SOM_PAK/LVQ_PAK. Lines whose FIRST character is '#' are comments (a data line may
//     end with the label "#"); the first other line starts with the dimension d; each row holds d
//     numbers and an optional trailing label token; "x" is a missing value.
//   - mtx: Matrix Market (coordinate or array; real, integer or pattern; general or symmetric),
//     read as features × samples (terms × documents, the text-mining convention) and transposed.
//     Next to STEM.mtx[.gz], STEM.terms (feature names), STEM.docs (row names) and STEM.classes
//     ("%Clusters K a,b,…" then 0-based "doc class" lines) are used when present.
//   - labeltext: "label<TAB>text" lines become bag-of-words counts over the sorted vocabulary
//     (words = runs of non-blank characters).
//   - npy, npz: NumPy arrays (format 1.0–3.0; float32/64, signed and unsigned integers, bool;
//     either byte order; C or Fortran order). Rows run along the first dimension, the others
//     are flattened (an (n, 28, 28) stack gives n×784). An .npz archive (numpy.savez, compressed
//     or not) gives its features from the member X, x, data, embedding or arr_0 (or its only
//     member), its labels from Options.Label or the member y, labels, label or target (arr_1
//     next to arr_0), numbers or strings. Own reader: values are appended as the bytes arrive.
//     WriteNPY and WriteEmbeddingNPZ write them.
//   - 10x: a Cell Ranger matrix directory (matrix.mtx, barcodes.tsv, features.tsv or genes.tsv,
//     each maybe .gz), recognised by its matrix.mtx: cells × genes, barcodes as row names, gene
//     symbols as feature names.
//   - pgmdir: a directory of class subdirectories of binary PGM (P5) images of equal size, such
//     as ORL's s1/1.pgm … s40/10.pgm; one row per image (pixel values as stored), the class is the
//     subdirectory, RowNames are "sN/M.pgm"; both levels in natural order (s2 before s10).
//
// Matrices are dense float64: bbc (2225×9635) takes 171 MB, Reuters R8 train with every term
// (5485×19983) 877 MB; Options.MinDocFreq trims rare terms for labeltext and mtx.
//
// # Streams
//
// Stream reads CSV, TSV and white-space tables a block of rows at a time (Next cuts blocks,
// Parse turns one into a Set and may run on several at once), for transforms whose memory must
// not grow with the rows; other formats are read whole and handed out in blocks. Where a
// streamed table can differ from Read's Set (labels decided over the whole file, duplicate rows)
// is on Stream.
//
// # Memory
//
// No reader allocates from a size its input declares before the bytes that back it have
// arrived: values are appended as they are parsed (IDX reads its data before converting it),
// so a header that promises more than the file holds costs only the error. Where the matrix
// can legitimately outgrow the input — labeltext counts (documents × vocabulary), Matrix
// Market (the header's rows × columns, however few entries follow) and ARFF sparse or one-hot
// rows — it is checked against Options.MaxMatrixBytes (default 2 GiB) before it is made or
// while it grows, and refused as "expected a matrix of at most …, found N×H … = B bytes".
// The fuzz targets (fuzz_test.go, fuzz_formats_test.go; scripts/fuzz.sh runs them all) hold
// every reader to 2 MiB plus 256 bytes per input byte.
//
// # Conventions
//
// Columns are numbered from 1 by field, not by byte, in Options.Label, Options.Drop and in
// errors. Every error caused by the input wraps ErrInvalid; errors located in a file are
// *ParseError and print as "FILE:LINE:COLUMN: expected …, found …" (ragged rows, text in a numeric
// column, NaN/Inf, a missing label column, empty input).
//
// Labels: the label column is Options.Label ("first", "last", a 1-based number or a header name)
// or, by default, a column named "label" or "class" (any case). It is never a feature; with
// NoLabel it is still left out but no labels are kept. When every label parses as a number the
// text is normalised ("6.0000" and "6" are class "6"), classes are ordered numerically and
// Set.Target holds the values; otherwise classes keep the order of first appearance. "?" and
// empty labels are unknown (-1); a label column with no known value means an unlabelled set.
//
// Missing values (NaN, ±Inf, "?", empty numeric fields): Missing "" or "error" rejects them with
// their position, "drop" drops the rows that have them, "mean" replaces them by their column's
// mean (for one-hot columns: the category frequencies).
//
// Duplicate rows are reported through Options.Warn, found by hashing rows (DuplicateRows);
// neighbour-based methods see them at distance 0.
//
// # Writing
//
// WriteCSV and WriteSOMPAK write sets that Read gives back unchanged (floats in shortest
// round-trip form); WriteEmbeddingCSV writes coordinates with an x,y[,z] header and labels.
//
// # The staged data sets (../shared/data, see TestStagedData)
//
//	mnist/train-images-idx3-ubyte.gz      Options{}                       60000×784, labels found next to it
//	usps/zip.train.gz                     Options{Label: "first"}         7291×256 (ws; "6.0000" → class 6)
//	letter/letter-recognition.data        Options{Label: "first"}         20000×16, 26 classes
//	satimage/sat.trn                      Options{Label: "last"}          4435×36, classes 1,2,3,4,5,7
//	phoneme_lvqpak/ex1.dat                Options{}                       1962×20, 20 classes incl. '#', '\'
//	optdigits/optdigits.tra               Options{Label: "last"}          3823×64
//	sklearn_small/iris.csv (wine, breast) Options{}                       150×4, names from the first line
//	sklearn_small/digits.csv.gz           Options{Label: "last"}          1797×64 (also Digits())
//	weka_arff/*.arff                      Options{}                       sets with '?': Missing "mean";
//	                                                                      hypothyroid, sick: also Drop {"TBG"}
//	yeast/yeast.data                      Options{Drop: {"1"}, Label: "last"}     1484×8, 10 classes
//	communities/communities.data.gz       Options{Drop: {"1","2","3","4","5"}, Label: "last",
//	                                              Missing: "mean"}  1994×122 ("drop": 319 rows)
//	reuters_r8/r8-test-all-terms.txt.gz   Options{}                       2189×11973 word counts, 8 classes
//	bbc/bbc.mtx.gz                        Options{}                       2225×9635, terms/docs/classes side files
//	orl_faces                             Options{}                       400×10304, 40 classes
//
// Digits returns the 1797 8×8 digits embedded in the package (its only data file).
package dataset
