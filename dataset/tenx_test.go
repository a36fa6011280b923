package dataset

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func writeFile(t *testing.T, path, s string, gz bool) {
	t.Helper()
	b := []byte(s)
	if gz {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		b = buf.Bytes()
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A Cell Ranger directory (v3 names, gzip'd, and v2 names, plain) reads as cells × genes with
// the barcodes as row names and the gene symbols as feature names, as scanpy.read_10x_mtx
// gives them (var_names = gene symbols, obs_names = barcodes).
func TestLoad10x(t *testing.T) {
	// 4 genes × 3 cells, Cell Ranger's layout (integer counts, 1-based gene then cell).
	mtx := "%%MatrixMarket matrix coordinate integer general\n%metadata_json: {}\n4 3 5\n1 1 3\n4 1 1\n2 2 7\n3 3 2\n4 3 5\n"
	want := mat.NewDense(3, 4, []float64{3, 0, 0, 1, 0, 7, 0, 0, 0, 0, 2, 5})
	v3 := t.TempDir()
	writeFile(t, filepath.Join(v3, "matrix.mtx.gz"), mtx, true)
	writeFile(t, filepath.Join(v3, "barcodes.tsv.gz"), "AAAC-1\nAAAG-1\nAACT-1\n", true)
	writeFile(t, filepath.Join(v3, "features.tsv.gz"), "ENSG1\tMIR1302-2HG\tGene Expression\nENSG2\tFAM138A\tGene Expression\nENSG3\tOR4F5\tGene Expression\nENSG4\tCD3E\tGene Expression\n", true)
	v2 := t.TempDir()
	writeFile(t, filepath.Join(v2, "matrix.mtx"), mtx, false)
	writeFile(t, filepath.Join(v2, "barcodes.tsv"), "AAAC-1\nAAAG-1\nAACT-1\n", false)
	writeFile(t, filepath.Join(v2, "genes.tsv"), "ENSG1\tMIR1302-2HG\nENSG2\tFAM138A\nENSG3\tOR4F5\nENSG4\tCD3E\n", false)
	for _, dir := range []string{v3, v2} {
		d, err := Load(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(d.X, want) {
			t.Errorf("%s:\n%v", dir, mat.Formatted(d.X))
		}
		if strings.Join(d.RowNames, " ") != "AAAC-1 AAAG-1 AACT-1" || strings.Join(d.FeatureNames, " ") != "MIR1302-2HG FAM138A OR4F5 CD3E" {
			t.Errorf("%s: rows %v, features %v", dir, d.RowNames, d.FeatureNames)
		}
	}
	// Genes counted in at least 2 cells: only CD3E.
	if d, err := Load(v3, Options{MinDocFreq: 2}); err != nil || d.Dim() != 1 || d.FeatureNames[0] != "CD3E" {
		t.Errorf("MinDocFreq 2: %v %v", err, d)
	}
	os.Remove(filepath.Join(v2, "barcodes.tsv"))
	if _, err := Load(v2, Options{}); err == nil || !strings.Contains(err.Error(), v2+": expected a 10x directory") || !strings.Contains(err.Error(), "without barcodes.tsv") {
		t.Errorf("no barcodes: %v", err)
	}
	writeFile(t, filepath.Join(v3, "barcodes.tsv.gz"), "AAAC-1\nAAAG-1\n", true)
	if _, err := Load(v3, Options{}); err == nil || !strings.Contains(err.Error(), "barcodes.tsv.gz: expected 3 document ids (one per matrix column), found 2") {
		t.Errorf("two barcodes for three cells: %v", err)
	}
}
