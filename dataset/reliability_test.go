package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The reliability group of issue 18 (items 1 and 2): inputs that crashed a reader, took
// memory their bytes did not back, or changed a value. Each must now be an error located in
// its file — or, for the CSV row, the value as written — at a small allocation.

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc delta).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// wantParseError fails t unless err is a *ParseError of file name whose message holds want.
func wantParseError(t *testing.T, err error, name, want string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != name || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v: want a ParseError of %s containing %q", err, name, want)
	}
}

// TestReliabilityLabelText80GB: 100,000 one-word documents with 100,000 distinct words are a
// 0.9 MB file whose dense counts would take 100,000² × 8 B = 80 GB (74.5 GiB). The reader must
// refuse before making them; it may hold the file's words (a few tens of MB), not the matrix.
func TestReliabilityLabelText80GB(t *testing.T) {
	var b bytes.Buffer
	for i := range 100_000 {
		fmt.Fprintf(&b, "c%d\tw%05d\n", i%2, i)
	}
	var err error
	got := allocated(func() { _, err = Read(bytes.NewReader(b.Bytes()), "big.txt", Options{Format: "labeltext"}) })
	wantParseError(t, err, "big.txt", "100000×100000 documents × words = 80000000000 bytes (74.5 GiB)")
	t.Logf("%d-byte file refused after allocating %.1f MB", b.Len(), float64(got)/1e6)
	if got > 128<<20 {
		t.Errorf("refusing a %d-byte file allocated %d MB (limit 128 MB)", b.Len(), got>>20)
	}
}

// TestReliabilityMTXHeader16384: a Matrix Market header declaring a 16384×16384 dense array
// (2^28 values, exactly the 2 GiB budget) and no values is "expected 268435456 values, found 0"
// after allocating almost nothing; so are a coordinate header promising 2^28 entries and a dense
// size over the budget (refused from the header alone).
func TestReliabilityMTXHeader16384(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"%%MatrixMarket matrix array real general\n16384 16384\n", "expected 268435456 values, found 0"},
		{"%%MatrixMarket matrix coordinate real general\n16384 16384 268435456\n1 1 1\n", "expected 268435456 entries, found 1"},
		{"%%MatrixMarket matrix array real general\n16385 16384\n", "found 16384×16385 documents × terms = 2147614720 bytes (2.0 GiB)"},
		{"%%MatrixMarket matrix coordinate real general\n9223372036854775807 9223372036854775807 1\n1 1 1\n", "documents × terms"},
	} {
		var err error
		got := allocated(func() { _, err = Read(strings.NewReader(c.text), "big.mtx", Options{}) })
		wantParseError(t, err, "big.mtx", c.want)
		t.Logf("%q: %d bytes allocated", c.text, got)
		if got > 1<<20 {
			t.Errorf("%q: allocated %d bytes before failing (limit 1 MiB)", c.text, got)
		}
	}
}

// TestReliabilityPGMSizeOverflow: a PGM header whose width × height overflows int (2^62 × 2)
// panicked in make; it is now a located error, as is one whose product merely exceeds the file.
func TestReliabilityPGMSizeOverflow(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "s1"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ header, want string }{
		{"P5\n4611686018427387904 2\n255\n", "expected 4611686018427387904×2×1 bytes of pixels, found 1"},
		{"P5\n3 3\n65535\n", "expected 18 bytes of pixels, found 1"},
	} {
		path := filepath.Join(dir, "s1", "1.pgm")
		if err := os.WriteFile(path, []byte(c.header+"\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir, Options{})
		wantParseError(t, err, path, c.want)
	}
}

// TestReliabilityCSVNumericFirstRow: "1,2,00" looked like scikit-learn's "n,H,class…" line, so
// it became a header and the class "00" came back from the written CSV as "0". A first row of
// numbers is data.
func TestReliabilityCSVNumericFirstRow(t *testing.T) {
	s, err := Read(strings.NewReader("1,2,00\n0,0,0"), "first.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 || s.Dim() != 3 || s.HasLabels() || s.X.At(0, 2) != 0 {
		t.Fatalf("%d×%d, labels %v, rows %v", s.Len(), s.Dim(), s.HasLabels(), rows(s))
	}
	// Text class names still make the scikit-learn layout (iris.csv's first line).
	s, err = Read(strings.NewReader("2,1,setosa,versicolor\n5.1,0\n4.9,1\n"), "iris.csv", Options{})
	if err != nil || !s.HasLabels() || labelNames(s)[1] != "versicolor" {
		t.Fatalf("scikit-learn layout: %v %v", labelNames(s), err)
	}
}

// TestReliabilityARFFSparseBudget: sparse rows "{}" are 3 bytes that each make a row of every
// one-hot column; the matrix is held to Options.MaxMatrixBytes as it grows: 1 MiB holds 131
// rows of 1000 columns (the last attribute is the numeric target), so row 132, line 136, fails.
func TestReliabilityARFFSparseBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("@relation r\n@attribute a {")
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "v%d", i)
	}
	b.WriteString("}\n@attribute x numeric\n@data\n")
	for range 1000 {
		b.WriteString("{}\n")
	}
	var err error
	got := allocated(func() {
		_, err = Read(strings.NewReader(b.String()), "sparse.arff", Options{MaxMatrixBytes: 1 << 20})
	})
	wantParseError(t, err, "sparse.arff", "sparse.arff:136: expected a matrix of at most 1.0 MiB (Options.MaxMatrixBytes; Options.Drop leaves attributes out), found 132×1000 rows × columns = 1056000 bytes")
	// Growing by append allocates about twice the final matrix in all; the rest is parsing.
	if got > 8<<20 {
		t.Errorf("allocated %d bytes for a 1 MiB budget (limit 8 MiB)", got)
	}
}

// TestReliabilityGzipAndDistances: a corrupt gzip stream is an error naming the file (it was a
// bare "gzip: unexpected EOF"), and a distance whose square overflows is refused (it gave +Inf).
func TestReliabilityGzipAndDistances(t *testing.T) {
	_, err := Read(bytes.NewReader(gzipped([]byte("1,2\n3,4\n"))[:20]), "cut.csv.gz", Options{})
	wantParseError(t, err, "cut.csv.gz", "expected a whole gzip stream")
	s, err := Read(strings.NewReader("0,1e200\n1e200,0\n"), "d.csv", Options{NoLabel: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := SquaredDistances("test", s.X); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("distance 1e200: %v", err)
	}
}

// TestReliabilityDetectAfterBlankLines: detection looked at the first 8 lines, blank or not, so
// eight blank lines before "0" made an input no reader was tried on (FuzzReadPosteriors find);
// it now sniffs the first 8 non-blank lines.
func TestReliabilityDetectAfterBlankLines(t *testing.T) {
	s, err := Read(strings.NewReader("\n\n\n\n\n\n\n\n0\n"), "blank", Options{})
	if err != nil || s.Len() != 1 || s.Dim() != 1 {
		t.Fatalf("%v %v", s, err)
	}
}
