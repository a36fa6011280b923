package parquet

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// peer.parquet was written by hyparquet-writer (npm) with testdata/make_parquet.sh, which
// recorded the values in expected.json: DOUBLE, INT32, FLOAT and BOOLEAN columns are the
// features, the STRING note column is skipped, label (with a null) gives the labels.
func TestPeerFile(t *testing.T) {
	raw, err := os.ReadFile("testdata/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Features []string
		Rows     [][]float64
		Labels   []string
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	var warned []string
	d, err := dataset.Load("testdata/peer.parquet", dataset.Options{Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(len(exp.Rows), len(exp.Features), nil)
	for i, r := range exp.Rows {
		want.SetRow(i, r)
	}
	if !mat.Equal(d.X, want) || strings.Join(d.FeatureNames, ",") != strings.Join(exp.Features, ",") {
		t.Errorf("features %v\n%v\nwant %v\n%v", d.FeatureNames, mat.Formatted(d.X), exp.Features, mat.Formatted(want))
	}
	for i, l := range exp.Labels {
		got := "?"
		if k := d.Labels[i]; k >= 0 {
			got = d.ClassNames[k]
		}
		if got != l {
			t.Errorf("label %d: %q, want %q", i, got, l)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `column "note"`) {
		t.Errorf("warnings %q", warned)
	}
	// The same bytes from standard input, found by their magic.
	b, _ := os.ReadFile("testdata/peer.parquet")
	if s, err := dataset.Read(bytes.NewReader(b), "stdin", dataset.Options{}); err != nil || !mat.Equal(s.X, d.X) {
		t.Errorf("from a stream: %v", err)
	}
}

// A truncated file, a file that is not Parquet behind the magic, a missing label column:
// errors that name the file and wrap dataset.ErrInvalid.
func TestBadInput(t *testing.T) {
	b, err := os.ReadFile("testdata/peer.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		opt  dataset.Options
		want string
	}{
		{"truncated.parquet", b[:len(b)-40], dataset.Options{}, "truncated.parquet: expected a Parquet file"},
		{"half.parquet", b[:len(b)/2], dataset.Options{}, "half.parquet: expected a Parquet file"},
		{"junk.parquet", []byte("PAR1 not really"), dataset.Options{}, "junk.parquet: expected a Parquet file"},
		{"peer.parquet", b, dataset.Options{Label: "species"}, `peer.parquet: expected a column named "species", found columns a, b, c, flag, note, label`},
		{"tiny.parquet", b, dataset.Options{MaxMatrixBytes: 64}, "tiny.parquet: expected a matrix of at most 64 bytes"},
	} {
		_, err := dataset.Read(bytes.NewReader(tc.data), tc.name, tc.opt)
		if !errors.Is(err, dataset.ErrInvalid) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %s…", tc.name, err, tc.want)
		}
	}
}

// WriteEmbedding's file reads back with its coordinates, labels (an unknown one null) and names.
func TestWriteRead(t *testing.T) {
	y := mat.NewDense(3, 2, []float64{0.1, -2, 3e10, 4, -0, 5.5})
	s := &dataset.Set{Labels: []int{1, -1, 0}, ClassNames: []string{"a", "b"}, RowNames: []string{"r1", "r2", "r3"}}
	var b bytes.Buffer
	if err := WriteEmbedding(&b, y, s); err != nil {
		t.Fatal(err)
	}
	d, err := dataset.Read(bytes.NewReader(b.Bytes()), "e.parquet", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(d.X, y) || strings.Join(d.FeatureNames, ",") != "x,y" {
		t.Errorf("%v %v", d.FeatureNames, mat.Formatted(d.X))
	}
	if d.Labels[0] < 0 || d.ClassNames[d.Labels[0]] != "b" || d.Labels[1] != -1 || d.ClassNames[d.Labels[2]] != "a" {
		t.Errorf("labels %v %v", d.Labels, d.ClassNames)
	}
	wide := mat.NewDense(2, 11, nil)
	wide.Set(1, 10, 7)
	b.Reset()
	if err := WriteEmbedding(&b, wide, nil); err != nil {
		t.Fatal(err)
	}
	if d, err := dataset.Read(bytes.NewReader(b.Bytes()), "w.parquet", dataset.Options{}); err != nil || d.FeatureNames[10] != "y11" || d.X.At(1, 10) != 7 {
		t.Errorf("11 columns: %v %v", err, d)
	}
}

// FuzzRead: any bytes give a Set or an error that wraps dataset.ErrInvalid and names the file,
// never a panic.
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile("testdata/peer.parquet"); err == nil {
		f.Add(b)
	}
	var b bytes.Buffer
	WriteEmbedding(&b, mat.NewDense(2, 2, []float64{1, 2, 3, 4}), &dataset.Set{Labels: []int{0, -1}, ClassNames: []string{"a"}})
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(bytes.NewReader(data), int64(len(data)), "f.parquet", dataset.Options{MaxMatrixBytes: 1 << 20, Missing: "mean"})
		if err != nil {
			if !errors.Is(err, dataset.ErrInvalid) || !strings.HasPrefix(err.Error(), "f.parquet") {
				t.Fatalf("error %v", err)
			}
			return
		}
		if r, c := d.X.Dims(); r < 1 || c < 1 {
			t.Fatalf("%d×%d", r, c)
		}
	})
}

// TestHostileFooterLength: a file whose footer length claims more bytes than the file holds is
// refused before parquet-go reads it. parquet-go allocates the declared footer first: FuzzRead
// found 8- to 77-byte inputs costing 1.6–1.9 GB each, which killed its workers (issue 18's rule:
// no allocation sized by a header before the bytes back it).
func TestHostileFooterLength(t *testing.T) {
	data := []byte("PAR1\x00\x00\x00\x00\xff\xff\xff\x60PAR1") // footer length 0x60ffffff
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := Read(bytes.NewReader(data), int64(len(data)), "f.parquet", dataset.Options{})
	runtime.ReadMemStats(&m1)
	if !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), "footer of") {
		t.Errorf("err = %v, want a bad footer length", err)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 1<<20 {
		t.Errorf("allocated %d bytes for a %d-byte file", a, len(data))
	}
	for _, short := range [][]byte{nil, []byte("PAR1PAR1"), []byte("PAR1xxxxxxxxPAR2")} {
		if _, err := Read(bytes.NewReader(short), int64(len(short)), "f.parquet", dataset.Options{}); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%q: err = %v, want ErrInvalid", short, err)
		}
	}
}
