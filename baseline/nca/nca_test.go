package nca

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/internal/testio"
	"github.com/lowdim/lowdim/dataset"
)

func digits500() *dataset.Set {
	return dataset.Digits().Subset(rangeN(500))
}

func rangeN(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// TestSklearnStart: f and ∂f/∂L at the same start equal scikit-learn 1.2.1's
// _loss_grad_lbfgs (testdata/make_golden.py) to 1e-9 relative: the same function.
func TestSklearnStart(t *testing.T) {
	d := digits500()
	for _, start := range []string{"lda", "random"} {
		l := testio.ReadTxt(t, "testdata/digits500_"+start+"_init.txt")
		want := testio.ReadTxt(t, "testdata/digits500_"+start+"_start.txt").RawMatrix().Data
		f, g, err := Objective(context.Background(), d.X, d.Labels, l)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f-want[0]) > 1e-9*math.Abs(want[0]) {
			t.Errorf("%s: f = %.15g, scikit-learn %.15g", start, f, want[0])
		}
		gmax := 0.0
		for _, v := range want[1:] {
			gmax = math.Max(gmax, math.Abs(v))
		}
		for k, v := range g.RawMatrix().Data {
			if math.Abs(v-want[1+k]) > 1e-9*gmax {
				t.Fatalf("%s: gradient entry %d = %.15g, scikit-learn %.15g", start, k, v, want[1+k])
			}
		}
	}
}

// TestSklearnFit: from the same start, L-BFGS reaches an objective within 2 % of n of
// scikit-learn's L-BFGS-B (they take different steps on a non-convex f; 2 % of 500 rows is 10
// expected correct classifications), and no lower than it minus that.
func TestSklearnFit(t *testing.T) {
	if testing.Short() {
		t.Skip("two NCA fits on 500 rows")
	}
	d := digits500()
	for _, start := range []string{"lda", "random"} {
		l := testio.ReadTxt(t, "testdata/digits500_"+start+"_init.txt")
		want := testio.ReadTxt(t, "testdata/digits500_"+start+"_fit.txt").RawMatrix().Data
		m, err := NCA{Init: l}.Fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		got := m.(*Model)
		t.Logf("%s: f %.4f → %.4f in %d iterations (%d evaluations); scikit-learn %.4f in %v", start, got.Start, got.Objective, got.Iterations, got.Evaluations, want[0], want[1])
		if got.Objective < want[0]-10 {
			t.Errorf("%s: f = %.4f, scikit-learn reaches %.4f", start, got.Objective, want[0])
		}
		f, _, err := Objective(context.Background(), d.X, d.Labels, got.W)
		if err != nil || math.Abs(f-got.Objective) > 1e-9*f {
			t.Errorf("Objective %v at the returned map, Model.Objective %v (%v)", f, got.Objective, err)
		}
	}
}

// TestGradient: central differences of f against the analytic gradient, at a random map on 60
// rows of digits (steps 1e-6 of scale-1e-2 entries; f is smooth, so the agreement is ~1e-7).
func TestGradient(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(60))
	l := testio.ReadTxt(t, "testdata/digits500_random_init.txt")
	l.Scale(3, l)
	ctx := context.Background()
	_, g, err := Objective(ctx, d.X, d.Labels, l)
	if err != nil {
		t.Fatal(err)
	}
	const h = 1e-6
	r, c := l.Dims()
	for i := range r {
		for j := 0; j < c; j += 5 {
			v := l.At(i, j)
			l.Set(i, j, v+h)
			fp, _, _ := Objective(ctx, d.X, d.Labels, l)
			l.Set(i, j, v-h)
			fm, _, _ := Objective(ctx, d.X, d.Labels, l)
			l.Set(i, j, v)
			num := (fp - fm) / (2 * h)
			if math.Abs(num-g.At(i, j)) > 1e-6*math.Max(1, math.Abs(num)) {
				t.Errorf("∂f/∂L[%d,%d]: analytic %.10g, central difference %.10g", i, j, g.At(i, j), num)
			}
		}
	}
}

// TestDeterministic: the same bytes on 1 and 4 workers.
func TestDeterministic(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(200))
	fit := func(procs int) *mat.Dense {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, err := NCA{MaxIter: 10}.Fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		return m.Embedding()
	}
	a, b := fit(1), fit(4)
	if !mat.Equal(a, b) {
		t.Error("GOMAXPROCS 1 and 4 give different embeddings")
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1})
	for _, c := range []struct {
		name string
		d    *dataset.Set
		nca  NCA
		want string
	}{
		{"no labels", &dataset.Set{X: x}, NCA{}, "no labels"},
		{"one class", &dataset.Set{X: x, Labels: []int{0, 0, 0, 0}}, NCA{}, "at least 2 classes"},
		{"dim", &dataset.Set{X: x, Labels: []int{0, 0, 1, 1}}, NCA{Dim: 3}, "Dim 3 out of range"},
		{"init shape", &dataset.Set{X: x, Labels: []int{0, 0, 1, 1}}, NCA{Init: mat.NewDense(2, 3, nil)}, "Init is 2×3"},
	} {
		_, err := c.nca.Fit(context.Background(), c.d)
		if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid and saying %q", c.name, err, c.want)
		}
	}
}

// TestSingletonClass: a class of one row is accepted, as scikit-learn accepts it (that row's
// p_i is 0), and the fit is finite.
func TestSingletonClass(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1, 9, 9})
	m, err := NCA{}.Fit(context.Background(), &dataset.Set{X: x, Labels: []int{0, 0, 1, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.(*Model).Objective; math.IsNaN(f) || f < 0 || f > 4 {
		t.Errorf("objective %v, want a number in [0, 4] (4 rows have a same-class neighbour)", f)
	}
}
