// Package lpp is locality preserving projections (He and Niyogi, NIPS 2003): the linear map
// whose embedding keeps neighbours of a graph close. With edge weights w_ij (a heat kernel
// exp(−‖x_i − x_j‖²/t) on the edges of a k-nearest-neighbour graph, symmetrised; 0 elsewhere),
// degrees d_i = Σ_j w_ij and the Laplacian L = D − W, the directions a minimise
//
//	Σ_ij w_ij (aᵀx_i − aᵀx_j)² / 2 = aᵀ Xᵀ L X a   subject to   aᵀ Xᵀ D X a = 1,
//
// that is, they are the generalised eigenvectors of Xᵀ L X a = λ Xᵀ D X a with the smallest λ.
// As in the paper, the rows are first projected onto their principal subspace (components with
// variance above 1e-10 of the largest), which makes Xᵀ D X non-singular; the problem is then
// solved by a Cholesky factor of Xᵀ D X and a symmetric eigen-decomposition (gonum/mat).
//
// Supervised (the default, the HOPE paper's baseline): edges join each row to its k nearest
// rows of the same class, the paper's supervised graph; rows without a label are embedded but
// not learnt from. Unsupervised: the k-NN graph of all rows. The graph costs one exact k-NN
// search (package neighbors); the rest is O(nH² + H³).
package lpp

import (
	"context"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/classes"
	"github.com/lowdim/lowdim/baseline/internal/linmap"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// DefaultK is the default number of graph neighbours.
const DefaultK = 5

// LPP is locality preserving projections.
type LPP struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// K is the number of nearest neighbours per row in the graph; 0 means DefaultK. In the
	// supervised graph a class of m rows gives each of its rows min(K, m − 1) neighbours.
	K int
	// T is the heat kernel's width t; 0 means the mean squared length of the graph's edges.
	T float64
	// Unsupervised builds the graph from all rows, ignoring labels.
	Unsupervised bool
	// Progress, if not nil, receives the k-NN search's reports.
	Progress lowdim.Progress
}

var _ lowdim.Embedder = LPP{}

// Fit builds the graph, solves for the directions and embeds every row. It returns a
// *linmap.Model.
func (p LPP) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	dim, k := p.Dim, p.K
	if dim == 0 {
		dim = 2
	}
	if k == 0 {
		k = DefaultK
	}
	var (
		x     *mat.Dense
		class []int
	)
	if p.Unsupervised {
		if d == nil || d.X == nil || d.Len() < 2 {
			return nil, dataset.Invalidf("lpp: needs at least 2 rows")
		}
		x = d.X
		class = make([]int, d.Len())
		for i := range x.RawMatrix().Rows {
			for j := range x.RawMatrix().Cols {
				if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, dataset.Invalidf("lpp: row %d column %d is %v", i+1, j+1, v)
				}
			}
		}
	} else {
		lab, err := classes.Of("lpp", d)
		if err != nil {
			return nil, err
		}
		x, class = lab.X, lab.Class
	}
	_, h := x.Dims()
	switch {
	case dim < 1 || dim > h:
		return nil, dataset.Invalidf("lpp: Dim %d out of range 1..%d (the number of features)", dim, h)
	case k < 1:
		return nil, dataset.Invalidf("lpp: K %d: expected a positive number", k)
	case p.T < 0 || math.IsNaN(p.T) || math.IsInf(p.T, 0):
		return nil, dataset.Invalidf("lpp: T %v: expected a positive number", p.T)
	}
	w, err := graph(ctx, x, class, k, p.T, p.Progress)
	if err != nil {
		return nil, err
	}
	dirs, mean, err := Directions(ctx, x, w, dim)
	if err != nil {
		return nil, err
	}
	return linmap.New("lpp", mean, dirs, d.X), nil
}

// Edge is one edge of a symmetric weighted graph: I < J, weight W.
type Edge struct {
	I, J int
	W    float64
}

// graph returns the symmetrised heat-kernel k-NN graph, each row joined to its nearest rows of
// the same class.
func graph(ctx context.Context, x *mat.Dense, class []int, k int, t float64, prog lowdim.Progress) ([]Edge, error) {
	idx, dist, err := classes.Neighbours(ctx, x, class, k, prog)
	if err != nil {
		return nil, err
	}
	type pair struct{ i, j int }
	d2 := map[pair]float64{}
	var order []pair
	for i, row := range idx {
		for b, j := range row {
			key := pair{min(i, j), max(i, j)}
			if _, ok := d2[key]; !ok {
				order = append(order, key)
			}
			d2[key] = dist[i][b]
		}
	}
	if len(order) == 0 {
		return nil, dataset.Invalidf("lpp: the graph has no edges")
	}
	if t == 0 {
		for _, e := range order {
			t += d2[e]
		}
		t /= float64(len(order))
		if t == 0 {
			t = 1 // every edge joins duplicates: any width gives weight 1
		}
	}
	edges := make([]Edge, len(order))
	for e, key := range order {
		edges[e] = Edge{I: key.i, J: key.j, W: math.Exp(-d2[key] / t)}
	}
	return edges, nil
}

