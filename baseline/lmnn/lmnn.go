// Package lmnn is large margin nearest neighbour metric learning (Weinberger and Saul, JMLR
// 2009) restricted to a D×H map L, the HOPE paper's 2-D LMNN baseline. Each row i has k target
// neighbours j ⇝ i, its nearest rows of the same class in the input space; LMNN minimises
//
//	ε(L) = (1 − μ) Σ_{i, j⇝i} ‖L(x_i − x_j)‖² + μ Σ_{i, j⇝i} Σ_{l: c_l ≠ c_i} [1 + ‖L(x_i − x_j)‖² − ‖L(x_i − x_l)‖²]_+,
//
// pulling target neighbours in and pushing every differently labelled row ("impostor") out of
// a unit margin around them (eq. 13 of the paper with L in place of M = LᵀL: with D < H the
// problem is no longer convex, which is how the paper handles low-rank maps too). The gradient
// is ∂ε/∂L = 2L Σ_ik w_ik (x_i − x_k)(x_i − x_k)ᵀ with w_ij = (1 − μ) + μ·#{active l} for target
// neighbours and w_il = −μ·#{active j} for impostors, an active triple being one whose hinge is
// positive. Fit minimises ε by L-BFGS (gonum/optimize) from the top D principal directions; the
// hinge's kinks are where the line search may stop early, and the best map found is kept.
//
// Each evaluation costs O(n²D + n·k·n) time (every row's distances to all rows in the
// embedding) and O(n·H) memory; the active set is not cached between evaluations.
package lmnn

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/classes"
	"github.com/lowdim/lowdim/baseline/internal/linmap"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// Defaults of LMNN's settings (K and Mu are the paper's).
const (
	DefaultK       = 3
	DefaultMu      = 0.5
	DefaultMaxIter = 100
	DefaultTol     = 1e-5
)

// LMNN is large margin nearest neighbour metric learning with a D-dimensional map.
type LMNN struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// K is the number of target neighbours per row; 0 means DefaultK.
	K int
	// Mu weighs the push term against the pull term, in (0, 1); 0 means DefaultMu.
	Mu float64
	// Init is the D×H starting map; nil means the top D principal directions.
	Init *mat.Dense
	// MaxIter bounds the L-BFGS iterations; 0 means DefaultMaxIter.
	MaxIter int
	// Tol stops L-BFGS when the relative decrease of ε or the largest gradient entry falls
	// below it; 0 means DefaultTol.
	Tol float64
	// Progress, if not nil, receives ("lmnn", evaluation, MaxIter) reports.
	Progress lowdim.Progress
}

// Model is a fitted LMNN map.
type Model struct {
	*linmap.Model
	// Objective is ε at the returned map, Start at the start.
	Objective, Start float64
	// Iterations and Evaluations count L-BFGS's major iterations and ε's evaluations.
	Iterations, Evaluations int
}

var _ lowdim.Embedder = LMNN{}

