package pe

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio/modeliotest"
)

// FuzzDecodePE: the pe payload decoder never panics, fails only with ErrInvalid, and what it
// accepts re-encodes to the same bytes, holds only finite numbers and has positive priors.
func FuzzDecodePE(f *testing.F) {
	m, _, _ := fitSynthetic(f, Embedder{}, 40, 3, 5)
	p, err := m.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	modeliotest.FuzzPayload(f, decodePE, peVersion, func(t *testing.T, got any) {
		for _, v := range got.(*Model).Priors {
			if !(v > 0) {
				t.Fatalf("prior %v", v)
			}
		}
	}, p)
}

// TestPriorsNormaliseWithoutOverflow: priors whose sum overflows are normalised after scaling
// by the largest (1e308 + 1e308 = +Inf would make every prior 0 and its log −Inf), and a prior
// that vanishes next to the largest is refused.
func TestPriorsNormaliseWithoutOverflow(t *testing.T) {
	logs, pri, err := logPriors([]float64{1e308, 1e308, 1e300}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var s float64
	for c, v := range pri {
		if !(v > 0) || math.IsInf(logs[c], 0) {
			t.Fatalf("priors %v, logs %v", pri, logs)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-15 {
		t.Errorf("priors %v sum to %v", pri, s)
	}
	if _, _, err := logPriors([]float64{5e-324, 1e308, 1e308}, 3); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("a prior 1e632 times smaller than the largest: %v", err)
	}
	// The same for a posterior row normalised by Check.
	p, err := Check(mat.NewDense(1, 2, []float64{1e308, 1e308}), true)
	if err != nil || p[0] != 0.5 || p[1] != 0.5 {
		t.Errorf("Check normalising (1e308, 1e308): %v %v", p, err)
	}
}
