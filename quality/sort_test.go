package quality

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// refOrder returns the points j ≠ i of d in (distance, index) order by a plain stable sort.
func refOrder(d []float64, i int) []int32 {
	var ord []int32
	for j := range d {
		if j != i {
			ord = append(ord, int32(j))
		}
	}
	sort.SliceStable(ord, func(a, b int) bool { return d[ord[a]] < d[ord[b]] })
	return ord
}

// testRows returns named distance rows of n with entry i = 0: continuous values, small integers
// (many ties, like MNIST's integer squared distances), a few distinct values (long runs of ties,
// whole buckets equal), heavy-headed 2-D-like values, one far outlier squeezing the rest into the
// first bucket, all equal, and two rows built to defeat the sampled range.
func testRows(n, i int, seed uint64) map[string][]float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	rows := map[string][]float64{}
	mk := func(name string, f func(j int) float64) {
		d := make([]float64, n)
		for j := range d {
			if j != i {
				d[j] = f(j)
			}
		}
		rows[name] = d
	}
	mk("continuous", func(int) float64 { return rng.Float64() * 10 })
	mk("integers", func(int) float64 { return float64(rng.IntN(n / 3)) })
	mk("few values", func(int) float64 { return float64(rng.IntN(5)) })
	mk("2-D", func(int) float64 { u, v := rng.NormFloat64(), rng.NormFloat64(); return u*u + v*v })
	mk("outlier", func(j int) float64 {
		if j == (i+1)%n {
			return 1e12
		}
		return 1 + rng.Float64()
	})
	mk("integers+outlier", func(j int) float64 {
		if j == (i+7)%n {
			return 1e9
		}
		return float64(rng.IntN(200))
	})
	mk("equal", func(int) float64 { return 4 })
	// Rows that mislead the strided sample behind the buckets' range (rows of at least
	// 8·sampleSize): the sampled points nearest (the range falls short), or farthest (most points
	// lie below the range's lower end).
	step := max(n/sampleSize, 1)
	mk("sample nearest", func(j int) float64 {
		if j%step == step/2 {
			return rng.Float64()
		}
		return 10 + float64(rng.IntN(1000))
	})
	mk("sample farthest", func(j int) float64 {
		if j%step == step/2 {
			return 1e6 + rng.Float64()
		}
		return float64(rng.IntN(1000))
	})
	return rows
}

// rowOrder ranks exactly the (distance, index) order of a plain stable sort, for rows with and
// without ties and for several cuts: every point it ranks has its reference rank, its ordered list
// is the reference order, at least need points are ranked, and ranksOf gives every point's
// reference rank, ranked or not.
func TestRowOrderMatchesSort(t *testing.T) {
	for _, n := range []int{3, 17, 100, 1000, 5003, 40000} {
		s := newRowOrder(n)
		for _, i := range []int{0, n / 2, n - 1} {
			for name, d := range testRows(n, i, uint64(n*7+i)) {
				ref := refOrder(d, i)
				refRank := make([]int, n)
				for p, j := range ref {
					refRank[j] = p + 1
				}
				lo, hi := math.Inf(1), math.Inf(-1)
				for j, v := range d {
					if j != i {
						lo, hi = min(lo, v), max(hi, v)
					}
				}
				for _, need := range []int{1, (n - 1) / 4, (n - 1) * 68 / 100, n - 1} {
					need = max(need, 1)
					s.order(d, i, lo, hi, need)
					if s.m < need || s.m > n-1 {
						t.Fatalf("n=%d i=%d %s need=%d: %d points ranked", n, i, name, need, s.m)
					}
					if !slices.Equal(s.ord[:s.m], ref[:s.m]) {
						t.Fatalf("n=%d i=%d %s need=%d: order differs from the stable sort", n, i, name, need)
					}
					ranked := 0
					for j := range n {
						r := s.rank[j]
						if r == unranked {
							continue
						}
						ranked++
						if int(r) != refRank[j] {
							t.Fatalf("n=%d i=%d %s need=%d: rank of %d is %d, sort says %d", n, i, name, need, j, r, refRank[j])
						}
					}
					if ranked != s.m || s.rank[i] != unranked {
						t.Fatalf("n=%d i=%d %s need=%d: %d ranks set for %d ranked points (self %d)", n, i, name, need, ranked, s.m, s.rank[i])
					}
					// ranksOf on the farthest points (unranked unless need is n−1) and a few near ones.
					var tg []int32
					for p := len(ref) - 1; p >= 0 && len(tg) < 6; p -= max(1, len(ref)/7) {
						tg = append(tg, ref[p])
					}
					tg = append(tg, ref[0])
					out := make([]int, len(tg))
					s.ranksOf(d, tg, out)
					for m, j := range tg {
						if out[m] != refRank[j] {
							t.Fatalf("n=%d i=%d %s need=%d: ranksOf(%d) = %d, sort says %d", n, i, name, need, j, out[m], refRank[j])
						}
					}
				}
			}
		}
	}
}

// selectKth returns what sorting returns at k, and leaves the smaller values before it and the
// larger after, on random, tied and sorted inputs.
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 3, 10, 511, 512} {
		for shape := range 4 {
			a := make([]float64, n)
			for j := range a {
				switch shape {
				case 0:
					a[j] = rng.Float64()
				case 1:
					a[j] = float64(rng.IntN(4))
				case 2:
					a[j] = float64(j)
				default:
					a[j] = float64(n - j)
				}
			}
			for _, k := range []int{0, n / 3, n - 1} {
				b := slices.Clone(a)
				ref := slices.Clone(a)
				slices.Sort(ref)
				if got := selectKth(b, k); got != ref[k] {
					t.Fatalf("n=%d shape %d k=%d: %v, want %v", n, shape, k, got, ref[k])
				}
				for j, v := range b {
					if (j < k && v > b[k]) || (j > k && v < b[k]) {
						t.Fatalf("n=%d shape %d k=%d: b[%d] = %v on the wrong side of %v", n, shape, k, j, v, b[k])
					}
				}
			}
		}
	}
}
