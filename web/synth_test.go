package web

import (
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// synthetic returns n seeded rows of h features drawn from `classes` Gaussian blobs (unit
// variance around centres at distance ~4 from each other), labelled by blob: a stand-in for a
// large data set, generated rather than stored.
func synthetic(n, h, classes int, seed uint64) *dataset.Set {
	r := rand.New(rand.NewPCG(seed, 5))
	centres := mat.NewDense(classes, h, nil)
	for c := 0; c < classes; c++ {
		for j := 0; j < h; j++ {
			centres.Set(c, j, 3*r.NormFloat64())
		}
	}
	x := mat.NewDense(n, h, nil)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		c := r.IntN(classes)
		labels[i] = c
		for j := 0; j < h; j++ {
			x.Set(i, j, centres.At(c, j)+r.NormFloat64())
		}
	}
	names := make([]string, classes)
	for c := range names {
		names[c] = "blob" + strconv.Itoa(c)
	}
	return &dataset.Set{Name: "synthetic" + strconv.Itoa(n), X: x, Labels: labels, ClassNames: names}
}
