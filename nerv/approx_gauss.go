package nerv

import (
	"context"
	"math"

	"github.com/lowdim/lowdim/affinity"
)

// gaussState holds what the approximate NeRV (Gaussian) evaluation keeps between calls.
//
// The cost and gradient (package documentation, "At scale") need, per row i with output bandwidth
// b_i = β_i·c (β_i = 1/σ_i², c the output scale) and r_ij = ‖y_i − y_j‖², the far-field sums
//
//	Z_i = Σ_j g_ij,  S_i = Σ_j r_ij g_ij,  W_i = Σ_j r_ij² g_ij,
//	V_i = Σ_j g_ij (y_i − y_j),  U_i = Σ_j r_ij g_ij (y_i − y_j),   g_ij = exp(−b_i (r_ij − r0_i)),
//
// shifted by r0_i, the squared distance to i's nearest point, so that no term overflows and a row
// far from everything keeps its probabilities. These use the query's own bandwidth: a tree walk per
// row. The other half of ∂E/∂y_i sums w_ji over sources j, with the source's bandwidth b_j and its
// coefficients: the tree is walked once per source, and a far cell of targets receives the source's
// kernel at its centre of mass — as a vector k·(ȳ_cell − y_j) and a scalar k, so that each target
// in it later gets k·(y_i − y_j) exactly in its own position and approximately only in the kernel's
// value. The cells' sums are pushed down the tree to the points at the end. Sources are split into
// a fixed number of blocks with their own accumulators, added in block order: the bytes do not
// depend on the number of workers.
//
// A cell is far for a Gaussian kernel of bandwidth b when it is far in the Barnes–Hut sense and
// also b·s·d < κθ (s its side, d the distance to its centre of mass), κ = gaussKappa: the
// kernel then changes by a factor of at most about e^{2κθ} across the cell. NeRV's weights
// (Ã + B̃·c·r)·g nearly cancel between their two parts, which amplifies the error of each: on
// 3,000 random points (λ = 0.1, θ = 0.5) the gradient's relative error was 41 % with κ = 1,
// 12 % with 0.5, 2.6 % with 0.25 and 0.07 % with 0.1 (with the mean pass at θ/4), at the same
// time per evaluation — the Gaussian's short reach, not the opening test, bounds the work. A cell whose nearest corner lies more than
// gaussSkip/b beyond r0 is left out: its terms are below e^−45 of the row's largest.
type gaussState struct {
	beta      []float64 // current β_i = 1/σ_i² on the mean-normalised scale
	normalise bool
	r0        []float64 // per row: squared distance to the nearest other point
	tptr      []int     // transposed graph: rows j that list i are tent[tptr[i]:tptr[i+1]]
	tent      []int32   // entry numbers m in sp.idx
	tsrc      []int32   // and their source rows j
	coef      []float64 // per entry m of row i: β_i [λ α p + (1−λ) q (log p − log ε_i)]
	ra, rb    []float64 // per row Ã_i and B̃_i·c
	cf        []float64 // n·dim: Σ_j w_ji (y_i − y_j) over the far field, per point
	blocks    []*gaussBlock
	ms, mv    []float64 // mean-distance pass: Σ_j √r_ij and Σ_j (y_i − y_j)/√r_ij
	dc        []float64 // per row contributions to ∂E/∂c
}

// gaussBlock accumulates the source walks of one block of sources.
type gaussBlock struct {
	lo, hi int
	node   []float64 // (dim+1) per cell: vector then scalar
	pt     []float64 // dim per tree position
}

// gaussSkip is the exponent beyond which a Gaussian term is left out (the exact path's 45);
// gaussKappa tightens the opening test for Gaussian kernels (see gaussState).
const (
	gaussSkip  = skipExp
	gaussKappa = 0.1
)

