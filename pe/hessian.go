package pe

import (
	"gonum.org/v1/gonum/mat"
)

// hessian returns the Hessian of F(Φ) = min_R J(R, Φ) at the current Φ and solved objects: per
// object, with u_k = r − φ_k, ū = Σ_k q_k u_k,
//
//	A_kl = q_k(δ_kl − q_l) u_k u_lᵀ − δ_kl (q_k − p_k) I        (∂²J_i/∂φ_k∂φ_l)
//	B_k  = q_k u_k (ū − u_k)ᵀ + (q_k − p_k) I                    (∂²J_i/∂φ_k∂r)
//	H_rr = Σ_k q_k u_k u_kᵀ − ū ūᵀ + 2η_r I                       (∂²J_i/∂r²)
//
// and by implicit differentiation of ∂J_i/∂r = 0 the object adds A − B H_rr⁻¹ Bᵀ; the class
// penalty adds 2η_φ I. The objects must have been solved for phi (a sweep) first. It is
// O(n K² D²): used on the warm-up sample, where it preconditions the full-size L-BFGS.
func (s *sweeper) hessian(phi []float64, etaPhi float64) *mat.SymDense {
	k, d := s.rp.k, s.rp.d
	kd := k * d
	s.rp.phi = phi
	h := make([]float64, kd*kd)
	a, q := make([]float64, k), make([]float64, k)
	u := make([]float64, kd)
	bk := make([]float64, kd*d) // B, KD×D
	bh := make([]float64, kd*d) // B H_rr⁻¹
	for i := range s.n {
		p := s.p[i*k : i*k+k]
		r := s.r[i*d : i*d+d]
		s.rp.eval(p, r, a, q)
		var ubar [maxD]float64
		for c := range k {
			for j := range d {
				u[c*d+j] = r[j] - phi[c*d+j]
				ubar[j] += q[c] * u[c*d+j]
			}
		}
		var hrr [maxD * maxD]float64
		for c := range k {
			for x := range d {
				for y := x; y < d; y++ {
					hrr[x*d+y] += q[c] * u[c*d+x] * u[c*d+y]
				}
			}
		}
		for x := range d {
			for y := x; y < d; y++ {
				hrr[x*d+y] -= ubar[x] * ubar[y]
			}
			hrr[x*d+x] += 2 * s.rp.etaR
		}
		// A
		for c := range k {
			for l := range k {
				w := -q[c] * q[l]
				if c == l {
					w += q[c]
				}
				for x := range d {
					row := h[(c*d+x)*kd+l*d:]
					for y := range d {
						row[y] += w * u[c*d+x] * u[l*d+y]
					}
				}
			}
			for x := range d {
				h[(c*d+x)*kd+c*d+x] -= q[c] - p[c]
			}
		}
		// B and B H_rr⁻¹ (H_rr is symmetric, so B H_rr⁻¹ rows solve H_rr x = B_rowᵀ)
		for c := range k {
			for x := range d {
				for y := range d {
					v := q[c] * u[c*d+x] * (ubar[y] - u[c*d+y])
					if x == y {
						v += q[c] - p[c]
					}
					bk[(c*d+x)*d+y] = v
				}
			}
		}
		for row := range kd {
			var rhs, sol [maxD]float64
			copy(rhs[:d], bk[row*d:row*d+d])
			hcopy := hrr
			solveSPD(&hcopy, &rhs, &sol, d)
			copy(bh[row*d:row*d+d], sol[:d])
		}
		for x := range kd {
			for y := range kd {
				var v float64
				for j := range d {
					v += bh[x*d+j] * bk[y*d+j]
				}
				h[x*kd+y] -= v
			}
		}
	}
	for x := range kd {
		h[x*kd+x] += 2 * etaPhi
	}
	sym := mat.NewSymDense(kd, nil)
	for x := range kd {
		for y := x; y < kd; y++ {
			sym.SetSym(x, y, 0.5*(h[x*kd+y]+h[y*kd+x]))
		}
	}
	return sym
}
