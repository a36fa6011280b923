package pe

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// SumTolerance is how far a posterior row's sum may be from 1 unless rows are normalised.
const SumTolerance = 1e-6

// PosteriorError locates a bad entry of a posterior matrix. Row and Class are 0-based; Class
// is −1 when the whole row is at fault. It matches dataset.ErrInvalid.
type PosteriorError struct {
	Row, Class int
	Expected   string
	Found      string
}

func (e *PosteriorError) Error() string {
	if e.Class < 0 {
		return fmt.Sprintf("pe: posterior row %d: expected %s, found %s", e.Row+1, e.Expected, e.Found)
	}
	return fmt.Sprintf("pe: posterior row %d, class %d: expected %s, found %s", e.Row+1, e.Class+1, e.Expected, e.Found)
}

// Is makes a PosteriorError match dataset.ErrInvalid.
func (e *PosteriorError) Is(target error) bool { return target == dataset.ErrInvalid }

// Check validates an n×K posterior matrix and returns a row-major copy: at least 2 classes,
// every entry finite and non-negative, every row summing to 1 within SumTolerance. With
// normalize, rows are rescaled to sum 1 instead (a row must still have a positive sum).
func Check(p mat.Matrix, normalize bool) ([]float64, error) {
	n, k := p.Dims()
	if k < 2 {
		return nil, dataset.Invalidf("pe: %d class column(s): expected posteriors over at least 2 classes", k)
	}
	out := make([]float64, n*k)
	for i := range n {
		row := out[i*k : i*k+k]
		var s float64
		for c := range k {
			v := p.At(i, c)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &PosteriorError{Row: i, Class: c, Expected: "a finite probability", Found: fmt.Sprint(v)}
			}
			if v < 0 {
				return nil, &PosteriorError{Row: i, Class: c, Expected: "a non-negative probability", Found: fmt.Sprint(v)}
			}
			row[c] = v
			s += v
		}
		switch {
		case normalize && !(s > 0):
			return nil, &PosteriorError{Row: i, Class: -1, Expected: "a positive sum to normalise", Found: "all zeros"}
		case normalize && math.IsInf(s, 1): // finite entries whose sum overflows: scale by the largest first
			mx := floats.Max(row)
			s = 0
			for c := range row {
				row[c] /= mx
				s += row[c]
			}
			fallthrough
		case normalize:
			for c := range row {
				row[c] /= s
			}
		case math.Abs(s-1) > SumTolerance:
			return nil, &PosteriorError{Row: i, Class: -1, Expected: fmt.Sprintf("probabilities summing to 1 (within %g; use normalisation to rescale)", SumTolerance), Found: fmt.Sprintf("sum %.9g", s)}
		}
	}
	return out, nil
}
