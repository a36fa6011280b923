// Package mcml is metric learning by collapsing classes (Globerson and Roweis, NIPS 2006): the
// positive semidefinite matrix A of a Mahalanobis distance d_ij = (x_i − x_j)ᵀ A (x_i − x_j) under
// which each class collapses towards a point. With p^A(j|i) = exp(−d_ij) / Σ_{k≠i} exp(−d_ik) and
// the ideal p0(j|i) = 1/(n_{c_i} − 1) for the other rows of i's class (0 for the rest), MCML
// minimises the convex
//
//	f(A) = Σ_i KL(p0(·|i) ‖ p^A(·|i)) + const = Σ_i Σ_j p0(j|i) d_ij + Σ_i log Σ_{k≠i} exp(−d_ik),
//
// whose gradient is ∇f = Σ_ij (p0(j|i) − p^A(j|i)) (x_i − x_j)(x_i − x_j)ᵀ, over the cone A ⪰ 0.
// Fit runs the paper's projected gradient: a step A − η∇f, then the projection onto the cone
// (negative eigenvalues set to zero), with η chosen by backtracking until the projected step
// decreases f by the usual sufficient-decrease bound (and grown by 1.5 after each accepted
// step), from A = 0 until the relative decrease of f falls below Tol. The D-dimensional map is
// then y = Λ_D^{½} V_Dᵀ x from the D leading eigenpairs of A (the paper's low-rank embedding).
//
// Each evaluation costs O(n²(r + H)) for a rank-r iterate and O(n) memory (package stochnb):
// the method is quadratic in n and, through ∇f = Xᵀ L_W X, linear in H per pair — the HOPE paper
// leaves its MNIST row empty as "unscalable". Reduce H first (PCA) on wide data.
package mcml

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/classes"
	"github.com/lowdim/lowdim/baseline/internal/linmap"
	"github.com/lowdim/lowdim/baseline/internal/stochnb"
	"github.com/lowdim/lowdim/dataset"
)

// Defaults of MCML's settings.
const (
	DefaultMaxIter = 100
	DefaultTol     = 1e-6
)

// MCML is metric learning by collapsing classes.
type MCML struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// MaxIter bounds the projected-gradient steps; 0 means DefaultMaxIter.
	MaxIter int
	// Tol stops the descent when an accepted step lowers f by less than Tol·|f|; 0 means
	// DefaultTol.
	Tol float64
	// Progress, if not nil, receives ("mcml", step, MaxIter) reports.
	Progress lowdim.Progress
}

// Model is a fitted MCML map.
type Model struct {
	*linmap.Model
	// A is the learnt H×H metric.
	A *mat.SymDense
	// Objective is f(A) (up to the constant Σ_i Σ_j p0 log p0), Steps the accepted steps.
	Objective float64
	Steps     int
}

var _ lowdim.Embedder = MCML{}

// Fit learns A from d's labelled rows (at least two rows per class) and embeds every row.
func (c MCML) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	lab, err := classes.Of("mcml", d)
	if err != nil {
		return nil, err
	}
	if err := lab.Singletons("mcml"); err != nil {
		return nil, err
	}
	_, h := lab.X.Dims()
	s, err := linmap.Iterative{Dim: c.Dim, MaxIter: c.MaxIter, Tol: c.Tol}.Resolve("mcml", h, DefaultMaxIter, DefaultTol)
	if err != nil {
		return nil, err
	}
	dim, maxIter, tol := s.Dim, s.MaxIter, s.Tol
	o := newObjective(lab.X, lab.Class, lab.Counts)
	a := mat.NewSymDense(h, nil)
	f, grad, err := o.eval(ctx, a, true)
	if err != nil {
		return nil, err
	}
	// The first step: a length of 1 along the unit gradient, in units of the data's scale.
	eta := 1 / math.Max(mat.Norm(grad, 2), 1e-300)
	steps := 0
	for steps < maxIter {
		c.Progress.Report("mcml", steps, maxIter)
		var next *mat.SymDense
		var fn float64
		accepted := false
		for range 60 {
			next = project(step(a, grad, eta))
			if fn, _, err = o.eval(ctx, next, false); err != nil {
				return nil, err
			}
			// Sufficient decrease for a projected step: f(A⁺) ≤ f(A) + ⟨∇f, A⁺ − A⟩ + ‖A⁺ − A‖²/(2η).
			diff := step(next, a, 1)
			bound := f + dot(grad, diff) + dot(diff, diff)/(2*eta)
			if fn <= bound+1e-12*math.Abs(f) {
				accepted = true
				break
			}
			eta /= 2
		}
		if !accepted {
			break
		}
		steps++
		decrease := f - fn
		a = next
		if f, grad, err = o.eval(ctx, a, true); err != nil {
			return nil, err
		}
		if decrease < tol*math.Abs(f) {
			break
		}
		eta *= 1.5
	}
	c.Progress.Report("mcml", maxIter, maxIter)
	w, err := lowRank(a, dim)
	if err != nil {
		return nil, err
	}
	return &Model{Model: linmap.New("mcml", make([]float64, h), w, d.X), A: a, Objective: f, Steps: steps}, nil
}

