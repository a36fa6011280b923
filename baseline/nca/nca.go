// Package nca is neighbourhood components analysis (Goldberger, Roweis, Hinton and
// Salakhutdinov, NIPS 2005): the linear map y = Lx (L of D×H) that maximises the expected number
// of rows a stochastic nearest-neighbour rule classifies correctly,
//
//	f(L) = Σ_i p_i,  p_i = Σ_{k: c_k = c_i} p_ik,  p_ik = exp(−‖Lx_i − Lx_k‖²) / Σ_{l≠i} exp(−‖Lx_i − Lx_l‖²),
//
// whose gradient is ∂f/∂L = −2 L Σ_ik w_ik (x_i − x_k)(x_i − x_k)ᵀ with w_ik = [c_k = c_i] p_ik − p_i p_ik.
// Fit minimises −f by L-BFGS (gonum/optimize), as scikit-learn's NeighborhoodComponentsAnalysis
// does with SciPy's L-BFGS-B, with its defaults: at most 50 iterations, stopping when the largest
// gradient entry or the relative decrease of −f falls below 1e-5, from its "auto" start (the LDA
// directions when D < G, else the top principal directions, else the identity). Each evaluation
// costs O(n²(D + 1)) time and O(n) memory (package stochnb): no n×n matrix is stored.
//
// Like scikit-learn, NCA does not centre: the map has no offset.
package nca

import (
	"context"
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/classes"
	"github.com/lowdim/lowdim/baseline/internal/linmap"
	"github.com/lowdim/lowdim/baseline/internal/stochnb"
	"github.com/lowdim/lowdim/baseline/lda"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// Defaults are scikit-learn 1.2's.
const (
	DefaultMaxIter = 50
	DefaultTol     = 1e-5
)

// NCA is neighbourhood components analysis.
type NCA struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// Init is the D×H starting map; nil means scikit-learn's "auto" start (see the package doc).
	Init *mat.Dense
	// MaxIter bounds the L-BFGS iterations; 0 means DefaultMaxIter.
	MaxIter int
	// Tol is the convergence threshold; 0 means DefaultTol.
	Tol float64
	// Progress, if not nil, receives ("nca", evaluation, MaxIter) reports.
	Progress lowdim.Progress
}

// Model is a fitted NCA map.
type Model struct {
	*linmap.Model
	// Objective is f = Σ_i p_i at the returned map (the expected number of rows a stochastic
	// nearest-neighbour rule classifies correctly), Start the same at the start.
	Objective, Start float64
	// Iterations and Evaluations count L-BFGS's major iterations and objective evaluations.
	Iterations, Evaluations int
}

var _ lowdim.Embedder = NCA{}

// Fit learns L from d's labelled rows and embeds every row. A class with a single row is allowed,
// as in scikit-learn: that row has no same-class neighbour (p_i = 0) and pulls nothing.
func (c NCA) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	lab, err := classes.Of("nca", d)
	if err != nil {
		return nil, err
	}
	_, h := lab.X.Dims()
	s, err := linmap.Iterative{Dim: c.Dim, MaxIter: c.MaxIter, Tol: c.Tol}.Resolve("nca", h, DefaultMaxIter, DefaultTol)
	if err != nil {
		return nil, err
	}
	dim, maxIter, tol := s.Dim, s.MaxIter, s.Tol
	start, err := c.start(ctx, lab, dim)
	if err != nil {
		return nil, err
	}
	obj := newObjective(lab.X, lab.Class, dim)
	f0, _, err := obj.eval(ctx, start.RawMatrix().Data)
	if err != nil {
		return nil, err
	}
	evals := 0
	problem := optimize.Problem{
		Func: func(l []float64) float64 {
			evals++
			c.Progress.Report("nca", min(evals, maxIter), maxIter)
			f, _, _ := obj.eval(ctx, l)
			return f
		},
		Grad: func(g, l []float64) {
			_, grad, _ := obj.eval(ctx, l)
			copy(g, grad)
		},
	}
	settings := &optimize.Settings{
		GradientThreshold: tol,
		MajorIterations:   maxIter,
		Converger:         &optimize.FunctionConverge{Relative: tol, Iterations: 1},
	}
	res, err := optimize.Minimize(problem, slices.Clone(start.RawMatrix().Data), settings, &optimize.LBFGS{})
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if err != nil && (res == nil || !isLinesearchFailure(err)) {
		return nil, err
	}
	// A failed line search (the objective is not convex) still leaves the best map found.
	l := mat.NewDense(dim, h, slices.Clone(res.X))
	return &Model{Model: linmap.New("nca", make([]float64, h), l, d.X), Objective: -res.F, Start: -f0,
		Iterations: res.Stats.MajorIterations, Evaluations: res.Stats.FuncEvaluations}, nil
}