// Fit learns L from d's labelled rows and embeds every row (a row alone in its class has no
// target neighbours and adds nothing to ε).
func (c LMNN) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	lab, err := classes.Of("lmnn", d)
	if err != nil {
		return nil, err
	}
	k, mu := c.K, c.Mu
	if k == 0 {
		k = DefaultK
	}
	if mu == 0 {
		mu = DefaultMu
	}
	n, h := lab.X.Dims()
	s, err := linmap.Iterative{Dim: c.Dim, MaxIter: c.MaxIter, Tol: c.Tol}.Resolve("lmnn", h, DefaultMaxIter, DefaultTol)
	if err != nil {
		return nil, err
	}
	dim, maxIter, tol := s.Dim, s.MaxIter, s.Tol
	switch {
	case k < 1:
		return nil, dataset.Invalidf("lmnn: K %d: expected a positive number", k)
	case !(mu > 0 && mu < 1):
		return nil, dataset.Invalidf("lmnn: Mu %v: expected a number in (0, 1)", mu)
	}
	var start *mat.Dense
	if c.Init != nil {
		if r, cc := c.Init.Dims(); r != dim || cc != h {
			return nil, dataset.Invalidf("lmnn: Init is %d×%d, want %d×%d (Dim × features)", r, cc, dim, h)
		}
		start = mat.DenseCopyOf(c.Init)
	} else {
		if n <= dim {
			return nil, dataset.Invalidf("lmnn: %d labelled rows for a %d-dimensional start", n, dim)
		}
		pm, err := linproj.PCA{Dim: dim}.Fit(ctx, &dataset.Set{X: lab.X})
		if err != nil {
			return nil, err
		}
		start = mat.DenseCopyOf(pm.(*linproj.PCAModel).Components.T())
	}
	targets, _, err := classes.Neighbours(ctx, lab.X, lab.Class, k, nil)
	if err != nil {
		return nil, err
	}
	o := &objective{x: lab.X, class: lab.Class, targets: targets, mu: mu, dim: dim}
	f0, _, err := o.eval(ctx, start.RawMatrix().Data)
	if err != nil {
		return nil, err
	}
	evals := 0
	problem := optimize.Problem{
		Func: func(l []float64) float64 {
			evals++
			c.Progress.Report("lmnn", min(evals, maxIter), maxIter)
			f, _, _ := o.eval(ctx, l)
			return f
		},
		Grad: func(g, l []float64) {
			_, grad, _ := o.eval(ctx, l)
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
	if err != nil && (res == nil || !(errors.Is(err, optimize.ErrLinesearcherFailure) || errors.Is(err, optimize.ErrNoProgress) ||
		errors.Is(err, optimize.ErrNonDescentDirection))) {
		return nil, err
	}
	l := mat.NewDense(dim, h, slices.Clone(res.X))
	return &Model{Model: linmap.New("lmnn", make([]float64, h), l, d.X), Objective: res.F, Start: f0,
		Iterations: res.Stats.MajorIterations, Evaluations: res.Stats.FuncEvaluations}, nil
}

// block is the number of rows whose gradient terms one partial sum holds; partial sums are
// added in block order, so results do not depend on the number of workers.
const block = 32

type objective struct {
	x       *mat.Dense
	class   []int
	targets [][]int
	mu      float64
	dim     int

	last []float64
	f    float64
	grad []float64
}

// eval returns ε(L) and ∂ε/∂L (row-major D×H, owned by o) at the row-major map l.
func (o *objective) eval(ctx context.Context, l []float64) (float64, []float64, error) {
	if o.last != nil && slices.Equal(o.last, l) {
		return o.f, o.grad, nil
	}
	n, h := o.x.Dims()
	dim := o.dim
	lm := mat.NewDense(dim, h, l)
	var y mat.Dense
	y.Mul(o.x, lm.T())
	yr := y.RawMatrix()
	nb := (n + block - 1) / block
	fs := make([]float64, nb)
	// Per block, Σ_i Σ_k w_ik (y_i − y_k)(x_i − x_k)ᵀ = Σ_i [Σ_k w_ik (y_i − y_k)] x_iᵀ − Σ_i Σ_k w_ik (y_i − y_k) x_kᵀ.
	parts := make([]*mat.Dense, nb)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), nb) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dist := make([]float64, n)
			w := make([]float64, n)
			var touched []int
			dy := make([]float64, dim)
			for ctx.Err() == nil {
				b := int(next.Add(1)) - 1
				if b >= nb {
					return
				}
				g := mat.NewDense(dim, h, nil)
				gr := g.RawMatrix()
				var f float64
				for i := b * block; i < min((b+1)*block, n); i++ {
					yi := yr.Data[i*yr.Stride : i*yr.Stride+dim]
					for k := range n {
						yk := yr.Data[k*yr.Stride : k*yr.Stride+dim]
						var s float64
						for a, v := range yi {
							e := v - yk[a]
							s += e * e
						}
						dist[k] = s
					}
					touched = touched[:0]
					add := func(k int, v float64) {
						if w[k] == 0 {
							touched = append(touched, k)
						}
						w[k] += v
					}
					for _, j := range o.targets[i] {
						f += (1 - o.mu) * dist[j]
						add(j, 1-o.mu)
						for l, dl := range dist {
							if o.class[l] == o.class[i] {
								continue
							}
							if m := 1 + dist[j] - dl; m > 0 {
								f += o.mu * m
								add(j, o.mu)
								add(l, -o.mu)
							}
						}
					}
					xi := o.x.RawRowView(i)
					for _, k := range touched {
						wk := w[k]
						w[k] = 0
						if wk == 0 {
							continue
						}
						yk := yr.Data[k*yr.Stride : k*yr.Stride+dim]
						xk := o.x.RawRowView(k)
						for a := range dim {
							dy[a] = wk * (yi[a] - yk[a])
						}
						for a := range dim {
							row := gr.Data[a*gr.Stride : a*gr.Stride+h]
							for j := range row {
								row[j] += dy[a] * (xi[j] - xk[j])
							}
						}
					}
				}
				fs[b], parts[b] = f, g
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return math.NaN(), o.grad, err
	}
	var f float64
	g := mat.NewDense(dim, h, nil)
	for b := range nb {
		f += fs[b]
		g.Add(g, parts[b])
	}
	g.Scale(2, g)
	o.f, o.grad, o.last = f, g.RawMatrix().Data, slices.Clone(l)
	return f, o.grad, nil
}

// Objective returns ε(L) and ∂ε/∂L for the rows of x with classes class (0..G−1), k target
// neighbours and weight mu, at the D×H map l: what Fit minimises, for tests and reports.
func Objective(ctx context.Context, x *mat.Dense, class []int, k int, mu float64, l *mat.Dense) (float64, *mat.Dense, error) {
	targets, _, err := classes.Neighbours(ctx, x, class, k, nil)
	if err != nil {
		return 0, nil, err
	}
	dim, h := l.Dims()
	o := &objective{x: x, class: class, targets: targets, mu: mu, dim: dim}
	f, g, err := o.eval(ctx, mat.DenseCopyOf(l).RawMatrix().Data)
	if err != nil {
		return 0, nil, err
	}
	return f, mat.NewDense(dim, h, slices.Clone(g)), nil
}
