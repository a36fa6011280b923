package quality

import (
	"math"
	"math/bits"
	"slices"
)

// rowOrder ranks the nearest part of a distance row by (distance, index) in O(n) expected time,
// with a two-level bucket sort whose bucket counts stay in the L1 cache:
//
//  1. The coarse buckets span [lo, up]: from just below the row's smallest distance to just beyond
//     the need-th nearest one, both estimated from a strided sample of the row (should the
//     estimate fall short, the sort is redone over the whole range). On MNIST's rows the nearest
//     68% span about a quarter of the distance range.
//  2. Every point gets one of nc equal-width coarse buckets over [lo, up] (a power of two between
//     n/256 and n/128, at most 1024) or of nc more of the same width beyond up, the last of them
//     open, and the buckets are counted (the points beyond up are ranked only on demand).
//  3. Every point moves into coarse bucket order, index order within a bucket (nc sequential
//     write streams of indices; the distances are gathered again bucket by bucket, in L1, which
//     measured 15% faster than moving them along).
//  4. Each coarse bucket up to the one holding the need-th nearest point is sorted on its own: a
//     counting sort on 2^⌈log₂ m⌉ fine buckets for its m points, then one insertion pass for the
//     points sharing a fine bucket (pdqsort for the whole coarse bucket when more than 48 share
//     one).
//
// Every comparison is on the exact float64 distance, and every step keeps equal distances in
// increasing index order, so the ranks are the exact (distance, index) order (TestRowOrderMatchesSort
// checks it against a stable sort). The points beyond stay in their coarse buckets' places, so the
// rank of such a point (a far neighbour for trustworthiness or continuity) is counted on its
// bucket alone; the last bucket is split on demand (tailRanks).
//
// Cost, measured on 8 rows of the full MNIST problem (70,000 input and 2-D output distances),
// interleaved with the single-level counting sort on n fine buckets it replaced, one core of the
// shared 2-core machine at load 5: 10.8–12.0 against 16.0 ns per element when the row is already
// in cache; ordering both rows of a freshly computed row pair 137–142 against 188–193 CPU seconds
// per 70,000 rows. Its ordered list also lets rankBase.rowRanked visit only the points that
// contribute (17 against 57 CPU seconds per 70,000 rows).
type rowOrder struct {
	*orderScratch
	nc         int     // coarse buckets over [lo, up]; as many again continue beyond, the last open
	cnt        []int32 // cnt[c]: position of coarse bucket c's first point (c ≤ 2·nc)
	rank       []int32 // rank[j] (1 = nearest) of a ranked point, unranked otherwise (and for i)
	lo, up, hi float64 // the coarse buckets' range [lo, up]; the row's largest distance
	scale      float64 // bucket of v: ⌊(v − lo)·scale⌋, at most nc
	m          int     // points ranked
}

// orderScratch is the part of a rowOrder that only lives while one row is ordered and its far
// targets ranked; the input and output rows' orders share one, which keeps a worker's buffers
// small enough for the 2 MB second-level cache.
type orderScratch struct {
	cb   []uint16  // coarse bucket of every point; 2·nc for the point itself
	pos  []int32   // scatter cursors
	ord  []int32   // ord[:m]: the ranked points, nearest first; beyond m the others by bucket
	keys []float64 // the distances of the coarse bucket being sorted
	// the fine level
	sub  []int32
	sb   []uint32
	tmpI []int32
	tmpK []float64
	// the estimate and ranksOf
	th    []int32
	tmark []bool
	tbx   []uint16
	tcnt  []int32
	far   []int32
	hist  []int32
	tv    []float64
	tj    []int32
	smp   []float64
	bigs  []int32 // coarse buckets left to the comparison sort (sortBig)
}

// unranked is the rank of the points beyond the ordered part (and of the point itself).
const unranked = math.MaxInt32

// sampleSize is the number of distances the upper end of the buckets is estimated from.
const sampleSize = 512

// newRowOrder sizes the buckets for rows of n: a power of two near n/256 coarse buckets, between
// 16 and 1024.
func newRowOrder(n int) *rowOrder {
	nc := 1 << min(max(bits.Len(uint(n))-8, 4), 10)
	sc := &orderScratch{cb: make([]uint16, n), pos: make([]int32, 2*nc+1), ord: make([]int32, n+1),
		smp: make([]float64, 0, sampleSize)}
	return &rowOrder{orderScratch: sc, nc: nc, cnt: make([]int32, 2*nc+2), rank: make([]int32, n)}
}

// sharing returns a rowOrder for rows of the same length as s that shares s's scratch: after
// its order, s's ord, bucket and far-target state are gone (s's ranks stay).
func (s *rowOrder) sharing() *rowOrder {
	return &rowOrder{orderScratch: s.orderScratch, nc: s.nc, cnt: make([]int32, len(s.cnt)), rank: make([]int32, len(s.rank))}
}