// Directions solves LPP's generalised eigenproblem for the rows of x (n×H) and the graph
// edges, returning the D×H map (rows are the directions aᵀ, smallest eigenvalue first, each
// signed so that its entry of largest magnitude is positive) and the mean it centres on.
func Directions(ctx context.Context, x *mat.Dense, edges []Edge, dim int) (*mat.Dense, []float64, error) {
	n, h := x.Dims()
	pm, err := linproj.PCA{Dim: min(h, n)}.Fit(ctx, &dataset.Set{X: x})
	if err != nil {
		return nil, nil, err
	}
	pca := pm.(*linproj.PCAModel)
	r := 0
	for _, v := range pca.Variance {
		if v > 1e-10*pca.Variance[0] {
			r++
		}
	}
	if r < dim {
		return nil, nil, dataset.Invalidf("lpp: the rows span %d dimensions, Dim asks for %d", r, dim)
	}
	comp := pca.Components.Slice(0, h, 0, r)
	xp := mat.DenseCopyOf(pca.Embedding().Slice(0, n, 0, r))
	// B = Xᵀ D X and A = Xᵀ L X = B − Xᵀ W X. As a rank-one update per row and a rank-two one
	// per edge they cost (n + |E|)·r² multiply-adds; as the products Xᵀ(DX) and Xᵀ(WX), with
	// WX summed along the edges (|E|·r), 2n·r² in gonum's blocked, parallel Dgemm whatever k
	// is. On MNIST's 60,000 rows (plain build, 2 cores, 27 Nov 2026) the whole fit went from
	// 1m5s to 35 s with the default same-class 5-NN graph and from 14 minutes (beside another
	// job) to 53 s with a 100-NN one; BenchmarkFitMNIST5000 from 7.6 to 5.1 s (medians of 3,
	// beside another job). The sums are added in another order: the errors in `lowdim
	// reproduce hope` did not move.
	deg := make([]float64, n)
	for _, e := range edges {
		deg[e.I] += e.W
		deg[e.J] += e.W
	}
	side := mat.NewDense(n, r, nil) // WX, then DX
	for _, e := range edges {
		floats.AddScaled(side.RawRowView(e.I), e.W, xp.RawRowView(e.J))
		floats.AddScaled(side.RawRowView(e.J), e.W, xp.RawRowView(e.I))
	}
	var xwx, xdx mat.Dense
	xwx.Mul(xp.T(), side)
	for i := range n {
		floats.ScaleTo(side.RawRowView(i), deg[i], xp.RawRowView(i))
	}
	xdx.Mul(xp.T(), side)
	// The products are symmetric up to rounding; their mean with the transpose makes them so.
	b, a := mat.NewSymDense(r, nil), mat.NewSymDense(r, nil)
	for i := range r {
		for j := i; j < r; j++ {
			bij := (xdx.At(i, j) + xdx.At(j, i)) / 2
			b.SetSym(i, j, bij)
			a.SetSym(i, j, bij-(xwx.At(i, j)+xwx.At(j, i))/2)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(b) {
		return nil, nil, dataset.Invalidf("lpp: XᵀDX is singular: rows without graph edges span directions the others do not")
	}
	var u mat.TriDense
	chol.UTo(&u)
	// C = U⁻ᵀ A U⁻¹ (b = UᵀU).
	var uinv mat.TriDense
	if err := uinv.InverseTri(&u); err != nil {
		return nil, nil, dataset.Invalidf("lpp: XᵀDX is numerically singular: %v", err)
	}
	var tmp, c mat.Dense
	tmp.Mul(a, &uinv)
	c.Mul(uinv.T(), &tmp)
	cs := mat.NewSymDense(r, nil)
	for i := range r {
		for j := i; j < r; j++ {
			cs.SetSym(i, j, (c.At(i, j)+c.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cs, true) {
		return nil, nil, dataset.Invalidf("lpp: the eigen-decomposition did not converge")
	}
	var v mat.Dense
	eig.VectorsTo(&v) // ascending eigenvalues
	var av, w mat.Dense
	av.Mul(&uinv, v.Slice(0, r, 0, dim)) // r×D, aᵀ B a = 1
	w.Mul(comp, &av)                     // H×D in the original features
	out := mat.DenseCopyOf(w.T())
	for k := range dim {
		row := out.RawRowView(k)
		big := 0
		for j, val := range row {
			if math.Abs(val) > math.Abs(row[big]) {
				big = j
			}
		}
		if row[big] < 0 {
			for j := range row {
				row[j] = -row[j]
			}
		}
	}
	return out, pca.Mean, nil
}
