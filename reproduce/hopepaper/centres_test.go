package hopepaper

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Two classes on a line: class 0 at 0 and 2 (centre 1), class 1 at 10, 11, 12 (centre 11).
// Under the linear map f(x) = (3x, −x) each centre lands on its members' mean embedding; under
// f(x) = (x², 0) class 0's members embed at 0 and 4 (mean 2, RMS radius 2) and its centre at
// 1: offset 1/2; class 1's at 100, 121 and 144 and its centre at 121, off their mean 365/3.
func TestCentreOffsets(t *testing.T) {
	x := mat.NewDense(5, 1, []float64{0, 10, 2, 11, 12})
	labels := []int{0, 1, 0, 1, 1}
	centres := mat.NewDense(2, 1, []float64{1, 11})
	member := centreMembers(x, labels, centres, []int{0, 1})
	if want := []int{0, 1, 0, 1, 1}; !slices.Equal(member, want) {
		t.Fatalf("members %v, want %v", member, want)
	}
	embed := func(f func(float64) [2]float64, m *mat.Dense) *mat.Dense {
		r, _ := m.Dims()
		y := mat.NewDense(r, 2, nil)
		for i := range r {
			v := f(m.At(i, 0))
			y.SetRow(i, v[:])
		}
		return y
	}
	lin := func(v float64) [2]float64 { return [2]float64{3 * v, -v} }
	means, med := centreOffsets(embed(lin, x), member, embed(lin, centres))
	if !mat.EqualApprox(means, embed(lin, centres), 1e-12) || med > 1e-12 {
		t.Errorf("linear map: means %v, offset %g; want the mapped centres and 0", mat.Formatted(means), med)
	}
	sq := func(v float64) [2]float64 { return [2]float64{v * v, 0} }
	means, med = centreOffsets(embed(sq, x), member, embed(sq, centres))
	m1 := (100.0 + 121 + 144) / 3
	r1 := math.Sqrt((sqr(100-m1) + sqr(121-m1) + sqr(144-m1)) / 3)
	off1 := math.Abs(121-m1) / r1
	if means.At(0, 0) != 2 || math.Abs(means.At(1, 0)-m1) > 1e-12 {
		t.Errorf("square map: means %v, want 2 and %g", mat.Formatted(means), m1)
	}
	// Two centres: the median is the mean of the two offsets.
	if want := (0.5 + off1) / 2; math.Abs(med-want) > 1e-12 {
		t.Errorf("square map: offset %g, want %g", med, want)
	}
}

func sqr(v float64) float64 { return v * v }
