package pe

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// TestSweepAllocatesNothing: a sweep over all objects (Newton solves and the Φ gradient)
// allocates nothing beyond its goroutines.
func TestSweepAllocatesNothing(t *testing.T) {
	sw, phi := smallProblem(t, 5000, 10, 2, 1)
	g := make([]float64, len(phi))
	ctx := context.Background()
	if _, _, err := sw.sweep(ctx, phi, g); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(5, func() {
		if _, _, err := sw.sweep(ctx, phi, g); err != nil {
			t.Fatal(err)
		}
	})
	// The worker goroutines and their closure: a few allocations per sweep, none per object.
	if allocs > float64(4*sw.workers+4) {
		t.Errorf("%.0f allocations per sweep of 5000 objects", allocs)
	}
}

// BenchmarkSweep is one full-size evaluation of F(Φ): every object re-solved from its previous
// optimum after Φ moved slightly (as between L-BFGS iterations), K = 10, D = 2.
func BenchmarkSweep(b *testing.B) {
	for _, n := range []int{10000, 100000, 1000000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			pm, _, err := DirichletMixture(n, 10, 5, 1)
			if err != nil {
				b.Fatal(err)
			}
			logs, _, _ := logPriors(nil, 10)
			phi := make([]float64, 20)
			for c := range 10 {
				phi[2*c], phi[2*c+1] = 2*float64(c%3)-2, 2*float64(c/3)-3
			}
			sw := newSweeper(pm.RawMatrix().Data, make([]float64, 2*n), n, 10, 2, logs, DefaultEtaR, rowTolerance*rowTolerance, runtime.NumCPU())
			g := make([]float64, 20)
			ctx := context.Background()
			if _, _, err := sw.sweep(ctx, phi, g); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				phi[0] += 1e-3 * float64(i%2*2-1)
				if _, _, err := sw.sweep(ctx, phi, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFit is the whole fit (MDS start, warm-up sample, L-BFGS) on K = 10 Dirichlet
// posteriors, D = 2: the target is n = 1,000,000 in ≤ 30 s with the CSV read.
func BenchmarkFit(b *testing.B) {
	for _, n := range []int{5000, 100000, 1000000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			p, _, err := DirichletMixture(n, 10, 5, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := (Embedder{}).FitPosteriors(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
