package hope

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// TestKMeansFindsBlobs: two classes of two tight, far-apart blobs each; 2 exemplars per class
// must land on the four blob centres (the rows' spread is 0.01 against a distance of 10, so any
// k-means that converged lies within 0.01 of them), with the class of their blob, and the same
// seed must give the same centres.
func TestKMeansFindsBlobs(t *testing.T) {
	centres := [][2]float64{{0, 0}, {10, 0}, {0, 10}, {10, 10}}
	rng := rand.New(rand.NewPCG(3, 4))
	const per = 40
	x := mat.NewDense(4*per, 2, nil)
	labels := make([]int, 4*per)
	for b, c := range centres {
		for r := range per {
			i := b*per + r
			x.Set(i, 0, c[0]+0.01*rng.NormFloat64())
			x.Set(i, 1, c[1]+0.01*rng.NormFloat64())
			labels[i] = b / 2 // blobs 0, 1 are class 0; 2, 3 class 1
		}
	}
	d := &dataset.Set{X: x, Labels: labels}
	e := Embedder{Exemplars: 2, Seed: 7}
	got, lab, err := e.KMeans(d)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := got.Dims(); r != 4 || c != 2 || len(lab) != 4 {
		t.Fatalf("got %d×%d centres and %d labels, want 4×2 and 4", r, c, len(lab))
	}
	seen := map[int]bool{}
	for j := range 4 {
		best, bd := -1, math.Inf(1)
		for b, c := range centres {
			if dd := math.Hypot(got.At(j, 0)-c[0], got.At(j, 1)-c[1]); dd < bd {
				best, bd = b, dd
			}
		}
		if bd > 0.01 || lab[j] != best/2 || seen[best] {
			t.Errorf("centre %d (%.3f, %.3f), label %d: nearest blob %d at %.3g", j, got.At(j, 0), got.At(j, 1), lab[j], best, bd)
		}
		seen[best] = true
	}
	again, _, err := e.KMeans(d)
	if err != nil || !mat.Equal(got, again) {
		t.Errorf("the same seed gave other centres (err %v)", err)
	}
	if _, _, err := (Embedder{}).KMeans(d); err == nil {
		t.Error("no exemplars: want an error")
	}
}
