package dataset

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The fuzz targets of the formats without a round trip: Matrix Market (alone and with its side
// files), labelled text, PGM images and directories, format detection, gzip'd input, standard
// input and distance matrices. Each input must fail with an error that wraps ErrInvalid and
// names the file, or give a Set whose shapes agree and whose values are finite — within the
// allocation bound of checkAlloc.

func FuzzReadMTX(f *testing.F) {
	for _, s := range []string{
		"%%MatrixMarket matrix coordinate real general\n% comment\n3 2 3\n1 1 1.0\n2 2 2.5\n3 1 -1\n",
		"%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 4\n3 3 1\n",
		"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
		"%%MatrixMarket matrix array real general\n16384 16384\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{Format: "mtx"}, {Format: "mtx", MinDocFreq: 2}} {
			fuzzRead(t, data, "fuzz.mtx", opt)
		}
	})
}

// FuzzLoadMTXSides: the input is split at NUL bytes into STEM.mtx, STEM.terms, STEM.docs and
// STEM.classes, written to a directory and loaded.
func FuzzLoadMTXSides(f *testing.F) {
	mtx := "%%MatrixMarket matrix coordinate real general\n3 2 3\n1 1 1.0\n2 2 2.5\n3 1 -1\n"
	f.Add([]byte(mtx + "\x00ad\nsale\nboost\n\x00d1\nd2\n\x00%Clusters 2 a,b\n0 1\n1 0\n"))
	f.Add([]byte(mtx + "\x00ad\n\x00d1\n"))
	f.Add([]byte(mtx + "\x00\x00\x000 3\n"))
	var bbc []byte
	for _, side := range []string{"bbc.terms", "bbc.docs", "bbc.classes"} {
		bbc = append(append(bbc, 0), sharedHead("bbc/"+side, 200, true)...)
	}
	f.Add(append([]byte(mtx), bbc...))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for i, part := range bytes.SplitN(data, []byte{0}, 4) {
			ext := []string{".mtx", ".terms", ".docs", ".classes"}[i]
			if err := os.WriteFile(filepath.Join(dir, "f"+ext), part, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, "f.mtx")
		var s *Set
		var err error
		checkAlloc(t, len(data), func() { s, err = Load(path, Options{MaxMatrixBytes: fuzzBudget}) })
		if err != nil {
			checkError(t, err, dir)
			return
		}
		checkInvariants(t, s)
	})
}

func FuzzReadLabelText(f *testing.F) {
	for _, s := range []string{
		"earn\tprofit rose sharply\nacq\tcompany buys company\n",
		"a\tx\n\n?\ty y y\r\nb\t \n",
	} {
		f.Add([]byte(s))
	}
	addShared(f, 2048, "reuters_r8/r8-test-all-terms.txt.gz")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{Format: "labeltext"}, {Format: "labeltext", MinDocFreq: 2}} {
			fuzzRead(t, data, "fuzz.txt", opt)
		}
	})
}

// pgm returns a binary PGM image of w×h pixels 0, 1, 2, … (mod 256).
func pgm(w, h int) []byte {
	b := []byte(fmt.Sprintf("P5\n# made by a test\n%d %d\n255\n", w, h))
	for k := range w * h {
		b = append(b, byte(k))
	}
	return b
}

func FuzzDecodePGM(f *testing.F) {
	f.Add(pgm(3, 2))
	f.Add([]byte("P5 2 1 65535 \x01\x02\x03\x04"))
	f.Add([]byte("P5\n4611686018427387904 2\n255\n\x00"))
	if b := sharedHead("orl_faces/s1/1.pgm", 1<<14, false); len(b) > 0 {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var w, h int
		var px []float64
		var err error
		checkAlloc(t, len(data), func() { w, h, px, err = decodePGM(data, "fuzz.pgm") })
		if err != nil {
			checkError(t, err, "fuzz.pgm")
			return
		}
		if w < 1 || h < 1 || len(px) != w*h || len(px) > len(data) {
			t.Fatalf("%d×%d image with %d pixels from %d bytes", w, h, len(px), len(data))
		}
		for _, v := range px {
			if !(v >= 0 && v <= 65535) {
				t.Fatalf("pixel %v", v)
			}
		}
	})
}

