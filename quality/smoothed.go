package quality

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// clampExp is dredviz's floor for an unnormalised neighbour weight: exp(−t) with t capped at 200.
const clampExp = 200

// skipExp: a weight exp(−t) with t > skipExp is below 1e-26 of the largest weight (which is 1 after
// the shift); it is left out of sums where it cannot change a double-precision result.
const skipExp = 60

// entropyAt returns the entropy (nats) of the distribution w_j ∝ exp(−min(β a_j, 200)) over the
// shifted values a (all ≥ 0, the minimum 0), and its derivative with respect to log β.
func entropyAt(a []float64, beta float64) (h, dh float64) {
	var z, s1, s2 float64
	for _, v := range a {
		t := beta * v
		if t > skipExp {
			continue
		}
		w := math.Exp(-t)
		z += w
		s1 += w * t
		s2 += w * t * t
	}
	m1 := s1 / z
	return math.Log(z) + m1, -(s2/z - m1*m1)
}

// calibrate returns β = 1/σ² such that the entropy of w_j ∝ exp(−β a_j) equals log(k) nats
// (log₂ k bits), by safeguarded Newton steps on log β within a bracket. a holds the shifted values
// (minimum 0). It returns +Inf when the target cannot be reached (fewer than k distinct-enough
// values).
func calibrate(a []float64, k float64) float64 {
	target := math.Log(k)
	var mean float64
	for _, v := range a {
		mean += v
	}
	mean /= float64(len(a))
	if mean == 0 {
		return 1 // all points coincide: every β gives the uniform distribution
	}
	u := -math.Log(mean) // log β
	lo, hi := math.Inf(-1), math.Inf(1)
	for it := 0; it < 200; it++ {
		h, dh := entropyAt(a, math.Exp(u))
		f := h - target
		if math.Abs(f) < 1e-13 {
			break
		}
		if f > 0 { // entropy too high: β must grow
			lo = u
		} else {
			hi = u
		}
		next := u - f/dh
		if dh == 0 || math.IsNaN(next) || next <= lo || next >= hi {
			switch {
			case math.IsInf(hi, 1):
				next = u + 2
			case math.IsInf(lo, -1):
				next = u - 2
			default:
				next = (lo + hi) / 2
			}
		}
		if hi-lo < 1e-15*math.Max(1, math.Abs(u)) {
			break
		}
		u = next
	}
	return math.Exp(u)
}