func (a *approx) initGauss(normalise bool) {
	n, dim, sp := a.n, a.dim, a.sp
	g := &gaussState{normalise: normalise, beta: make([]float64, n), r0: make([]float64, n)}
	for i, s := range sp.sigma2 {
		g.beta[i] = 1 / s
	}
	g.tptr, g.tent, g.tsrc = sp.transpose()
	g.coef = make([]float64, len(sp.idx))
	g.ra, g.rb, g.dc = make([]float64, n), make([]float64, n), make([]float64, n)
	g.cf = make([]float64, n*dim)
	g.ms, g.mv = make([]float64, n), make([]float64, n*dim)
	nb := min(nblocks, n)
	for b := range nb {
		g.blocks = append(g.blocks, &gaussBlock{lo: b * n / nb, hi: (b + 1) * n / nb, pt: make([]float64, n*dim)})
	}
	a.g = g
}

// gaussFar reports whether cell nd is far for a Gaussian of bandwidth b at squared distance e.
func (t *spTree) gaussFar(nd *spNode, yi []float64, e, b float64) bool {
	if !t.far(nd, yi, e) {
		return false
	}
	s := 2 * nd.half
	return b*b*s*s*e < gaussKappa*gaussKappa*t.theta*t.theta
}

// nearest returns the squared distance from yi to the nearest point other than self.
func (t *spTree) nearest(yi []float64, self int32, stack []int32) (float64, []int32) {
	dim := t.dim
	best := math.Inf(1)
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		nd := &t.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if t.boxDist2(nd, yi) >= best {
			continue
		}
		if nd.nchild > 0 {
			for c := nd.child; c < nd.child+nd.nchild; c++ {
				stack = append(stack, c)
			}
			continue
		}
		for m := nd.lo; m < nd.hi; m++ {
			if t.perm[m] != self {
				best = math.Min(best, dist2(yi, t.pts[int(m)*dim:int(m+1)*dim]))
			}
		}
	}
	return best, stack
}

// gSums are one row's Gaussian far-field sums.
type gSums struct {
	z, s, w float64
	v, u    [3]float64
}

func (s *gSums) add(dim int, wt, r, g float64, dx *[3]float64) {
	wg := wt * g
	s.z += wg
	s.s += wg * r
	s.w += wg * r * r
	for d := range dim {
		s.v[d] += wg * dx[d]
		s.u[d] += wg * r * dx[d]
	}
}

// gaussQuery computes row self's sums at yi with bandwidth b and shift r0.
func (t *spTree) gaussQuery(yi []float64, self int32, b, r0 float64, stack []int32, s *gSums) []int32 {
	dim := t.dim
	*s = gSums{}
	lim := r0 + gaussSkip/b
	stack = append(stack[:0], 0)
	var dx [3]float64
	for len(stack) > 0 {
		nd := &t.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if t.boxDist2(nd, yi) > lim {
			continue
		}
		var e float64
		for d := range dim {
			dx[d] = yi[d] - nd.com[d]
			e += dx[d] * dx[d]
		}
		if t.gaussFar(nd, yi, e, b) {
			s.add(dim, nd.cnt, e, math.Exp(-b*(e-r0)), &dx)
			continue
		}
		if nd.nchild > 0 {
			for c := nd.child; c < nd.child+nd.nchild; c++ {
				stack = append(stack, c)
			}
			continue
		}
		for m := nd.lo; m < nd.hi; m++ {
			if t.perm[m] == self {
				continue
			}
			p := t.pts[int(m)*dim : int(m+1)*dim]
			e = 0
			for d := range dim {
				dx[d] = yi[d] - p[d]
				e += dx[d] * dx[d]
			}
			if e <= lim {
				s.add(dim, 1, e, math.Exp(-b*(e-r0)), &dx)
			}
		}
	}
	return stack
}

