// Package lle is locally linear embedding (Roweis and Saul 2000) and its Hessian (Donoho and
// Grimes 2003) and local tangent space alignment (Zhang and Zha 2004) variants, as
// scikit-learn 1.2's LocallyLinearEmbedding computes them.
//
// Each variant builds a sparse positive semi-definite n×n matrix M from the k nearest
// neighbours N(i) of every point (the point itself excluded) and embeds with the
// eigenvectors of M's 2nd to (D+1)-th smallest eigenvalues (the first is the constant
// vector), each of unit norm:
//
//   - Standard: barycentre weights w_i = argmin ‖x_i − Σ_j w_ij x_j‖² with Σ_j w_ij = 1,
//     solved as (G + r I) w = 1, w ← w/Σw, with G_jl = (x_j − x_i)·(x_l − x_i) over N(i) and
//     r = Reg·trace(G) (Reg·1 when the trace is 0); M = (I − W)ᵀ(I − W).
//   - Hessian: the centred neighbourhood's top D left singular vectors U, the matrix
//     Y = [1, U, (u_a ⊙ u_b)_{a≤b}], its full QR factor Q, and w = Q's columns after the
//     first D + 1, each divided by its sum (unless |sum| < HessianTol); M = Σ_i w wᵀ on
//     N(i)×N(i). (scikit-learn's Q is LAPACK's full Householder factor, and so is gonum's:
//     the complement columns, which the column-sum scaling makes matter, agree.)
//   - LTSA: with G = [1/√k, U], M = Σ_i (I − G Gᵀ) on N(i)×N(i).
//
// The eigenpairs come from shift-invert Lanczos with a sparse Cholesky factor
// (baseline/internal/eigs), as scikit-learn's ARPACK with SuperLU.
//
// A disconnected neighbour graph leaves M with several null vectors and no unique
// embedding: Fit refuses it, naming the number of components. Signs: each column's entry of
// largest |value| is positive.
//
// Model.Transform is scikit-learn's LocallyLinearEmbedding.transform for every variant: a
// new point's barycentre weights over its k nearest training points, applied to their
// embedded coordinates. A training row so transformed does not land on its fitted coordinates
// (it is its own nearest neighbour, at distance 0, and the regularised weights spread over the
// others): on the 400-point golden S-curve (k = 10) the largest move is 1.1 % of the
// embedding's largest row sum |y_1| + |y_2| (Hessian and LTSA: 1.8 %; TestModelFile).
//
// Model files (kind "lle", package modelio) keep what Transform reads: the embedding, the
// training rows, k and the regularisation.
package lle

import (
	"context"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/eigs"
	"github.com/lowdim/lowdim/baseline/internal/graph"
	"github.com/lowdim/lowdim/baseline/internal/oos"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// Variant selects the matrix M.
type Variant int

const (
	Standard Variant = iota // barycentre weights (the zero value)
	Hessian                 // Hessian eigenmaps (HLLE)
	LTSA                    // local tangent space alignment
)

func (v Variant) String() string {
	switch v {
	case Standard:
		return "standard"
	case Hessian:
		return "hessian"
	case LTSA:
		return "ltsa"
	}
	return "unknown"
}

// Defaults, scikit-learn's.
const (
	DefaultNeighbors  = 5
	DefaultReg        = 1e-3
	DefaultHessianTol = 1e-4
)

// LLE embeds features by locally linear embedding.
type LLE struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// Neighbors is k; 0 means DefaultNeighbors. Hessian needs k > D + D(D+1)/2.
	Neighbors int
	// Variant is Standard (the zero value), Hessian or LTSA.
	Variant Variant
	// Reg is the regularisation of the barycentre weights; 0 means DefaultReg.
	Reg float64
	// HessianTol is the smallest column sum the Hessian variant divides by; 0 means
	// DefaultHessianTol.
	HessianTol float64
	// Progress, if not nil, receives ("knn", done, total) reports.
	Progress lowdim.Progress
}

// Model is a fitted LLE.
type Model struct {
	// Y is the n×D embedding.
	Y *mat.Dense
	// Error is the sum of the D eigenvalues used (scikit-learn's reconstruction_error_).
	Error float64

	x   *mat.Dense
	k   int
	reg float64
}

var (
	_ lowdim.Embedder    = LLE{}
	_ lowdim.Transformer = (*Model)(nil)
)

// Embedding returns Y.
func (m *Model) Embedding() *mat.Dense { return m.Y }

