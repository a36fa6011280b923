package web

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/lowdim/lowdim/neighbors"
)

// Hovers on large data sets find their exact input neighbours through a lower bound: z = x·V, a
// row's coordinates on m orthonormal directions V (the leading principal axes of a sample of
// the rows), is a contraction, ‖z_i − z_j‖² ≤ ‖x_i − x_j‖². A query ranks every row by that bound
// (n·m operations on n·m numbers, against the n·H of a scan) and sums the exact distance, in
// feature order as a scan does, only for rows whose bound does not already exceed the k-th
// nearest distance found — in increasing order of the bound, so that it stops at the first that
// does. Rounding in z is allowed for by a margin, so the answer is the scan's: same records, same
// order, same distances (TestHoverIndex).
const (
	hoverIndexMin  = 20000 // rows from which New builds the index (below, the scan costs little)
	hoverIndexDims = 32    // m
	hoverSample    = 2000  // rows the directions are fitted on
)

// hoverIndex is the rows' coordinates on the directions, n×m row-major, and the rounding margin
// of a bound (absolute, in squared distance).
type hoverIndex struct {
	m      int
	z      []float64
	margin float64
}

// newHoverIndex builds the index of the rows of x on m directions.
func newHoverIndex(x *mat.Dense, m int) *hoverIndex {
	n, h := x.Dims()
	m = min(m, h)
	s := min(n, hoverSample)
	sample := mat.NewDense(s, h, nil)
	for r := range s {
		sample.SetRow(r, x.RawRowView(int(int64(r)*int64(n)/int64(s))))
	}
	var v *mat.Dense
	var pc stat.PC
	if pc.PrincipalComponents(sample, nil) {
		var all mat.Dense
		pc.VectorsTo(&all)
		if _, c := all.Dims(); c >= m {
			v = mat.DenseCopyOf(all.Slice(0, h, 0, m))
		}
	}
	if v == nil { // any orthonormal directions bound the distance: the first m axes
		v = mat.NewDense(h, m, nil)
		for c := range m {
			v.Set(c, c, 1)
		}
	}
	z := mat.NewDense(n, m, nil)
	z.Mul(x, v)
	// z_ic is a sum of h products: its rounding error is below h·ε·Σ|x_if| ≤ h·ε·√h·‖x_i‖, and a
	// bound's, 2‖z_i − z_j‖ times that of the difference plus its square — far below the margin
	// of 1e-9 of the largest squared row norm (times h) taken here.
	var maxSq float64
	for i := range n {
		var q float64
		for _, e := range x.RawRowView(i) {
			q += e * e
		}
		maxSq = math.Max(maxSq, q)
	}
	return &hoverIndex{m: m, z: z.RawMatrix().Data, margin: 1e-9 * maxSq * float64(h)}
}

// neighbors leaves in top the k nearest rows of x to row i, exact, by (squared distance, index).
func (ix *hoverIndex) neighbors(x *mat.Dense, top *neighbors.TopK, i, k int) {
	n, _ := x.Dims()
	m := ix.m
	zi := ix.z[i*m : (i+1)*m]
	type cand struct {
		lb float64
		j  int32
	}
	cs := make([]cand, 0, n-1)
	for j := range n {
		if j == i {
			continue
		}
		var lb float64
		for c, v := range ix.z[j*m : (j+1)*m] {
			e := v - zi[c]
			lb += e * e
		}
		cs = append(cs, cand{lb, int32(j)})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.lb < b.lb:
			return -1
		case a.lb > b.lb:
			return 1
		}
		return int(a.j - b.j)
	})
	top.Reset(k)
	xi := x.RawRowView(i)
	bound := math.Inf(1)
	for _, c := range cs {
		if c.lb > bound+ix.margin {
			break // every row after it is as far
		}
		var d2 float64
		for f, v := range x.RawRowView(int(c.j)) {
			e := v - xi[f]
			d2 += e * e
		}
		top.Push(d2, c.j)
		bound = top.Bound()
	}
}
