package learnmetric

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/posterior"
)

// letterLike returns n rows of 16 features from 26 classes of 2 clusters each (cluster
// means uniform in [0, 15]^16 like Letter's 0..15 integer features, spread 2).
func letterLike(n int, seed uint64) *dataset.Set {
	rng := rand.New(rand.NewPCG(seed, 4))
	const h, k = 16, 26
	means := mat.NewDense(2*k, h, nil)
	for i := 0; i < 2*k; i++ {
		for j := 0; j < h; j++ {
			means.Set(i, j, 15*rng.Float64())
		}
	}
	x := mat.NewDense(n, h, nil)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		c := rng.IntN(2 * k)
		labels[i] = c / 2
		for j := 0; j < h; j++ {
			x.Set(i, j, means.At(c, j)+2*rng.NormFloat64())
		}
	}
	return &dataset.Set{X: x, Labels: labels}
}

// BenchmarkDistances: the full n×n matrix at the size of the paper's experiments, n = 1,500,
// H = 16, K = 26, G = 2·26 (width chosen by internal validation on the same data).
func BenchmarkDistances(b *testing.B) {
	d := letterLike(1500, 1)
	m, err := posterior.DiscriminativeMixture{Gaussians: 52, Seed: 1}.Fit(context.Background(), d)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("width %.3f", m.Width)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Distances(context.Background(), m, d.X, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(1500*1499/2), "ns/pair")
}

// TestLetterMeasure fits the mixture on 1,500 random Letter rows with internal validation,
// times the 1,500×1,500 distance matrix and compares T = 10 with T = 200 on random pairs.
func TestLetterMeasure(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("fits on Letter and forms a 1,500×1,500 distance matrix; skipped under -short and -race (.ci/run runs it without -race)")
	}
	d := letter(t, 1500, 1)
	start := time.Now()
	m, err := posterior.DiscriminativeMixture{Seed: 1}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	fit := time.Since(start)
	g, _, _ := m.Dims()
	start = time.Now()
	dist, err := Distances(context.Background(), m, d.X, Options{})
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	t.Logf("Letter n=1500: fit %v (G=%d, s=%.4f), distances %v on %d CPUs", fit, g, m.Width, el, runtime.NumCPU())
	ts := []int{10, 20, 50, 200}
	lms := make([]*Metric, len(ts))
	for i, T := range ts {
		lms[i], _ = New(m, Options{Pieces: T})
	}
	rng := rand.New(rand.NewPCG(5, 5))
	worst, mean := make([]float64, len(ts)), make([]float64, len(ts))
	const pairs = 200
	for range pairs {
		a, b := rng.IntN(1500), rng.IntN(1500)
		dd := make([]float64, len(ts))
		for i, lm := range lms {
			dd[i], _ = lm.Distance(d.X.RawRowView(a), d.X.RawRowView(b))
		}
		if dd[len(ts)-1] == 0 {
			continue
		}
		if dd[0] != dist.At(a, b) && math.Abs(dd[0]-dist.At(a, b)) > 1e-9*dd[0] {
			t.Fatalf("Distance %v, matrix %v", dd[0], dist.At(a, b))
		}
		for i := range ts {
			r := math.Abs(dd[i]-dd[len(ts)-1]) / dd[len(ts)-1]
			worst[i] = max(worst[i], r)
			mean[i] += r / pairs
		}
	}
	for i, T := range ts[:len(ts)-1] {
		t.Logf("T=%d vs T=200 on %d random pairs: mean relative difference %.3g, largest %.3g", T, pairs, mean[i], worst[i])
	}
	// Convergence on real data: the gap to T = 200 shrinks at least 4-fold from T = 10 to T = 50
	// (the midpoint rule's O(1/T²) would give 25-fold once the pieces resolve the Gaussians).
	if mean[2] > mean[0]/4 {
		t.Errorf("mean gap %.3g at T=10, %.3g at T=50: not converging", mean[0], mean[2])
	}
}
