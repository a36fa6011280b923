package linmap

import (
	"bytes"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/modelio/modeliotest"
)

func sample() *Model {
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 7})
	return New("lda", []float64{3, 4}, mat.NewDense(1, 2, []float64{0.5, -1}), x)
}

// TestRoundTrip: a saved model loads back to the same map and embedding, and embeds new rows as
// y = W(x − μ) (here 0.5·(x₁ − 3) − (x₂ − 4)).
func TestRoundTrip(t *testing.T) {
	m := sample()
	var buf bytes.Buffer
	if err := modelio.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := modelio.Decode(&buf, "test")
	if err != nil {
		t.Fatal(err)
	}
	g := got.(*Model)
	if g.Method != "lda" || !mat.Equal(g.W, m.W) || !mat.Equal(g.Embedding(), m.Embedding()) {
		t.Error("the loaded model differs")
	}
	var y mat.Dense
	if err := g.Transform(&y, mat.NewDense(1, 2, []float64{5, 1})); err != nil {
		t.Fatal(err)
	}
	if want := 0.5*2 - (-3); y.At(0, 0) != want {
		t.Errorf("Transform: %v, want %v", y.At(0, 0), want)
	}
	if e := m.Embedding().At(2, 0); e != 0.5*2-3 {
		t.Errorf("embedding of (5, 7): %v", e)
	}
}

func FuzzDecodeLinmap(f *testing.F) {
	p, _ := sample().MarshalBinary()
	modeliotest.FuzzPayload(f, decode, version, nil, p)
}
