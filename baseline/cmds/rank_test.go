package cmds

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// lineDistances: objects at positions t_i·scale on a line (the points t_i·u for a unit u of R⁵,
// so rank 1), written directly as |t_i − t_j|·scale so that no square over- or underflows.
func lineDistances(t []float64, scale float64) *mat.SymDense {
	d := mat.NewSymDense(len(t), nil)
	for i := range t {
		for j := i + 1; j < len(t); j++ {
			d.SetSym(i, j, math.Abs(t[i]-t[j])*scale)
		}
	}
	return d
}

// TestLineWithDuplicates: 9 objects on a line, 4 of them duplicates (rank 1), and 4 objects
// at one point (rank 0), at scales from 1e-300 to 1e300. Before commit be14b85 FromDistances
// panicked inside gonum's Dsterf at 1e±120 and 1e±150 ("insufficient length of a": Dsterf
// rescales a block of the tridiagonal matrix whose largest entry is below 3e-123 or above
// 4e153 with a Dlascl call that panics on its own arguments — a rank-deficient matrix's
// rounding residues, as on BBC's posteriors in TestFromDistancesOfNearOneHotPosteriors, or
// the whole matrix at such scales), and at 1e±300 the squares vanished or overflowed. The
// right answer is y = ±(t − mean t)·scale in the first column (the sign convention makes the
// largest |y| positive), zeros in the others (eigenvalue 0), and λ₁ = Σ(t − mean t)²·scale²
// (+Inf where that exceeds float64).
func TestLineWithDuplicates(t *testing.T) {
	for _, pos := range [][]float64{{0, 1, 3, 3, 0, 7, 7, 2, 1}, {2, 2, 2, 2}} {
		var mean, ss float64
		for _, p := range pos {
			mean += p / float64(len(pos)) // 24/9 = 8/3 and 2
		}
		for _, p := range pos {
			ss += (p - mean) * (p - mean)
		}
		for _, scale := range []float64{1e-300, 1e-150, 1e-120, 1e-60, 1, 1e60, 1e120, 1e150, 1e300} {
			for _, dim := range []int{1, 2, 4} {
				name := fmt.Sprintf("%v, scale %g, dim %d", pos, scale, dim)
				m, err := FromDistances(context.Background(), lineDistances(pos, scale), dim)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkLine(t, name, m, pos, mean, scale)
				want := ss * scale * scale
				if l := m.Eigenvalues[0]; math.Abs(l-want) > 1e-12*want && !(math.IsInf(want, 1) && math.IsInf(l, 1)) {
					t.Errorf("%s: λ₁ = %g, want %g", name, l, want)
				}
			}
		}
	}
}

// checkLine: m's first column is pos − mean (times scale, largest entry positive: 7 − 8/3),
// every other column zero.
func checkLine(t *testing.T, name string, m *Model, pos []float64, mean, scale float64) {
	t.Helper()
	n, dim := m.Y.Dims()
	for i := range n {
		// 1e-12 relative: rounding of the n×n double centring and the eigensolver.
		if y, want := m.Y.At(i, 0), (pos[i]-mean)*scale; math.Abs(y-want) > 1e-12*scale {
			t.Errorf("%s: y[%d] = %g, want %g", name, i, y, want)
		}
		for k := 1; k < dim; k++ {
			if m.Y.At(i, k) != 0 {
				t.Errorf("%s: column %d is not zero: %v", name, k+1, mat.Col(nil, k, m.Y))
				break
			}
		}
	}
}

// TestFitLineOfFeatures: Fit takes the same care with features, whose squared differences
// would overflow (1e200) or vanish (1e-200): the duplicated points on a line in R⁵ along
// u = (1, 2, 2, 4, 0)/5 embed as their positions along u.
func TestFitLineOfFeatures(t *testing.T) {
	pos := []float64{0, 1, 3, 3, 0, 7, 7, 2, 1}
	u := []float64{0.2, 0.4, 0.4, 0.8, 0}
	for _, scale := range []float64{1e-200, 1, 1e200} {
		x := mat.NewDense(len(pos), len(u), nil)
		for i, p := range pos {
			for k, v := range u {
				x.Set(i, k, p*v*scale)
			}
		}
		m, err := CMDS{Dim: 2}.Fit(context.Background(), &dataset.Set{X: x})
		if err != nil {
			t.Fatalf("scale %g: %v", scale, err)
		}
		checkLine(t, fmt.Sprintf("Fit, scale %g", scale), m.(*Model), pos, 8.0/3, scale)
	}
}
