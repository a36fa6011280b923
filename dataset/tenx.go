package dataset

import (
	"os"
	"path/filepath"
	"strings"
)

// The 10x Genomics (Cell Ranger) matrix directory, as scanpy.read_10x_mtx reads it:
//
//	matrix.mtx[.gz]     genes × cells counts, Matrix Market coordinate integer
//	barcodes.tsv[.gz]   one cell barcode per line (the rows of the Set: RowNames)
//	features.tsv[.gz]   gene id, gene symbol, feature type (Cell Ranger ≥ 3);
//	genes.tsv[.gz]      gene id, gene symbol (Cell Ranger 2)
//
// The matrix is transposed into cells × genes like any Matrix Market file here (features ×
// samples); the feature names are the gene symbols (the second field, the id when there is
// none); Options.MinDocFreq keeps the genes counted in at least that many cells, which is how a
// dense float64 matrix of a whole experiment (33,538 genes) stays within Options.MaxMatrixBytes.

// tenxFile returns dir/name or dir/name.gz, whichever exists, or "".
func tenxFile(dir, name string) string {
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, name+".gz")} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// isTenxDir reports whether dir holds a 10x matrix.
func isTenxDir(dir string) bool { return tenxFile(dir, "matrix.mtx") != "" }

// load10x reads a 10x matrix directory.
func load10x(dir string, opt Options) (*Set, error) {
	mtx := tenxFile(dir, "matrix.mtx")
	barcodes := tenxFile(dir, "barcodes.tsv")
	features := tenxFile(dir, "features.tsv")
	if features == "" {
		features = tenxFile(dir, "genes.tsv")
	}
	if barcodes == "" || features == "" {
		return nil, &ParseError{File: dir, Expected: "a 10x directory: matrix.mtx, barcodes.tsv and features.tsv (or genes.tsv), each maybe .gz", Found: "matrix.mtx without " + strings.Join(missing10x(barcodes, features), " and ")}
	}
	r, f, err := openFile(mtx)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readMTX(r, mtx, &sides{terms: features, docs: barcodes, tsvTerms: true}, opt)
}

func missing10x(barcodes, features string) []string {
	var m []string
	if barcodes == "" {
		m = append(m, "barcodes.tsv")
	}
	if features == "" {
		m = append(m, "features.tsv")
	}
	return m
}
