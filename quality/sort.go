package quality

import (
	"math/bits"
	"slices"
)

// bucketSorter orders a distance row by (distance, index) in O(n) expected time: a counting sort
// on about n/2 equal-width buckets between the row's extremes, then each bucket (a handful of
// points, moved together with their distances) sorted by insertion — by pdqsort when a bucket
// holds more than 48.
type bucketSorter struct {
	cnt  []int32
	bkt  []uint32
	keys []float64
}

// sort writes the other points of row i (every j ≠ i) into ord, nearest first (ties by the
// smaller index), and sets rank[j] to j's position in ord plus one. lo and hi are the smallest and
// largest d[j], j ≠ i.
func (s *bucketSorter) sort(d []float64, i int, lo, hi float64, ord, rank []int32) {
	n := len(d)
	nb := max(1<<bits.Len(uint(n/2)), 16)
	if cap(s.cnt) < nb+1 {
		s.cnt = make([]int32, nb+1)
	}
	if cap(s.bkt) < n {
		s.bkt = make([]uint32, n)
		s.keys = make([]float64, n)
	}
	cnt, bkt, keys := s.cnt[:nb+1], s.bkt[:n], s.keys[:n-1]
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
	for b := 1; b <= nb; b++ {
		cnt[b] += cnt[b-1]
	}
	for j, b := range bkt {
		if j != i {
			p := cnt[b]
			ord[p] = int32(j)
			keys[p] = d[j]
			cnt[b] = p + 1
		}
	}
	// Now bucket b spans ord[cnt[b-1]:cnt[b]] (cnt[-1] = 0), its points in increasing index.
	start := int32(0)
	for _, end := range cnt[:nb] {
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
}