// step returns the symmetric A − η∇ (with η = 1, a difference).
func step(a, grad *mat.SymDense, eta float64) *mat.SymDense {
	h := a.SymmetricDim()
	s := mat.NewSymDense(h, nil)
	for i := range h {
		for j := i; j < h; j++ {
			s.SetSym(i, j, a.At(i, j)-eta*grad.At(i, j))
		}
	}
	return s
}

// project returns the nearest positive semidefinite matrix (in the Frobenius norm): the
// eigen-decomposition with negative eigenvalues set to zero.
func project(s *mat.SymDense) *mat.SymDense {
	var eig mat.EigenSym
	if !eig.Factorize(s, true) {
		return s
	}
	vals := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	h := s.SymmetricDim()
	out := mat.NewSymDense(h, nil)
	for k, l := range vals {
		if l <= 0 {
			continue
		}
		col := mat.Col(nil, k, &v)
		out.SymRankOne(out, l, mat.NewVecDense(h, col))
	}
	return out
}

// factor returns L (r×H) with LᵀL = A from A's positive eigenpairs, largest first.
func factor(a *mat.SymDense) *mat.Dense {
	h := a.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		return mat.NewDense(1, h, nil)
	}
	vals := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	top := 0.0
	for _, l := range vals {
		top = math.Max(top, l)
	}
	var rows []float64
	r := 0
	for k := len(vals) - 1; k >= 0; k-- {
		if vals[k] <= 1e-14*top || vals[k] <= 0 {
			continue
		}
		s := math.Sqrt(vals[k])
		for j := range h {
			rows = append(rows, s*v.At(j, k))
		}
		r++
	}
	if r == 0 {
		return mat.NewDense(1, h, nil)
	}
	return mat.NewDense(r, h, rows)
}

// lowRank returns the D×H map Λ_D^{½} V_Dᵀ, each row signed so that its entry of largest
// magnitude is positive (eigenvectors have no sign of their own).
func lowRank(a *mat.SymDense, dim int) (*mat.Dense, error) {
	l := factor(a)
	r, h := l.Dims()
	w := mat.NewDense(dim, h, nil)
	for k := range min(r, dim) {
		row := l.RawRowView(k)
		big := 0
		for j, v := range row {
			if math.Abs(v) > math.Abs(row[big]) {
				big = j
			}
		}
		s := math.Copysign(1, row[big])
		for j, v := range row {
			w.Set(k, j, s*v)
		}
	}
	return w, nil
}

// dot is the Frobenius inner product ⟨a, b⟩ = tr(ab).
func dot(a, b *mat.SymDense) float64 {
	h := a.SymmetricDim()
	var t float64
	for i := range h {
		for j := range h {
			t += a.At(i, j) * b.At(i, j)
		}
	}
	return t
}

// objective evaluates f and ∇f.
type objective struct {
	x      *mat.Dense
	class  []int
	counts []int

	logZ, pull []float64
	u          *mat.Dense
}

func newObjective(x *mat.Dense, class, counts []int) *objective {
	n, h := x.Dims()
	return &objective{x: x, class: class, counts: counts, logZ: make([]float64, n), pull: make([]float64, n), u: mat.NewDense(n, h, nil)}
}

// eval returns f(A) and, when withGrad, ∇f (owned by the caller).
func (o *objective) eval(ctx context.Context, a *mat.SymDense, withGrad bool) (float64, *mat.SymDense, error) {
	l := factor(a)
	var y mat.Dense
	y.Mul(o.x, l.T())
	err := stochnb.LogZ(ctx, &y, o.logZ, func(i int, dist []float64, _ float64) {
		var s float64
		for k, dk := range dist {
			if k != i && o.class[k] == o.class[i] {
				s += dk
			}
		}
		o.pull[i] = s / float64(o.counts[o.class[i]]-1)
	})
	if err != nil {
		return 0, nil, err
	}
	var f float64
	for i := range o.logZ {
		f += o.pull[i] + o.logZ[i]
	}
	if !withGrad {
		return f, nil, nil
	}
	err = stochnb.Laplacian(ctx, &y, o.logZ, func(i, k int, pik float64) float64 {
		w := -pik
		if o.class[k] == o.class[i] {
			w += 1 / float64(o.counts[o.class[i]]-1)
		}
		return w
	}, o.x, o.u)
	if err != nil {
		return 0, nil, err
	}
	// ∇f = Xᵀ L_W X.
	var g mat.Dense
	g.Mul(o.x.T(), o.u)
	h := a.SymmetricDim()
	grad := mat.NewSymDense(h, nil)
	for i := range h {
		for j := i; j < h; j++ {
			grad.SetSym(i, j, (g.At(i, j)+g.At(j, i))/2)
		}
	}
	return f, grad, nil
}

// Objective returns f(A) and ∇f for the rows of x with classes class (0..G−1) at the positive
// semidefinite A: the quantities Fit minimises, for tests and reports.
func Objective(ctx context.Context, x *mat.Dense, class []int, a *mat.SymDense) (float64, *mat.SymDense, error) {
	g := 0
	for _, c := range class {
		g = max(g, c+1)
	}
	counts := make([]int, g)
	for _, c := range class {
		counts[c]++
	}
	return newObjective(x, class, counts).eval(ctx, a, true)
}