// smoothed computes the mean smoothed precision and recall losses given the mean input and output
// distances (over the n(n−1) ordered pairs).
func smoothed(ctx context.Context, x, y *mat.Dense, k int, meanX, meanY float64, opt Options) (prec, rec float64, err error) {
	n, _ := y.Dims()
	nw := opt.workers()
	type acc struct {
		prec, rec float64
		a, b      []float64
	}
	accs := make([]acc, nw)
	for w := range accs {
		accs[w].a = make([]float64, 0, n)
		accs[w].b = make([]float64, 0, n)
	}
	sx, sy := 1/(meanX*meanX), 1/(meanY*meanY)
	if meanX == 0 {
		sx = 1
	}
	if meanY == 0 {
		sy = 1
	}
	err = bothRows(ctx, x, y, opt, "smoothed", func(w, i int, dx, dy []float64) error {
		ac := &accs[w]
		p, r := smoothedRow(ac.a[:0], ac.b[:0], i, dx, dy, sx, sy, float64(k))
		ac.prec += p
		ac.rec += r
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	for _, ac := range accs {
		prec += ac.prec
		rec += ac.rec
	}
	return prec / float64(n), rec / float64(n), nil
}

// smoothedRow returns KL(q_i‖p_i) and KL(p_i‖q_i) for row i. a and b are scratch buffers.
func smoothedRow(a, b []float64, i int, dx, dy []float64, sx, sy, k float64) (prec, rec float64) {
	minA, minB := math.Inf(1), math.Inf(1)
	for j := range dx {
		if j == i {
			continue
		}
		va, vb := dx[j]*sx, dy[j]*sy
		a = append(a, va)
		b = append(b, vb)
		minA, minB = math.Min(minA, va), math.Min(minB, vb)
	}
	for j := range a {
		a[j] -= minA
		b[j] -= minB
	}
	beta := calibrate(a, k)
	var zp, zq, sp, sq float64
	for j := range a {
		tp := math.Min(beta*a[j], clampExp)
		tq := math.Min(beta*b[j], clampExp)
		if tp <= skipExp {
			w := math.Exp(-tp)
			zp += w
			sp += w * (tq - tp)
		}
		if tq <= skipExp {
			w := math.Exp(-tq)
			zq += w
			sq += w * (tp - tq)
		}
	}
	lzp, lzq := math.Log(zp), math.Log(zq)
	// KL(p‖q) = Σ p_j (log p_j − log q_j), log p_j = −tp_j − log Zp.
	rec = sp/zp + lzq - lzp
	prec = sq/zq + lzp - lzq
	return prec, rec
}

// rankBase holds the rank-based neighbour distribution shared by every row.
type rankBase struct {
	n, r0               int
	logBase             []float64 // logBase[r-1] = log p(rank r), r = 1..n−1
	base                []float64
	logClamp, clamp     float64 // the value of every rank beyond r0
	worstPrec, worstRec float64
}

// newRankBase calibrates the one σ of the rank-based measures: p(rank r) ∝ exp(−(r−1)/σ²),
// clamped at exp(−200), entropy log k.
func newRankBase(n, k int) *rankBase {
	a := make([]float64, n-1)
	for r := range a {
		a[r] = float64(r)
	}
	beta := calibrate(a, float64(k))
	rb := &rankBase{n: n, logBase: make([]float64, n-1), base: make([]float64, n-1)}
	var z float64
	for r := range a {
		z += math.Exp(-math.Min(beta*a[r], clampExp))
	}
	lz := math.Log(z)
	rb.r0 = n - 1
	for r := range a {
		t := beta * a[r]
		if t >= clampExp && rb.r0 == n-1 {
			rb.r0 = r
		}
		rb.logBase[r] = -math.Min(t, clampExp) - lz
		rb.base[r] = math.Exp(rb.logBase[r])
	}
	rb.logClamp = -clampExp - lz
	rb.clamp = math.Exp(rb.logClamp)
	rb.r0 = max(rb.r0, 1)
	// Worst case: the point of input rank r has output rank n−r.
	for r := 1; r <= n-1; r++ {
		p, q := rb.base[r-1], rb.base[n-1-r]
		lp, lq := rb.logBase[r-1], rb.logBase[n-1-r]
		rb.worstRec += p * (lp - lq)
		rb.worstPrec += q * (lq - lp)
	}
	return rb
}

// row returns the rank-based KL(q‖p) and KL(p‖q) of row i. Only points among the r0 nearest in
// either space contribute: beyond that both distributions hold the same clamped value.
func (rb *rankBase) row(wk *worker, i int, dx, dy []float64) (prec, rec float64) {
	top := func(d []float64, dst []int32, rank []int32) {
		wk.heap.Reset(rb.r0)
		for j, v := range d {
			if j != i {
				wk.heap.Push(v, int32(j))
			}
		}
		wk.heap.Sorted(wk.topIdx, wk.topD)
		copy(dst, wk.topIdx)
		for m, j := range dst {
			rank[j] = int32(m + 1)
		}
	}
	top(dx, wk.inTop, wk.rx)
	top(dy, wk.outTop, wk.ry)
	logv := func(r int32) (float64, float64) {
		if r == 0 {
			return rb.clamp, rb.logClamp
		}
		return rb.base[r-1], rb.logBase[r-1]
	}
	add := func(j int32) {
		p, lp := logv(wk.rx[j])
		q, lq := logv(wk.ry[j])
		rec += p * (lp - lq)
		prec += q * (lq - lp)
	}
	for _, j := range wk.inTop {
		add(j)
	}
	for _, j := range wk.outTop {
		if wk.rx[j] == 0 { // not counted yet
			add(j)
		}
	}
	for _, j := range wk.inTop {
		wk.rx[j] = 0
	}
	for _, j := range wk.outTop {
		wk.ry[j] = 0
	}
	return prec, rec
}
