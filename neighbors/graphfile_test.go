package neighbors

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// writeFiles writes the two graph files into a temporary directory and returns their paths.
func writeFiles(t *testing.T, idx, dist string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	pi, pd := filepath.Join(dir, "idx.txt"), filepath.Join(dir, "dist.txt")
	if err := os.WriteFile(pi, []byte(idx), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pd, []byte(dist), 0o644); err != nil {
		t.Fatal(err)
	}
	return pi, pd
}

func TestWriteReadGraphRoundTrip(t *testing.T) {
	x := clustered(200, 6, 3, 2, 9)
	g, err := KNN(context.Background(), x, 7, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var bi, bd bytes.Buffer
	if err := WriteGraph(&bi, &bd, g); err != nil {
		t.Fatal(err)
	}
	// The index file gzip-compressed: ReadGraph must gunzip it.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bi.Bytes())
	zw.Close()
	pi, pd := writeFiles(t, gz.String(), bd.String())
	h, err := ReadGraph(pi, pd)
	if err != nil {
		t.Fatal(err)
	}
	if h.N != g.N || h.K != g.K {
		t.Fatalf("read %v, wrote %v", h, g)
	}
	for e := range g.Index {
		if h.Index[e] != g.Index[e] {
			t.Fatalf("entry %d: index %d, wrote %d", e, h.Index[e], g.Index[e])
		}
		// sqrt then square: a few units in the last place (2⁻⁵⁰ relative bounds them).
		if d := math.Abs(h.Dist2[e] - g.Dist2[e]); d > 0x1p-50*g.Dist2[e] {
			t.Fatalf("entry %d: Dist2 %v, wrote %v", e, h.Dist2[e], g.Dist2[e])
		}
	}
}

func TestReadGraphUMAPSelfColumnAndSort(t *testing.T) {
	// umap's layout: each row starts with itself at 0; columns not sorted; numpy float indices;
	// CSV for one file, white space for the other.
	idx := "0,2,1\n1,0,2\n2.000000000000000000e+00,1,0\n"
	dist := "# distances\n0 3 1\n0 1 2\n\n0 2 3\n"
	pi, pd := writeFiles(t, idx, dist)
	g, err := ReadGraph(pi, pd)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{1, 2, 0, 2, 1, 0}
	wantD := []float64{1, 9, 1, 4, 4, 9}
	if g.N != 3 || g.K != 2 {
		t.Fatalf("got %v, want N 3, K 2 (self column dropped)", g)
	}
	for e := range want {
		if g.Index[e] != want[e] || g.Dist2[e] != wantD[e] {
			t.Fatalf("entry %d: (%d, %v), want (%d, %v)", e, g.Index[e], g.Dist2[e], want[e], wantD[e])
		}
	}
}

func TestReadGraphErrors(t *testing.T) {
	cases := []struct {
		name, idx, dist, want string
	}{
		{"out of range", "1 2\n0 5\n0 1\n", "1 1\n1 1\n1 1\n", "idx.txt:2:2: expected an index 0..2 (the file has 3 rows), found 5"},
		{"negative index", "1 2\n0 -1\n0 1\n", "1 1\n1 1\n1 1\n", `idx.txt:2:2: expected a non-negative integer index, found "-1"`},
		{"fractional index", "1 2\n0 1.5\n0 1\n", "1 1\n1 1\n1 1\n", `idx.txt:2:2: expected a non-negative integer index, found "1.5"`},
		{"row length", "1 2\n0\n0 1\n", "1 1\n1 1\n1 1\n", "idx.txt:2: expected 2 fields like the first row, found 1"},
		{"files differ", "1 2\n0 2\n0 1\n", "1 1\n1 1 1\n1 1\n", "dist.txt:2: expected 2 fields like idx.txt:2, found 3"},
		{"fewer distance rows", "1 2\n0 2\n0 1\n", "1 1\n1 1\n", "dist.txt:3: expected as many rows as idx.txt (3 rows or more), found end of file"},
		{"fewer index rows", "1 2\n0 2\n", "1 1\n1 1\n1 1\n", "idx.txt:3: expected as many rows as dist.txt (3 rows or more), found end of file"},
		{"NaN", "1 2\n0 2\n0 1\n", "1 1\n1 NaN\n1 1\n", `dist.txt:2:2: expected a finite non-negative distance, found "NaN"`},
		{"negative distance", "1 2\n0 2\n0 1\n", "1 1\n1 1\n-1 1\n", `dist.txt:3:1: expected a finite non-negative distance, found "-1"`},
		{"empty field", "1,2\n0,2\n0,1\n", "1,1\n1,\n1,1\n", `dist.txt:2:2: expected a finite non-negative distance, found an empty field`},
		{"self loop", "1 2\n0 1\n0 1\n", "1 1\n1 1\n1 1\n", `idx.txt:2:2: expected a neighbour of row 1 other than itself, found "1"`},
		{"self in some first columns", "0 2\n0 2\n0 1\n", "0 1\n1 1\n1 1\n", "idx.txt:1:1: expected a neighbour of row 0 other than itself (only when every row starts with itself is that column dropped), found 0"},
		{"self at a distance", "0 2\n1 2\n2 1\n", "1 1\n0 1\n0 1\n", `dist.txt:1:1: expected 0, the distance of row 0 to itself, found "1"`},
		{"duplicate", "1 2 1\n0 2 1\n0 1 3\n3 1 0\n", "1 1 1\n1 1 1\n1 1 1\n1 1 1\n", `idx.txt:1:3: expected indices without repeats (1 is in column 1 already), found "1"`},
		{"empty", "", "", "idx.txt: expected at least one row of neighbour indices, found none"},
		{"only self", "0\n1\n", "0\n0\n", "idx.txt:1: expected at least one neighbour besides the row itself, found none"},
		{"header", "a b\n0 1\n", "1 1\n1 1\n", `idx.txt:1:1: expected a non-negative integer index, found "a"`},
	}
	for _, c := range cases {
		pi, pd := writeFiles(t, c.idx, c.dist)
		_, err := ReadGraph(pi, pd)
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Fatalf("%s: error %v, want one wrapping dataset.ErrInvalid", c.name, err)
		}
		var pe *dataset.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: error %v is no ParseError", c.name, err)
		}
		got := strings.ReplaceAll(err.Error(), filepath.Dir(pi)+string(filepath.Separator), "")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	if _, err := ReadGraph(filepath.Join(t.TempDir(), "none"), "x"); !errors.Is(err, dataset.ErrInvalid) {
		t.Fatalf("missing file: error %v, want one wrapping dataset.ErrInvalid", err)
	}
	pi, pd := writeFiles(t, "\x1f\x8bnot gzip", "1\n")
	if _, err := ReadGraph(pi, pd); !errors.Is(err, dataset.ErrInvalid) {
		t.Fatalf("bad gzip: error %v, want one wrapping dataset.ErrInvalid", err)
	}
}

