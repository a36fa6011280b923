// Package lda is Fisher's linear discriminant analysis as a supervised linear embedding.
//
// With G classes of n_g rows, class means m_g, the overall mean m̄ = Σ_g (n_g/n) m_g, the
// within-class covariance S_w = Σ_i (x_i − m_{c_i})(x_i − m_{c_i})ᵀ/(n − G) and the between-class
// covariance S_b = Σ_g n_g (m_g − m̄)(m_g − m̄)ᵀ/(G − 1), LDA's directions w_1 … w_{G−1} solve
// S_b w = λ S_w w with wᵀ S_w w = 1, by decreasing λ; the embedding is y = Wᵀ(x − m̄) with the
// first D of them. A row's coordinates are then in units of the within-class standard deviation.
//
// The computation is scikit-learn's solver "svd" (LinearDiscriminantAnalysis, version 1.2),
// step for step, so that the two agree to rounding (tested to 1e-8 up to each column's sign,
// against golden files from testdata/make_golden.py): the within-class deviations are scaled
// per feature by their standard deviation and by (n − G)^{−½}, and their thin SVD U S Vᵀ gives
// the whitening V S⁻¹ (singular values at most Tol are dropped, so S_w may be singular: digits'
// constant pixels); the whitened, √(n_g/(G−1))-weighted class means then have a second SVD
// whose right singular vectors, kept while the singular value exceeds Tol times the largest,
// are the directions. Both SVDs are O(nH² + H³); neither forms S_w.
//
// Fit needs labels (rows labelled −1 are embedded but not learnt from) and at least D + 1
// classes: G classes span at most G − 1 directions.
package lda

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/classes"
	"github.com/lowdim/lowdim/baseline/internal/linmap"
	"github.com/lowdim/lowdim/dataset"
)

// DefaultTol is scikit-learn's tol: the rank threshold of the two SVDs.
const DefaultTol = 1e-4

// LDA is Fisher's linear discriminant analysis.
type LDA struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// Tol is the rank threshold: within-class singular values at most Tol, and between-class
	// ones at most Tol times the largest, are dropped. 0 means DefaultTol.
	Tol float64
}

var _ lowdim.Embedder = LDA{}

// Fit learns the directions from d's labelled rows and embeds every row. It returns a
// *linmap.Model (y = W(x − m̄), W of D×H), which has Transform.
func (l LDA) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	lab, err := classes.Of("lda", d)
	if err != nil {
		return nil, err
	}
	dim, tol := l.Dim, l.Tol
	if dim == 0 {
		dim = 2
	}
	if tol == 0 {
		tol = DefaultTol
	}
	switch {
	case dim < 1:
		return nil, dataset.Invalidf("lda: Dim %d: expected a positive number", dim)
	case !(tol > 0):
		return nil, dataset.Invalidf("lda: Tol %v: expected a positive number", tol)
	case dim > lab.G()-1:
		return nil, dataset.Invalidf("lda: %d classes span at most %d discriminant directions, Dim asks for %d", lab.G(), lab.G()-1, dim)
	}
	w, mean, err := Directions(ctx, lab.X, lab.Class, lab.G(), tol)
	if err != nil {
		return nil, err
	}
	if _, r := w.Dims(); r < dim {
		return nil, dataset.Invalidf("lda: the class means span only %d directions (beyond Tol %g), Dim asks for %d", r, tol, dim)
	}
	wt := mat.DenseCopyOf(w.Slice(0, d.Dim(), 0, dim).T())
	return linmap.New("lda", mean, wt, d.X), nil
}

// Directions returns the H×r matrix of discriminant directions (scikit-learn's scalings_, r ≤
// G − 1) of the rows of x whose classes 0..g−1 are class, and the prior-weighted mean m̄.
// NCA's default start uses it.
func Directions(ctx context.Context, x *mat.Dense, class []int, g int, tol float64) (*mat.Dense, []float64, error) {
	n, h := x.Dims()
	if n <= g {
		return nil, nil, dataset.Invalidf("lda: %d labelled rows in %d classes: the within-class covariance needs more rows than classes", n, g)
	}
	counts := make([]float64, g)
	means := mat.NewDense(g, h, nil)
	for i, c := range class {
		counts[c]++
		row := means.RawRowView(c)
		for j, v := range x.RawRowView(i) {
			row[j] += v
		}
	}
	for c := range g {
		row := means.RawRowView(c)
		for j := range row {
			row[j] /= counts[c]
		}
	}
	mean := make([]float64, h)
	for c := range g {
		p := counts[c] / float64(n)
		for j, v := range means.RawRowView(c) {
			mean[j] += p * v
		}
	}
	// Within-class deviations, scaled per column by their standard deviation (numpy's, ddof 0).
	xc := mat.NewDense(n, h, nil)
	for i, c := range class {
		row, mu := xc.RawRowView(i), means.RawRowView(c)
		for j, v := range x.RawRowView(i) {
			row[j] = v - mu[j]
		}
	}
	std := make([]float64, h)
	for j := range h {
		var s float64
		for i := range n {
			s += xc.At(i, j)
		}
		mu := s / float64(n)
		var ss float64
		for i := range n {
			e := xc.At(i, j) - mu
			ss += e * e
		}
		std[j] = math.Sqrt(ss / float64(n))
		if std[j] == 0 {
			std[j] = 1
		}
	}
	fac := math.Sqrt(1 / float64(n-g))
	for i := range n {
		row := xc.RawRowView(i)
		for j := range row {
			row[j] = fac * row[j] / std[j]
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThinV) {
		return nil, nil, dataset.Invalidf("lda: the SVD of the within-class deviations did not converge")
	}
	s := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	rank := 0
	for _, sv := range s {
		if sv > tol {
			rank++
		}
	}
	if rank == 0 {
		return nil, nil, dataset.Invalidf("lda: no within-class variance above Tol %g: every row equals its class mean", tol)
	}
	scal := mat.NewDense(h, rank, nil)
	for j := range h {
		for k := range rank {
			scal.Set(j, k, v.At(j, k)/std[j]/s[k])
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	fb := 1 / float64(g-1)
	cm := mat.NewDense(g, h, nil)
	for c := range g {
		wt := math.Sqrt(counts[c] * fb) // n·prior_g = n_g
		row := cm.RawRowView(c)
		for j, v := range means.RawRowView(c) {
			row[j] = wt * (v - mean[j])
		}
	}
	var between mat.Dense
	between.Mul(cm, scal)
	var svd2 mat.SVD
	if !svd2.Factorize(&between, mat.SVDThinV) {
		return nil, nil, dataset.Invalidf("lda: the SVD of the class means did not converge")
	}
	s2 := svd2.Values(nil)
	var v2 mat.Dense
	svd2.VTo(&v2)
	rank2 := 0
	for _, sv := range s2 {
		if sv > tol*s2[0] {
			rank2++
		}
	}
	if rank2 == 0 {
		return nil, nil, dataset.Invalidf("lda: the class means coincide: no discriminant direction")
	}
	var w mat.Dense
	w.Mul(scal, v2.Slice(0, rank, 0, rank2))
	return &w, mean, nil
}
