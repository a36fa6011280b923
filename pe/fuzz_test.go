package pe

import (
	"testing"

	"lowdim/modelio/modeliotest"
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
