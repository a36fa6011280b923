// Package oos checks the arguments of the out-of-sample Transform of the baselines that place
// new rows by their training neighbours or a fitted network (isomap, lle, sisomap), so that
// each refuses a bad call with the same words.
package oos

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// Check checks that x has h columns, at least one row and only finite values, and that dst is
// r×dim — or empty, and then resizes it. It returns r. Errors wrap dataset.ErrInvalid and
// begin with who.
func Check(who string, dst *mat.Dense, x mat.Matrix, h, dim int) (int, error) {
	r, c := x.Dims()
	if c != h {
		return 0, dataset.Invalidf("%s: new rows have %d columns, the model was fitted on %d", who, c, h)
	}
	if r == 0 {
		return 0, dataset.Invalidf("%s: no rows to transform", who)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, dataset.Invalidf("%s: new row %d column %d is %v", who, i+1, j+1, v)
			}
		}
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, dim)
	} else if dr, dc := dst.Dims(); dr != r || dc != dim {
		return 0, dataset.Invalidf("%s: destination is %d×%d, want %d×%d", who, dr, dc, r, dim)
	}
	return r, nil
}
