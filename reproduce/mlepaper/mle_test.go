package mlepaper

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/reproduce/internal/reprotest"
)

func TestRMSE(t *testing.T) {
	a := mat.NewDense(2, 2, []float64{0, 0, 1, 1})
	b := mat.NewDense(2, 2, []float64{3, 4, 1, 1})
	// Row 0 is 5 away (3-4-5 triangle), row 1 not at all: sqrt((25 + 0)/2).
	if got, want := rmse(a, b), math.Sqrt(12.5); math.Abs(got-want) > 1e-15 {
		t.Errorf("rmse = %v, want %v", got, want)
	}
}

// TestMLEFlexExactTarget: when the target is itself a linear map of the data and the
// placements are nearly exact, H = 4 control points in general position pin it down, so the
// RMSE collapses; with none it is the distance between PCA 1–2 and PCA 3–4, which is positive.
func TestMLEFlexExactTarget(t *testing.T) {
	x := randomGaussian(60, 4, 7)
	d := &dataset.Set{X: x}
	for _, norm := range append([]linproj.Normalization{linproj.NormalizeNone}, MLENormalizations...) {
		f, err := RunMLEFlex(context.Background(), MLEConfig{Runs: 3, MaxControls: 6}, d, norm, 1)
		if err != nil {
			t.Fatal(err)
		}
		checkFlexExact(t, norm, f)
	}
}

func checkFlexExact(t *testing.T, norm linproj.Normalization, f *MLEFlex) {
	t.Helper()
	if f.Normalize != norm {
		t.Errorf("result says normalisation %v, want %v", f.Normalize, norm)
	}
	if len(f.Mean) != 7 || len(f.RMSE[0]) != 3 {
		t.Fatalf("%d means, %d runs at m = 0", len(f.Mean), len(f.RMSE[0]))
	}
	if f.Std[0] != 0 || f.Mean[0] <= 0.1 {
		t.Errorf("%v, m = 0: mean %v, std %v; want a positive RMSE, identical in every run", norm, f.Mean[0], f.Std[0])
	}
	// σ = 0.1·|min Ψ| is small next to x Ψ x, so four controls leave an RMSE far below the
	// prior's (the 1e-2 factor is a loose bound: the residual is of order σ²/(xΨx)).
	if f.Mean[4] > 1e-2*f.Mean[0] || f.Mean[6] > 1e-2*f.Mean[0] {
		t.Errorf("%v: RMSE at m = 4, 6: %v, %v; want far below m = 0's %v", norm, f.Mean[4], f.Mean[6], f.Mean[0])
	}
}

// randomGaussian returns seeded n×h standard normal data with column j scaled by j + 1, so
// that the principal directions are well separated.
func randomGaussian(n, h int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 0))
	x := mat.NewDense(n, h, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < h; j++ {
			x.Set(i, j, rng.NormFloat64()*float64(j+1))
		}
	}
	return x
}

// TestMLEQuickReport runs the quick reproduction end to end on every data set and checks the
// report's sections, tables and figures.
func TestMLEQuickReport(t *testing.T) {
	if testing.Short() || reprotest.RaceEnabled {
		t.Skip("times and runs the flexibility experiment on 27 data sets (a few seconds); skipped under -short and -race")
	}
	dir := reprotest.DataDir(t)
	c := MLEConfig{DataDir: dir, Seed: 1, Quick: true, MinRun: time.Millisecond, ReembedN: 5000}
	r, err := RunMLE(context.Background(), c, "go test")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Data) != 30 || len(r.Reembed) != 2 {
		t.Fatalf("%d data sets, %d re-embedding timings; want 30 and 2", len(r.Data), len(r.Reembed))
	}
	held := 0
	for _, d := range r.Data {
		if !d.Held {
			continue
		}
		held++
		if d.Speed.Move.Mean <= 0 || d.Speed.Select.Mean <= 0 || len(d.Speed.Move.Rates) != 3 {
			t.Errorf("%s: rates %+v", d.Set.Name, d.Speed)
		}
		if len(d.Flex.Mean) != 21 {
			t.Errorf("%s: %d RMSE means, want 21 (m = 0 … 20)", d.Set.Name, len(d.Flex.Mean))
		}
	}
	if held != 27 {
		t.Errorf("%d data sets held, want 27 (30 less ICDM abstracts, movies, webtender)", held)
	}
	out := t.TempDir()
	if err := r.WriteDir(out); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, MLEReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	// 5,899.3 and 3,366.1: autoPrice's row of the thesis's Table 3.3.
	for _, want := range []string{"## 1. Speed", "### 1b.", "## 2. Flexibility", "Machine:", "Seed 1", "Command: `go test`",
		"total wall time", "5,899.3", "3,366.1", "*not held*", "RMSE = sqrt", "**Target**"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "%!"} {
		if strings.Contains(text, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	// 27 figures; 27 rows × 6 RMSE numbers plus the re-embedding table.
	reprotest.CheckFiguresAndNumbers(t, out, text, 27, 27*6)
}

// TestTimeRate: updates that each spin for 20 µs can never be timed faster than 50,000 per
// second, the mean and median lie among the runs' rates, and an update's error stops the
// timing.
func TestTimeRate(t *testing.T) {
	c := MLEConfig{Runs: 4, MinRun: 2 * time.Millisecond}
	c.defaults()
	spin := func(int) error {
		for t0 := time.Now(); time.Since(t0) < 20*time.Microsecond; {
		}
		return nil
	}
	r, err := timeRate(context.Background(), c, spin)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rates) != 4 || r.PerRun < 1 || r.PerRun&(r.PerRun-1) != 0 {
		t.Fatalf("%d rates, %d updates per run; want 4 rates and a power of two", len(r.Rates), r.PerRun)
	}
	for _, v := range r.Rates {
		if !(v > 0 && v <= 50_000) {
			t.Errorf("rate %v/s for 20 µs updates", v)
		}
	}
	if lo, hi := slices.Min(r.Rates), slices.Max(r.Rates); r.Mean < lo || r.Mean > hi || r.Median < lo || r.Median > hi {
		t.Errorf("mean %v, median %v outside the runs' range [%v, %v]", r.Mean, r.Median, lo, hi)
	}
	if _, ok := cpuTime(); ok && len(r.CPURates) != 4 {
		t.Errorf("%d CPU rates, want 4", len(r.CPURates))
	}
	boom := errors.New("boom")
	if _, err := timeRate(context.Background(), c, func(i int) error {
		if i == 3 {
			return boom
		}
		return nil
	}); !errors.Is(err, boom) {
		t.Errorf("error %v, want the update's", err)
	}
}
