// Package deepnettest checks what the networks built on internal/deepnet promise their callers.
package deepnettest

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Model is a fitted or training network: it embeds rows with its current weights.
type Model interface {
	Transform(dst *mat.Dense, x mat.Matrix) error
	Embedding() *mat.Dense
}

// OnEpoch checks an OnEpoch hook over a fit of 3 epochs on the rows x: fit trains with hook as
// its OnEpoch (passing the number of epoch costs the model holds so far) and returns the fitted
// model. The hook must see epochs 1, 2, 3 in order with that many costs and no Embedding yet;
// after the last its Transform must give the fitted embedding's bits, and after the first
// something else (so it saw the weights move).
func OnEpoch(t *testing.T, x *mat.Dense, fit func(hook func(epoch, costs int, m Model)) (Model, error)) {
	t.Helper()
	var seen []int
	var first, last mat.Dense
	m, err := fit(func(ep, costs int, m Model) {
		seen = append(seen, ep)
		if costs != ep || m.Embedding() != nil {
			t.Errorf("epoch %d: %d costs, embedding %v", ep, costs, m.Embedding() != nil)
		}
		dst := &last
		if ep == 1 {
			dst = &first
		}
		dst.Reset()
		if err := m.Transform(dst, x); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []int{1, 2, 3}) {
		t.Fatalf("OnEpoch saw epochs %v, want 1 2 3", seen)
	}
	y := m.Embedding()
	if !slices.Equal(bits(last.RawMatrix().Data), bits(y.RawMatrix().Data)) {
		t.Error("the last epoch's embedding differs from the fitted one")
	}
	if slices.Equal(bits(first.RawMatrix().Data), bits(y.RawMatrix().Data)) {
		t.Error("the first epoch's embedding equals the fitted one: the hook saw no training")
	}
}

func bits(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, f := range v {
		out[i] = math.Float64bits(f)
	}
	return out
}
