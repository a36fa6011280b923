package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options controls how Load and Read interpret a file. The zero value means: detect the format,
// take the label from a column named "label" or "class" if there is one, sniff a header, and treat
// missing values as errors.
type Options struct {
	// Format is "" (detect: by extension after stripping .gz, then by content) or one of
	// "csv", "tsv", "ws" (whitespace-separated, no dimension line), "arff", "idx", "sompak",
	// "mtx" (Matrix Market, terms×documents), "labeltext" (label<TAB>text lines),
	// "pgmdir" (a directory of class subdirectories holding binary PGM images), "npy" and
	// "npz" (NumPy) and "10x" (a Cell Ranger matrix directory, found by its matrix.mtx).
	Format string
	// Label selects the label column: a header name, a 1-based column number, "first" or "last".
	// "" means a column named "label" or "class" (case-insensitive) if present, else none; for
	// ARFF the last attribute if it is nominal (a numeric last attribute becomes Set.Target only);
	// for SOM_PAK the trailing token of each row.
	Label string
	// NoLabel discards labels: the label column (explicit or default) is still left out of the
	// features, but the Set carries no Labels, ClassNames or Target.
	NoLabel bool
	// Header is, for CSV/TSV/ws tables, "auto" (default: the first row is a header when it has a
	// non-numeric field in a column that is numeric below), "yes" or "no".
	Header string
	// Missing is the policy for NaN, ±Inf, "?" and empty numeric fields: "" or "error" (default),
	// "drop" (drop the rows that have one) or "mean" (impute the column mean of the other rows).
	Missing string
	// Drop lists columns to ignore (header names or 1-based column numbers), e.g. string ids.
	Drop []string
	// MinDocFreq, for "labeltext" and "mtx", keeps only terms that occur in at least this many
	// documents; 0 keeps every term.
	MinDocFreq int
	// MaxMatrixBytes bounds the float64 matrix a reader builds when the matrix can outgrow the
	// input's bytes: "labeltext" word counts (documents × vocabulary), Matrix Market
	// (the header's rows × columns, whatever the number of entries) and ARFF (sparse rows and
	// one-hot nominal columns). Every other format stores at most 8 bytes per input byte, so a
	// hostile header cannot take memory its file does not back. 0 means
	// DefaultMaxMatrixBytes.
	MaxMatrixBytes int64
	// Warn receives warnings (duplicate rows, skipped string attributes); nil discards them.
	Warn func(msg string)
}

// DefaultMaxMatrixBytes is the matrix budget of Options.MaxMatrixBytes = 0: 2 GiB, over twice
// the largest staged set built this way (Reuters R8 train with every term, 877 MB).
const DefaultMaxMatrixBytes = 2 << 30

// matrixBudget returns the budget in float64 entries.
func (o *Options) matrixBudget() int {
	b := o.MaxMatrixBytes
	if b <= 0 {
		b = DefaultMaxMatrixBytes
	}
	return int(min(b/8, int64(maxInt)))
}

const maxInt = int(^uint(0) >> 1)

// fitsBudget reports whether an n×h float64 matrix fits the budget; it never overflows.
func (o *Options) fitsBudget(n, h int) bool {
	return n >= 0 && h >= 0 && (h == 0 || n <= o.matrixBudget()/h)
}

// budgetError is the refusal of an n×h matrix over the budget; what names its rows and columns
// ("documents × words") and hint says how to make it smaller.
func (o *Options) budgetError(name string, line, n, h int, what, hint string) error {
	return &ParseError{File: name, Line: line,
		Expected: fmt.Sprintf("a matrix of at most %s (Options.MaxMatrixBytes; %s)", byteSize(float64(o.matrixBudget())*8), hint),
		Found:    fmt.Sprintf("%d×%d %s = %.0f bytes (%s)", n, h, what, float64(n)*float64(h)*8, byteSize(float64(n)*float64(h)*8))}
}

// byteSize formats b bytes in binary units.
func byteSize(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.0f bytes", b)
}

