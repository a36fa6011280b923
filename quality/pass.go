package quality

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/neighbors"
)

// passWant selects what inputPass computes.
type passWant struct {
	trust, cont, pr, rank, smooth bool
}

// passResult holds what inputPass computed.
type passResult struct {
	trust, cont       []float64
	prec, rec         []float64
	rankPrec, rankRec float64
	smPrec, smRec     float64
}

// worker holds one goroutine's accumulators and buffers.
type worker struct {
	tsum, csum []float64
	hits       []int64 // hits[r-1]: Σ_i |relevant ∩ r nearest output neighbours|
	heap       neighbors.TopK
	inIdx      []int32
	inD        []float64
	rk         ranker
	ranks      []int
	relevant   []bool
	// ordered rows (rank-based measures): the nearest points of either space and their ranks
	ox, oy *rowOrder
	nx     []int32 // the r1 nearest input points, kept from ox's order while oy orders
	rtmp   []int32 // rowRanked's scratch
	// smoothed measures: the σ search
	search affinity.DredvizSearch
}

// inputPass streams the input distance rows once (with the matching output rows) and computes the
// wanted measures. k is the neighbourhood size, mr the P/R curve length; meanX and meanY (the mean
// input and output distances) are needed by the smoothed measures only.
func inputPass(ctx context.Context, x, y *mat.Dense, want passWant, k, mr int, meanX, meanY float64, opt Options) (*passResult, error) {
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
	sx, sy := 1/(meanX*meanX), 1/(meanY*meanY)
	if meanX == 0 {
		sx = 1
	}
	if meanY == 0 {
		sy = 1
	}
	// Per-row losses, summed in row order at the end: the result does not depend on scheduling.
	var rowSP, rowSR, rowRP, rowRR []float64
	if want.smooth {
		rowSP, rowSR = make([]float64, n), make([]float64, n)
	}
	if want.rank {
		rowRP, rowRR = make([]float64, n), make([]float64, n)
	}
	ps := &passState{want: want, k: k, mr: mr, rb: rb, gOut: gOut, sx: sx, sy: sy,
		rowSP: rowSP, rowSR: rowSR, rowRP: rowRP, rowRR: rowRR}
	ws := make([]*worker, opt.workers())
	for w := range ws {
		ws[w] = ps.newWorker(n)
	}
	err := bothRows(ctx, x, y, opt, "input pass", func(w, i int, dx, dy []float64) error {
		ps.row(ws[w], i, dx, dy)
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
		for m := 0; m < mr; m++ {
			var h int64
			for _, wk := range ws {
				h += wk.hits[m]
			}
			res.prec[m] = float64(h) / float64(m+1) / fn
			res.rec[m] = float64(h) / float64(k) / fn
		}
	}
	if want.rank {
		for i := range rowRP {
			res.rankPrec += rowRP[i]
			res.rankRec += rowRR[i]
		}
		res.rankPrec /= fn * rb.worstPrec
		res.rankRec /= fn * rb.worstRec
	}
	if want.smooth {
		for i := range rowSP {
			res.smPrec += rowSP[i]
			res.smRec += rowSR[i]
		}
		res.smPrec /= fn
		res.smRec /= fn
	}
	return res, nil
}

// passState is what every row of inputPass shares: the selection, the sizes, the rank
// distribution, the output neighbours and the per-row losses.
type passState struct {
	want                       passWant
	k, mr                      int
	rb                         *rankBase
	gOut                       *neighbors.Graph
	sx, sy                     float64 // rescaling of squared distances for the smoothed measures
	rowSP, rowSR, rowRP, rowRR []float64
}

// newWorker returns the buffers of one goroutine for rows of n.
func (ps *passState) newWorker(n int) *worker {
	k := ps.k
	wk := &worker{
		tsum: make([]float64, k), csum: make([]float64, k),
		inIdx: make([]int32, k), inD: make([]float64, k), ranks: make([]int, max(k, 1)),
	}
	if ps.want.pr {
		wk.hits = make([]int64, ps.mr)
		wk.relevant = make([]bool, n)
	}
	if ps.want.rank {
		wk.ox = newRowOrder(n)
		wk.oy = wk.ox.sharing()
		wk.nx, wk.rtmp = make([]int32, ps.rb.r1), make([]int32, ps.rb.r1)
	}
	return wk
}

// row computes the wanted measures' share of row i from its squared input distances dx and output
// distances dy, with the buffers of wk.
func (ps *passState) row(wk *worker, i int, dx, dy []float64) {
	var loX, hiX, loY, hiY float64
	if ps.want.rank || ps.want.smooth {
		loX, hiX, loY, hiY = rowRanges(i, dx, dy)
	}
	if ps.want.rank {
		// The r0 nearest points of both rows in order (beyond them ranks are clamped): they
		// give the rank-based measures, the input neighbours and the ranks trustworthiness and
		// continuity need (a neighbour ranked beyond r0 in the other space is counted apart).
		// The two orders share their scratch: each row's far targets are ranked before the
		// other row is ordered.
		need := max(ps.rb.r0, ps.k)
		wk.ox.order(dx, i, loX, hiX, need)
		copy(wk.inIdx, wk.ox.ord[:ps.k])
		copy(wk.nx, wk.ox.ord)
		if ps.want.trust {
			out, _ := ps.gOut.Row(i)
			wk.ox.ranksOf(dx, out[:ps.k], wk.ranks)
			accumulateTC(wk.tsum, wk.ranks[:ps.k])
		}
		wk.oy.order(dy, i, loY, hiY, need)
		if ps.want.cont {
			wk.oy.ranksOf(dy, wk.inIdx, wk.ranks)
			accumulateTC(wk.csum, wk.ranks[:ps.k])
		}
		ps.rowRP[i], ps.rowRR[i] = ps.rb.rowRanked(wk.ox.rank, wk.oy.rank, wk.nx, wk.oy.ord, wk.rtmp)
	} else {
		if ps.want.cont || ps.want.pr {
			wk.heap.Reset(ps.k)
			for j, v := range dx {
				if j != i {
					wk.heap.Push(v, int32(j))
				}
			}
			wk.heap.Sorted(wk.inIdx, wk.inD)
		}
		if ps.want.trust {
			out, _ := ps.gOut.Row(i)
			wk.rk.ranks(dx, i, out[:ps.k], wk.ranks)
			accumulateTC(wk.tsum, wk.ranks[:ps.k])
		}
		if ps.want.cont {
			wk.rk.ranks(dy, i, wk.inIdx, wk.ranks)
			accumulateTC(wk.csum, wk.ranks[:ps.k])
		}
	}
	if ps.want.pr {
		out, _ := ps.gOut.Row(i)
		for _, j := range wk.inIdx {
			wk.relevant[j] = true
		}
		var hits int64
		for r := 1; r <= ps.mr; r++ {
			if wk.relevant[out[r-1]] {
				hits++
			}
			wk.hits[r-1] += hits
		}
		for _, j := range wk.inIdx {
			wk.relevant[j] = false
		}
	}
	if ps.want.smooth {
		ps.rowSP[i], ps.rowSR[i] = smoothedRow(wk, i, dx, dy, ps.sx, ps.sy, loX, loY, ps.k)
	}
}

// rowRanges returns the smallest and largest input and output distance of row i (the point itself
// excluded), the two sides of i apart (blas.MinMax: vectorised on AVX-512 in either build).
func rowRanges(i int, dx, dy []float64) (loX, hiX, loY, hiY float64) {
	loX, hiX = blas.MinMax(dx[:i], math.Inf(1), math.Inf(-1))
	loX, hiX = blas.MinMax(dx[i+1:], loX, hiX)
	loY, hiY = blas.MinMax(dy[:i], math.Inf(1), math.Inf(-1))
	loY, hiY = blas.MinMax(dy[i+1:len(dx)], loY, hiY)
	return loX, hiX, loY, hiY
}

// smoothedRow returns KL(q_i‖p_i) and KL(p_i‖q_i) for row i of the squared input distances dx
// and output distances dy, rescaled by sx and sy (see the package documentation), whose smallest
// entries j ≠ i are loX and loY. The rows are read in place: the rescaling is folded into the
// exponents, min(dx_j·(sx/σ²), 450), and entry i is left out by summing the two sides apart.
func smoothedRow(wk *worker, i int, dx, dy []float64, sx, sy, loX, loY float64, k int) (prec, rec float64) {
	s2 := wk.search.Sigma2Row(dx, i, sx, loX, float64(k))
	ia, ib := sx/s2, sy/s2
	// Exponents t = min(d²/σ², 450) shifted by the row minimum (the normalisation cancels it).
	minP, minQ := math.Min(loX*ia, affinity.MaxExp), math.Min(loY*ib, affinity.MaxExp)
	zp, sp, zq, sq := blas.KLSums(dx[:i], dy[:i], ia, ib, affinity.MaxExp, minP, minQ, affinity.SkipExp)
	zp2, sp2, zq2, sq2 := blas.KLSums(dx[i+1:], dy[i+1:len(dx)], ia, ib, affinity.MaxExp, minP, minQ, affinity.SkipExp)
	zp, sp, zq, sq = zp+zp2, sp+sp2, zq+zq2, sq+sq2
	lzp, lzq := math.Log(zp), math.Log(zq)
	// log p_j = −tp_j − log Zp (shifted exponents), so KL(p‖q) = Σ p_j (tq_j − tp_j) + log Zq − log Zp.
	rec = sp/zp + lzq - lzp
	prec = sq/zq + lzp - lzq
	return prec, rec
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
