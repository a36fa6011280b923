package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lowdim/lowdim/internal/shared"
)

// fuzzBudget is the Options.MaxMatrixBytes of every fuzzed read: a matrix that can outgrow its
// input stops at 1 MiB, so that each input costs little and the refusal itself is fuzzed.
const fuzzBudget = 1 << 20

// allocSlack and allocPerByte bound what one read may allocate: a fixed 2 MiB (bufio and gzip
// buffers, the budget above) plus 256 bytes per input byte (a one-byte field becomes a float64,
// a two-byte word a map entry, an index and a count — about 150 bytes — and slices double).
// The defects of issue 18 asked for 80,000 bytes per input byte.
const (
	allocSlack   = 2 << 20
	allocPerByte = 256
)

// checkAlloc fails t when read allocated more than the bound for an input of size bytes.
func checkAlloc(t *testing.T, size int, read func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(allocSlack+allocPerByte*size); got > limit {
		t.Fatalf("%d input bytes allocated %d bytes (limit %d)", size, got, limit)
	}
}

// fuzzRead reads data as a file called name, within the allocation bound, and checks the
// outcome: an error wraps ErrInvalid and names the file (a bytes.Reader never fails by
// itself), a Set passes checkInvariants.
func fuzzRead(t *testing.T, data []byte, name string, opt Options) *Set {
	t.Helper()
	opt.MaxMatrixBytes = fuzzBudget
	var s *Set
	var err error
	checkAlloc(t, len(data), func() { s, err = Read(bytes.NewReader(data), name, opt) })
	if err != nil {
		checkError(t, err, name)
		return nil
	}
	checkInvariants(t, s)
	return s
}

// checkError: every failure caused by the input wraps ErrInvalid and names the file.
func checkError(t *testing.T, err error, name string) {
	t.Helper()
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %q does not wrap ErrInvalid", err)
	}
	if !strings.Contains(err.Error(), name) {
		t.Fatalf("error %q does not name the file %s", err, name)
	}
}

// sharedHead returns the first max bytes of a staged file under ../shared/data (gunzipped when
// rel ends in .gz, cut after the last whole line when lines is set), or nil when it is absent.
func sharedHead(rel string, max int, lines bool) []byte {
	dir, err := shared.Dir()
	if err != nil {
		return nil
	}
	f, err := os.Open(filepath.Join(dir, "data", filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(rel, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil
		}
		r = zr
	}
	b, _ := io.ReadAll(io.LimitReader(r, int64(max)))
	if lines {
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			b = b[:i+1]
		}
	}
	return b
}

// addShared adds the heads of staged files as seeds (nothing when ../shared is absent).
func addShared(f *testing.F, max int, rels ...string) {
	for _, rel := range rels {
		if b := sharedHead(rel, max, true); len(b) > 0 {
			f.Add(b)
		}
	}
}

// checkInvariants holds for any Set a reader returns.
func checkInvariants(t *testing.T, s *Set) {
	t.Helper()
	n, h := s.Len(), s.Dim()
	if n == 0 || h == 0 {
		t.Fatalf("empty set %d×%d returned without error", n, h)
	}
	if s.Labels != nil {
		if len(s.Labels) != n {
			t.Fatalf("%d labels for %d rows", len(s.Labels), n)
		}
		for _, l := range s.Labels {
			if l < -1 || l >= len(s.ClassNames) {
				t.Fatalf("label %d outside 0..%d", l, len(s.ClassNames)-1)
			}
		}
	}
	if s.Target != nil && len(s.Target) != n {
		t.Fatalf("%d targets for %d rows", len(s.Target), n)
	}
	if s.FeatureNames != nil && len(s.FeatureNames) != h {
		t.Fatalf("%d feature names for %d features", len(s.FeatureNames), h)
	}
	if s.RowNames != nil && len(s.RowNames) != n {
		t.Fatalf("%d row names for %d rows", len(s.RowNames), n)
	}
	// Missing values are refused, dropped or imputed: no policy leaves a NaN or ±Inf.
	for i := range n {
		for j, v := range s.X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("X[%d,%d] = %v", i, j, v)
			}
		}
	}
}

// roundTripCSV writes s as CSV and reads it back: the same values, labels and class names.
func roundTripCSV(t *testing.T, s *Set) {
	t.Helper()
	for _, n := range s.FeatureNames {
		if strings.EqualFold(n, "label") || strings.EqualFold(n, "class") {
			return // a second label-named column: ambiguous on the way back
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, s); err != nil {
		t.Fatalf("WriteCSV: %v", err)
	}
	back, err := Read(&buf, "back.csv", Options{Format: "csv", Header: "yes"})
	if err != nil {
		t.Fatalf("reading back %q: %v", buf.String(), err)
	}
	sameSet(t, "CSV", s, back)
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,label\n1,2,x\n3,4,y\n",
		"1,2\n3,4\n",
		"150,2,setosa,versicolor\n1,2,0\n3,4,1\n",
		"\"a, b\",c\r\n1,\"2\"\r\n",
		"label,x\n6.0000,1\n6,2\n",
		"a,b\n1,?\n",
	} {
		f.Add([]byte(s))
	}
	addShared(f, 2048, "sklearn_small/iris.csv", "sklearn_small/wine_data.csv", "letter/letter-recognition.data")
	f.Fuzz(func(t *testing.T, data []byte) {
		if s := fuzzRead(t, data, "fuzz.csv", Options{Format: "csv"}); s != nil {
			roundTripCSV(t, s)
		}
	})
}

