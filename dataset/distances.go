package dataset

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// maxDistance is the largest distance whose square is finite: √MaxFloat64 ≈ 1.34e154.
var maxDistance = math.Sqrt(math.MaxFloat64)

// SquaredDistances checks a given n×n dissimilarity matrix d and returns its entries squared, as a
// row-major n·n slice. who names the caller in error messages ("cmds", "nerv").
//
// d must be square with n ≥ 2, finite, non-negative, at most √MaxFloat64 (so that the squares
// are finite), with a zero diagonal and symmetric; "zero" and "symmetric" allow rounding of 1e-9
// times the largest entry (asymmetric pairs within it are averaged). Anything else is an error wrapping ErrInvalid that names the offending entry
// (1-based row and column).
func SquaredDistances(who string, d mat.Matrix) (sq []float64, n int, err error) {
	if d == nil {
		return nil, 0, Invalidf("%s: nil distance matrix", who)
	}
	r, c := d.Dims()
	if r != c {
		return nil, 0, Invalidf("%s: distance matrix is %d×%d, not square", who, r, c)
	}
	n = r
	if n < 2 {
		return nil, 0, Invalidf("%s: need at least 2 objects, have %d", who, n)
	}
	maxd := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := d.At(i, j)
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				return nil, 0, Invalidf("%s: distance (%d,%d) is %v", who, i+1, j+1, v)
			case v < 0:
				return nil, 0, Invalidf("%s: distance (%d,%d) = %g is negative", who, i+1, j+1, v)
			case v > maxDistance:
				return nil, 0, Invalidf("%s: distance (%d,%d) = %g: its square overflows float64 (limit %.3g; divide the matrix by a constant)", who, i+1, j+1, v, maxDistance)
			}
			maxd = math.Max(maxd, v)
		}
	}
	tol := 1e-9 * maxd
	sq = make([]float64, n*n)
	for i := 0; i < n; i++ {
		if v := d.At(i, i); v > tol {
			return nil, 0, Invalidf("%s: diagonal entry (%d,%d) = %g is not zero", who, i+1, i+1, v)
		}
		for j := i + 1; j < n; j++ {
			a, b := d.At(i, j), d.At(j, i)
			if math.Abs(a-b) > tol {
				return nil, 0, Invalidf("%s: distance matrix is not symmetric: (%d,%d) = %g but (%d,%d) = %g", who, i+1, j+1, a, j+1, i+1, b)
			}
			v := (a + b) / 2
			sq[i*n+j], sq[j*n+i] = v*v, v*v
		}
	}
	return sq, n, nil
}
