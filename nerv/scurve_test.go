package nerv

import (
	"context"
	"testing"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/quality"
)

// dredvizCost is the λ = 0.1 NeRV cost per point that dredviz 1.0.2's `nerv` (defaults) reached on
// testdata/scurve1000.dat, by its own klmeasure: 0.1·0.4195 + 0.9·0.2684
// (../shared/golden/dredviz/README.md).
const dredvizCost = 0.2835

func loadSCurve(t testing.TB) *dataset.Set {
	t.Helper()
	d, err := dataset.Load("testdata/scurve1000.dat", dataset.Options{Format: "sompak"})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// measuredCost is the λ-weighted smoothed precision/recall cost of y as `lowdim eval` and dredviz's
// klmeasure measure it (20 neighbours, dredviz's σ search).
func measuredCost(t testing.TB, d *dataset.Set, r *Result, lam float64) float64 {
	t.Helper()
	prec, rec, err := quality.Smoothed(context.Background(), d.X, r.Y, quality.Options{Neighbors: 20})
	if err != nil {
		t.Fatal(err)
	}
	return lam*rec + (1-lam)*prec
}

// With dredviz's own settings (λ = 0.1, 20 neighbours, PCA start, 10 annealing rounds) lowdim's
// NeRV reaches at least as low a cost as dredviz's, measured the same way, with either σ
// calibration.
func TestSCurveMatchesDredviz(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("S-curve NeRV (n = 1000, two fits) skipped under -short and -race; .ci/run runs it without -race")
	}
	d := loadSCurve(t)
	for _, cal := range []affinity.Calibration{affinity.Exact, affinity.Dredviz} {
		r, err := Embedder{Calibration: cal}.fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		got := measuredCost(t, d, r, 0.1)
		t.Logf("%v calibration: measured cost %.4f (own cost %.4f), %d iterations, %d evaluations", cal, got, r.Cost, r.Iterations, r.Evaluations)
		if got > dredvizCost {
			t.Errorf("%v calibration: measured cost %.4f, dredviz reached %.4f", cal, got, dredvizCost)
		}
	}
}

func BenchmarkSCurveDredvizSettings(b *testing.B) {
	d := loadSCurve(b)
	var r *Result
	for b.Loop() {
		var err error
		if r, err = (Embedder{}).fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(measuredCost(b, d, r, 0.1), "cost")
	b.ReportMetric(float64(r.Evaluations), "evals")
}