// Fit embeds d.X. It returns a *Model.
func (l LLE) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("lle: no data")
	}
	n, h := d.X.Dims()
	dim, k, reg, htol := l.Dim, l.Neighbors, l.Reg, l.HessianTol
	if dim == 0 {
		dim = 2
	}
	if k == 0 {
		k = DefaultNeighbors
	}
	if reg == 0 {
		reg = DefaultReg
	}
	if htol == 0 {
		htol = DefaultHessianTol
	}
	if dim < 1 || dim+1 >= n {
		return nil, dataset.Invalidf("lle: Dim %d out of range 1..%d", dim, n-2)
	}
	if l.Variant < Standard || l.Variant > LTSA {
		return nil, dataset.Invalidf("lle: unknown variant %d", int(l.Variant))
	}
	if reg < 0 || math.IsNaN(reg) || math.IsInf(reg, 0) {
		return nil, dataset.Invalidf("lle: Reg %v: expected a positive number", reg)
	}
	if dp := dim * (dim + 1) / 2; l.Variant == Hessian && k <= dim+dp {
		return nil, dataset.Invalidf("lle: the Hessian variant needs more than D + D(D+1)/2 = %d neighbours, found %d", dim+dp, k)
	}
	if l.Variant != Standard && k < dim {
		return nil, dataset.Invalidf("lle: %s needs at least D = %d neighbours, found %d", l.Variant, dim, k)
	}
	if k < 1 || k >= n {
		return nil, dataset.Invalidf("lle: %d neighbours of %d points: expected 1 ≤ k < n", k, n)
	}
	knn, err := neighbors.KNN(ctx, d.X, k, neighbors.Options{Progress: l.Progress})
	if err != nil {
		return nil, err
	}
	if err := graph.Symmetrise(knn).Connected("lle", k); err != nil {
		return nil, err
	}
	// Local blocks, one per point, computed in parallel and summed in point order.
	blocks := make([][]float64, n) // Standard: the k weights; others: the k×k block
	var firstErr error
	var mu sync.Mutex
	forEach(n, func(i int) {
		idx, _ := knn.Row(i)
		var err error
		switch l.Variant {
		case Standard:
			blocks[i], err = barycentre(d.X.RawRowView(i), d.X, idx, reg)
		case Hessian:
			blocks[i], err = hessianBlock(d.X, idx, dim, h, htol)
		case LTSA:
			blocks[i], err = ltsaBlock(d.X, idx, dim, h)
		}
		if err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}
	})
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := eigs.NewBuilder(n)
	for i := 0; i < n; i++ {
		idx, _ := knn.Row(i)
		if l.Variant == Standard {
			// v = e_i − Σ_j w_ij e_j; M += v vᵀ.
			w := blocks[i]
			b.Add(i, i, 1)
			for a, ja := range idx {
				b.Add(i, int(ja), -w[a])
				b.Add(int(ja), i, -w[a])
				for c, jc := range idx {
					b.Add(int(ja), int(jc), w[a]*w[c])
				}
			}
			continue
		}
		blk := blocks[i]
		for a, ja := range idx {
			for c, jc := range idx {
				b.Add(int(ja), int(jc), blk[a*k+c])
			}
		}
	}
	vals, vecs, err := eigs.Smallest(ctx, b.Build(), dim+1)
	if err != nil {
		return nil, err
	}
	y := mat.DenseCopyOf(vecs.Slice(0, n, 1, dim+1))
	eigs.SignFix(y)
	return &Model{Y: y, Error: floats.Sum(vals[1:]), x: mat.DenseCopyOf(d.X), k: k, reg: reg}, nil
}

