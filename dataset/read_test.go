package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func mustRead(t *testing.T, name, text string, opt Options) *Set {
	t.Helper()
	s, err := Read(strings.NewReader(text), name, opt)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return s
}

func rows(s *Set) [][]float64 {
	out := make([][]float64, s.Len())
	for i := range out {
		out[i] = append([]float64(nil), s.X.RawRowView(i)...)
	}
	return out
}

func labelNames(s *Set) []string {
	if s.Labels == nil {
		return nil
	}
	out := make([]string, len(s.Labels))
	for i := range out {
		out[i] = labelText(s, i)
	}
	return out
}

func TestReadTables(t *testing.T) {
	nan := math.NaN()
	_ = nan
	for _, c := range []struct {
		desc, name, text string
		opt              Options
		x                [][]float64
		features         []string
		classes          []string
		labels           []string // per row
		target           []float64
	}{
		{desc: "header with a class column found by name", name: "a.csv",
			text: "a,b,Class\n1,2,cat\n3,4,dog\n5,6,cat\n",
			x:    [][]float64{{1, 2}, {3, 4}, {5, 6}}, features: []string{"a", "b"},
			classes: []string{"cat", "dog"}, labels: []string{"cat", "dog", "cat"}},
		{desc: "numeric labels are normalised and ordered numerically", name: "a.csv",
			text: "label,x\n6.0000,1\n10,2\n6,3\n2.0,4\n",
			x:    [][]float64{{1}, {2}, {3}, {4}}, features: []string{"x"},
			classes: []string{"2", "6", "10"}, labels: []string{"6", "10", "6", "2"}, target: []float64{6, 10, 6, 2}},
		{desc: "no header, all numeric, no label", name: "a.csv",
			text: "1,2\n3,4\n", x: [][]float64{{1, 2}, {3, 4}}},
		{desc: "text label column first without header (letter)", name: "a.csv", opt: Options{Label: "first"},
			text: "T,2,8\nI,5,12\n", x: [][]float64{{2, 8}, {5, 12}}, classes: []string{"T", "I"}, labels: []string{"T", "I"}},
		{desc: "label by 1-based column number", name: "a.csv", opt: Options{Label: "2"},
			text: "1,a,2\n3,b,4\n", x: [][]float64{{1, 2}, {3, 4}}, classes: []string{"a", "b"}, labels: []string{"a", "b"}},
		{desc: "Header yes keeps a numeric-looking header", name: "a.csv", opt: Options{Header: "yes"},
			text: "1,2\n3,4\n", x: [][]float64{{3, 4}}, features: []string{"1", "2"}},
		{desc: "Header no", name: "a.csv", opt: Options{Header: "no", Label: "last"},
			text: "a,b\n1,c\n", classes: []string{"b", "c"}, labels: []string{"b", "c"}, x: [][]float64{{nan}, {1}}},
		{desc: "CRLF, blank lines, spaces after commas, quoted fields", name: "a.csv",
			text: "\"x, 1\",y,label\r\n\r\n1, 2 ,\"a, b\"\r\n3,4,\"say \"\"hi\"\"\"\r\n",
			x:    [][]float64{{1, 2}, {3, 4}}, features: []string{"x, 1", "y"},
			classes: []string{"a, b", `say "hi"`}, labels: []string{"a, b", `say "hi"`}},
		{desc: "TSV with Drop by name", name: "a.tsv", opt: Options{Drop: []string{"id"}},
			text: "id\tv\tclass\nq1\t0.5\tA\nq2\t1.5\tB\n",
			x:    [][]float64{{0.5}, {1.5}}, features: []string{"v"}, classes: []string{"A", "B"}, labels: []string{"A", "B"}},
		{desc: "whitespace, label first, trailing spaces (USPS)", name: "zip.train", opt: Options{Label: "first"},
			text: "6.0000 -1.0000 0.5 \n1.0000  0.25\t-0.5 \n",
			x:    [][]float64{{-1, 0.5}, {0.25, -0.5}}, classes: []string{"1", "6"}, labels: []string{"6", "1"}, target: []float64{6, 1}},
		{desc: "whitespace, string id dropped, class last (yeast)", name: "yeast.data", opt: Options{Drop: []string{"1"}, Label: "last"},
			text: "ADT1_YEAST  0.58  0.61  MIT\nADT2_YEAST  0.43  0.67  NUC\n",
			x:    [][]float64{{0.58, 0.61}, {0.43, 0.67}}, classes: []string{"MIT", "NUC"}, labels: []string{"MIT", "NUC"}},
		{desc: "sklearn metadata first line", name: "iris.csv",
			text: "3,2,setosa,versicolor\n5.1,3.5,0\n4.9,3.0,1\n6.0,2.0,0\n",
			x:    [][]float64{{5.1, 3.5}, {4.9, 3}, {6, 2}}, classes: []string{"setosa", "versicolor"},
			labels: []string{"setosa", "versicolor", "setosa"}},
		{desc: "missing values dropped", name: "a.csv", opt: Options{Missing: "drop"},
			text: "a,b\n1,?\n2,3\n,4\n5,NaN\n6,7\n", x: [][]float64{{2, 3}, {6, 7}}, features: []string{"a", "b"}},
		{desc: "missing values imputed with the column mean", name: "a.csv", opt: Options{Missing: "mean"},
			text: "a,b\n1,?\n2,3\nInf,5\n", x: [][]float64{{1, 4}, {2, 3}, {1.5, 5}}, features: []string{"a", "b"}},
		{desc: "unknown labels", name: "a.csv",
			text: "x,label\n1,?\n2,a\n3,\n", x: [][]float64{{1}, {2}, {3}}, features: []string{"x"},
			classes: []string{"a"}, labels: []string{"?", "a", "?"}},
		{desc: "NoLabel drops the label column and labels", name: "a.csv", opt: Options{NoLabel: true},
			text: "x,label\n1,a\n2,b\n", x: [][]float64{{1}, {2}}, features: []string{"x"}},
	} {
		t.Run(c.desc, func(t *testing.T) {
			if c.desc == "Header no" {
				// "a" in a numeric column: an error, not a silent NaN.
				_, err := Read(strings.NewReader(c.text), c.name, c.opt)
				if err == nil || !strings.Contains(err.Error(), `a.csv:1:1: expected a number, found "a"`) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			s := mustRead(t, c.name, c.text, c.opt)
			if got := rows(s); !reflect.DeepEqual(got, c.x) {
				t.Errorf("X = %v, want %v", got, c.x)
			}
			if !reflect.DeepEqual(s.FeatureNames, c.features) {
				t.Errorf("FeatureNames = %q, want %q", s.FeatureNames, c.features)
			}
			if c.classes != nil && !reflect.DeepEqual(s.ClassNames, c.classes) {
				t.Errorf("ClassNames = %q, want %q", s.ClassNames, c.classes)
			}
			if got := labelNames(s); !reflect.DeepEqual(got, c.labels) {
				t.Errorf("labels = %q, want %q", got, c.labels)
			}
			if !reflect.DeepEqual(s.Target, c.target) {
				t.Errorf("Target = %v, want %v", s.Target, c.target)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opt        Options
		want       string
	}{
		{"a.csv", "a,b,c\n1,2,3\n4,5\n", Options{}, "a.csv:3:3: expected 3 fields, found 2"},
		{"a.csv", "a,b\n1,2\n3,4,5\n", Options{}, "a.csv:3:3: expected 2 fields, found 3"},
		{"a.csv", "a,b\n1,2\n3,abc\n", Options{}, `a.csv:3:2: expected a number, found "abc"`},
		{"a.csv", "a,b\n1,NaN\n", Options{}, `a.csv:2:2: expected a finite number (set Missing to "drop" or "mean"), found "NaN"`},
		{"a.csv", "a,b\n1,?\n", Options{}, `a.csv:2:2: expected a finite number (set Missing to "drop" or "mean"), found "?"`},
		{"a.csv", "a,b\n1,2\n", Options{Label: "foo"}, `a.csv:1: expected a column named "foo", found columns a, b`},
		{"a.csv", "1,2\n", Options{Drop: []string{"7"}}, `a.csv:1: expected a column named "7" to drop, found 2 unnamed columns (no header)`},
		{"a.csv", "", Options{}, "a.csv: expected at least one data row, found empty input"},
		{"a.csv", "a,b\n", Options{}, "a.csv: expected at least one data row, found none"},
		{"x", "\n\n", Options{}, "x: expected at least one data row, found empty input"},
		{"a.csv", "a\n1\n", Options{Format: "xls"}, `a.csv: unknown format "xls"`},
		{"a.csv", "a,b\n\"1,2\n", Options{}, "a.csv:2:1: expected a closing quote, found end of line"},
		{"a.csv", "a\n1\n", Options{Missing: "zero"}, `expected Missing "error", "drop" or "mean", found "zero"`},
		{"a.csv", "a,b\n?,1\n?,2\n", Options{Missing: "mean"}, `a.csv: expected a value somewhere in feature "a" to impute its mean (or Drop it), found only missing values`},
		{"a.csv", "3,1,a\n1,0\n", Options{}, "a.csv:2: expected 3 data rows as the first line says, found 1"},
		{"a.sompak", "2\n1 2 A\n1 2 3 4\n", Options{Format: "sompak"}, "a.sompak:3:4: expected 2 fields (2 numbers and an optional label), found 4"},
		{"a.sompak", "# only a comment\n", Options{Format: "sompak"}, "expected the dimension line and at least one data row"},
		{"a.sompak", "two\n1 2\n", Options{Format: "sompak"}, `a.sompak:1:1: expected the dimension (a positive integer) on the first line, found "two"`},
		{"a.arff", "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,z\n", Options{}, `a.arff:5:2: expected one of {x, y}, found "z"`},
		{"a.arff", "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1\n", Options{}, "a.arff:5:2: expected 2 values, found 1"},
		{"a.arff", "@relation r\n@attribute a numeric\n", Options{}, "a.arff:2: expected an @data line, found end of file"},
		{"a.arff", "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n?,x\n", Options{}, `a.arff:5:1: expected a value (set Missing to "drop" or "mean"), found "?"`},
		{"a.arff", "@relation r\n@attribute a blob\n@data\n", Options{}, `a.arff:2: expected an attribute type`},
		{"a.arff", "@relation r\n@attribute a numeric\n@data\n1\n", Options{Label: "b"}, `a.arff: expected an attribute named "b", found columns a`},
		{"r.txt", "earn\tsome words\nno tab here\n", Options{Format: "labeltext"}, `r.txt:2:1: expected label<TAB>text, found "no tab here"`},
	} {
		_, err := Read(strings.NewReader(c.text), c.name, c.opt)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.text, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.text, err, c.want)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: error %v does not wrap ErrInvalid", c.text, err)
		}
	}
	var pe *ParseError
	_, err := Read(strings.NewReader("a,b\n1,2\n3,x\n"), "f.csv", Options{})
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Column != 2 {
		t.Errorf("ParseError = %#v", pe)
	}
}

func TestReadARFF(t *testing.T) {
	const text = "% comment\r\n\r\n@RELATION 'test rel'\r\n" +
		"@ATTRIBUTE 'width cm' REAL\r\n" +
		"@attribute colour { red, 'dark blue',green}\r\n" +
		"% a comment inside the header\r\n" +
		"@attribute n integer\r\n" +
		"@attribute class {'>=60', '<30'}\r\n" +
		"@DATA\r\n" +
		"1.5, red, 3, '>=60'\r\n" +
		"% comment in the data\r\n" +
		"2.5,'dark blue',?,'<30'\r\n" +
		"{0 3.5, 1 green, 3 '<30'}\r\n"
	s := mustRead(t, "t.arff", text, Options{Missing: "mean"})
	want := [][]float64{
		{1.5, 1, 0, 0, 3},
		{2.5, 0, 1, 0, 1.5}, // n imputed: mean of 3 and the sparse row's 0
		{3.5, 0, 0, 1, 0},
	}
	if got := rows(s); !reflect.DeepEqual(got, want) {
		t.Errorf("X = %v, want %v", got, want)
	}
	wantNames := []string{"width cm", "colour=red", "colour=dark blue", "colour=green", "n"}
	if !reflect.DeepEqual(s.FeatureNames, wantNames) {
		t.Errorf("FeatureNames = %q", s.FeatureNames)
	}
	if got := labelNames(s); !reflect.DeepEqual(got, []string{">=60", "<30", "<30"}) || !reflect.DeepEqual(s.ClassNames, []string{">=60", "<30"}) {
		t.Errorf("labels %q classes %q", got, s.ClassNames)
	}
	// Numeric last attribute: a regression target, not classes.
	r := mustRead(t, "r.arff", "@relation r\n@attribute a numeric\n@attribute y numeric\n@data\n1,10.5\n2,20\n", Options{})
	if r.Labels != nil || !reflect.DeepEqual(r.Target, []float64{10.5, 20}) || r.Dim() != 1 {
		t.Errorf("regression: labels %v target %v dim %d", r.Labels, r.Target, r.Dim())
	}
	// Explicit numeric label: classes like CSV.
	r = mustRead(t, "r.arff", "@relation r\n@attribute a numeric\n@attribute y numeric\n@data\n1,2\n2,1.0\n", Options{Label: "y"})
	if !reflect.DeepEqual(r.ClassNames, []string{"1", "2"}) || !reflect.DeepEqual(labelNames(r), []string{"2", "1"}) {
		t.Errorf("explicit numeric label: %q %q", r.ClassNames, labelNames(r))
	}
	// A string attribute is skipped with a warning.
	var warned []string
	r = mustRead(t, "r.arff", "@relation r\n@attribute name string\n@attribute a numeric\n@attribute c {p,q}\n@data\n'x y',1,p\n'z',2,q\n",
		Options{Warn: func(m string) { warned = append(warned, m) }})
	if r.Dim() != 1 || len(warned) != 1 || !strings.Contains(warned[0], `"name"`) {
		t.Errorf("string attribute: dim %d, warnings %q", r.Dim(), warned)
	}
}

func TestReadSOMPAK(t *testing.T) {
	const text = "3\n# a comment\n1 2 3 #\n4 5 6 &\n#7 8 9 is a comment\n7 8 9\n1 x 2 \\\n"
	s := mustRead(t, "ex.dat", text, Options{Missing: "mean"})
	want := [][]float64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {1, 5, 2}}
	if got := rows(s); !reflect.DeepEqual(got, want) {
		t.Errorf("X = %v, want %v", got, want)
	}
	if got := labelNames(s); !reflect.DeepEqual(got, []string{"#", "&", "?", `\`}) {
		t.Errorf("labels = %q", got)
	}
	u := mustRead(t, "u.dat", "2 rect 4 3 bubble\n1 2\n3 4\n", Options{Format: "sompak"})
	if u.Labels != nil || u.Len() != 2 {
		t.Errorf("unlabelled SOM_PAK: %v, %d rows", u.Labels, u.Len())
	}
}

func TestReadLabelTextAndMTX(t *testing.T) {
	s := mustRead(t, "r8.txt", "earn\tb a b \nacq\tc a \n", Options{})
	if !reflect.DeepEqual(s.FeatureNames, []string{"a", "b", "c"}) || !reflect.DeepEqual(rows(s), [][]float64{{1, 2, 0}, {1, 0, 1}}) {
		t.Errorf("bag of words: %q %v", s.FeatureNames, rows(s))
	}
	s = mustRead(t, "r8.txt", "earn\tb a b \nacq\tc a \n", Options{MinDocFreq: 2})
	if !reflect.DeepEqual(s.FeatureNames, []string{"a"}) {
		t.Errorf("MinDocFreq 2: %q", s.FeatureNames)
	}
	// 3 terms × 2 docs, 1-based, transposed to docs × terms.
	m := mustRead(t, "m.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n3 2 3\n1 1 2.0\n3 1 1\n2 2 5\n", Options{})
	if !reflect.DeepEqual(rows(m), [][]float64{{2, 0, 1}, {0, 5, 0}}) {
		t.Errorf("mtx: %v", rows(m))
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "c.mtx")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("c.mtx", "%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 1\n2 2 1\n")
	write("c.terms", "ad\nsale\nwin\n")
	write("c.docs", "d1\nd2")
	write("c.classes", "%Clusters 2 biz,sport\n0 1\n1 0\n")
	c, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.FeatureNames, []string{"ad", "sale", "win"}) || !reflect.DeepEqual(c.RowNames, []string{"d1", "d2"}) ||
		!reflect.DeepEqual(labelNames(c), []string{"sport", "biz"}) {
		t.Errorf("side files: %q %q %q", c.FeatureNames, c.RowNames, labelNames(c))
	}
}

func TestLoadPGMDir(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct {
		path string
		px   []byte
	}{{"s10/1.pgm", []byte{9, 9}}, {"s2/1.pgm", []byte{1, 2}}, {"s2/10.pgm", []byte{5, 6}}, {"s2/2.pgm", []byte{3, 4}}} {
		p := filepath.Join(dir, f.path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		data := append([]byte("P5\n# comment\n2 1\n255\n"), f.px...)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows(s), [][]float64{{1, 2}, {3, 4}, {5, 6}, {9, 9}}) ||
		!reflect.DeepEqual(s.RowNames, []string{"s2/1.pgm", "s2/2.pgm", "s2/10.pgm", "s10/1.pgm"}) ||
		!reflect.DeepEqual(s.ClassNames, []string{"s2", "s10"}) {
		t.Errorf("pgmdir: %v %q %q", rows(s), s.RowNames, s.ClassNames)
	}
	os.WriteFile(filepath.Join(dir, "s2", "3.pgm"), []byte("P5\n2 1\n255\n\x01"), 0o644)
	if _, err := Load(dir, Options{}); err == nil || !strings.Contains(err.Error(), "expected 2 bytes of pixels, found 1") {
		t.Errorf("truncated PGM: %v", err)
	}
}

// idxBytes builds an IDX file: magic 0x0000TTDD, big-endian dims, payload.
func idxBytes(typ byte, dims []int, payload []byte) []byte {
	b := []byte{0, 0, typ, byte(len(dims))}
	for _, d := range dims {
		b = append(b, byte(d>>24), byte(d>>16), byte(d>>8), byte(d))
	}
	return append(b, payload...)
}

func TestIDX(t *testing.T) {
	images := idxBytes(0x08, []int{3, 2, 2}, []byte{0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	labels := idxBytes(0x08, []int{3}, []byte{7, 1, 7})
	s := mustRead(t, "img", string(images), Options{Format: "idx"})
	if !reflect.DeepEqual(rows(s), [][]float64{{0, 255, 1, 2}, {3, 4, 5, 6}, {7, 8, 9, 10}}) || s.Labels != nil {
		t.Errorf("IDX images: %v", rows(s))
	}
	dir := t.TempDir()
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	ip := filepath.Join(dir, "train-images-idx3-ubyte.gz")
	lp := filepath.Join(dir, "train-labels-idx1-ubyte") // uncompressed: still found
	os.WriteFile(ip, gz(images), 0o644)
	os.WriteFile(lp, labels, 0o644)
	for _, load := range []func() (*Set, error){
		func() (*Set, error) { return Load(ip, Options{}) },
		func() (*Set, error) { return LoadIDX(ip, lp) },
	} {
		s, err := load()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(labelNames(s), []string{"7", "1", "7"}) || !reflect.DeepEqual(s.ClassNames, []string{"1", "7"}) {
			t.Errorf("IDX labels %q classes %q", labelNames(s), s.ClassNames)
		}
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{images[:len(images)-1], "img: expected 12 bytes of data for dimensions 3×2×2, found 11 (truncated file)"},
		{images[:7], "img: expected 3 dimension sizes (12 bytes), found 3 bytes"},
		{[]byte{0, 0, 0x07, 1, 0, 0, 0, 1, 5}, "img: expected an IDX magic number"},
		{idxBytes(0x08, []int{0, 28}, nil), "img: expected at least one data row and one feature, found dimensions 0×28"},
		{idxBytes(0x08, []int{1 << 20, 1 << 20, 1 << 20}, nil), "expected at most 4294967296 elements"},
	} {
		_, err := Read(bytes.NewReader(c.data), "img", Options{Format: "idx"})
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	os.WriteFile(lp, idxBytes(0x08, []int{2}, []byte{1, 2}), 0o644)
	if _, err := Load(ip, Options{}); err == nil || !strings.Contains(err.Error(), "expected one label per image (dimensions 3), found dimensions 2") {
		t.Errorf("label count mismatch: %v", err)
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"x", "a,b\n1,2\n", "csv"},
		{"x", "a\tb\n1\t2\n", "tsv"},
		{"x", "1 2\n3 4\n", "ws"},
		{"x", "% c\n@relation r\n", "arff"},
		{"x", "20\n# c\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 A\n", "sompak"},
		{"x", "earn\tsome words here\n", "labeltext"},
		{"x", "%%MatrixMarket matrix coordinate real general\n", "mtx"},
		{"x", "\x00\x00\x08\x03", "idx"},
		{"a.arff.gz", "1,2", "arff"},
		{"t10k-images-idx3-ubyte.gz", "1,2", "idx"},
	} {
		got, err := detect(bufioReader(c.text), c.name, "")
		if err != nil || got != c.want {
			t.Errorf("detect(%q, %q) = %q, %v; want %q", c.name, c.text, got, err, c.want)
		}
	}
}

func TestGzipByMagic(t *testing.T) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte("a,b,label\n1,2,x\n"))
	w.Close()
	s, err := Read(&buf, "no-extension", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 || s.Dim() != 2 || s.ClassNames[0] != "x" {
		t.Errorf("gzip: %d×%d %q", s.Len(), s.Dim(), s.ClassNames)
	}
	bad := append([]byte(nil), 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3)
	if _, err := Read(bytes.NewReader(bad), "bad.gz", Options{}); err == nil || !errors.Is(err, ErrInvalid) {
		t.Errorf("corrupt gzip: %v", err)
	}
}

func TestDuplicates(t *testing.T) {
	var warned []string
	s := mustRead(t, "d.csv", "a,b\n1,2\n3,4\n1,2\n5,6\n3,4\n1,2\n-0,0\n0,0\n", Options{Warn: func(m string) { warned = append(warned, m) }})
	groups := DuplicateRows(s)
	if !reflect.DeepEqual(groups, [][]int{{0, 2, 5}, {1, 4}, {6, 7}}) {
		t.Errorf("groups = %v", groups)
	}
	want := "d.csv: 4 duplicate rows (first: rows 1 and 3); neighbour probabilities treat them as distance 0"
	if len(warned) != 1 || warned[0] != want {
		t.Errorf("warnings %q, want %q", warned, want)
	}
}

func TestSubset(t *testing.T) {
	s := mustRead(t, "a.csv", "x,label\n1,a\n2,b\n3,a\n", Options{})
	s.RowNames = []string{"r1", "r2", "r3"}
	s.Posteriors = mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 0})
	sub := s.Subset([]int{2, 0, 2})
	if !reflect.DeepEqual(rows(sub), [][]float64{{3}, {1}, {3}}) || !reflect.DeepEqual(labelNames(sub), []string{"a", "a", "a"}) ||
		!reflect.DeepEqual(sub.RowNames, []string{"r3", "r1", "r3"}) || sub.Posteriors.At(1, 0) != 1 {
		t.Errorf("Subset: %v %q %q", rows(sub), labelNames(sub), sub.RowNames)
	}
	sub.X.Set(0, 0, 99)
	if s.X.At(2, 0) != 3 {
		t.Error("Subset shares X with its source")
	}
}

func TestDigits(t *testing.T) {
	d := Digits()
	if d.Len() != 1797 || d.Dim() != 64 || len(d.ClassNames) != 10 || d.FeatureNames[9] != "pixel_1_1" {
		t.Fatalf("Digits: %d×%d, %d classes, %q", d.Len(), d.Dim(), len(d.ClassNames), d.FeatureNames[9])
	}
	// SOURCES.md §7: digit counts {0:178,1:182,2:177,3:183,4:181,5:182,6:181,7:179,8:174,9:180}.
	want := digitCounts(178, 182, 177, 183, 181, 182, 181, 179, 174, 180)
	if got := classCounts(d); !reflect.DeepEqual(got, want) {
		t.Errorf("counts %v", got)
	}
	// First row of digits.csv: 0,0,5,13,9,1,0,0,… label 0.
	if d.X.At(0, 2) != 5 || d.X.At(0, 3) != 13 || d.Labels[0] != 0 {
		t.Errorf("row 0: %v label %d", d.X.RawRowView(0)[:4], d.Labels[0])
	}
	d.X.Set(0, 2, -1)
	d.ClassNames[0] = "zero"
	if e := Digits(); e.X.At(0, 2) != 5 || e.ClassNames[0] != "0" {
		t.Error("Digits returned shared, modifiable state")
	}
}

func TestLoadStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	go func() {
		w.Write([]byte("3\n1 2 3 A\n"))
		w.Close()
	}()
	s, err := Load("-", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "stdin" || s.Dim() != 3 || labelNames(s)[0] != "A" {
		t.Errorf("stdin: %q %d×%d %q", s.Name, s.Len(), s.Dim(), labelNames(s))
	}
}

// TestTableLinesAndColumns: tables record where each row and feature came from, skipping the
// header, blank lines and the label column, and keep the lines of rows kept by Missing "drop".
func TestTableLinesAndColumns(t *testing.T) {
	in := "label,a,b\nx,1,2\n\ny,3,4\nx,?,5\nz,6,7\n"
	s, err := Read(strings.NewReader(in), "t.csv", Options{Missing: "drop", Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 4, 6}; !slices.Equal(s.Lines, want) {
		t.Errorf("Lines = %v, want %v", s.Lines, want)
	}
	if want := []int{2, 3}; !slices.Equal(s.Columns, want) {
		t.Errorf("Columns = %v, want %v", s.Columns, want)
	}
}