// meanQuery computes Σ_j √r_ij and Σ_j (y_i − y_j)/√r_ij for the output scale.
func (t *spTree) meanQuery(yi []float64, self int32, stack []int32, v []float64) (float64, []int32) {
	dim := t.dim
	var sum float64
	for d := range v {
		v[d] = 0
	}
	stack = append(stack[:0], 0)
	var dx [3]float64
	add := func(w, e float64) {
		if e == 0 {
			return
		}
		r := math.Sqrt(e)
		sum += w * r
		for d := range dim {
			v[d] += w * dx[d] / r
		}
	}
	for len(stack) > 0 {
		nd := &t.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		var e float64
		for d := range dim {
			dx[d] = yi[d] - nd.com[d]
			e += dx[d] * dx[d]
		}
		if e > nd.openM && (!t.contain || t.boxDist2(nd, yi) > 0) {
			add(nd.cnt, e)
			continue
		}
		if nd.nchild > 0 {
			for c := nd.child; c < nd.child+nd.nchild; c++ {
				stack = append(stack, c)
			}
			continue
		}
		for m := nd.lo; m < nd.hi; m++ {
			if t.perm[m] == self {
				continue
			}
			p := t.pts[int(m)*dim : int(m+1)*dim]
			e = 0
			for d := range dim {
				dx[d] = yi[d] - p[d]
				e += dx[d] * dx[d]
			}
			add(1, e)
		}
	}
	return sum, stack
}

// sourceWalk adds source self's kernel k(r) = (ca + cb·r)·exp(−b(r − r0)) times (y_target − y_j)
// to the cells and points of block bl.
func (t *spTree) sourceWalk(yj []float64, self int32, b, r0, ca, cb float64, stack []int32, bl *gaussBlock) []int32 {
	dim := t.dim
	lim := r0 + gaussSkip/b
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		nd := &t.nodes[q]
		stack = stack[:len(stack)-1]
		if t.boxDist2(nd, yj) > lim {
			continue
		}
		var e float64
		for d := range dim {
			v := nd.com[d] - yj[d]
			e += v * v
		}
		if t.gaussFar(nd, yj, e, b) {
			k := (ca + cb*e) * math.Exp(-b*(e-r0)) * nd.cnt
			acc := bl.node[int(q)*(dim+1) : int(q+1)*(dim+1)]
			for d := range dim {
				acc[d] += k * (nd.com[d] - yj[d])
			}
			acc[dim] += k
			continue
		}
		if nd.nchild > 0 {
			for c := nd.child; c < nd.child+nd.nchild; c++ {
				stack = append(stack, c)
			}
			continue
		}
		for m := nd.lo; m < nd.hi; m++ {
			if t.perm[m] == self {
				continue
			}
			p := t.pts[int(m)*dim : int(m+1)*dim]
			e = 0
			for d := range dim {
				v := p[d] - yj[d]
				e += v * v
			}
			if e > lim {
				continue
			}
			k := (ca + cb*e) * math.Exp(-b*(e-r0))
			acc := bl.pt[int(m)*dim : int(m+1)*dim]
			for d := range dim {
				acc[d] += k * (p[d] - yj[d])
			}
		}
	}
	return stack
}

