package nerv

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// A Run stepped in pieces computes Fit's layout bit for bit: t-SNE in three steps that cut
// through early exaggeration, and t-NeRV as t-SNE then SetLambda, its steps cutting between
// two augmentations of the precision term (every 50 evaluations). 400 digits (64 pixels:
// reduced to PCADims = 50 components first, as at scale), 20 exaggerated and 60 later iterations.
func TestRunEqualsFit(t *testing.T) {
	d := dataset.Digits().Subset(seq(400))
	ctx := context.Background()
	base := Embedder{Variant: StudentT, Path: PathApprox, Perplexity: 10, ExaggerationIterations: 20, Iterations: 60, Seed: 3, Workers: 2}

	same := func(t *testing.T, name string, got, want *Result) {
		t.Helper()
		if !mat.Equal(got.Y, want.Y) {
			t.Errorf("%s: the layouts differ (max |Δ| %g)", name, maxDiff(got.Y, want.Y))
		}
		// The Run keeps log p (t-NeRV needs it), t-SNE's Fit recomputes it from p: the reported
		// terms may differ by rounding.
		for _, c := range [][2]float64{{got.Cost, want.Cost}, {got.Precision, want.Precision}, {got.Recall, want.Recall}} {
			if math.Abs(c[0]-c[1]) > 1e-12*math.Abs(c[1]) {
				t.Errorf("%s: cost terms %v, %v, %v; Fit's %v, %v, %v", name, got.Cost, got.Precision, got.Recall, want.Cost, want.Precision, want.Recall)
				break
			}
		}
	}

	t.Run("tsne", func(t *testing.T) {
		e := base
		e.Lambda = Lambda(1)
		want, err := e.fit(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		r, err := base.Begin(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Exaggerating() {
			t.Error("a new Run does not start with early exaggeration")
		}
		for _, k := range []int{7, 13} {
			if err := r.Step(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if r.Exaggerating() || r.Iterations() != 20 {
			t.Errorf("after 20 iterations: exaggerating %v, %d iterations", r.Exaggerating(), r.Iterations())
		}
		if err := r.Step(ctx, 60); err != nil {
			t.Fatal(err)
		}
		same(t, "t-SNE in steps of 7, 13 and 60", r.Result(), want)
	})

	t.Run("tnerv", func(t *testing.T) {
		e := base
		e.Lambda = Lambda(0.3)
		want, err := e.fit(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		r, err := base.Begin(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Step(ctx, 80); err != nil {
			t.Fatal(err)
		}
		tsne := r.Result()
		if err := r.SetLambda(0.3); err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{25, 35} {
			if err := r.Step(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		got := r.Result()
		same(t, "t-NeRV λ = 0.3 in steps of 80 (t-SNE), 25 and 35", got, want)
		if !(got.Precision < tsne.Precision) {
			t.Errorf("λ = 0.3 did not lower the precision term: %v after, %v at t-SNE's layout", got.Precision, tsne.Precision)
		}
		if r.Lambda() != 0.3 || r.Iterations() != 140 {
			t.Errorf("λ %v, %d iterations", r.Lambda(), r.Iterations())
		}
	})

	t.Run("refused", func(t *testing.T) {
		if _, err := (Embedder{Graph: &neighbors.Graph{N: 1}}).Begin(ctx, d); err == nil {
			t.Error("a Run of Gaussian NeRV from a graph alone")
		}
		r, err := base.Begin(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.SetLambda(1.5); err == nil {
			t.Error("λ = 1.5")
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := r.Step(cctx, 5); err == nil || r.Iterations() != 0 {
			t.Errorf("a cancelled step: %v, %d iterations", err, r.Iterations())
		}
	})
}

func maxDiff(a, b *mat.Dense) float64 {
	var m float64
	for i, v := range a.RawMatrix().Data {
		m = math.Max(m, math.Abs(v-b.RawMatrix().Data[i]))
	}
	return m
}

// A Run of Gaussian NeRV runs the t-SNE phase by Steps of gradient descent, then NeRV's cost on
// the grid path: its cost falls from Step to Step, λ changes between Steps, and it needs the rows
// and a 2-D output.
func TestRunGaussian(t *testing.T) {
	n := 800
	if raceEnabled {
		n = 300
	}
	d := dataset.Digits().Subset(seq(n))
	lam := 0.1
	e := Embedder{Lambda: &lam, ExaggerationIterations: 30, Seed: 1}
	r, err := e.Begin(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	tsne := 30 + DefaultApproxIterations
	if err := r.Step(context.Background(), tsne-10); err != nil || r.InNeRV() {
		t.Fatalf("t-SNE phase: %v, in NeRV's phase after %d of %d iterations: %v", err, tsne-10, tsne, r.InNeRV())
	}
	if err := r.Step(context.Background(), 50); err != nil || !r.InNeRV() || r.Iterations() != tsne {
		t.Fatalf("end of the t-SNE phase: %v, in NeRV's phase %v, %d iterations (want %d: a Step stops where the phase ends)", err, r.InNeRV(), r.Iterations(), tsne)
	}
	c0 := r.Result().Cost
	for k := 1; k <= 3; k++ { // one CG iteration a Step, as the live page steps it
		if err := r.Step(context.Background(), 10); err != nil {
			t.Fatal(err)
		}
		c := r.Result().Cost
		if !(c < c0) || r.Iterations() != tsne+k {
			t.Errorf("NeRV's phase, Step %d: cost %g from %g; %d iterations (want %d)", k, c, c0, r.Iterations(), tsne+k)
		}
		c0 = c
	}
	res := r.Result()
	if err := r.SetLambda(0.9); err != nil {
		t.Fatal(err)
	}
	if c := r.Result().Cost; math.Abs(c-(0.9*res.Recall+0.1*res.Precision)) > 1e-9*math.Abs(c) {
		t.Errorf("λ = 0.9 at the same layout: cost %g, want 0.9·%g + 0.1·%g", c, res.Recall, res.Precision)
	}
	three := Embedder{Lambda: &lam, Dim: 3}
	if _, err := three.Begin(context.Background(), d); err == nil || !strings.Contains(err.Error(), "2-D output") {
		t.Errorf("a 3-D Gaussian Run: %v", err)
	}
}
