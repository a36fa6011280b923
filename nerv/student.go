package nerv

import "math"

// symmetrise turns the cached conditional probabilities into t-NeRV's joint ones,
// p_ij = (p_j|i + p_i|j)/(2n), with log p_ij computed from the logarithms (finite even where p_ij
// underflows).
func (ev *evaluator) symmetrise() {
	n := ev.n
	l2n := math.Log(2 * float64(n))
	for i := range n {
		for j := i + 1; j < n; j++ {
			a, b := ev.lp[i*n+j], ev.lp[j*n+i]
			hi, lo := math.Max(a, b), math.Min(a, b)
			l := hi + math.Log1p(math.Exp(lo-hi)) - l2n
			p := (ev.p[i*n+j] + ev.p[j*n+i]) / (2 * float64(n))
			ev.lp[i*n+j], ev.lp[j*n+i] = l, l
			ev.p[i*n+j], ev.p[j*n+i] = p, p
		}
	}
}

// tPrepare runs the first sweep of a t-NeRV evaluation: Z = Σ_{k≠l} u_kl with u = 1/(1+e), and the
// sums that give KL(q‖p) = Σ u (log u − log p)/Z − log Z and KL(p‖q) = Σ p (log p − log u) + log Z.
func (ev *evaluator) tPrepare() {
	ev.run(jobTSweep)
	var z, s1, s2 float64
	for _, bl := range ev.blocks {
		z += bl.z
		s1 += bl.s1
		s2 += bl.s2
	}
	lz := math.Log(z)
	ev.tlz = lz
	ev.tklqp = s1/z - lz
	ev.tklpq = s2 + lz
}

// sqDists writes e_ij = ‖y_i − y_j‖² for all j into t.
func (ev *evaluator) sqDists(i int, t []float64) {
	y, dim := ev.y, ev.dim
	if dim == 2 {
		yi0, yi1 := y[2*i], y[2*i+1]
		for j := range t {
			a, b := yi0-y[2*j], yi1-y[2*j+1]
			t[j] = a*a + b*b
		}
		return
	}
	yi := y[i*dim : (i+1)*dim]
	for j := range t {
		var e float64
		for d, v := range y[j*dim : (j+1)*dim] {
			a := yi[d] - v
			e += a * a
		}
		t[j] = e
	}
}

// tSweep adds row i's terms to the first-sweep sums.
func (ev *evaluator) tSweep(w *worker, bl *block, i int) {
	n := ev.n
	p, lp := ev.p[i*n:(i+1)*n], ev.lp[i*n:(i+1)*n]
	t := w.t[:n]
	ev.sqDists(i, t)
	var z, s1, s2 float64
	for j, e := range t {
		if j == i {
			continue
		}
		u := 1 / (1 + e)
		lu := -math.Log1p(e)
		z += u
		s1 += u * (lu - lp[j])
		s2 += p[j] * (lp[j] - lu)
	}
	bl.z += z
	bl.s1 += s1
	bl.s2 += s2
}

// tRow writes row i's gradient of the t-NeRV cost,
//
//	∂E/∂y_i = 4 Σ_j u_ij [λ (p_ij − q_ij) + (1−λ) q_ij (KL(q‖p) − log(q_ij/p_ij))] (y_i − y_j),
//
// which involves only row i (p and q are symmetric), so nothing is scattered to other rows.
func (ev *evaluator) tRow(w *worker, bl *block, i int) {
	n, dim := ev.n, ev.dim
	p, lp := ev.p[i*n:(i+1)*n], ev.lp[i*n:(i+1)*n]
	t := w.t[:n]
	ev.sqDists(i, t)
	lam, kl, lz := ev.lambda, ev.tklqp, ev.tlz
	iz := math.Exp(-lz)
	y, g := ev.y, bl.grad
	for j, e := range t {
		if j == i {
			t[j] = 0
			continue
		}
		u := 1 / (1 + e)
		q := u * iz
		c := lam * (p[j] - q)
		if lam != 1 {
			c += (1 - lam) * q * (kl - (-math.Log1p(e) - lz - lp[j]))
		}
		t[j] = 4 * u * c
	}
	yi := y[i*dim : (i+1)*dim]
	gi := g[i*dim : (i+1)*dim]
	for j, c := range t {
		for d, v := range y[j*dim : (j+1)*dim] {
			gi[d] += c * (yi[d] - v)
		}
	}
}
