package pepaper

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/reproduce"
	"github.com/lowdim/lowdim/reproduce/internal/reprotest"
)

// pairDists returns the Euclidean distances between all pairs of rows of y.
func pairDists(y *mat.Dense) []float64 {
	n, _ := y.Dims()
	var out []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			out = append(out, mat.Norm(mat.NewVecDense(2, []float64{y.At(i, 0) - y.At(j, 0), y.At(i, 1) - y.At(j, 1)}), 2))
		}
	}
	return out
}

func TestClassicalMDSRowsMatchesFromDistances(t *testing.T) {
	// Full-rank random rows (the case cmds.FromDistances handles): both give the same layout up
	// to the axes' signs, so every pairwise distance agrees.
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(40, 5, nil)
	for i := 0; i < 40; i++ {
		for j := 0; j < 5; j++ {
			x.Set(i, j, rng.NormFloat64()*float64(j+1))
		}
	}
	y, err := ClassicalMDSRows(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	m, err := cmds.FromDistances(context.Background(), reproduce.Euclidean(x), 2)
	if err != nil {
		t.Fatal(err)
	}
	a, b := pairDists(y), pairDists(m.Y)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9*(1+b[i]) {
			t.Fatalf("pair %d: distance %v, cmds.FromDistances %v", i, a[i], b[i])
		}
	}
	if _, err := ClassicalMDSRows(x, 6); err == nil {
		t.Error("6 dimensions of 5 columns: no error")
	}
}

func TestSymmetricKLDistances(t *testing.T) {
	p := mat.NewDense(3, 2, []float64{0.5, 0.5, 0.9, 0.1, 1, 0})
	d := SymmetricKLDistances(p, 1e-6)
	// Rows 0 and 1: ½[KL(a‖b) + KL(b‖a)] = ½ Σ (a − b) log(a/b) = ½·0.4·(log(0.9/0.5) + log(0.5/0.1))
	// = ½·0.4·log 9 (the floor changes it by about 1e-6).
	want := math.Sqrt(0.5 * 0.4 * math.Log(9))
	if got := d.At(0, 1); math.Abs(got-want) > 1e-5 {
		t.Errorf("d(0,1) = %v, want %v", got, want)
	}
	if d.At(1, 0) != d.At(0, 1) || d.At(2, 2) != 0 {
		t.Error("not a symmetric matrix with a zero diagonal")
	}
	// Row 2 is one-hot: finite only thanks to the floor, and larger than d(0,1).
	if v := d.At(0, 2); math.IsInf(v, 0) || math.IsNaN(v) || v <= d.At(0, 1) {
		t.Errorf("d(0,2) = %v", v)
	}
}

func TestTileAndSlope(t *testing.T) {
	p := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0.5, 0.5})
	x := tile(p, 7, 1)
	count := map[float64]int{}
	for i := 0; i < 7; i++ {
		count[x.At(i, 0)]++
	}
	// 7 rows of 3: two full passes and one more row.
	if count[1]+count[0]+count[0.5] != 7 || count[1] < 2 || count[0] < 2 || count[0.5] < 2 {
		t.Errorf("tiled counts %v", count)
	}
	// Seconds ∝ n^0.75 exactly: the slope is 0.75.
	var rows []PETimeRow
	for _, n := range []int{1000, 3000, 10000, 100000} {
		rows = append(rows, PETimeRow{N: n, Seconds: 0.002 * math.Pow(float64(n), 0.75)})
	}
	if s := logLogSlope(rows, math.MaxInt); math.Abs(s-0.75) > 1e-12 {
		t.Errorf("slope %v, want 0.75", s)
	}
	if s := logLogSlope(rows[:1], math.MaxInt); !math.IsNaN(s) {
		t.Errorf("slope of one point %v, want NaN", s)
	}
}

