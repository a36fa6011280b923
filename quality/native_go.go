//go:build !openblas || !cgo

package quality

import (
	"math/bits"

	"github.com/lowdim/lowdim/internal/blas"
)

// count assigns every point of d its coarse bucket and counts the buckets.
func (s *rowOrder) count(d []float64) {
	cb, cnt := s.cb[:len(d)], s.cnt[:2*s.nc+2]
	clear(cnt)
	// Monotone in v; nc and later beyond up. (Vectorised on AVX-512; the histogram stays scalar.)
	blas.Buckets(cb, d, s.lo, s.scale, float64(2*s.nc-1))
	for _, c := range cb {
		cnt[c+1]++
	}
}

// place moves every point into coarse bucket order (index order within a bucket) and sorts and
// ranks each coarse bucket up to cut on its own. (The -tags openblas build runs a C twin; here
// the bucket arithmetic is blas.Buckets and blas.FineBuckets, AVX-512 where the CPU has it.)
func (s *rowOrder) place(d []float64, cut int) {
	n := len(d)
	nb := 2 * s.nc
	cb, ord, rank, cnt := s.cb[:n], s.ord[:n+1], s.rank[:n], s.cnt[:nb+2]
	pos := s.pos[:nb+1]
	copy(pos, cnt[:nb+1])
	for j, c := range cb {
		p := pos[c]
		pos[c] = p + 1
		ord[p] = int32(j)
		rank[j] = unranked
	}
	for c := 0; c <= cut; c++ {
		b, e := cnt[c], cnt[c+1]
		ids := ord[b:e]
		s.grow(len(ids))
		ks := s.keys[:len(ids)]
		for q, j := range ids { // gathered here, in L1, rather than moved with the points
			ks[q] = d[j]
		}
		if e-b <= 16 {
			insertion(ids, ks)
		} else if !s.fine(ids, ks, s.lo, s.scale, c) {
			s.bigs = append(s.bigs, int32(c))
			continue
		}
		for p, j := range ord[b:e] {
			rank[j] = b + int32(p) + 1
		}
	}
	s.sortBig(d)
}

// insertion sorts the points ids by their distances ks (stable: equal distances keep their
// order, which is increasing index).
func insertion(ids []int32, ks []float64) {
	ks = ks[:len(ids)]
	for p := 1; p < len(ids); p++ {
		v := ks[p]
		if ks[p-1] <= v {
			continue
		}
		j := ids[p]
		q := p
		for ; q > 0 && ks[q-1] > v; q-- {
			ids[q], ks[q] = ids[q-1], ks[q-1]
		}
		ids[q], ks[q] = j, v
	}
}

// fine sorts the points ids (in increasing index order) of coarse bucket c, whose distances are
// ks, by a counting sort on fine buckets: the coarse bucket's share of the same linear map
// (v − lo)·scale, scaled by a power of two so that the fine bucket of a point never leaves its
// coarse bucket's range. It reports false, leaving the points counting-sorted but not sorted,
// when more than 48 of them share a fine bucket.
func (s *rowOrder) fine(ids []int32, ks []float64, lo, scale float64, c int) bool {
	m := len(ids)
	ks = ks[:m]
	nf := 1 << bits.Len(uint(m-1)) // ≥ m
	if cap(s.sub) < nf+1 {
		s.sub = make([]int32, 2*nf+1)
	}
	s.grow(m)
	sub, sb, tmpI, tmpK := s.sub[:nf], s.sb[:m], s.tmpI[:m], s.tmpK[:m]
	clear(sub)
	// (v−lo)·scale·nf rounds exactly as (v−lo)·scale does, times nf: its floor lies in
	// [c·nf, (c+1)·nf).
	sc := scale * float64(nf)
	base := float64(c * nf)
	last := uint32(nf - 1)
	blas.FineBuckets(sb, ks, lo, sc, base, last)
	for _, f := range sb {
		sub[f]++
	}
	most, sum := int32(0), int32(0)
	for f, c := range sub[:nf] { // counts to starts
		most = max(most, c)
		sub[f] = sum
		sum += c
	}
	for t, f := range sb {
		p := sub[f]
		sub[f] = p + 1
		tmpI[p], tmpK[p] = ids[t], ks[t]
	}
	if most > 48 { // left to sortBig
		copy(ids, tmpI)
		return false
	}
	insertion(tmpI, tmpK)
	copy(ids, tmpI)
	return true
}

// outRow2 sets row[j] = ‖y_j − y_i‖² for the n 2-D points stored row-major in data.
func outRow2(data []float64, i int, row []float64) {
	a, b := data[2*i], data[2*i+1]
	row = row[:len(data)/2]
	for j := range row {
		t, u := data[2*j]-a, data[2*j+1]-b
		row[j] = t*t + u*u
	}
}

// rowRanked returns the rank-based KL(q‖p) and KL(p‖q) of a row whose input and output ranks are
// rx and ry (unranked beyond the ordered part, and for the point itself); nx and ny are the r1
// nearest input and output points in order. A point contributes q(log q − log p) + … only through
// the larger of its two probabilities, so points ranked beyond r1 in both spaces (both weights
// below e^−60 of the largest, and log-ratios at most 450) are left out, as the smoothed measures
// leave out negligible weights; beyond r0 ranks are clamped. The terms are summed in input rank
// order over nx, then in output rank order over the points of ny that are not in nx. (The last
// argument is the C twin's scratch.)
func (rb *rankBase) rowRanked(rx, ry, nx, ny, _ []int32) (prec, rec float64) {
	r0, r1 := int32(rb.r0), int32(rb.r1)
	tab := rb.tab[:r0+1]
	for a, j := range nx[:r1] {
		b := ry[j]
		if b > r0 {
			b = 0 // clamped (beyond r0, or unranked)
		}
		p, q := tab[a+1], tab[b]
		prec += q.p * (q.lp - p.lp)
		rec += p.p * (p.lp - q.lp)
	}
	for b, j := range ny[:r1] {
		a := rx[j]
		if a <= r1 {
			continue
		}
		if a > r0 {
			a = 0
		}
		p, q := tab[a], tab[b+1]
		prec += q.p * (q.lp - p.lp)
		rec += p.p * (p.lp - q.lp)
	}
	return prec, rec
}