// isLinesearchFailure reports the errors after which L-BFGS's result is still the best map
// found: the line search gave up near a stationary point, as SciPy's L-BFGS-B does with a warning.
func isLinesearchFailure(err error) bool {
	return errors.Is(err, optimize.ErrLinesearcherFailure) || errors.Is(err, optimize.ErrNoProgress) ||
		errors.Is(err, optimize.ErrNonDescentDirection)
}

// start is the Init setting or scikit-learn's "auto" start.
func (c NCA) start(ctx context.Context, lab *classes.Labelled, dim int) (*mat.Dense, error) {
	n, h := lab.X.Dims()
	if c.Init != nil {
		if r, k := c.Init.Dims(); r != dim || k != h {
			return nil, dataset.Invalidf("nca: Init is %d×%d, want %d×%d (Dim × features)", r, k, dim, h)
		}
		for _, v := range c.Init.RawMatrix().Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("nca: Init holds %v", v)
			}
		}
		return mat.DenseCopyOf(c.Init), nil
	}
	switch {
	case dim <= min(h, lab.G()-1):
		w, _, err := lda.Directions(ctx, lab.X, lab.Class, lab.G(), lda.DefaultTol)
		if err != nil {
			return nil, err
		}
		if _, r := w.Dims(); r >= dim {
			return mat.DenseCopyOf(w.Slice(0, h, 0, dim).T()), nil
		}
		fallthrough // the class means span fewer than D directions
	case dim < min(h, n):
		pm, err := linproj.PCA{Dim: dim}.Fit(ctx, &dataset.Set{X: lab.X})
		if err != nil {
			return nil, err
		}
		return mat.DenseCopyOf(pm.(*linproj.PCAModel).Components.T()), nil
	}
	l := mat.NewDense(dim, h, nil)
	for k := range dim {
		l.Set(k, k, 1)
	}
	return l, nil
}

// objective evaluates −f and its gradient, remembering the last point.
type objective struct {
	x     *mat.Dense
	class []int
	dim   int

	last       []float64
	f          float64
	grad       []float64
	y, u       *mat.Dense
	logZ, same []float64
}

func newObjective(x *mat.Dense, class []int, dim int) *objective {
	n, h := x.Dims()
	return &objective{x: x, class: class, dim: dim, grad: make([]float64, dim*h),
		y: mat.NewDense(n, dim, nil), u: mat.NewDense(n, dim, nil), logZ: make([]float64, n), same: make([]float64, n)}
}

// eval returns −f(L) and its gradient (row-major D×H; owned by o) at the row-major D×H map l.
func (o *objective) eval(ctx context.Context, l []float64) (float64, []float64, error) {
	if o.last != nil && slices.Equal(o.last, l) {
		return o.f, o.grad, nil
	}
	_, h := o.x.Dims()
	lm := mat.NewDense(o.dim, h, l)
	o.y.Mul(o.x, lm.T())
	err := stochnb.LogZ(ctx, o.y, o.logZ, func(i int, dist []float64, logZi float64) {
		var s float64
		for k, dk := range dist {
			if o.class[k] == o.class[i] {
				s += math.Exp(-dk - logZi)
			}
		}
		o.same[i] = s
	})
	if err == nil {
		err = stochnb.Laplacian(ctx, o.y, o.logZ, func(i, k int, pik float64) float64 {
			w := -o.same[i] * pik
			if o.class[k] == o.class[i] {
				w += pik
			}
			return w
		}, o.y, o.u)
	}
	if err != nil {
		return math.NaN(), o.grad, err
	}
	var f float64
	for _, s := range o.same {
		f -= s
	}
	// ∂(−f)/∂L = 2 L Xᵀ L_W X = 2 (L_W Y)ᵀ X.
	g := mat.NewDense(o.dim, h, o.grad)
	g.Mul(o.u.T(), o.x)
	g.Scale(2, g)
	o.f = f
	o.last = slices.Clone(l)
	return f, o.grad, nil
}

// Objective returns f(L) = Σ_i p_i and its gradient ∂f/∂L (D×H) for the rows of x with classes
// class, at the D×H map l: the quantities Fit maximises, for tests and reports.
func Objective(ctx context.Context, x *mat.Dense, class []int, l *mat.Dense) (float64, *mat.Dense, error) {
	dim, _ := l.Dims()
	o := newObjective(x, class, dim)
	f, g, err := o.eval(ctx, mat.DenseCopyOf(l).RawMatrix().Data)
	if err != nil {
		return 0, nil, err
	}
	gm := mat.NewDense(dim, len(g)/dim, slices.Clone(g))
	gm.Scale(-1, gm)
	return -f, gm, nil
}
