// Package linmap is the fitted model the supervised linear baselines (lda, nca, mcml, lpp,
// lmnn) share: the affine map y = W(x − μ), with W a D×H matrix and μ the H-vector the method
// centres on. Every such method is parametric, so the model embeds new rows (Transform).
package linmap

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
)

// Model is y = W(x − Mean).
type Model struct {
	// Method names the method that fitted the map ("lda", "nca", …), for messages.
	Method string
	// Mean is the H-vector subtracted before the map.
	Mean []float64
	// W is the D×H map.
	W *mat.Dense

	y *mat.Dense // n×D, the training rows
}

var (
	_ lowdim.Model       = (*Model)(nil)
	_ lowdim.Transformer = (*Model)(nil)
)

// New returns the model y = W(x − mean) with the embedding of the n×H training rows x.
func New(method string, mean []float64, w *mat.Dense, x mat.Matrix) *Model {
	m := &Model{Method: method, Mean: mean, W: w}
	m.y = new(mat.Dense)
	m.project(m.y, x)
	return m
}

// Embedding returns the n×D embedding of the training rows (not a copy).
func (m *Model) Embedding() *mat.Dense { return m.y }

// Transform embeds the rows of x (r×H) into dst (r×D, or empty). A wrong column count, a dst of
// the wrong shape or a non-finite value is an error wrapping dataset.ErrInvalid.
func (m *Model) Transform(dst *mat.Dense, x mat.Matrix) error {
	if dst == nil || x == nil {
		return dataset.Invalidf("%s transform: nil matrix", m.Method)
	}
	r, c := x.Dims()
	d, h := m.W.Dims()
	switch {
	case c != h:
		return dataset.Invalidf("%s transform: data have %d columns, the model was made on %d", m.Method, c, h)
	case r == 0:
		return dataset.Invalidf("%s transform: no rows", m.Method)
	}
	if !dst.IsEmpty() {
		if dr, dc := dst.Dims(); dr != r || dc != d {
			return dataset.Invalidf("%s transform: dst is %d×%d, want %d×%d", m.Method, dr, dc, r, d)
		}
	}
	for i := range r {
		for j := range c {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return dataset.Invalidf("%s transform: row %d column %d is %v", m.Method, i+1, j+1, v)
			}
		}
	}
	m.project(dst, x)
	return nil
}

// project sets dst = (x − 1μᵀ)Wᵀ.
func (m *Model) project(dst *mat.Dense, x mat.Matrix) {
	r, _ := x.Dims()
	xc := mat.DenseCopyOf(x)
	for i := range r {
		row := xc.RawRowView(i)
		for j, mu := range m.Mean {
			row[j] -= mu
		}
	}
	if dst.IsEmpty() {
		d, _ := m.W.Dims()
		dst.ReuseAs(r, d)
	}
	dst.Mul(xc, m.W.T())
}

// Iterative holds the settings every iteratively fitted linear map shares (NCA, MCML, LMNN):
// the output dimension and the optimiser's iteration bound and tolerance.
type Iterative struct {
	Dim, MaxIter int
	Tol          float64
}

// Resolve fills the zero settings with the defaults (Dim 2, maxIter, tol) and checks them
// against h features, naming method in the error.
func (s Iterative) Resolve(method string, h, maxIter int, tol float64) (Iterative, error) {
	if s.Dim == 0 {
		s.Dim = 2
	}
	if s.MaxIter == 0 {
		s.MaxIter = maxIter
	}
	if s.Tol == 0 {
		s.Tol = tol
	}
	switch {
	case s.Dim < 1 || s.Dim > h:
		return s, dataset.Invalidf("%s: Dim %d out of range 1..%d (the number of features)", method, s.Dim, h)
	case s.MaxIter < 1:
		return s, dataset.Invalidf("%s: MaxIter %d: expected a positive number", method, s.MaxIter)
	case !(s.Tol > 0):
		return s, dataset.Invalidf("%s: Tol %v: expected a positive number", method, s.Tol)
	}
	return s, nil
}
