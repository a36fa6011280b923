package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// streamCSV reads data as a Stream in blocks of rows and writes its features as an "embedding"
// CSV (header once, then each block's rows): the bytes WriteEmbeddingCSV writes for Read's Set
// when the two agree. It returns what was written before an error, and the error.
func streamCSV(t *testing.T, data []byte, name string, opt Options, rows int) ([]byte, *Stream, error) {
	t.Helper()
	s, err := NewStream(bytes.NewReader(data), name, opt)
	if err != nil {
		return nil, nil, err
	}
	var out []byte
	var b Block
	header := false
	for {
		if err := s.Next(&b, rows); err == io.EOF {
			if !header { // every row dropped for missing values (package stream says so too)
				return out, s, &ParseError{File: name, Expected: "at least one row without missing values", Found: "none"}
			}
			return out, s, nil
		} else if err != nil {
			return out, s, err
		}
		d, err := s.Parse(&b)
		if d != nil {
			if !header {
				out = AppendEmbeddingHeader(out, d.Dim(), s.Labelled(), s.Named())
				header = true
			}
			var aerr error
			if out, aerr = AppendEmbeddingRows(out, d.X, d, s.Labelled(), s.Named()); aerr != nil {
				t.Fatal(aerr)
			}
			for i, l := range d.Lines {
				if l < b.FirstLine || i > 0 && l <= d.Lines[i-1] {
					t.Fatalf("row %d of a block from line %d has line %d", i, b.FirstLine, l)
				}
			}
		}
		if err != nil {
			return out, s, err
		}
	}
}

// readCSV is the in-memory path: Read, then WriteEmbeddingCSV of the features.
func readCSV(t *testing.T, data []byte, name string, opt Options) ([]byte, error) {
	t.Helper()
	d, err := Read(bytes.NewReader(data), name, opt)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := WriteEmbeddingCSV(&buf, d.X, d); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), nil
}

func digitsCSV(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open("digits.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A streamed table gives the bytes of the in-memory path, whatever the block size, for the
// table shapes Read accepts.
func TestStreamEqualsRead(t *testing.T) {
	digits := digitsCSV(t)
	cases := []struct {
		name, file string
		data       string
		opt        Options
	}{
		{"digits", "d.csv", string(digits), Options{Label: "last"}},
		{"digits unlabelled", "d.csv", string(digits), Options{Label: "last", NoLabel: true}},
		{"header and label by name", "h.csv", "a,b,class\n1,2,x\n3,4,y\n\n5,6,x\n", Options{}},
		{"numeric labels in long form", "n.csv", "a,b,label\n1,2,6.000\n3,4,06\n5,6,?\n7,8,1e1\n", Options{}},
		{"quotes, blanks, CRLF", "q.csv", "\"a\",\" b \",label\r\n 1 , 2 ,\"x, y\"\r\n\r\n3,4,\"say \"\"hi\"\"\"\r\n5,\t6,z", Options{}},
		{"tsv", "t.tsv", "x1\tx2\tclass\n1\t2\ta\n-1.5\t2e3\tb\n", Options{}},
		{"white space", "w.dat", "1 2 3\n  4\t5 6 \n7 8 9\n", Options{Label: "first"}},
		{"drop and label first", "d2.csv", "id,a,b,c\nr1,1,2,3\nr2,4,5,6\n", Options{Drop: []string{"id"}, Label: "c"}},
		{"scikit-learn layout", "s.csv", "3,2,setosa,versicolor\n1,2,0\n3,4,1\n5,6,1\n", Options{}},
		{"missing dropped", "m.csv", "a,b\n1,2\n?,3\n4,\n5,6\nNaN,1\n", Options{Missing: "drop"}},
		{"no header", "nh.csv", "1,2\n3,4\n", Options{Header: "no"}},
		{"header yes", "hy.csv", "1,2\n3,4\n5,6\n", Options{Header: "yes"}},
		{"strconv-only numbers", "x.csv", "a,b\n0x1p-2,1_0\n12345678901234567890,1e300\n", Options{}},
	}
	for _, tc := range cases {
		want, werr := readCSV(t, []byte(tc.data), tc.file, tc.opt)
		for _, rows := range []int{1, 2, 3, 1000} {
			got, _, err := streamCSV(t, []byte(tc.data), tc.file, tc.opt, rows)
			if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Errorf("%s, blocks of %d: error %v, Read: %v", tc.name, rows, err, werr)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, blocks of %d:\n%s\nRead:\n%s", tc.name, rows, got, want)
			}
		}
	}
}

// Bad input part way: the same error as Read, after the rows before the bad line.
func TestStreamBadRow(t *testing.T) {
	good := "a,b,label\n1,2,x\n3,4,y\n5,6,x\n"
	for _, tc := range []struct{ bad, err string }{
		{"7,8\n", "b.csv:5:3: expected 3 fields, found 2"},
		{"7,8,x,9\n", "b.csv:5:4: expected 3 fields, found 4"},
		{"7,eight,x\n", `b.csv:5:2: expected a number, found "eight"`},
		{"7,NaN,x\n", `b.csv:5:2: expected a finite number (set Missing to "drop" or "mean"), found "NaN"`},
		{"7,\"8,x\n", "b.csv:5:2: expected a closing quote, found end of line"},
	} {
		data := []byte(good + tc.bad + "9,10,y\n")
		_, rerr := Read(bytes.NewReader(data), "b.csv", Options{})
		if rerr == nil || rerr.Error() != tc.err {
			t.Fatalf("Read: %v, want %s", rerr, tc.err)
		}
		for _, rows := range []int{1, 3, 4, 100} {
			got, _, err := streamCSV(t, data, "b.csv", Options{}, rows)
			var perr *ParseError
			if !errors.As(err, &perr) || err.Error() != tc.err {
				t.Errorf("blocks of %d: %v, want %s", rows, err, tc.err)
			}
			want, _ := readCSV(t, []byte(good), "b.csv", Options{})
			if !bytes.Equal(got, want) {
				t.Errorf("blocks of %d: wrote\n%s\nwant the rows before the bad line\n%s", rows, got, want)
			}
		}
	}
	// The row count scikit-learn's first line promises is checked at the end.
	_, _, err := streamCSV(t, []byte("3,2,a,b\n1,2,0\n3,4,1\n"), "s.csv", Options{}, 1)
	if err == nil || !strings.Contains(err.Error(), "expected 3 data rows as the first line says, found 2") {
		t.Errorf("short scikit-learn layout: %v", err)
	}
	for _, empty := range []string{"", "a,b\n", "\n\n"} {
		if _, _, err := streamCSV(t, []byte(empty), "e.csv", Options{}, 1); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want invalid input", empty, err)
		}
	}
}