// gaussEval computes the NeRV cost E = (1/n) Σ_i [λ KL(p_i‖q_i) + (1−λ) KL(q_i‖p_i)] and its
// gradient on the approximate path; exag multiplies λ·p in the gradient.
//
// With D_i = KL(q_i‖p_i), log ε_i the row's floor and shifted sums (see gaussState),
//
//	D_i = −b_i (S_i/Z_i − r0_i) − log Z_i − Σ_{G_i} q (log p − log ε_i) − log ε_i
//	R_i = KL(p_i‖q_i) = Σ_{G_i} p log p + Σ_{G_i} p min(b_i r, MaxExp) − b_i r0_i + log Z_i
//	w_ij = Ã_i g_ij + B̃_i c r_ij g_ij + [j∈G_i] coef_ij,
//	Ã_i = β_i [−λ + (1−λ)(D_i + log Z_i − b_i r0_i + log ε_i)]/Z_i,  B̃_i = (1−λ) β_i²/Z_i,
//	∂E/∂y_i = (2c/n) Σ_j (w_ij + w_ji)(y_i − y_j) + (∂E/∂c)(∂c/∂y_i),
//
// the last term only when the output is normalised by its mean distance m (c = 1/m²), with
// ∂E/∂c = (1/n) Σ_ij w_ij r_ij and ∂m/∂y_i = (2/(n(n−1))) Σ_j (y_i − y_j)/‖y_i − y_j‖.
func (a *approx) gaussEval(y, grad []float64, exag float64) (cost, prec, rec float64) {
	n, dim, lam, sp, g, t := a.n, a.dim, a.lambda, a.sp, a.g, a.tree
	t.build(y)
	c, mscale := 1.0, 0.0
	if g.normalise {
		a.parallel(func(w *approxWorker, i int) {
			g.ms[i], w.stack = t.meanQuery(y[i*dim:(i+1)*dim], int32(i), w.stack, g.mv[i*dim:(i+1)*dim])
		})
		var s float64
		for _, v := range g.ms {
			s += v
		}
		mscale = s / float64(n) / float64(n-1)
		c = 1 / (mscale * mscale)
	}
	// Rows: shift, far-field sums, the graph's terms, the cost.
	a.parallel(func(w *approxWorker, i int) {
		yi := y[i*dim : (i+1)*dim]
		r0, st := t.nearest(yi, int32(i), w.stack)
		b := g.beta[i] * c
		var s gSums
		st = t.gaussQuery(yi, int32(i), b, r0, st, &s)
		w.stack = st
		g.r0[i] = r0
		le := sp.eps(i)
		var plp, pr, qlp float64
		gi := grad[i*dim : (i+1)*dim]
		for d := range gi {
			gi[d] = 0
		}
		lo, hi := sp.ptr[i], sp.ptr[i+1]
		for m := lo; m < hi; m++ {
			yj := y[int(sp.idx[m])*dim : int(sp.idx[m]+1)*dim]
			r := dist2(yi, yj)
			q := math.Exp(-b*(r-r0)) / s.z
			p, lp := sp.p[m], sp.lp[m]
			plp += p * lp
			pr += p * math.Min(b*r, affinity.MaxExp)
			qlp += q * (lp - le)
		}
		lz := math.Log(s.z)
		D := -b*(s.s/s.z-r0) - lz - qlp - le
		R := plp + pr - b*r0 + lz
		beta := g.beta[i]
		A := beta * (-lam + (1-lam)*(D+lz-b*r0+le)) / s.z
		B := (1 - lam) * beta * beta / s.z * c
		g.ra[i], g.rb[i] = A, B
		dEdc := A*s.s + B*s.w
		for m := lo; m < hi; m++ {
			yj := y[int(sp.idx[m])*dim : int(sp.idx[m]+1)*dim]
			r := dist2(yi, yj)
			q := math.Exp(-b*(r-r0)) / s.z
			cf := beta * (lam*exag*sp.p[m] + (1-lam)*q*(sp.lp[m]-le))
			if b*r >= affinity.MaxExp {
				cf = 0 // the exponent is clamped: the pair's terms do not depend on y
			}
			g.coef[m] = cf
			dEdc += cf * r
			for d := range dim {
				gi[d] += cf * (yi[d] - yj[d])
			}
		}
		for d := range dim {
			gi[d] += A*s.v[d] + B*s.u[d]
		}
		a.r1[i], a.r2[i], a.r3[i] = D, R, dEdc
	})
	// Sources: the column terms of the far field, block by block.
	nodes := len(t.nodes)
	for _, bl := range g.blocks {
		if cap(bl.node) < nodes*(dim+1) {
			bl.node = make([]float64, nodes*(dim+1))
		}
		bl.node = bl.node[:nodes*(dim+1)]
		clear(bl.node)
		clear(bl.pt)
	}
	a.parallelBlocks(len(g.blocks), func(w *approxWorker, k int) {
		bl := g.blocks[k]
		for j := bl.lo; j < bl.hi; j++ {
			w.stack = t.sourceWalk(y[j*dim:(j+1)*dim], int32(j), g.beta[j]*c, g.r0[j], g.ra[j], g.rb[j], w.stack, bl)
		}
	})
	b0 := g.blocks[0]
	for _, bl := range g.blocks[1:] {
		for k, v := range bl.node {
			b0.node[k] += v
		}
		for k, v := range bl.pt {
			b0.pt[k] += v
		}
	}
	// Push the cells' sums down to the points: a target i in cell C gets vec_C + (y_i − ȳ_C)·k_C.
	for q := range t.nodes {
		nd := &t.nodes[q]
		acc := b0.node[q*(dim+1) : (q+1)*(dim+1)]
		if nd.nchild > 0 {
			for ch := nd.child; ch < nd.child+nd.nchild; ch++ {
				cn := &t.nodes[ch]
				cacc := b0.node[int(ch)*(dim+1) : int(ch+1)*(dim+1)]
				for d := range dim {
					cacc[d] += acc[d] + (cn.com[d]-nd.com[d])*acc[dim]
				}
				cacc[dim] += acc[dim]
			}
			continue
		}
		for m := nd.lo; m < nd.hi; m++ {
			i := int(t.perm[m])
			for d := range dim {
				g.cf[i*dim+d] = b0.pt[int(m)*dim+d] + acc[d] + (t.pts[int(m)*dim+d]-nd.com[d])*acc[dim]
			}
		}
	}
	var dEdc float64
	for i := range n {
		prec += a.r1[i]
		rec += a.r2[i]
		dEdc += a.r3[i]
	}
	prec /= float64(n)
	rec /= float64(n)
	dEdc /= float64(n)
	f := 2 * c / float64(n)
	dcm := 0.0
	if g.normalise {
		// ∂c/∂y_i = −2 m⁻³ ∂m/∂y_i
		dcm = dEdc * -2 / (mscale * mscale * mscale) * 2 / float64(n) / float64(n-1)
	}
	a.parallel(func(_ *approxWorker, i int) {
		yi := y[i*dim : (i+1)*dim]
		gi := grad[i*dim : (i+1)*dim]
		for d := range dim {
			gi[d] += g.cf[i*dim+d]
		}
		for k := g.tptr[i]; k < g.tptr[i+1]; k++ {
			j := int(g.tsrc[k])
			cf := g.coef[g.tent[k]]
			for d := range dim {
				gi[d] += cf * (yi[d] - y[j*dim+d])
			}
		}
		for d := range dim {
			gi[d] *= f
			if g.normalise {
				gi[d] += dcm * g.mv[i*dim+d]
			}
		}
	})
	return lam*rec + (1-lam)*prec, prec, rec
}

