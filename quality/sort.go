package quality

import (
	"math/bits"
	"slices"
)

// rowOrder orders the nearest part of a distance row by (distance, index) in O(n) expected time:
// a counting sort on about n/2 equal-width buckets between the row's extremes, then each bucket (a
// handful of points, moved together with their distances) sorted by insertion — by pdqsort when
// a bucket holds more than 48. Only the buckets up to the one holding the need-th nearest point
// are moved and sorted.
type rowOrder struct {
	cnt  []int32
	bkt  []uint32 // bucket of every point of the current row
	keys []float64
	ord  []int32 // ord[:m]: the m ≥ need nearest points, nearest first
	rank []int32 // rank[j] = position in ord + 1, valid when bkt[j] ≤ cut
	cut  uint32
	m    int
}

func newRowOrder(n int) *rowOrder {
	nb := max(1<<bits.Len(uint(n/2)), 16)
	return &rowOrder{cnt: make([]int32, nb+1), bkt: make([]uint32, n), keys: make([]float64, n),
		ord: make([]int32, n), rank: make([]int32, n)}
}

// order orders the points j ≠ i of the row d, at least its need nearest ones (need ≤ len(d)−1).
// lo and hi are the smallest and largest d[j], j ≠ i.
func (s *rowOrder) order(d []float64, i int, lo, hi float64, need int) {
	n := len(d)
	nb := len(s.cnt) - 1
	cnt, bkt, keys, ord, rank := s.cnt, s.bkt[:n], s.keys[:n], s.ord[:n], s.rank[:n]
	clear(cnt)
	scale := 0.0
	if hi > lo {
		scale = float64(nb) / (hi - lo)
	}
	last := uint32(nb - 1)
	for j, v := range d {
		b := min(uint32(max(v-lo, 0)*scale), last)
		bkt[j] = b
		cnt[b+1]++
	}
	cnt[bkt[i]+1]-- // the point itself is not ordered
	bkt[i] = last + 1
	cut := last
	for b := 1; b <= nb; b++ {
		cnt[b] += cnt[b-1]
		if int(cnt[b]) >= need && cut == last {
			cut = uint32(b - 1)
		}
	}
	for j, b := range bkt {
		if b <= cut {
			p := cnt[b]
			ord[p] = int32(j)
			keys[p] = d[j]
			cnt[b] = p + 1
		}
	}
	// Now bucket b ≤ cut spans ord[cnt[b-1]:cnt[b]] (cnt[-1] = 0), its points in increasing index.
	start := int32(0)
	for _, end := range cnt[:cut+1] {
		switch m := end - start; {
		case m == 1:
			rank[ord[start]] = start + 1
		case m > 1 && m <= 48:
			seg, ks := ord[start:end], keys[start:end]
			for p := 1; p < len(seg); p++ {
				j, v := seg[p], ks[p]
				q := p
				for ; q > 0 && ks[q-1] > v; q-- { // strict: equal distances keep index order
					seg[q], ks[q] = seg[q-1], ks[q-1]
				}
				seg[q], ks[q] = j, v
			}
			for p, j := range seg {
				rank[j] = start + int32(p) + 1
			}
		case m > 48:
			seg := ord[start:end]
			slices.SortFunc(seg, func(x, y int32) int {
				switch {
				case d[x] < d[y]:
					return -1
				case d[x] > d[y]:
					return 1
				}
				return int(x) - int(y)
			})
			for p, j := range seg {
				rank[j] = start + int32(p) + 1
			}
		}
		start = end
	}
	s.cut, s.m = cut, int(start)
}

// rankOf returns the rank of j ≠ i (1 = nearest) when it lies among the ordered points, else 0.
func (s *rowOrder) rankOf(j int32) int32 {
	if s.bkt[j] <= s.cut {
		return s.rank[j]
	}
	return 0
}

// exactRank returns 1 + #{l ≠ i : (d_l, l) < (d_j, j)} by a sweep of the row.
func exactRank(d []float64, i int, j int32) int {
	v := d[j]
	r := 1
	for l, u := range d {
		if l != i && (u < v || (u == v && int32(l) < j)) {
			r++
		}
	}
	return r
}
