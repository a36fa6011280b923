package lmnn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/quality"
)

func rangeN(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func randomMap(dim, h int, scale float64, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 7))
	l := mat.NewDense(dim, h, nil)
	for i := range dim {
		for j := range h {
			l.Set(i, j, scale*r.NormFloat64())
		}
	}
	return l
}

// paperObjective is eq. 13 of Weinberger and Saul (2009) with M = LᵀL, written out with its
// triple sum over (i, j ⇝ i, l) and target neighbours found by sorting each row's same-class
// distances: an independent statement of what Objective computes.
func paperObjective(x *mat.Dense, class []int, k int, mu float64, l *mat.Dense) float64 {
	n, _ := x.Dims()
	var y mat.Dense
	y.Mul(x, l.T())
	d := func(a *mat.Dense, i, j int) float64 {
		var diff mat.VecDense
		diff.SubVec(a.RowView(i), a.RowView(j))
		return mat.Dot(&diff, &diff)
	}
	var eps float64
	for i := range n {
		var same []int
		for j := range n {
			if j != i && class[j] == class[i] {
				same = append(same, j)
			}
		}
		sort.SliceStable(same, func(a, b int) bool { return d(x, i, same[a]) < d(x, i, same[b]) })
		for _, j := range same[:min(k, len(same))] {
			dij := d(&y, i, j)
			eps += (1 - mu) * dij
			for m := range n {
				if class[m] != class[i] {
					eps += mu * math.Max(0, 1+dij-d(&y, i, m))
				}
			}
		}
	}
	return eps
}

// TestPaperObjective: Objective equals the paper's ε written out directly (to 1e-10 relative),
// at maps where the hinge is partly active.
func TestPaperObjective(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(80))
	for _, scale := range []float64{0.01, 0.05, 0.2} {
		l := randomMap(2, 64, scale, 1)
		f, _, err := Objective(context.Background(), d.X, d.Labels, 3, 0.5, l)
		if err != nil {
			t.Fatal(err)
		}
		want := paperObjective(d.X, d.Labels, 3, 0.5, l)
		if math.Abs(f-want) > 1e-10*want {
			t.Errorf("scale %g: ε = %.12g, the paper's sum %.12g", scale, f, want)
		}
	}
}

// TestGradient: central differences against ∂ε/∂L at a random map (no hinge sits within the
// step of its kink at these points: the check would show it as one outlier).
func TestGradient(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(60))
	l := randomMap(2, 64, 0.05, 3)
	ctx := context.Background()
	_, g, err := Objective(ctx, d.X, d.Labels, 3, 0.5, l)
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1e-7
	for i := range 2 {
		for j := 0; j < 64; j += 3 {
			v := l.At(i, j)
			l.Set(i, j, v+eps)
			fp, _, _ := Objective(ctx, d.X, d.Labels, 3, 0.5, l)
			l.Set(i, j, v-eps)
			fm, _, _ := Objective(ctx, d.X, d.Labels, 3, 0.5, l)
			l.Set(i, j, v)
			num := (fp - fm) / (2 * eps)
			if math.Abs(num-g.At(i, j)) > 1e-5*math.Max(1, math.Abs(num)) {
				t.Errorf("∂ε/∂L[%d,%d]: analytic %.10g, central difference %.10g", i, j, g.At(i, j), num)
			}
		}
	}
}

// TestFit: on 400 digits LMNN lowers ε from the PCA start and its 2-D map's 5-NN error is
// below that of the PCA start on the same rows (measured: 0.138 against 0.253).
func TestFit(t *testing.T) {
	if testing.Short() {
		t.Skip("an LMNN fit of 400 rows")
	}
	d := dataset.Digits().Subset(rangeN(400))
	ctx := context.Background()
	m, err := LMNN{}.Fit(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	mm := m.(*Model)
	pca, err := linproj.PCA{}.Fit(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	e, err := quality.KNNError(ctx, m.Embedding(), d.Labels, quality.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e0, err := quality.KNNError(ctx, pca.Embedding(), d.Labels, quality.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ε %.4g → %.4g in %d iterations (%d evaluations); 5-NN error %.3f, PCA's %.3f", mm.Start, mm.Objective, mm.Iterations, mm.Evaluations, e, e0)
	if !(mm.Objective < mm.Start) {
		t.Errorf("ε went from %v to %v", mm.Start, mm.Objective)
	}
	if !(e < e0) {
		t.Errorf("5-NN error %.3f, PCA's %.3f", e, e0)
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1})
	for _, c := range []struct {
		name string
		d    *dataset.Set
		lmnn LMNN
		want string
	}{
		{"no labels", &dataset.Set{X: x}, LMNN{}, "no labels"},
		{"one class", &dataset.Set{X: x, Labels: []int{1, 1, 1, -1}}, LMNN{}, "at least 2 classes"},
		{"mu", &dataset.Set{X: x, Labels: []int{0, 0, 1, 1}}, LMNN{Mu: 1}, "Mu 1"},
	} {
		_, err := c.lmnn.Fit(context.Background(), c.d)
		if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid and saying %q", c.name, err, c.want)
		}
	}
}

// TestDeterministic: the same bytes on 1 and 4 workers.
func TestDeterministic(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(200))
	fit := func(procs int) *mat.Dense {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, err := LMNN{MaxIter: 5}.Fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		return m.Embedding()
	}
	if !mat.Equal(fit(1), fit(4)) {
		t.Error("GOMAXPROCS 1 and 4 give different embeddings")
	}
}
