package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The files numpy 1.24 (Debian's python3-numpy) wrote with testdata/make_npy.py read back as
// the values it recorded in expected.json: every dtype, byte order, Fortran order, format 2.0,
// a 3-D stack flattened per row, archives with named and positional members.
func TestNPYPeerFiles(t *testing.T) {
	raw, err := os.ReadFile("testdata/npy/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Files map[string]struct {
			Shape  []int
			Values []float64
			Labels []string
		}
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	if len(exp.Files) < 13 {
		t.Fatalf("expected.json lists %d files", len(exp.Files))
	}
	for name, want := range exp.Files {
		path := filepath.Join("testdata/npy", name)
		d, err := Load(path, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		rows := want.Shape[0]
		cols := len(want.Values) / rows
		if r, c := d.X.Dims(); r != rows || c != cols {
			t.Errorf("%s: %d×%d, want %d×%d (shape %v)", name, r, c, rows, cols, want.Shape)
			continue
		}
		if !mat.Equal(d.X, mat.NewDense(rows, cols, want.Values)) {
			t.Errorf("%s: values\n%v\nwant %v", name, mat.Formatted(d.X), want.Values)
		}
		if want.Labels != nil {
			for i, l := range want.Labels {
				if got := labelText(d, i); got != l {
					t.Errorf("%s: label %d %q, want %q", name, i, got, l)
				}
			}
		} else if d.HasLabels() {
			t.Errorf("%s: labels where numpy wrote none", name)
		}
		// The same bytes from a stream (standard input), found by their magic.
		b, _ := os.ReadFile(path)
		s, err := Read(bytes.NewReader(b), "stdin", Options{})
		if err != nil || !mat.Equal(s.X, d.X) {
			t.Errorf("%s from a stream: %v", name, err)
		}
	}
}

// Bad input names the file and says what was expected.
func TestNPYBadInput(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"complex.npy", `testdata/npy/complex.npy: expected a dtype of numbers (float32/64, int or uint 8–64 bits, bool) or of strings (U, S), found "<c16"`},
		{"object.npy", `testdata/npy/object.npy: expected a dtype of numbers`},
		{"truncated.npy", "testdata/npy/truncated.npy: expected 15 values (shape (5, 3) of <f8), found 12 and the end of the file"},
		{"nan.npy", `testdata/npy/nan.npy: expected finite numbers (set Missing to "drop" or "mean"), found NaN at row 1, column 2`},
	} {
		_, err := Load(filepath.Join("testdata/npy", tc.file), Options{})
		var perr *ParseError
		if !errors.As(err, &perr) || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %s", tc.file, err, tc.want)
		}
	}
	if d, err := Load("testdata/npy/nan.npy", Options{Missing: "drop"}); err != nil || d.Len() != 1 {
		t.Errorf("nan.npy, Missing drop: %v", err)
	}
	for _, tc := range []struct{ data, want string }{
		{"\x93NUMPY\x01\x00\x10\x00{'descr': '<f8'}", "expected a header dict"},
		{"\x93NUMPY\x09\x00", "expected .npy format version 1, 2 or 3, found version 9.0"},
		{"\x93NUMPY\x02\x00\xff\xff\xff\x7f", "expected a header of at most 1048576 bytes"},
		{string(npyHeader("<f8", 1<<40, 1<<20)), "expected a matrix of at most"},
		{string(npyHeader("<f8", 2, 2)) + "0123456789abcdef0123456789abcdef!", "expected the end of the file after 4 values"},
	} {
		_, err := Read(strings.NewReader(tc.data), "x.npy", Options{})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x.npy") {
			t.Errorf("%q: %v, want %s", tc.data, err, tc.want)
		}
	}
	// An archive without the features named as expected says which members it has.
	_, err := Load("testdata/npy/Xy.npz", Options{Label: "z"})
	if err == nil || !strings.Contains(err.Error(), `expected a member "z" (Options.Label), found members X, y`) {
		t.Errorf("Xy.npz with Label z: %v", err)
	}
}

// WriteNPY writes the bytes numpy.save writes for the same float64 matrix (f8.npy), and what it
// writes, and WriteEmbeddingNPZ's archive, read back unchanged.
func TestNPYWrite(t *testing.T) {
	d, err := Load("testdata/npy/f8.npy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteNPY(&b, d.X); err != nil {
		t.Fatal(err)
	}
	numpy, _ := os.ReadFile("testdata/npy/f8.npy")
	if !bytes.Equal(b.Bytes(), numpy) {
		t.Errorf("WriteNPY\n%q\nnumpy.save\n%q", b.Bytes(), numpy)
	}
	s := &Set{X: d.X, Labels: []int{0, 1, 0, -1, 1}, ClassNames: []string{"a", "émeu"}, RowNames: []string{"r1", "r2", "r3", "r4", "r5"}}
	b.Reset()
	if err := WriteEmbeddingNPZ(&b, d.X, s); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(b.Bytes()), "e.npz", Options{Label: "labels"})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(back.X, d.X) {
		t.Error("embedding changed")
	}
	for i := range s.Labels {
		if labelText(back, i) != labelText(s, i) {
			t.Errorf("label %d: %q, want %q", i, labelText(back, i), labelText(s, i))
		}
	}
}

// A .npy file streams a block of rows at a time with the values, the errors and the dropped
// rows of the whole read; Fortran order and strings fall back to the whole read.
func TestNPYStream(t *testing.T) {
	names, _ := filepath.Glob("testdata/npy/*.npy")
	if len(names) < 15 {
		t.Fatalf("%d peer files", len(names))
	}
	for _, path := range names {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{}, {Missing: "drop"}} {
			want, werr := readCSV(t, data, path, opt)
			for _, rows := range []int{1, 2, 1000} {
				got, s, err := streamCSV(t, data, path, opt, rows)
				if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
					t.Errorf("%s %+v, blocks of %d: %v; whole read: %v", path, opt, rows, err, werr)
					continue
				}
				if err == nil && !bytes.Equal(got, want) {
					t.Errorf("%s %+v, blocks of %d: bytes differ", path, opt, rows)
				}
				if s != nil && s.Streamed() == strings.Contains(path, "fortran") {
					t.Errorf("%s: streamed %v", path, s.Streamed())
				}
			}
		}
	}
}