// FuzzReadTSV: tab-separated tables, with the CSV round trip.
func FuzzReadTSV(f *testing.F) {
	for _, s := range []string{
		"a\tb\tlabel\n1\t2\tx\n3\t4\ty\n",
		"1\t2\n3\t4\n",
		"x\t\ty\n1\t?\t2\n",
		"\"a\tb\"\tc\r\n1\t2\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{Format: "tsv"}, {Format: "tsv", Missing: "mean", Label: "last"}} {
			if s := fuzzRead(t, data, "fuzz.tsv", opt); s != nil && opt.Missing == "" {
				roundTripCSV(t, s)
			}
		}
	})
}

// FuzzReadWS: white-space tables (USPS, satimage, yeast), with the CSV round trip.
func FuzzReadWS(f *testing.F) {
	for _, s := range []string{
		"6.0000 -1 0.5\n3.0000 1 -0.25\n",
		"a b label\n1 2 x\n\t3   4 y \n",
		"1 2 ? 4\n5 6 7 8\n",
	} {
		f.Add([]byte(s))
	}
	addShared(f, 2048, "usps/zip.train.gz", "satimage/sat.trn", "yeast/yeast.data", "optdigits/optdigits.tra")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{Format: "ws", Label: "first"}, {Format: "ws", Missing: "drop"}} {
			if s := fuzzRead(t, data, "fuzz.txt", opt); s != nil && opt.Missing == "" {
				roundTripCSV(t, s)
			}
		}
	})
}

func FuzzReadARFF(f *testing.F) {
	for _, s := range []string{
		"@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\n2,y\n",
		"@RELATION 'q r'\r\n@ATTRIBUTE 'a b' REAL\r\n@ATTRIBUTE t {'>=60', '<30'}\r\n@DATA\r\n1.5, '>=60'\r\n",
		"% c\n@relation r\n@attribute a numeric\n@attribute y numeric\n@data\n1, 2\n{0 3, 1 4}\n",
		"@relation r\n@attribute s string\n@attribute a integer\n@attribute c {p,q}\n@data\n'x y',1,p\n",
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte("@relation r\n@attribute a {p,q,r,s,t,u,v,w}\n@attribute b numeric\n@data\n{}\n{}\n{1 2}\np,?\n"))
	addShared(f, 4096, "weka_arff/glass.arff", "weka_arff/hypothyroid.arff", "weka_arff/cpu.arff")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{Format: "arff"}, {Format: "arff", Missing: "mean"}} {
			fuzzRead(t, data, "fuzz.arff", opt)
		}
	})
}

func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes(0x08, []int{2, 2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	f.Add(idxBytes(0x0D, []int{1, 1}, []byte{0x3f, 0x80, 0, 0}))
	f.Add(idxBytes(0x0E, []int{1}, []byte{0x7f, 0xf0, 0, 0, 0, 0, 0, 0}))
	f.Add(idxBytes(0x0B, []int{1, 2}, []byte{0xff, 0xff, 0, 1}))
	if b := sharedHead("mnist/t10k-images-idx3-ubyte.gz", 16+2*784, false); len(b) == 16+2*784 {
		binary.BigEndian.PutUint32(b[4:], 2) // two images of the real file
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, "fuzz.idx", Options{Format: "idx"})
	})
}

func FuzzReadSOMPAK(f *testing.F) {
	for _, s := range []string{
		"3\n# c\n1 2 3 #\n4 5 6 &\n7 8 9\n",
		"2 hexa 4 3 bubble\n1 x A\n3 4 B\n",
		"1\n5 \\\n6 [\n",
	} {
		f.Add([]byte(s))
	}
	addShared(f, 2048, "phoneme_lvqpak/ex1.dat")
	f.Fuzz(func(t *testing.T, data []byte) {
		s := fuzzRead(t, data, "fuzz.dat", Options{Format: "sompak"})
		if s == nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteSOMPAK(&buf, s); err != nil {
			t.Fatalf("WriteSOMPAK: %v", err)
		}
		back, err := Read(&buf, "back.dat", Options{Format: "sompak"})
		if err != nil {
			t.Fatalf("reading back %q: %v", buf.String(), err)
		}
		sameSet(t, "SOM_PAK", s, back)
	})
}
