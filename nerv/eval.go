package nerv

import (
	"math"

	"github.com/lowdim/lowdim/affinity"
	"sync"
	"sync/atomic"
)

// skipExp: a weight more than e^−skipExp below its row's largest is not exponentiated.
const skipExp = 45

// job kinds sent to the worker pool.
const (
	jobEval   = iota // cost and gradient at ev.y
	jobSigma         // recompute the cached input probabilities for ev.s2
	jobTSweep        // t-NeRV: the sums that normalise q and give KL(q‖p)
	jobMean          // NeRV with normalised output: mean output distance and its gradient
)

// evaluator computes the NeRV or t-NeRV cost and gradient exactly, in O(n²·D) per call, on a
// pool of workers that lives as long as the fit; it allocates nothing per call.
type evaluator struct {
	n, dim  int
	lambda  float64
	student bool // t-NeRV: joint p, Student-t q
	// normalise: NeRV on y/m(y), m the mean output distance over the n(n−1) ordered pairs, so that
	// the cost is the scale-free smoothed precision/recall of package quality.
	normalise bool
	oscale    float64   // 1/m(y)² for the current evaluation (1 when not normalising)
	gm        []float64 // n·dim: ∇_y m(y)
	in        *input
	s2        []float64 // current σ_i²

	// Cached input probabilities p_j|i (NeRV) or p_ij (t-NeRV) and their logarithms, n×n, when
	// the memory budget allows (always for t-NeRV); otherwise NeRV recomputes rows on the fly.
	cached bool
	p, lp  []float64

	// t-NeRV: log Σ_{k≠l} u_kl, KL(q‖p) and KL(p‖q) from the first sweep.
	tlz, tklqp, tklpq float64

	y       []float64 // the point being evaluated (n·dim, row-major)
	next    atomic.Int64
	workers []*worker
	// Rows are split into a fixed number of contiguous blocks, each with its own accumulators,
	// summed in block order: the result does not depend on the number of workers or on which
	// worker took which block, so the same input gives the same bytes on any machine.
	blocks []*block
	wg     sync.WaitGroup
}

// nblocks is the number of row blocks (fewer when n is small).
const nblocks = 16

// worker holds one goroutine's scratch rows.
type worker struct {
	start             chan int
	t, q, p, lp, dbuf []float64
}

// block holds the accumulators of one contiguous range of rows.
type block struct {
	lo, hi          int
	grad, gm        []float64
	cost, prec, rec float64 // sums over the block's rows
	dsum            float64 // Σ_{j>i} ‖y_i − y_j‖ over the block's rows i
	z, s1, s2       float64 // t-NeRV sweep sums
}

func newEvaluator(in *input, dim int, lambda float64, student, normalise, cache bool, workers int) *evaluator {
	n := in.n
	normalise = normalise && !student
	ev := &evaluator{n: n, dim: dim, lambda: lambda, student: student, normalise: normalise, oscale: 1, in: in, s2: make([]float64, n), cached: cache || student}
	if normalise {
		ev.gm = make([]float64, n*dim)
	}
	if ev.cached {
		ev.p, ev.lp = make([]float64, n*n), make([]float64, n*n)
	}
	for range workers {
		w := &worker{
			start: make(chan int),
			t:     make([]float64, n),
			q:     make([]float64, n),
		}
		if !ev.cached {
			w.p, w.lp = make([]float64, n), make([]float64, n)
		}
		if in.how != store64 {
			w.dbuf = make([]float64, n)
		}
		ev.workers = append(ev.workers, w)
		go ev.serve(w)
	}
	nb := min(nblocks, n)
	for b := range nb {
		bl := &block{lo: b * n / nb, hi: (b + 1) * n / nb, grad: make([]float64, n*dim)}
		if normalise {
			bl.gm = make([]float64, n*dim)
		}
		ev.blocks = append(ev.blocks, bl)
	}
	return ev
}

// close stops the worker pool.
func (ev *evaluator) close() {
	for _, w := range ev.workers {
		close(w.start)
	}
}

func (ev *evaluator) serve(w *worker) {
	for job := range w.start {
		ev.work(w, job)
		ev.wg.Done()
	}
}

// run executes job on every worker and waits for them.
func (ev *evaluator) run(job int) {
	ev.next.Store(0)
	ev.wg.Add(len(ev.workers))
	for _, w := range ev.workers {
		w.start <- job
	}
	ev.wg.Wait()
}

// work claims blocks until none are left and does job on their rows, in order.
func (ev *evaluator) work(w *worker, job int) {
	nb := int64(len(ev.blocks))
	for {
		b := ev.next.Add(1) - 1
		if b >= nb {
			return
		}
		bl := ev.blocks[b]
		for i := bl.lo; i < bl.hi; i++ {
			switch job {
			case jobSigma:
				ev.inputRow(w, i, ev.p[i*ev.n:(i+1)*ev.n], ev.lp[i*ev.n:(i+1)*ev.n])
			case jobEval:
				if ev.student {
					ev.tRow(w, bl, i)
				} else {
					ev.nervRow(w, bl, i)
				}
			case jobTSweep:
				ev.tSweep(w, bl, i)
			case jobMean:
				ev.meanRow(bl, i)
			}
		}
	}
}