func (o *Options) warnf(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

func (o *Options) check(name string) error {
	switch strings.ToLower(o.Missing) {
	case "", "error", "drop", "mean":
	default:
		return &ParseError{File: name, Expected: `Missing "error", "drop" or "mean"`, Found: fmt.Sprintf("%q", o.Missing)}
	}
	switch strings.ToLower(o.Header) {
	case "", "auto", "yes", "no":
	default:
		return &ParseError{File: name, Expected: `Header "auto", "yes" or "no"`, Found: fmt.Sprintf("%q", o.Header)}
	}
	if o.MinDocFreq < 0 {
		return &ParseError{File: name, Expected: "MinDocFreq ≥ 0", Found: fmt.Sprint(o.MinDocFreq)}
	}
	return nil
}

// Formats lists the format names Options.Format accepts.
var Formats = []string{"csv", "tsv", "ws", "arff", "idx", "sompak", "mtx", "labeltext", "pgmdir", "npy", "npz", "10x"}

// Load reads a data set from a file; "-" reads standard input. Gzip compression is detected by
// its magic bytes, not by the name. A directory is read as "pgmdir". An IDX images file picks up
// the matching labels file next to it (train-images-idx3-ubyte[.gz] ↔ train-labels-idx1-ubyte[.gz]),
// and a Matrix Market file its .terms, .docs and .classes side files.
func Load(path string, opt Options) (*Set, error) {
	if path == "-" {
		return Read(os.Stdin, "stdin", opt)
	}
	if err := opt.check(path); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Invalidf("%s: no such file", path)
		}
		return nil, err
	}
	if fi.IsDir() {
		if f := strings.ToLower(opt.Format); (f == "" || f == "10x" || f == "mtx") && isTenxDir(path) {
			return load10x(path, opt)
		}
		if f := strings.ToLower(opt.Format); f != "" && f != "pgmdir" {
			return nil, &ParseError{File: path, Expected: "a file for format " + opt.Format, Found: "a directory"}
		}
		return loadPGMDir(path, opt)
	}
	r, f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	format, err := detect(r, path, opt.Format)
	if err != nil {
		return nil, err
	}
	switch format {
	case "idx":
		labels := ""
		if !opt.NoLabel {
			labels = idxLabelsFor(path)
		}
		if labels == "" {
			return readIDXSet(r, path, "", nil, opt)
		}
		lr, lf, err := openFile(labels)
		if err != nil {
			return nil, err
		}
		defer lf.Close()
		return readIDXSet(r, path, labels, lr, opt)
	case "mtx":
		return readMTX(r, path, sideFiles(path), opt)
	case "npz":
		if magic, _ := r.Peek(2); string(magic) == "PK" { // not gzip'd: read the file in place
			fi, err := f.Stat()
			if err != nil {
				return nil, err
			}
			return readNPZ(f, fi.Size(), path, opt)
		}
	}
	if ext := external(format); ext != nil {
		if magic, _ := r.Peek(len(ext.Magic)); string(magic) == ext.Magic { // not gzip'd
			fi, err := f.Stat()
			if err != nil {
				return nil, err
			}
			return ext.Read(f, fi.Size(), path, opt)
		}
	}
	return readFormat(r, path, format, opt)
}

// Read reads a data set from r. name is used in error messages and for format detection.
// Gzip compression is detected by its magic bytes.
func Read(r io.Reader, name string, opt Options) (*Set, error) {
	if err := opt.check(name); err != nil {
		return nil, err
	}
	br, err := decompress(r, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	format, err := detect(br, name, opt.Format)
	if err != nil {
		return nil, err
	}
	switch format {
	case "idx":
		return readIDXSet(br, name, "", nil, opt)
	case "mtx":
		return readMTX(br, name, nil, opt)
	case "pgmdir", "10x":
		return nil, &ParseError{File: name, Expected: "a directory for format " + format, Found: "a stream"}
	}
	return readFormat(br, name, format, opt)
}

func readFormat(r *bufio.Reader, name, format string, opt Options) (*Set, error) {
	switch format {
	case "csv":
		return readTable(r, name, ',', opt)
	case "tsv":
		return readTable(r, name, '\t', opt)
	case "ws":
		return readTable(r, name, ' ', opt)
	case "sompak":
		return readSOMPAK(r, name, opt)
	case "arff":
		return readARFF(r, name, opt)
	case "labeltext":
		return readLabelText(r, name, opt)
	case "npy":
		return readNPYSet(r, name, opt)
	case "10x", "pgmdir":
		return nil, &ParseError{File: name, Expected: "a directory for format " + format, Found: "a file"}
	case "npz":
		// A zip archive is read from its end: the bytes are needed in memory (they back
		// everything read from them).
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return readNPZ(bytes.NewReader(b), int64(len(b)), name, opt)
	}
	if ext := external(format); ext != nil {
		return readExternal(ext, r, name, opt)
	}
	return nil, unknownFormat(name, format)
}

const bufSize = 1 << 16

// OpenFile opens path for reading as the readers of this package do (a missing file and a corrupt
// gzip stream are invalid input naming the file); other packages' file formats use it too.
func OpenFile(path string) (*bufio.Reader, *os.File, error) { return openFile(path) }

// openFile opens path for reading, gunzipping it when it starts with gzip's magic bytes. The
// caller closes the returned file.
func openFile(path string) (*bufio.Reader, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, Invalidf("%s: no such file", path)
		}
		return nil, nil, err
	}
	r, err := decompress(f, path)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, f, nil
}

// decompress returns a buffered reader over r, gunzipping it when it starts with the gzip magic.
func decompress(r io.Reader, name string) (*bufio.Reader, error) {
	br := bufio.NewReaderSize(r, bufSize)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: bad gzip header: %v", ErrInvalid, err)
		}
		return bufio.NewReaderSize(&gzipErrReader{zr, name}, bufSize), nil
	}
	return br, nil
}