// estimate sets the buckets' range from a strided sample of the row: from a little below the
// sample's smallest distance to an upper end that has, with high probability, at least need of the
// points j ≠ i below it. It reports false, setting nothing, when the row is too short to sample.
// A wrong guess costs time, not exactness: points below the lower end share the first bucket,
// and finish reports a shortfall.
func (s *rowOrder) estimate(d []float64, i int, hi float64, need int) bool {
	n := len(d)
	if n < 8*sampleSize {
		return false
	}
	smp := s.smp[:0]
	step := n / sampleSize
	for j := step / 2; j < n && len(smp) < sampleSize; j += step {
		if j != i {
			smp = append(smp, d[j])
		}
	}
	// The number of sampled points below the need-th nearest is binomial: go 5 standard
	// deviations (and 4 points) beyond its mean.
	p := float64(need) / float64(n-1)
	ns := float64(len(smp))
	q := int(ns*p + 5*math.Sqrt(ns*p*(1-p)) + 4)
	if q >= len(smp) {
		return false
	}
	up := selectKth(smp, q) // the sample's (q+1)-th smallest; smp[:q] hold the smaller ones
	lo := up
	for _, v := range smp[:q] {
		lo = min(lo, v)
	}
	s.setRange(lo-(up-lo)/16, up, hi)
	return true
}