// setSigma sets σ_i² and refreshes the cached input probabilities.
func (ev *evaluator) setSigma(s2 []float64) {
	copy(ev.s2, s2)
	if ev.cached {
		ev.run(jobSigma)
		if ev.student {
			ev.symmetrise()
		}
	}
}

// inputRow writes p_j|i ∝ exp(−min(d_ij²/σ_i², MaxExp)) and log p_j|i for the current σ_i² into
// p and lp (entry i: both 0). The floor at exp(−450) is dredviz's and package quality's.
func (ev *evaluator) inputRow(w *worker, i int, p, lp []float64) {
	d := ev.in.row(i, w.dbuf)
	inv := 1 / ev.s2[i]
	var z float64
	for j, v := range d {
		a := v * inv
		if a > affinity.MaxExp {
			a = affinity.MaxExp
		}
		if j == i {
			// Not computed and subtracted: the self weight exp(0) = 1 would swamp the others
			// when σ_i is small, and (1 + Σ) − 1 can round to 0.
			a = math.Inf(1)
		}
		e := math.Exp(-a)
		p[j], lp[j] = e, -a
		z += e
	}
	lz := math.Log(z)
	iz := 1 / z
	for j := range p {
		p[j] *= iz
		lp[j] -= lz
	}
	p[i], lp[i] = 0, 0
}

// eval returns the cost per point at y and writes its gradient into grad; prec and rec are the
// mean precision (KL(q‖p)) and recall (KL(p‖q)) terms.
func (ev *evaluator) eval(y, grad []float64) (cost, prec, rec float64) {
	ev.y = y
	for _, bl := range ev.blocks {
		clear(bl.grad)
		bl.cost, bl.prec, bl.rec, bl.z, bl.s1, bl.s2, bl.dsum = 0, 0, 0, 0, 0, 0, 0
	}
	if ev.student {
		ev.tPrepare()
	}
	var s float64 // 1/m(y)
	if ev.normalise {
		s = ev.meanPrepare()
	}
	ev.run(jobEval)
	clear(grad)
	for _, bl := range ev.blocks {
		for k, v := range bl.grad {
			grad[k] += v
		}
		cost += bl.cost
		prec += bl.prec
		rec += bl.rec
	}
	if ev.student {
		// The joint cost is one pair of divergences over all pairs, not a sum over rows.
		return ev.lambda*ev.tklpq + (1-ev.lambda)*ev.tklqp, ev.tklqp, ev.tklpq
	}
	if ev.normalise {
		// The rows computed H = ∂F(s·y)/∂y at fixed s = 1/m; the scale's own dependence on y adds
		// −s (Σ_k H_k·y_k) ∇m.
		var dot float64
		for k, v := range grad {
			dot += v * y[k]
		}
		c := s * dot
		for k, v := range ev.gm {
			grad[k] -= c * v
		}
	}
	nf := float64(ev.n)
	for k := range grad {
		grad[k] /= nf
	}
	return cost / nf, prec / nf, rec / nf
}

// meanPrepare computes m(y), the mean output distance over ordered pairs, and ∇m into ev.gm;
// it sets ev.oscale = 1/m² and returns 1/m.
func (ev *evaluator) meanPrepare() float64 {
	for _, bl := range ev.blocks {
		clear(bl.gm)
	}
	ev.run(jobMean)
	clear(ev.gm)
	var sum float64
	for _, bl := range ev.blocks {
		sum += bl.dsum
		for k, v := range bl.gm {
			ev.gm[k] += v
		}
	}
	pairs := float64(ev.n) * float64(ev.n-1)
	m := 2 * sum / pairs
	c := 2 / pairs
	for k := range ev.gm {
		ev.gm[k] *= c
	}
	if !(m > 0) {
		m = 1 // all points coincide: nothing to normalise
	}
	ev.oscale = 1 / (m * m)
	return 1 / m
}

// meanRow adds the pairs (i, j > i) to the output distance sum and to Σ_j (y_i − y_j)/‖y_i − y_j‖.
func (ev *evaluator) meanRow(w *block, i int) {
	n, dim, y := ev.n, ev.dim, ev.y
	g := w.gm
	var sum float64
	if dim == 2 {
		yi0, yi1 := y[2*i], y[2*i+1]
		var gi0, gi1 float64
		for j := i + 1; j < n; j++ {
			a, b := yi0-y[2*j], yi1-y[2*j+1]
			d := math.Sqrt(a*a + b*b)
			sum += d
			if d > 0 {
				a, b = a/d, b/d
				gi0 += a
				gi1 += b
				g[2*j] -= a
				g[2*j+1] -= b
			}
		}
		g[2*i] += gi0
		g[2*i+1] += gi1
		w.dsum += sum
		return
	}
	yi := y[i*dim : (i+1)*dim]
	gi := g[i*dim : (i+1)*dim]
	for j := i + 1; j < n; j++ {
		yj := y[j*dim : (j+1)*dim]
		var e float64
		for d, v := range yj {
			a := yi[d] - v
			e += a * a
		}
		d := math.Sqrt(e)
		sum += d
		if d > 0 {
			gj := g[j*dim : (j+1)*dim]
			for c, v := range yj {
				a := (yi[c] - v) / d
				gi[c] += a
				gj[c] -= a
			}
		}
	}
	w.dsum += sum
}