// A graph numpy saved as .npy (umap's knn_indices as int64, knn_dists; the row itself first)
// reads as the same graph saved as text by numpy.savetxt (dataset/testdata/make_npy.py writes
// both), and a bad value in a NumPy file is located at its row and column.
func TestReadGraphNPY(t *testing.T) {
	fromNPY, err := ReadGraph("testdata/knn_idx.npy", "testdata/knn_dist.npy")
	if err != nil {
		t.Fatal(err)
	}
	fromText, err := ReadGraph("testdata/knn_idx.txt", "testdata/knn_dist.txt")
	if err != nil {
		t.Fatal(err)
	}
	if fromNPY.N != 6 || fromNPY.K != 2 || !slices.Equal(fromNPY.Index, fromText.Index) || !slices.Equal(fromNPY.Dist2, fromText.Dist2) {
		t.Errorf("npy %+v\ntext %+v", fromNPY, fromText)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "idx.npy")
	var b bytes.Buffer
	if err := dataset.WriteNPY(&b, mat.NewDense(2, 2, []float64{0, 1, 1, 7})); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(dir, "dist.npy")
	b.Reset()
	if err := dataset.WriteNPY(&b, mat.NewDense(2, 2, []float64{0, 1, 0, 1})); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dist, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadGraph(bad, dist); err == nil || err.Error() != bad+":2:2: expected an index 0..1 (the file has 2 rows), found 7" {
		t.Errorf("index 7 of 2 rows: %v", err)
	}
}
