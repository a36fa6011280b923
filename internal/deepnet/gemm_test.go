package deepnet

import (
	"math"
	"math/rand/v2"
	"testing"

	iblas "github.com/lowdim/lowdim/internal/blas"
)

// TestGemmTranspose: split over a pool of 2 workers, Transpose writes internal/blas Transpose's
// bits, for a layer's weights (500×2000, deep-AE's widest), a shape whose columns are not whole
// tiles (301×397) and shapes below the split's thresholds (one goroutine).
func TestGemmTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := NewGemm(2)
	defer g.Close()
	for _, s := range [][2]int{{500, 2000}, {301, 397}, {2000, 33}, {20, 30}} {
		r, c := s[0], s[1]
		a := make([]float64, r*c)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		want, got := make([]float64, r*c), make([]float64, r*c)
		iblas.Transpose(want, a, r, c)
		for i := range got {
			got[i] = math.NaN()
		}
		g.Transpose(got, a, r, c)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%d×%d: element %d is %v, want %v", r, c, i, got[i], want[i])
			}
		}
	}
}
