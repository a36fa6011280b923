package pe

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// sameModel fails unless a and b have the same bytes in everything Fit reports.
func sameModel(t *testing.T, what string, a, b *Model) {
	t.Helper()
	if !mat.Equal(a.Y, b.Y) || !mat.Equal(a.Phi, b.Phi) || a.Cost != b.Cost || a.KL != b.KL ||
		a.Iterations != b.Iterations || a.Sweeps != b.Sweeps || a.NewtonSteps != b.NewtonSteps ||
		a.Starts != b.Starts || a.WarmupRows != b.WarmupRows {
		t.Errorf("%s: the Run's model differs from Fit's: J %.17g / %.17g, %d / %d iterations, %d / %d sweeps, max |ΔY| %g",
			what, a.Cost, b.Cost, a.Iterations, b.Iterations, a.Sweeps, b.Sweeps, maxAbsDiff(a.Y, b.Y))
	}
}

// TestRunEqualsFit: a Run stepped to its end in pieces of any size, with Result asked between
// the pieces, returns Fit's model bit for bit — with restarts, with the warm-up sample (n >
// 2·Warmup) and with neither.
func TestRunEqualsFit(t *testing.T) {
	p, _, err := DirichletMixture(700, 4, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Embedder{
		{Seed: 2},                          // MDS start and 4 restarts
		{Seed: 3, Warmup: 200},             // warm-up on 200 rows, then all 700
		{Restarts: -1, Warmup: -1, Dim: 3}, // one start, the paper's protocol
	} {
		want, err := e.FitPosteriors(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, piece := range []int{1, 3, 1000} {
			r, err := e.Begin(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			for !r.Done() {
				if err := r.Step(context.Background(), piece); err != nil {
					t.Fatal(err)
				}
				if _, err := r.Result(); err != nil {
					t.Fatal(err)
				}
				steps++
				if steps > 10000 {
					t.Fatal("the run does not end")
				}
			}
			got, err := r.Model()
			if err != nil {
				t.Fatal(err)
			}
			sameModel(t, "pieces of "+itoa(piece), got, want)
			// gonum records every iteration but the one that meets the convergence test.
			if r.Iterations() < want.Iterations-1 {
				t.Errorf("the run counts %d iterations, the final stage alone had %d", r.Iterations(), want.Iterations)
			}
			r.Close()
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRunCostFalls: with one start, J at the Run's Φ never rises from one iteration to the next
// (L-BFGS's line search accepts only a decrease of F(Φ) = min_R J; Result solves R for Φ to the
// Newton tolerance, hence the 1e-9 slack), KL is positive, and the positions are finite.
func TestRunCostFalls(t *testing.T) {
	p, _, err := DirichletMixture(500, 5, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Embedder{Restarts: -1, Init: InitRandom, Seed: 1}.Begin(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, err := r.Result()
	if err != nil {
		t.Fatal(err)
	}
	last := first.Cost
	for i := 0; !r.Done(); i++ {
		if err := r.Step(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		m, err := r.Result()
		if err != nil {
			t.Fatal(err)
		}
		if m.Cost > last+1e-9*math.Abs(last) {
			t.Errorf("iteration %d: J rose from %.12g to %.12g", r.Iterations(), last, m.Cost)
		}
		if !(m.KL > 0) || !mat.Equal(m.Y, m.Y) {
			t.Errorf("iteration %d: KL %g", r.Iterations(), m.KL)
		}
		last = m.Cost
	}
	if !(last < first.Cost-1) {
		t.Errorf("J went from %g to %g only", first.Cost, last)
	}
}

// TestRunStepContext: a Step whose context has ended returns its error and the Run goes on
// from there to Fit's result; Close ends the goroutine of a Run left half-way.
func TestRunStepContext(t *testing.T) {
	p, _, err := DirichletMixture(400, 3, 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	e := Embedder{Restarts: 1, Seed: 4}
	want, err := e.FitPosteriors(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	r, err := e.Begin(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Step(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := r.Step(ended, 5); !errors.Is(err, context.Canceled) {
			t.Fatalf("Step with an ended context: %v", err)
		}
	}
	for !r.Done() {
		if err := r.Step(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.Model()
	if err != nil {
		t.Fatal(err)
	}
	sameModel(t, "after ended contexts", got, want)

	half, err := e.Begin(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := half.Step(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	half.Close()
	if !half.Done() || half.Step(context.Background(), 1) == nil {
		t.Error("a closed Run steps on")
	}
	if _, err := half.Model(); err == nil {
		t.Error("a closed Run has a model")
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines before the runs, %d after Close", before, g)
	}
}
