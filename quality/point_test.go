package quality

import (
	"context"
	"errors"
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// The per-point losses are the terms of the Report's means: they sum to n times
// SmoothedPrecisionLoss and SmoothedRecallLoss of Evaluate, and (on the S-curve) to the sums that
// dredviz's klmeasure prints.
func TestPointLossesSumToReport(t *testing.T) {
	ctx := context.Background()
	x := readSOMPAK(t, "scurve1000.dat")
	for _, name := range embeddings {
		y := readSOMPAK(t, "scurve1000_"+name+".dat")
		opt := Options{Neighbors: 20, Workers: 3} // 3 workers: rows are split unevenly between them
		prec, rec, err := PointLosses(ctx, x, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Evaluate(ctx, x, y, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		var sp, sr float64
		for i := range prec {
			if prec[i] < -1e-12 || rec[i] < -1e-12 || math.IsNaN(prec[i]+rec[i]) {
				t.Fatalf("%s: point %d losses %g, %g: a KL divergence is not negative", name, i, prec[i], rec[i])
			}
			sp += prec[i]
			sr += rec[i]
		}
		n := float64(len(prec))
		if relErr(sp, n*r.SmoothedPrecisionLoss) > 1e-12 || relErr(sr, n*r.SmoothedRecallLoss) > 1e-12 {
			t.Errorf("%s: sums %.9g, %.9g; n × Evaluate's means %.9g, %.9g", name, sp, sr, n*r.SmoothedPrecisionLoss, n*r.SmoothedRecallLoss)
		}
		// dredviz 1.0.2 klmeasure prints the sums over points (testdata/*_klmeasure.txt, 6 digits).
		want := readNumbers(t, "scurve1000_"+name+"_klmeasure.txt")[0]
		if relErr(sp, want[0]) > 5e-6 || relErr(sr, want[1]) > 5e-6 {
			t.Errorf("%s: sums %.6g, %.6g; dredviz klmeasure %g, %g", name, sp, sr, want[0], want[1])
		}
	}
}

// The losses point at the damage: after swapping two distant points of a perfect embedding, one of
// the two carries the largest precision loss and the largest recall loss, and points outside the
// neighbourhoods of both places keep losses near zero.
func TestPointLossesLocateDamage(t *testing.T) {
	const n, k = 400, 10
	x := randMat(n, 2, 7)
	y := mat.DenseCopyOf(x)
	a, b := 0, 0
	for j := 1; j < n; j++ { // the point farthest from point 0
		if d2(x, 0, j) > d2(x, 0, b) {
			b = j
		}
	}
	ra, rb := mat.Row(nil, a, y), mat.Row(nil, b, y)
	y.SetRow(a, rb)
	y.SetRow(b, ra)
	prec, rec, err := PointLosses(context.Background(), x, y, Options{Neighbors: k})
	if err != nil {
		t.Fatal(err)
	}
	// near: within the 5k nearest points of a or b (the smoothed neighbourhoods have tails).
	near := map[int]bool{}
	for _, c := range []int{a, b} {
		idx := make([]int, n)
		for j := range idx {
			idx[j] = j
		}
		sort.Slice(idx, func(u, v int) bool { return d2(x, c, idx[u]) < d2(x, c, idx[v]) })
		for _, j := range idx[:5*k] {
			near[j] = true
		}
	}
	for name, l := range map[string][]float64{"precision": prec, "recall": rec} {
		top := 0
		for i, v := range l {
			if v > l[top] {
				top = i
			}
		}
		if top != a && top != b {
			t.Errorf("%s: largest loss %g at point %d, not at a swapped point (%d: %g, %d: %g)", name, l[top], top, a, l[a], b, l[b])
		}
		for i, v := range l {
			if !near[i] && v > 1e-3*l[top] {
				t.Errorf("%s: point %d far from both swapped points has loss %g (largest %g)", name, i, v, l[top])
			}
		}
	}
}

func d2(x *mat.Dense, i, j int) float64 {
	var s float64
	for c := 0; c < x.RawMatrix().Cols; c++ {
		t := x.At(i, c) - x.At(j, c)
		s += t * t
	}
	return s
}

func TestPointLossesBadInput(t *testing.T) {
	x := randMat(30, 3, 1)
	if _, _, err := PointLosses(context.Background(), x, randMat(29, 2, 1), Options{}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("row mismatch: %v, want ErrInvalid", err)
	}
	if _, _, err := PointLosses(context.Background(), x, randMat(30, 2, 1), Options{Neighbors: 29}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("29 neighbours of 30 points: %v, want ErrInvalid", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := PointLosses(ctx, x, randMat(30, 2, 1), Options{Neighbors: 5}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
