//go:build openblas && cgo

package quality

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The cgo order ranks exactly as orderGo does, on rows with ties, with shared buckets of every
// size (including ones above the insertion-sort limit) and with the point itself anywhere.
func TestOrderNativeMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for _, n := range []int{20, 999, 5000} {
		for _, shape := range []string{"uniform", "ties", "clustered"} {
			d := make([]float64, n)
			for j := range d {
				switch shape {
				case "uniform":
					d[j] = rng.Float64()
				case "ties":
					d[j] = float64(rng.IntN(50))
				case "clustered": // most points in a sliver: buckets of hundreds
					if j%10 == 0 {
						d[j] = 1 + rng.Float64()
					} else {
						d[j] = 1e-3 * rng.Float64()
					}
				}
			}
			i := rng.IntN(n)
			d[i] = 0
			lo, hi := math.Inf(1), math.Inf(-1)
			for j, v := range d {
				if j != i {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
			need := n * 68 / 100
			a, b := newRowOrder(n), newRowOrder(n)
			a.orderGo(d, i, lo, hi, need)
			b.order(d, i, lo, hi, need)
			for j := range n {
				if j != i && a.rankOf(int32(j)) != b.rankOf(int32(j)) {
					t.Fatalf("n=%d %s: rank of %d: Go %d, C %d", n, shape, j, a.rankOf(int32(j)), b.rankOf(int32(j)))
				}
			}
		}
	}
}