// selectKth reorders a so that a[k] is its (k+1)-th smallest value, with no larger value before
// it and no smaller one after (Hoare's selection, median-of-three pivots: O(len(a)) expected), and
// returns a[k]. The reordering depends only on a's contents, so it is deterministic.
func selectKth(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for hi > lo {
		m := lo + (hi-lo)/2
		if a[m] < a[lo] {
			a[m], a[lo] = a[lo], a[m]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[m] {
			a[hi], a[m] = a[m], a[hi]
		}
		pv := a[m]
		i, j := lo, hi
		for i <= j {
			for a[i] < pv {
				i++
			}
			for a[j] > pv {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

// setRange puts the coarse buckets over [lo, up]; hi is the row's largest distance.
func (s *rowOrder) setRange(lo, up, hi float64) {
	s.lo, s.up, s.hi, s.scale = lo, up, hi, 0
	if up > lo {
		s.scale = float64(s.nc) / (up - lo)
	}
}

// order ranks the points j ≠ i of the row d, at least its need nearest ones (need ≤ len(d)−1).
// lo and hi are the smallest and largest d[j], j ≠ i.
func (s *rowOrder) order(d []float64, i int, lo, hi float64, need int) {
	if s.estimate(d, i, hi, need) {
		s.count(d)
		if s.finish(d, i, need, false) {
			return
		}
	}
	s.setRange(lo, hi, hi)
	s.count(d)
	s.finish(d, i, need, true)
}

// finish ranks the row d whose points count has bucketed; unless final, it reports false, having
// ranked nothing, when the need nearest points do not all lie within the buckets' range.
func (s *rowOrder) finish(d []float64, i int, need int, final bool) bool {
	n := len(d)
	nc := s.nc
	cb := s.cb[:n]
	nb := 2 * nc // buckets; nb holds the point itself
	cnt := s.cnt[:nb+2]
	cnt[cb[i]+1]-- // the point itself is not ranked
	cb[i] = uint16(nb)
	cut := nb
	sum := int32(0)
	for c, k := range cnt[1:] { // counts to starts
		sum += k
		cnt[c+1] = sum
		if cut == nb && int(sum) >= need {
			cut = c
		}
	}
	if cut >= nc && !final {
		return false
	}
	// Every point moves into coarse bucket order (index order within a bucket) and the buckets up
	// to cut are sorted.
	s.place(d, cut)
	s.m = int(cnt[cut+1])
	return true
}

// grow makes the fine level's buffers hold a coarse bucket of m points.
func (s *orderScratch) grow(m int) {
	if cap(s.keys) < m {
		s.keys = make([]float64, 2*m)
	}
	if cap(s.sb) < m {
		s.sb = make([]uint32, 2*m)
		s.tmpI, s.tmpK = make([]int32, 2*m), make([]float64, 2*m)
	}
}

// sortBig sorts and ranks the coarse buckets listed in s.bigs, which place left in index order
// or counting-sorted, unranked: more than 48 of their points shared one fine bucket (many equal
// distances), where insertion would be quadratic.
func (s *rowOrder) sortBig(d []float64) {
	for _, c := range s.bigs {
		b, e := s.cnt[c], s.cnt[c+1]
		ids := s.ord[b:e]
		slices.SortFunc(ids, func(x, y int32) int { return cmpPoint(d, x, y) })
		for p, j := range ids {
			s.rank[j] = b + int32(p) + 1
		}
	}
	s.bigs = s.bigs[:0]
}

// cmpPoint orders the points x and y of the row d by (distance, index).
func cmpPoint(d []float64, x, y int32) int {
	switch {
	case d[x] < d[y]:
		return -1
	case d[x] > d[y]:
		return 1
	}
	return int(x) - int(y)
}

// ranksOf sets out[m] to the rank of t[m] (1 = nearest; t[m] ≠ i) in the row d. A target beyond
// the ranked points gets its rank from the start of its coarse bucket plus the points of that
// bucket before it, counted on the bucket's points and distances (still in place from the sort):
// one sweep of a bucket serves all its targets, each point finding without branches how many of
// them (ordered by distance and index) lie before it.
func (s *rowOrder) ranksOf(d []float64, t []int32, out []int) {
	far := s.far[:0]
	for m, j := range t {
		if r := s.rank[j]; r != unranked {
			out[m] = int(r)
		} else {
			far = append(far, int32(m))
		}
	}
	s.far = far
	if len(far) == 0 {
		return
	}
	slices.SortFunc(far, func(x, y int32) int {
		jx, jy := t[x], t[y]
		if cx, cy := s.cb[jx], s.cb[jy]; cx != cy {
			return int(cx) - int(cy)
		}
		switch {
		case d[jx] < d[jy]:
			return -1
		case d[jx] > d[jy]:
			return 1
		}
		return int(jx) - int(jy)
	})
	if cap(s.hist) < len(far)+1 {
		s.hist = make([]int32, len(far)+1)
		s.tv, s.tj = make([]float64, len(far)), make([]int32, len(far))
	}
	for g := 0; g < len(far); {
		c := s.cb[t[far[g]]]
		h := g + 1
		for h < len(far) && s.cb[t[far[h]]] == c {
			h++
		}
		grp := far[g:h]
		tv, tj, hist := s.tv[:len(grp)], s.tj[:len(grp)], s.hist[:len(grp)+1]
		for x, m := range grp {
			tj[x] = t[m]
			tv[x] = d[t[m]]
		}
		b, e := s.cnt[c], s.cnt[c+1]
		if int(c) == 2*s.nc-1 && int(e-b) > 4*tailBuckets && s.hi > s.open() {
			s.tailRanks(d, grp, b, e, out)
			g = h
			continue
		}
		clear(hist)
		for _, l := range s.ord[b:e] {
			k := d[l]
			var p int32 // targets before (k, l)
			for x, v := range tv {
				p += b2i(v < k) | b2i(v == k)&b2i(tj[x] < l)
			}
			hist[p]++
		}
		// A point with p targets before it precedes targets p, p+1, …; a target counts itself.
		r := b
		for x, m := range grp {
			r += hist[x]
			out[m] = int(r)
		}
		g = h
	}
}

// open returns where the last, open coarse bucket starts (for the distances the linear map puts
// there; rounding may put a few a little below into it as well, which tailRanks clamps).
func (s *rowOrder) open() float64 {
	return s.lo + float64(2*s.nc-1)/s.scale
}

// tailBuckets is the number of sub-buckets tailRanks splits the points beyond up into.
const tailBuckets = 256

// tailRanks sets the ranks of the targets grp (indices into out; their points and distances in
// s.tj and s.tv, ordered) that lie in the last, open coarse bucket, positions b..e: one sweep
// counts the bucket's points in tailBuckets equal-width sub-buckets over [open, hi] and compares
// with the targets only the points of the targets' own sub-buckets.
func (s *rowOrder) tailRanks(d []float64, grp []int32, b, e int32, out []int) {
	if s.th == nil {
		s.th, s.tmark = make([]int32, tailBuckets), make([]bool, tailBuckets)
	}
	if cap(s.tbx) < len(grp) {
		s.tbx, s.tcnt = make([]uint16, len(s.tv)), make([]int32, len(s.tv))
	}
	th, tmark := s.th, s.tmark
	tv, tj, tbx, tcnt := s.tv[:len(grp)], s.tj[:len(grp)], s.tbx[:len(grp)], s.tcnt[:len(grp)]
	up := s.open()
	ts, last := float64(tailBuckets)/(s.hi-up), float64(tailBuckets-1)
	clear(th)
	for x, v := range tv {
		u := uint16(min(max(v-up, 0)*ts, last))
		tbx[x], tcnt[x] = u, 0
		tmark[u] = true
	}
	for _, l := range s.ord[b:e] {
		k := d[l]
		u := uint16(min(max(k-up, 0)*ts, last)) // monotone in k
		th[u]++
		if tmark[u] {
			for x, v := range tv {
				if tbx[x] == u && (k < v || (k == v && l < tj[x])) {
					tcnt[x]++
				}
			}
		}
	}
	sum := int32(0)
	for u, c := range th { // counts to starts
		th[u] = sum
		sum += c
	}
	for x, mm := range grp {
		out[mm] = int(b + th[tbx[x]] + tcnt[x] + 1)
		tmark[tbx[x]] = false
	}
}

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i(b bool) int32 {
	var i int32
	if b {
		i = 1
	}
	return i
}