func TestPEClassifyAndRepresentatives(t *testing.T) {
	// Three objects near three class points: each is classified by its own point; with a very
	// unequal prior the far object moves to the favoured class.
	m := &pe.Model{
		Y:      mat.NewDense(3, 2, []float64{0, 0, 10, 0, 0, 10}),
		Phi:    mat.NewDense(3, 2, []float64{0.1, 0, 9.9, 0, 0, 9.9}),
		Priors: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3},
	}
	if got := peClassify(m); got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Errorf("uniform priors: %v, want [0 1 2]", got)
	}
	p := mat.NewDense(3, 3, []float64{0.8, 0.1, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1, 0.8})
	if got := nearestRepresentative(p, m.Y); got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Errorf("representatives: %v, want [0 1 2]", got)
	}
	// exp(−½·(9.9² − ...)) is overcome by a prior ratio of e^100.
	m.Priors = []float64{1 - 2e-50, 1e-50, 1e-50}
	if got := peClassify(m); got[1] != 0 {
		t.Errorf("with a dominant prior object 1 is class %d, want 0", got[1])
	}
}

// TestPEQuickReport runs the quick PE reproduction end to end and checks that the report has
// every section, finite numbers and its plots.
func TestPEQuickReport(t *testing.T) {
	if testing.Short() || reprotest.RaceEnabled {
		t.Skip("runs every PE experiment on small subsets (about 25 s); skipped under -short and -race (.ci/run runs it without)")
	}
	dir := reprotest.DataDir(t)
	r, err := RunPE(context.Background(), PEConfig{DataDir: dir, Seed: 1, Quick: true}, "go test")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Text) != 2 || len(r.Digits) != 2 || r.Topics == nil || r.Time == nil {
		t.Fatalf("%d text, %d digits results, topics %v, time %v", len(r.Text), len(r.Digits), r.Topics != nil, r.Time != nil)
	}
	for _, tx := range r.Text {
		// Curves: PE default, PE from the MDS start alone, PE random starts, MDS2, SNE.
		if tx.N != 400 || len(tx.Curves) != 5 {
			t.Errorf("%s: %d documents, %d curves; want 400 (the quick subsample) and 5", tx.Data, tx.N, len(tx.Curves))
		}
		if tx.PE.Cost > tx.MDSCost*(1+1e-12) {
			t.Errorf("%s: the default PE's J %.8g is above the MDS start's %.8g", tx.Data, tx.PE.Cost, tx.MDSCost)
		}
		for _, c := range tx.Curves {
			for j, v := range c.Prec {
				if !(v >= 0 && v <= 1) {
					t.Errorf("%s %s: prec(%d) = %v", tx.Data, c.Method, tx.H[j], v)
				}
			}
		}
		// Leave-one-out naive Bayes on news is a good classifier: posterior package tests
		// measure 2.0% on BBC; anything near chance would mean the posteriors are broken.
		if tx.NBError > 0.2 {
			t.Errorf("%s: naive Bayes error %v", tx.Data, tx.NBError)
		}
		if len(tx.EtaSweep) != len(EtaPhiFactors) || len(tx.EtaSweep[0].F) != len(tx.ClassNames) || len(tx.EtaSweep[0].Prec) != len(tx.H) {
			t.Errorf("%s: η_φ sweep %+v", tx.Data, tx.EtaSweep)
		}
	}
	if d := r.Digits; d[1].Error >= d[0].Error {
		t.Errorf("100 labels per class err %v, not below 10 labels' %v", d[1].Error, d[0].Error)
	}
	if len(r.Topics.Annotations) < 20 {
		t.Errorf("%d labelled words", len(r.Topics.Annotations))
	}
	ts := r.Time.Series
	if len(ts) != 3 || len(ts[0].Rows) != len(PETimeSizes(100_000)) || math.IsNaN(ts[0].Slope) {
		t.Errorf("time series %+v", ts)
	}
	out := t.TempDir()
	if err := r.WriteDir(out); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, PEReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	for _, want := range []string{"## 1. Text", "## 2. Digits", "## 3. Topics", "## 4. Time", "Machine:", "Seed 1", "Command: `go test`",
		"total wall time", "leave-one-out", "η_φ = 0.01·n", "log-log slope", "0.749", "prec(10)", "prec(300)", "PE refitted", "ties at random"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "%!"} {
		if strings.Contains(text, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	reprotest.CheckFiguresAndNumbers(t, out, text, 2*4+2+1+2, 80)
}
