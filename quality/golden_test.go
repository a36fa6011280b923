package quality

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// readSOMPAK reads a SOM_PAK file (dimension line, then one row per point) from testdata.
func readSOMPAK(t testing.TB, name string) *mat.Dense {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var data []float64
	dim, rows := 0, 0
	s := bufio.NewScanner(f)
	for s.Scan() {
		l := strings.TrimSpace(s.Text())
		if l == "" || l[0] == '#' {
			continue
		}
		if dim == 0 {
			if dim, err = strconv.Atoi(l); err != nil {
				t.Fatalf("%s: dimension line %q", name, l)
			}
			continue
		}
		fs := strings.Fields(l)
		if len(fs) != dim {
			t.Fatalf("%s: row %d has %d fields, want %d", name, rows+1, len(fs), dim)
		}
		for _, v := range fs {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, x)
		}
		rows++
	}
	return mat.NewDense(rows, dim, data)
}

// readNumbers returns the numeric fields of the lines of a golden text file (non-numeric fields
// and lines are skipped; "k=5" yields 5, "trustworthiness=0.9" yields 0.9).
func readNumbers(t testing.TB, name string) [][]float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for _, l := range strings.Split(string(b), "\n") {
		var row []float64
		for _, f := range strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '|' || r == '=' || r == '\t' }) {
			if v, err := strconv.ParseFloat(f, 64); err == nil {
				row = append(row, v)
			}
		}
		if len(row) > 0 {
			out = append(out, row)
		}
	}
	return out
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

var embeddings = []string{"nerv", "pca"}

// Golden: scikit-learn 1.2.1 sklearn.manifold.trustworthiness (testdata/scurve1000_sklearn_trustworthiness.txt).
func TestTrustworthinessSklearn(t *testing.T) {
	x := readSOMPAK(t, "scurve1000.dat")
	want := map[string]map[int]float64{}
	b, _ := os.ReadFile(filepath.Join("testdata", "scurve1000_sklearn_trustworthiness.txt"))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var name string
		var k int
		var v float64
		f := strings.Fields(strings.NewReplacer("k=", "", "trustworthiness=", "").Replace(l))
		name = f[0]
		k, _ = strconv.Atoi(f[1])
		v, _ = strconv.ParseFloat(f[2], 64)
		if want[name] == nil {
			want[name] = map[int]float64{}
		}
		want[name][k] = v
	}
	for _, e := range embeddings {
		y := readSOMPAK(t, "scurve1000_"+e+".dat")
		tr, err := Trustworthiness(context.Background(), x, y, Options{Neighbors: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(want[e]) != 3 {
			t.Fatalf("%s: golden file lists %d values", e, len(want[e]))
		}
		for k, w := range want[e] {
			// The golden file prints 12 decimals: agreement to 1e-9 is the target.
			if d := math.Abs(tr[k-1] - w); d > 1e-9 {
				t.Errorf("%s T(%d) = %.12f, scikit-learn %.12f (diff %g)", e, k, tr[k-1], w, d)
			}
		}
	}
}

// Golden: dredviz 1.0.2 `measure --neighbors 20` (1−T and 1−C, 6 significant digits).
func TestTrustContDredviz(t *testing.T) {
	x := readSOMPAK(t, "scurve1000.dat")
	for _, e := range embeddings {
		y := readSOMPAK(t, "scurve1000_"+e+".dat")
		r, err := Evaluate(context.Background(), x, y, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rows := readNumbers(t, "scurve1000_"+e+"_trustcont.txt")
		if len(rows) != 20 {
			t.Fatalf("%s: %d golden rows", e, len(rows))
		}
		for _, row := range rows {
			k := int(row[0])
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"1−T", 1 - r.Trustworthiness[k-1], row[2]}, {"1−C", 1 - r.Continuity[k-1], row[5]}} {
				if relErr(c.got, c.want) > 5e-6 { // 6 significant digits printed
					t.Errorf("%s k=%d %s = %.6g, dredviz %.6g", e, k, c.what, c.got, c.want)
				}
			}
		}
	}
}

// Golden: dredviz 1.0.2 `klmeasure --neighbors 20` (testdata/scurve1000_*_klmeasure.txt, copied
// from /work/shared/golden/dredviz; sums over points, so divide by n).
func TestSmoothedDredviz(t *testing.T) {
	x := readSOMPAK(t, "scurve1000.dat")
	n, _ := x.Dims()
	for _, e := range embeddings {
		y := readSOMPAK(t, "scurve1000_"+e+".dat")
		p, r, err := Smoothed(context.Background(), x, y, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := readNumbers(t, "scurve1000_"+e+"_klmeasure.txt")[0]
		wp, wr := want[0]/float64(n), want[1]/float64(n)
		t.Logf("%s smoothed precision %.6g (dredviz %.6g, rel %.2g), recall %.6g (dredviz %.6g, rel %.2g)",
			e, p, wp, relErr(p, wp), r, wr, relErr(r, wr))
		if relErr(p, wp) > 5e-6 || relErr(r, wr) > 5e-6 { // dredviz prints 6 significant digits
			t.Errorf("%s: smoothed losses (%.6g, %.6g) differ from dredviz (%.6g, %.6g)", e, p, r, wp, wr)
		}
	}
}

// Golden: dredviz 1.0.2 `klrank --neighbors 20` (testdata/scurve1000_*_klrank.txt). klrank's
// columns are (1−precision best, worst, 1−recall best, worst), but the column it labels
// "1−precision" holds KL(p‖q) normalised, which klmeasure and the paper call recall; so our
// precision loss KL(q‖p)/max is its third column and our recall loss its first. Best and worst
// case differ only when output distances tie (they do not here).
func TestRankBasedDredviz(t *testing.T) {
	x := readSOMPAK(t, "scurve1000.dat")
	for _, e := range embeddings {
		y := readSOMPAK(t, "scurve1000_"+e+".dat")
		p, r, err := RankBased(context.Background(), x, y, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := readNumbers(t, "scurve1000_"+e+"_klrank.txt")[0]
		wp, wr := want[2], want[0]
		t.Logf("%s rank precision loss %.6g (dredviz %.6g, rel %.2g), recall loss %.6g (dredviz %.6g, rel %.2g)",
			e, p, wp, relErr(p, wp), r, wr, relErr(r, wr))
		if relErr(p, wp) > 5e-6 || relErr(r, wr) > 5e-6 { // dredviz prints 6 significant digits
			t.Errorf("%s: rank-based losses (%.6g, %.6g) differ from dredviz (%.6g, %.6g)", e, p, r, wp, wr)
		}
	}
}