// nervRow adds row i's terms of the NeRV cost λ KL(p_i‖q_i) + (1−λ) KL(q_i‖p_i) and of its
// gradient, with q_j|i ∝ exp(−min(e_ij/σ_i², MaxExp)) (e_ij scaled by ev.oscale). With
// D_i = KL(q_i‖p_i) and
//
//	w_ij = [λ (p_j|i − q_j|i) + (1−λ) q_j|i (D_i − log(q_j|i/p_j|i))] / σ_i²
//
// (0 where the exponent is clamped: there q_j|i does not depend on e_ij), row i contributes
// 2 w_ij (y_i − y_j) to ∂E/∂y_i and 2 w_ij (y_j − y_i) to ∂E/∂y_j. Weights below e^−skipExp of the
// row's largest are not exponentiated (q is set to 0; log q stays exact): their terms are below
// 1e-19 of the row's cost.
func (ev *evaluator) nervRow(w *worker, bl *block, i int) {
	const clamp = affinity.MaxExp
	n, dim := ev.n, ev.dim
	var p, lp []float64
	if ev.cached {
		p, lp = ev.p[i*n:(i+1)*n], ev.lp[i*n:(i+1)*n]
	} else {
		p, lp = w.p, w.lp
		ev.inputRow(w, i, p, lp)
	}
	y := ev.y
	inv := ev.oscale / ev.s2[i]
	t, q := w.t[:n], w.q[:n]
	ev.sqDists(i, t)
	tmin := math.Inf(1)
	for j, e := range t {
		v := e * inv
		if v > clamp { // (math.Min is an assembly call, not inlined)
			v = clamp
		}
		t[j] = v
		if v < tmin && j != i {
			tmin = v
		}
	}
	t[i] = clamp
	// One sweep gives the normaliser and both divergences: with e_j = exp(−(t_j − tmin)),
	// q_j = e_j/z and log q_j = −(t_j − tmin) − log z, so
	//	KL(q‖p) = Σ e_j (−(t_j − tmin) − log p_j)/z − log z
	//	KL(p‖q) = Σ p_j (log p_j + t_j − tmin) + log z.
	var z, sq, sp float64
	for j, v := range t {
		a := v - tmin
		var e float64
		if a < skipExp {
			e = math.Exp(-a)
		}
		q[j] = e
		z += e
		sq -= e * (a + lp[j])
		sp += p[j] * (lp[j] + a)
	}
	if e := q[i]; e != 0 { // possible only when every other point is clamped too
		z -= e
		sq += e * (t[i] - tmin + lp[i])
		q[i] = 0
	}
	lz := math.Log(z)
	dq := sq/z - lz
	rp := sp + lz
	lam := ev.lambda
	bl.cost += lam*rp + (1-lam)*dq
	bl.prec += dq
	bl.rec += rp
	// w_ij = c [λ (p_j − q_j) + (1−λ) q_j (D_i − log(q_j/p_j))] with log(q_j/p_j) =
	// −(t_j − tmin) − log z − log p_j; zero where t_j is clamped.
	c := 2 * inv
	iz := 1 / z
	shift := tmin - lz
	g := bl.grad
	if dim == 2 {
		yi0, yi1 := y[2*i], y[2*i+1]
		var gi0, gi1 float64
		for j, e := range q {
			v := t[j]
			qj := e * iz
			wij := c * (lam*(p[j]-qj) + (1-lam)*qj*(dq+v-shift+lp[j]))
			if v >= clamp {
				wij = 0
			}
			a, b := wij*(yi0-y[2*j]), wij*(yi1-y[2*j+1])
			gi0 += a
			gi1 += b
			g[2*j] -= a
			g[2*j+1] -= b
		}
		g[2*i] += gi0
		g[2*i+1] += gi1
		return
	}
	yi := y[i*dim : (i+1)*dim]
	gi := g[i*dim : (i+1)*dim]
	for j, e := range q {
		v := t[j]
		if v >= clamp {
			continue
		}
		qj := e * iz
		wij := c * (lam*(p[j]-qj) + (1-lam)*qj*(dq+v-shift+lp[j]))
		gj := g[j*dim : (j+1)*dim]
		for d, v := range y[j*dim : (j+1)*dim] {
			a := wij * (yi[d] - v)
			gi[d] += a
			gj[d] -= a
		}
	}
}
