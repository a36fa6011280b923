package ptsne

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// TestPretrainDeterministic: pretraining and fine-tuning give the same bytes on 1 and 2 workers
// (products split in 16 blocks on 2), and the pretrained model reads its inputs in [0, 1].
func TestPretrainDeterministic(t *testing.T) {
	d := dataset.Digits().Subset(rangeN(300))
	e := Embedder{Hidden: []int{100, 80}, Batch: 150, Epochs: 2, Pretrain: 3, Seed: 5}
	fit := func(procs int) *Model {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, err := e.Fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*Model)
	}
	m1, m2 := fit(1), fit(2)
	if !mat.Equal(m1.Embedding(), m2.Embedding()) || !equalFloats(m1.Theta, m2.Theta) {
		t.Error("GOMAXPROCS 1 and 2 give different models")
	}
	// The digits' pixels span 0…16.
	if m1.Scale != 16 || m1.Mean[0] != 0 || m1.Mean[63] != 0 {
		t.Errorf("normalisation (x − %v)/%v, want (x − 0)/16", m1.Mean[0], m1.Scale)
	}
	// Pretrained weights are not Glorot's: the seed-5 random start differs.
	if equalFloats(m1.Theta, initTheta(m1.Sizes, rand.New(rand.NewPCG(5, 0x7074736e65)))) {
		t.Error("pretraining left the random start")
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
