package pe

import "math"

// rowProblem holds what one object's sub-problem needs: Φ (K×D, row-major), log π and η_r.
// For fixed Φ the object's part of J is
//
//	f(r) = −Σ_k p_k log q_k(r) + η_r‖r‖² = lse(a) − Σ_k p_k a_k + η_r‖r‖²,
//	a_k = log π_k − ½‖r − φ_k‖²,
//
// strictly convex in r (its Hessian is Cov_q(φ) + 2η_r I), so damped Newton finds its one
// minimum.
type rowProblem struct {
	phi      []float64
	logPrior []float64
	k, d     int
	etaR     float64
	tol2     float64 // stop when ‖∂f/∂r‖² ≤ tol2
	maxSteps int
}

// Newton's line search: sufficient decrease constant and the shortest step tried.
const (
	armijo  = 1e-4
	minStep = 1.0 / (1 << 20)
	// quadratic is the Newton decrement gᵀH⁻¹g below which full steps are taken unchecked.
	quadratic = 1e-8
	// settled is the decrement after whose full step no further step is needed.
	settled = 1e-12
)

// maxD is the largest output dimension (the fixed-size scratch of the Newton solve).
const maxD = 3

// eval computes f(r), and q(r) into q; a is scratch of length K.
func (rp *rowProblem) eval(p, r, a, q []float64) float64 {
	k, d := rp.k, rp.d
	maxA := math.Inf(-1)
	var pa, rr float64
	for j := range d {
		rr += r[j] * r[j]
	}
	for c := range k {
		phi := rp.phi[c*d : c*d+d]
		var s float64
		for j, v := range phi {
			t := r[j] - v
			s += t * t
		}
		ac := rp.logPrior[c] - 0.5*s
		a[c] = ac
		pa += p[c] * ac
		if ac > maxA {
			maxA = ac
		}
	}
	var sum float64
	for c := range k {
		e := math.Exp(a[c] - maxA)
		q[c] = e
		sum += e
	}
	inv := 1 / sum
	for c := range k {
		q[c] *= inv
	}
	return maxA + math.Log(sum) - pa + rp.etaR*rr
}

// solve minimises f from the start r (overwritten with the minimiser). On return q holds q(r).
// It returns f at the minimiser and the number of Newton steps taken. m is scratch of length D;
// a, q2 scratch of length K.
func (rp *rowProblem) solve(p, r, a, q, q2 []float64) (f float64, steps int) {
	k, d := rp.k, rp.d
	var m, g, mean, dir, trial [maxD]float64
	for c := range k {
		phi := rp.phi[c*d : c*d+d]
		for j, v := range phi {
			m[j] += p[c] * v
		}
	}
	f = rp.eval(p, r, a, q)
	for steps < rp.maxSteps {
		// gradient Σ_k (q_k − p_k) φ_k + 2η r = φ̄ − m + 2η r
		for j := range d {
			mean[j] = 0
		}
		for c := range k {
			phi := rp.phi[c*d : c*d+d]
			for j, v := range phi {
				mean[j] += q[c] * v
			}
		}
		var g2 float64
		for j := range d {
			g[j] = mean[j] - m[j] + 2*rp.etaR*r[j]
			g2 += g[j] * g[j]
		}
		if g2 <= rp.tol2 {
			break
		}
		// Hessian Σ_k q_k (φ_k − φ̄)(φ_k − φ̄)ᵀ + 2η I (upper triangle, row-major d×d)
		var h [maxD * maxD]float64
		for c := range k {
			phi := rp.phi[c*d : c*d+d]
			w := q[c]
			for i := range d {
				u := phi[i] - mean[i]
				for j := i; j < d; j++ {
					h[i*d+j] += w * u * (phi[j] - mean[j])
				}
			}
		}
		for i := range d {
			h[i*d+i] += 2 * rp.etaR
		}
		solveSPD(&h, &g, &dir, d)
		var slope float64
		for j := range d {
			dir[j] = -dir[j]
			slope += g[j] * dir[j]
		}
		if !(slope < 0) { // rounding has made the step useless
			break
		}
		steps++
		if -slope <= quadratic {
			// Inside the region of quadratic convergence the full step is right; a line search
			// here would only compare values equal to rounding.
			for j := range d {
				r[j] += dir[j]
			}
			f = rp.eval(p, r, a, q)
			if -slope <= settled {
				break // the gradient after this step is of order slope² (quadratic convergence)
			}
			continue
		}
		accepted := false
		for t := 1.0; t >= minStep; t *= 0.5 {
			for j := range d {
				trial[j] = r[j] + t*dir[j]
			}
			ft := rp.eval(p, trial[:d], a, q2)
			if ft <= f+armijo*t*slope {
				copy(r, trial[:d])
				copy(q, q2)
				f = ft
				accepted = true
				break
			}
		}
		if !accepted {
			break // f is flat to rounding along the Newton direction: r is the minimiser
		}
	}
	return f, steps
}

// solveSPD solves H x = g for a symmetric positive definite d×d H given by its upper triangle,
// by an unrolled Cholesky factorisation. d ≤ 3: calling a general solver per object and Newton
// step would cost more than the step itself.
func solveSPD(h *[maxD * maxD]float64, g, x *[maxD]float64, d int) {
	var l [maxD * maxD]float64 // lower factor, row-major
	for i := range d {
		for j := 0; j <= i; j++ {
			s := h[j*d+i] // upper triangle holds (j, i) for j ≤ i
			for c := range j {
				s -= l[i*d+c] * l[j*d+c]
			}
			if i == j {
				l[i*d+i] = math.Sqrt(s)
			} else {
				l[i*d+j] = s / l[j*d+j]
			}
		}
	}
	var y [maxD]float64
	for i := range d {
		s := g[i]
		for c := range i {
			s -= l[i*d+c] * y[c]
		}
		y[i] = s / l[i*d+i]
	}
	for i := d - 1; i >= 0; i-- {
		s := y[i]
		for c := i + 1; c < d; c++ {
			s -= l[c*d+i] * x[c]
		}
		x[i] = s / l[i*d+i]
	}
}