// forEach runs f(i) for every point over runtime.NumCPU() workers.
func forEach(n int, f func(i int)) {
	nw := min(runtime.NumCPU(), n)
	var wg sync.WaitGroup
	next := make(chan int, 64)
	for w := 0; w < nw; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// barycentre returns the regularised barycentre weights of xi over the rows idx of x.
func barycentre(xi []float64, x *mat.Dense, idx []int32, reg float64) ([]float64, error) {
	k := len(idx)
	_, h := x.Dims()
	z := mat.NewDense(k, h, nil)
	for a, j := range idx {
		row := z.RawRowView(a)
		floats.SubTo(row, x.RawRowView(int(j)), xi)
	}
	g := mat.NewSymDense(k, nil)
	g.SymOuterK(1, z)
	tr := 0.0
	for a := 0; a < k; a++ {
		tr += g.At(a, a)
	}
	r := reg
	if tr > 0 {
		r = reg * tr
	}
	for a := 0; a < k; a++ {
		g.SetSym(a, a, g.At(a, a)+r)
	}
	var ch mat.Cholesky
	ones := make([]float64, k)
	for a := range ones {
		ones[a] = 1
	}
	w := mat.NewVecDense(k, nil)
	if ok := ch.Factorize(g); !ok {
		return nil, dataset.Invalidf("lle: the regularised local Gram matrix is not positive definite (non-finite or huge features?)")
	}
	if err := ch.SolveVecTo(w, mat.NewVecDense(k, ones)); err != nil {
		return nil, dataset.Invalidf("lle: local weights: %v", err)
	}
	out := w.RawVector().Data
	floats.Scale(1/floats.Sum(out), out)
	return out, nil
}

// tangent returns the top dim left singular vectors (k×dim) of the centred neighbourhood.
func tangent(x *mat.Dense, idx []int32, dim, h int) (*mat.Dense, error) {
	k := len(idx)
	g := mat.NewDense(k, h, nil)
	for a, j := range idx {
		g.SetRow(a, x.RawRowView(int(j)))
	}
	for c := 0; c < h; c++ {
		m := 0.0
		for a := 0; a < k; a++ {
			m += g.At(a, c)
		}
		m /= float64(k)
		for a := 0; a < k; a++ {
			g.Set(a, c, g.At(a, c)-m)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(g, mat.SVDThin) {
		return nil, dataset.Invalidf("lle: local SVD did not converge (non-finite features?)")
	}
	var u mat.Dense
	svd.UTo(&u)
	if _, c := u.Dims(); c < dim {
		// Fewer input features than D: the missing directions are zero.
		out := mat.NewDense(k, dim, nil)
		out.Slice(0, k, 0, c).(*mat.Dense).Copy(&u)
		return out, nil
	}
	return mat.DenseCopyOf(u.Slice(0, k, 0, dim)), nil
}

func hessianBlock(x *mat.Dense, idx []int32, dim, h int, htol float64) ([]float64, error) {
	k := len(idx)
	u, err := tangent(x, idx, dim, h)
	if err != nil {
		return nil, err
	}
	dp := dim * (dim + 1) / 2
	y := mat.NewDense(k, 1+dim+dp, nil)
	for a := 0; a < k; a++ {
		y.Set(a, 0, 1)
		for c := 0; c < dim; c++ {
			y.Set(a, 1+c, u.At(a, c))
		}
		col := 1 + dim
		for p := 0; p < dim; p++ {
			for q := p; q < dim; q++ {
				y.Set(a, col, u.At(a, p)*u.At(a, q))
				col++
			}
		}
	}
	var qr mat.QR
	qr.Factorize(y)
	var q mat.Dense
	qr.QTo(&q) // full k×k
	w := mat.DenseCopyOf(q.Slice(0, k, dim+1, k))
	_, nc := w.Dims()
	for c := 0; c < nc; c++ {
		s := 0.0
		for a := 0; a < k; a++ {
			s += w.At(a, c)
		}
		if math.Abs(s) < htol {
			s = 1
		}
		for a := 0; a < k; a++ {
			w.Set(a, c, w.At(a, c)/s)
		}
	}
	var blk mat.Dense
	blk.Mul(w, w.T())
	return blk.RawMatrix().Data, nil
}

func ltsaBlock(x *mat.Dense, idx []int32, dim, h int) ([]float64, error) {
	k := len(idx)
	u, err := tangent(x, idx, dim, h)
	if err != nil {
		return nil, err
	}
	g := mat.NewDense(k, dim+1, nil)
	for a := 0; a < k; a++ {
		g.Set(a, 0, 1/math.Sqrt(float64(k)))
		for c := 0; c < dim; c++ {
			g.Set(a, c+1, u.At(a, c))
		}
	}
	var blk mat.Dense
	blk.Mul(g, g.T())
	blk.Scale(-1, &blk)
	for a := 0; a < k; a++ {
		blk.Set(a, a, blk.At(a, a)+1)
	}
	return blk.RawMatrix().Data, nil
}

// Transform embeds new rows x (m×H) into dst (m×D, or empty to be resized) by their barycentre
// weights over their k nearest training rows.
func (m *Model) Transform(dst *mat.Dense, x mat.Matrix) error {
	n, h := m.x.Dims()
	_, dim := m.Y.Dims()
	r, err := oos.Check("lle", dst, x, h, dim)
	if err != nil {
		return err
	}
	xs := mat.DenseCopyOf(x)
	var firstErr error
	var mu sync.Mutex
	forEach(r, func(i int) {
		xi := xs.RawRowView(i)
		var h neighbors.TopK
		h.Reset(m.k)
		for j := 0; j < n; j++ {
			s := 0.0
			for t, v := range m.x.RawRowView(j) {
				e := xi[t] - v
				s += e * e
			}
			h.Push(s, int32(j))
		}
		idx := make([]int32, m.k)
		h.Sorted(idx, make([]float64, m.k))
		w, err := barycentre(xi, m.x, idx, m.reg)
		if err != nil {
			mu.Lock()
			firstErr = err
			mu.Unlock()
			return
		}
		for c := 0; c < dim; c++ {
			s := 0.0
			for a, j := range idx {
				s += w[a] * m.Y.At(int(j), c)
			}
			dst.Set(i, c, s)
		}
	})
	return firstErr
}
