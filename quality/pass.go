package quality

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"lowdim/neighbors"
)

// passWant selects what inputPass computes.
type passWant struct {
	trust, cont, pr, rank, mean bool
}

// passResult holds what inputPass computed.
type passResult struct {
	trust, cont       []float64
	prec, rec         []float64
	rankPrec, rankRec float64
	meanX, meanY      float64 // mean input and output distance over the n(n−1) ordered pairs
}

// worker holds one goroutine's accumulators and buffers.
type worker struct {
	tsum, csum      []float64
	precSum, recSum []float64
	rankP, rankR    float64
	sumX, sumY      float64
	heap            neighbors.TopK
	inIdx           []int32
	inD             []float64
	rk              ranker
	ranks           []int
	relevant        []bool
	rx, ry          []int32 // rank-based: rank of j in either space (0 = beyond the unclamped ranks)
	topIdx          []int32
	topD            []float64
	outTop, inTop   []int32
}

// inputPass streams the input distance rows once (with the matching output rows) and computes the
// wanted measures. k is the neighbourhood size, mr the P/R curve length.
func inputPass(ctx context.Context, x, y *mat.Dense, want passWant, k, mr int, opt Options) (*passResult, error) {
	n, _ := y.Dims()
	var gOut *neighbors.Graph
	if want.trust || want.pr {
		kOut := 0
		if want.trust {
			kOut = k
		}
		if want.pr {
			kOut = max(kOut, mr)
		}
		var err error
		gOut, err = neighbors.KNN(ctx, y, kOut, neighbors.Options{Workers: opt.workers()})
		if err != nil {
			return nil, err
		}
	}
	var rb *rankBase
	if want.rank {
		rb = newRankBase(n, k)
	}
	nw := opt.workers()
	ws := make([]*worker, nw)
	for w := range ws {
		wk := &worker{
			tsum: make([]float64, k), csum: make([]float64, k),
			inIdx: make([]int32, k), inD: make([]float64, k), ranks: make([]int, max(k, 1)),
		}
		if want.pr {
			wk.precSum, wk.recSum = make([]float64, mr), make([]float64, mr)
			wk.relevant = make([]bool, n)
		}
		if want.rank {
			wk.rx, wk.ry = make([]int32, n), make([]int32, n)
			wk.topIdx, wk.topD = make([]int32, rb.r0), make([]float64, rb.r0)
			wk.inTop, wk.outTop = make([]int32, rb.r0), make([]int32, rb.r0)
		}
		ws[w] = wk
	}
	err := bothRows(ctx, x, y, opt, "input pass", func(w, i int, dx, dy []float64) error {
		wk := ws[w]
		if want.mean {
			var sx, sy float64
			for j := range dx {
				sx += math.Sqrt(dx[j])
				sy += math.Sqrt(dy[j])
			}
			wk.sumX += sx
			wk.sumY += sy
		}
		if want.cont || want.pr {
			wk.heap.Reset(k)
			for j, v := range dx {
				if j != i {
					wk.heap.Push(v, int32(j))
				}
			}
			wk.heap.Sorted(wk.inIdx, wk.inD)
		}
		if want.trust {
			out, _ := gOut.Row(i)
			wk.rk.ranks(dx, i, out[:k], wk.ranks)
			accumulateTC(wk.tsum, wk.ranks[:k])
		}
		if want.cont {
			wk.rk.ranks(dy, i, wk.inIdx, wk.ranks)
			accumulateTC(wk.csum, wk.ranks[:k])
		}
		if want.pr {
			out, _ := gOut.Row(i)
			for _, j := range wk.inIdx {
				wk.relevant[j] = true
			}
			hits := 0
			for r := 1; r <= mr; r++ {
				if wk.relevant[out[r-1]] {
					hits++
				}
				wk.precSum[r-1] += float64(hits) / float64(r)
				wk.recSum[r-1] += float64(hits) / float64(k)
			}
			for _, j := range wk.inIdx {
				wk.relevant[j] = false
			}
		}
		if want.rank {
			p, r := rb.row(wk, i, dx, dy)
			wk.rankP += p
			wk.rankR += r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := &passResult{}
	fn := float64(n)
	if want.trust || want.cont {
		res.trust, res.cont = make([]float64, k), make([]float64, k)
		for _, wk := range ws {
			for m := 0; m < k; m++ {
				res.trust[m] += wk.tsum[m]
				res.cont[m] += wk.csum[m]
			}
		}
		for m := 0; m < k; m++ {
			kk := float64(m + 1)
			norm := 2 / (fn * kk * (2*fn - 3*kk - 1))
			res.trust[m] = 1 - norm*res.trust[m]
			res.cont[m] = 1 - norm*res.cont[m]
		}
		if !want.trust {
			res.trust = nil
		}
		if !want.cont {
			res.cont = nil
		}
	}
	if want.pr {
		res.prec, res.rec = make([]float64, mr), make([]float64, mr)
		for _, wk := range ws {
			for m := 0; m < mr; m++ {
				res.prec[m] += wk.precSum[m]
				res.rec[m] += wk.recSum[m]
			}
		}
		for m := 0; m < mr; m++ {
			res.prec[m] /= fn
			res.rec[m] /= fn
		}
	}
	if want.rank {
		for _, wk := range ws {
			res.rankPrec += wk.rankP
			res.rankRec += wk.rankR
		}
		res.rankPrec /= fn * rb.worstPrec
		res.rankRec /= fn * rb.worstRec
	}
	if want.mean {
		for _, wk := range ws {
			res.meanX += wk.sumX
			res.meanY += wk.sumY
		}
		res.meanX /= fn * (fn - 1)
		res.meanY /= fn * (fn - 1)
	}
	return res, nil
}

// accumulateTC adds, for every neighbourhood size kk = 1..len(r), Σ_{m<kk} max(0, r_m − kk) to
// sum[kk−1], where r_m is the rank (in the other space) of the m-th nearest neighbour. A neighbour
// of rank ≤ kk is a neighbour in both spaces and contributes nothing, so this is the inner sum of
// trustworthiness (continuity) for every kk at once.
func accumulateTC(sum []float64, r []int) {
	for kk := 1; kk <= len(r); kk++ {
		var s int
		for _, v := range r[:kk] {
			if v > kk {
				s += v - kk
			}
		}
		sum[kk-1] += float64(s)
	}
}

// ranker computes the ranks of a few targets in a distance row.
type ranker struct {
	order []int
	tv    []float64 // sorted target distances
	ti    []int32   // and indices
	hist  []int
}

// ranks sets rank[m] = 1 + #{l ≠ i : (row[l], l) < (row[t_m], t_m)} — the rank of target t_m among
// the other points, nearest = 1, ties by the smaller index. Cost O(n + c·log len(t)) with c the
// number of points nearer than the farthest target.
func (r *ranker) ranks(row []float64, i int, t []int32, rank []int) {
	nt := len(t)
	r.order = r.order[:0]
	for m := range t {
		r.order = append(r.order, m)
	}
	sort.Slice(r.order, func(a, b int) bool {
		ja, jb := t[r.order[a]], t[r.order[b]]
		return row[ja] < row[jb] || (row[ja] == row[jb] && ja < jb)
	})
	r.tv, r.ti = r.tv[:0], r.ti[:0]
	for _, m := range r.order {
		r.tv = append(r.tv, row[t[m]])
		r.ti = append(r.ti, t[m])
	}
	if cap(r.hist) < nt+1 {
		r.hist = make([]int, nt+1)
	}
	hist := r.hist[:nt+1]
	clear(hist)
	tv, ti := r.tv, r.ti
	last := ti[nt-1]
	maxV := tv[nt-1]
	for l, v := range row {
		if v > maxV || (v == maxV && int32(l) >= last) || l == i {
			continue
		}
		// p = number of targets ≤ (v, l): binary search for the first target > (v, l)
		lo, hi := 0, nt
		for lo < hi {
			h := int(uint(lo+hi) >> 1)
			if tv[h] > v || (tv[h] == v && ti[h] > int32(l)) {
				hi = h
			} else {
				lo = h + 1
			}
		}
		hist[lo]++
	}
	c := 0
	for m := 0; m < nt; m++ {
		c += hist[m]
		rank[r.order[m]] = 1 + c
	}
}