// parallelBlocks calls fn(w, k) for k = 0..nb−1 on the workers.
func (a *approx) parallelBlocks(nb int, fn func(w *approxWorker, k int)) {
	next := make(chan int, nb)
	for k := range nb {
		next <- k
	}
	close(next)
	done := make(chan struct{})
	for _, w := range a.workers {
		go func() {
			for k := range next {
				fn(w, k)
			}
			done <- struct{}{}
		}()
	}
	for range a.workers {
		<-done
	}
}

// gaussCost adapts an approximate NeRV evaluation to the conjugate-gradient optimiser.
type gaussCost func(y, grad []float64, exag float64) (float64, float64, float64)

func (g gaussCost) eval(y, grad []float64) (float64, float64, float64) { return g(y, grad, 1) }

// gaussMinimize fits NeRV or SNE on the approximate path from y with the exact path's conjugate
// gradient at the calibrated bandwidths, on the tree (approx) or the grid (gridNeRV). The exact
// path anneals σ_i in both spaces, so that early rounds see wide input neighbourhoods; on a k-NN
// graph the input side cannot widen, and annealing only the output side left NeRV stuck (8×8
// digits, k = 60: cost 5.2 against the exact fit's 2.8). The wide view comes instead from the
// start: the t-SNE layout of the same graph, found by the gradient-descent schedule with early
// exaggeration (fitApprox), which NeRV's cost then refines.
func (e Embedder) gaussMinimize(ctx context.Context, ev gaussCost, y []float64, defIters int, res *Result) error {
	opt := &optimizer{ev: ev, ctx: ctx, res: res, progress: e.Progress}
	iters := e.Iterations
	if iters <= 0 {
		iters = defIters
	}
	tol := e.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	opt.total = iters
	if err := opt.minimize(y, iters, tol); err != nil {
		return err
	}
	res.Cost, res.Precision, res.Recall = ev(y, make([]float64, len(y)), 1)
	res.Evaluations++
	return nil
}