// gzipErrReader marks corrupt gzip streams as invalid input in the named file.
type gzipErrReader struct {
	r    io.Reader
	name string
}

func (g *gzipErrReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = &ParseError{File: g.name, Expected: "a whole gzip stream", Found: err.Error(), Err: err}
	}
	return n, err
}

// detect chooses the format: an explicit one, else by extension, else by content.
func detect(r *bufio.Reader, name, format string) (string, error) {
	if format != "" {
		f := strings.ToLower(format)
		for _, k := range Formats {
			if f == k {
				return f, nil
			}
		}
		return "", unknownFormat(name, format)
	}
	if f := formatByName(name); f != "" {
		return f, nil
	}
	head, _ := r.Peek(bufSize)
	if f := sniff(head); f != "" {
		return f, nil
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return "", &ParseError{File: name, Expected: "at least one data row", Found: "empty input"}
	}
	first := bytes.TrimSpace(head)
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	return "", &ParseError{File: name, Expected: "CSV, TSV, a white-space table, ARFF, IDX, SOM_PAK, Matrix Market, label<TAB>text, .npy or .npz (or set the format)", Found: quote(first)}
}

// unknownFormat is the error of an Options.Format that names no format.
func unknownFormat(name, format string) error {
	return &ParseError{File: name, Err: fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(Formats, ", "))}
}

func formatByName(name string) string {
	base := strings.ToLower(filepath.Base(name))
	base = strings.TrimSuffix(base, ".gz")
	switch {
	case strings.HasSuffix(base, ".csv"):
		return "csv"
	case strings.HasSuffix(base, ".tsv"), strings.HasSuffix(base, ".tab"):
		return "tsv"
	case strings.HasSuffix(base, ".arff"):
		return "arff"
	case strings.HasSuffix(base, ".mtx"):
		return "mtx"
	case strings.HasSuffix(base, ".idx"), strings.HasSuffix(base, "-ubyte"), strings.Contains(base, "-idx1-"), strings.Contains(base, "-idx3-"):
		return "idx"
	case strings.HasSuffix(base, ".cod"):
		return "sompak"
	case strings.HasSuffix(base, ".npy"):
		return "npy"
	case strings.HasSuffix(base, ".npz"):
		return "npz"
	}
	if f := externalByName(base); f != "" {
		return f
	}
	return ""
}

// sniff guesses the format from the first bytes of the (decompressed) content.
func sniff(head []byte) string {
	if len(head) >= 4 && head[0] == 0 && head[1] == 0 && idxTypeSize(head[2]) > 0 && head[3] > 0 {
		return "idx"
	}
	if bytes.HasPrefix(head, []byte("%%MatrixMarket")) {
		return "mtx"
	}
	if bytes.HasPrefix(head, []byte(npyMagic)) {
		return "npy"
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return "npz"
	}
	if f := externalByMagic(head); f != "" {
		return f
	}
	var first [][]byte // the first 8 non-blank lines (blank lines before data are skipped by every reader)
	for rest := head; len(rest) > 0 && len(first) < 8; {
		i := bytes.IndexByte(rest, '\n')
		l := rest
		if i < 0 {
			if len(head) == bufSize { // the line goes on past what was peeked
				break
			}
			rest = nil // the whole input is here, the last line is complete
		} else {
			l, rest = rest[:i], rest[i+1:]
		}
		if l = bytes.TrimRight(l, "\r"); len(bytes.TrimSpace(l)) > 0 {
			first = append(first, l)
		}
	}
	if len(first) == 0 {
		return ""
	}
	// ARFF: % comments, then @relation.
	for _, l := range first {
		t := bytes.TrimSpace(l)
		if t[0] == '%' {
			continue
		}
		if len(t) >= 9 && strings.EqualFold(string(t[:9]), "@relation") {
			return "arff"
		}
		break
	}
	// SOM_PAK: first non-# line is a single positive integer (maybe followed by SOM topology words).
	var data [][]byte
	for _, l := range first {
		if l[0] != '#' {
			data = append(data, l)
		}
	}
	if len(data) >= 2 {
		f := bytes.Fields(data[0])
		if len(f) >= 1 && isUint(f[0]) && (len(f) == 1 || !isNumber(f[1])) {
			if d := len(bytes.Fields(data[1])); d >= 1 && d <= atoiSafe(f[0])+1 && d >= atoiSafe(f[0]) {
				return "sompak"
			}
		}
	}
	l := first[0]
	if i := bytes.IndexByte(l, '\t'); i >= 0 {
		// label<TAB>text: two tab-separated fields, the second with several non-numeric words.
		if bytes.Count(l, []byte{'\t'}) == 1 {
			words := bytes.Fields(l[i+1:])
			if len(words) > 1 && !isNumber(words[0]) {
				return "labeltext"
			}
		}
		return "tsv"
	}
	if bytes.IndexByte(l, ',') >= 0 {
		return "csv"
	}
	return "ws"
}

func isUint(b []byte) bool {
	if len(b) == 0 || len(b) > 9 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func atoiSafe(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}
