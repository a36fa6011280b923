package mcml

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/lda"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/quality"
)

func rangeN(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// randomPSD returns BBᵀ/h for a seeded random h×h B: a full-rank start for the gradient check.
func randomPSD(h int, scale float64) *mat.SymDense {
	r := rand.New(rand.NewPCG(1, 2))
	b := mat.NewDense(h, h, nil)
	for i := range h {
		for j := range h {
			b.Set(i, j, r.NormFloat64())
		}
	}
	a := mat.NewSymDense(h, nil)
	a.SymOuterK(scale/float64(h), b)
	return a
}

// TestGradient: central differences of f along symmetric directions E_ab + E_ba against
// ⟨∇f, E⟩ = 2∇f_ab (∇f_aa for a = b), on 60 rows of digits scaled to [0, 1].
func TestGradient(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(60))
	x := mat.DenseCopyOf(d.X)
	x.Scale(1.0/16, x)
	_, h := x.Dims()
	a := randomPSD(h, 0.5)
	ctx := context.Background()
	_, g, err := Objective(ctx, x, d.Labels, a)
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1e-6
	for _, p := range [][2]int{{0, 0}, {10, 20}, {20, 20}, {33, 12}, {50, 63}, {63, 63}} {
		i, j := p[0], p[1]
		v := a.At(i, j)
		a.SetSym(i, j, v+eps)
		fp, _, _ := Objective(ctx, x, d.Labels, a)
		a.SetSym(i, j, v-eps)
		fm, _, _ := Objective(ctx, x, d.Labels, a)
		a.SetSym(i, j, v)
		num := (fp - fm) / (2 * eps)
		want := 2 * g.At(i, j)
		if i == j {
			want = g.At(i, j)
		}
		if math.Abs(num-want) > 1e-5*math.Max(1, math.Abs(num)) {
			t.Errorf("∂f/∂A[%d,%d]: analytic %.10g, central difference %.10g", i, j, want, num)
		}
	}
}

// TestCollapses: on 400 digits MCML lowers f from A = 0 and its 2-D map separates the classes
// far better than chance (0.9): 5-NN error below 0.5. (Measured 0.372 against LDA's 0.273 on
// the same rows: the top two eigenpairs of a full-rank A that collapses classes in 64
// dimensions are not the best 2-D map, as in the HOPE paper's Table 3, where MCML's 44.6 % on
// USPS is worse than NCA's 37.2 %.)
func TestCollapses(t *testing.T) {
	if testing.Short() {
		t.Skip("an MCML fit of 400 rows")
	}
	d := dataset.Digits().Subset(rangeN(400))
	d.X.Scale(1.0/16, d.X)
	lm, err := lda.LDA{}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	le, err := quality.KNNError(context.Background(), lm.Embedding(), d.Labels, quality.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := MCML{}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	mm := m.(*Model)
	f0, _, _ := Objective(context.Background(), d.X, d.Labels, mat.NewSymDense(64, nil))
	if !(mm.Objective < f0) {
		t.Errorf("f went from %v at A = 0 to %v", f0, mm.Objective)
	}
	e, err := quality.KNNError(context.Background(), m.Embedding(), d.Labels, quality.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("f %.2f → %.2f in %d steps; 5-NN error %.3f, LDA's %.3f", f0, mm.Objective, mm.Steps, e, le)
	if e > 0.5 {
		t.Errorf("5-NN error %.3f", e)
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1})
	for _, c := range []struct {
		name string
		d    *dataset.Set
		want string
	}{
		{"no labels", &dataset.Set{X: x}, "no labels"},
		{"one class", &dataset.Set{X: x, Labels: []int{1, 1, 1, 1}}, "at least 2 classes"},
		{"singleton", &dataset.Set{X: x, Labels: []int{0, 0, 0, 1}}, "single row"},
	} {
		_, err := MCML{}.Fit(context.Background(), c.d)
		if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid and saying %q", c.name, err, c.want)
		}
	}
}

// TestDeterministic: the same bytes on 1 and 4 workers.
func TestDeterministic(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(150))
	fit := func(procs int) *mat.Dense {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, err := MCML{MaxIter: 3}.Fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		return m.Embedding()
	}
	if !mat.Equal(fit(1), fit(4)) {
		t.Error("GOMAXPROCS 1 and 4 give different embeddings")
	}
}