// FuzzLoadPGMDir: the input is split at NUL bytes into images written to s1/1.pgm, s2/2.pgm,
// s1/3.pgm, … (and the first one also at the top), and the directory is loaded.
func FuzzLoadPGMDir(f *testing.F) {
	f.Add(bytes.Join([][]byte{pgm(2, 2), pgm(2, 2), pgm(2, 2)}, []byte{0}))
	f.Add(bytes.Join([][]byte{pgm(2, 2), pgm(2, 1)}, []byte{0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, d := range []string{"s1", "s2"} {
			if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		parts := bytes.Split(data, []byte{0})
		if len(parts) > 16 {
			return // many empty files test nothing more
		}
		for i, part := range parts {
			rel := filepath.Join(fmt.Sprintf("s%d", i%2+1), fmt.Sprintf("%d.pgm", i+1))
			if i == 0 && len(parts) == 1 {
				rel = "top.pgm"
			}
			if err := os.WriteFile(filepath.Join(dir, rel), part, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var s *Set
		var err error
		checkAlloc(t, len(data), func() { s, err = Load(dir, Options{}) })
		if err != nil {
			checkError(t, err, dir)
			return
		}
		checkInvariants(t, s)
		if s.Len() != len(parts) {
			t.Fatalf("%d images read from %d files", s.Len(), len(parts))
		}
	})
}

// detectSeeds is one small input of every format that detection tells apart.
var detectSeeds = []string{
	"a,b,label\n1,2,x\n3,4,y\n",
	"a\tb\n1\t2\n",
	"1 2 3\n4 5 6\n",
	"% c\n@relation r\n@attribute a numeric\n@data\n1\n",
	"3\n# c\n1 2 3 A\n",
	"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n",
	"earn\tprofit rose sharply\nacq\tcompany buys company\n",
	"\x00\x00\x08\x02\x00\x00\x00\x01\x00\x00\x00\x02\x07\x09",
}

// FuzzReadDetect: the format is chosen by content (the name has no extension).
func FuzzReadDetect(f *testing.F) {
	for _, s := range detectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, "fuzz", Options{})
	})
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// FuzzReadGzip: gzip'd input of every format, detected by its magic bytes. The allocation bound
// is taken on the decompressed size (deflate expands up to ~1000×; that is backed by the
// stream, not a declared size).
func FuzzReadGzip(f *testing.F) {
	for _, s := range detectSeeds {
		f.Add(gzipped([]byte(s)))
	}
	f.Add(gzipped([]byte("%%MatrixMarket matrix array real general\n16384 16384\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		size := len(data)
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			n, _ := io.Copy(io.Discard, io.LimitReader(zr, 1<<24))
			if n == 1<<24 {
				return // a bomb beyond what one fuzz input should cost
			}
			size = max(size, int(n))
		}
		var err error
		var s *Set
		opt := Options{MaxMatrixBytes: fuzzBudget}
		checkAlloc(t, size, func() { s, err = Read(bytes.NewReader(data), "fuzz", opt) })
		if err != nil {
			checkError(t, err, "fuzz")
			return
		}
		checkInvariants(t, s)
	})
}

// FuzzLoadStdin: Load("-") reads standard input (here a file holding the input).
func FuzzLoadStdin(f *testing.F) {
	for _, s := range detectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		old := os.Stdin
		os.Stdin = in
		defer func() { os.Stdin = old }()
		var s *Set
		checkAlloc(t, len(data), func() { s, err = Load("-", Options{MaxMatrixBytes: fuzzBudget}) })
		if err != nil {
			checkError(t, err, "stdin")
			return
		}
		checkInvariants(t, s)
	})
}

// FuzzSquaredDistances: a distance matrix read as a CSV table (as `lowdim -distances` does)
// either fails with ErrInvalid or gives finite, non-negative, symmetric squares with a zero
// diagonal.
func FuzzSquaredDistances(f *testing.F) {
	for _, s := range []string{
		"0,1,2\n1,0,1\n2,1,0\n",
		"a,b\n0,3\n3,0\n",
		"0,1e-12\n0,0\n",
		"0,1e200\n1e200,0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := fuzzRead(t, data, "fuzz.csv", Options{Format: "csv", NoLabel: true})
		if s == nil {
			return
		}
		sq, n, err := SquaredDistances("fuzz", s.X)
		if err != nil {
			checkError(t, err, "fuzz")
			return
		}
		if n != s.Len() || len(sq) != n*n {
			t.Fatalf("%d squares for n = %d from %d rows", len(sq), n, s.Len())
		}
		for i := range n {
			if sq[i*n+i] != 0 {
				t.Fatalf("diagonal %v", sq[i*n+i])
			}
			for j := range n {
				if v := sq[i*n+j]; !(v >= 0) || math.IsInf(v, 0) || v != sq[j*n+i] {
					t.Fatalf("square (%d,%d) = %v, (%d,%d) = %v", i, j, v, j, i, sq[j*n+i])
				}
			}
		}
	})
}