// Formats that cannot be streamed, and Missing "mean", are read whole and handed out in blocks.
func TestStreamWholeSet(t *testing.T) {
	arff := "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute c {x,y}\n@data\n1,2,x\n3,4,y\n5,6,x\n"
	for _, tc := range []struct {
		name, data string
		opt        Options
	}{
		{"r.arff", arff, Options{}},
		{"m.csv", "a,b\n1,?\n3,4\n5,6\n", Options{Missing: "mean"}},
	} {
		want, err := readCSV(t, []byte(tc.data), tc.name, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		got, s, err := streamCSV(t, []byte(tc.data), tc.name, tc.opt, 2)
		if err != nil || s.Streamed() || !bytes.Equal(got, want) {
			t.Errorf("%s: streamed %v, err %v\n%s\nwant\n%s", tc.name, s.Streamed(), err, got, want)
		}
	}
}

// BenchmarkStreamParse parses blocks of 2048 MNIST-like CSV rows (784 pixels, about 19% of them
// non-zero, 1…255): the per-row cost of reading that bounds a streaming transform.
func BenchmarkStreamParse(b *testing.B) {
	var data []byte
	for j := range 784 {
		if j > 0 {
			data = append(data, ',')
		}
		data = append(data, fmt.Sprintf("x%d", j+1)...)
	}
	data = append(data, '\n')
	rng := rand.New(rand.NewPCG(1, 19))
	for range 2048 {
		for j := range 784 {
			if j > 0 {
				data = append(data, ',')
			}
			v := 0
			if rng.Float64() < 0.19 {
				v = 1 + rng.IntN(255)
			}
			data = strconv.AppendInt(data, int64(v), 10)
		}
		data = append(data, '\n')
	}
	s, err := NewStream(bytes.NewReader(data), "b.csv", Options{})
	if err != nil {
		b.Fatal(err)
	}
	var blk Block
	if err := s.Next(&blk, 2048); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(blk.data)))
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := s.Parse(&blk); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time is what the wall time would be on an idle core (the machine is shared).
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*2048), "cpu-ns/row")
}

// FuzzStream: whatever the input, a Stream fails where Read fails (with an invalid-input error
// naming the file) and otherwise writes Read's bytes, in blocks of any size. Labels are left out
// (NoLabel): a column mixing numbers in long form with text is where the two may differ by design.
func FuzzStream(f *testing.F) {
	f.Add([]byte("a,b,label\n1,2,x\n3,4,y\n"), uint8(0))
	f.Add([]byte("1 2\n3 4\n\n5 6\n"), uint8(1))
	f.Add([]byte("x\ty\n1\t?\n2\t3\n"), uint8(6))
	f.Add([]byte("\"a\",b\r\n1,\" 2\"\r\n0,0,0,0,0\n"), uint8(3))
	f.Add([]byte("3,2,p,q\n0,0,0,0,0\n1,1,1\n2,2,0\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := Options{NoLabel: true, MaxMatrixBytes: fuzzBudget}
		if mode&1 != 0 {
			opt.Missing = "drop"
		}
		opt.Header = []string{"auto", "yes", "no", "auto"}[mode>>1&3]
		rows := 1 + int(mode>>3)
		want, rerr := readCSV(t, data, "f.csv", opt)
		got, s, err := streamCSV(t, data, "f.csv", opt, rows)
		if rerr != nil {
			if err == nil {
				t.Fatalf("Read: %v; the stream succeeded", rerr)
			}
			checkError(t, err, "f.csv")
			return
		}
		if s != nil && !s.Streamed() {
			return // not a table: read whole by Read itself
		}
		if err != nil {
			t.Fatalf("Read succeeded; the stream: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("stream\n%q\nRead\n%q", got, want)
		}
	})
}
