package pe

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// smallProblem is a random PE problem: n Dirichlet posteriors over k classes, random Φ and
// priors, and a sweeper whose objects start at the origin.
func smallProblem(t *testing.T, n, k, d int, seed uint64) (*sweeper, []float64) {
	t.Helper()
	pm, _, err := DirichletMixture(n, k, 2, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	pri := make([]float64, k)
	for c := range pri {
		pri[c] = 0.5 + rng.Float64()
	}
	logs, _, err := logPriors(pri, k)
	if err != nil {
		t.Fatal(err)
	}
	phi := make([]float64, k*d)
	for i := range phi {
		phi[i] = 2 * rng.NormFloat64()
	}
	r := make([]float64, n*d)
	return newSweeper(pm.RawMatrix().Data, r, n, k, d, logs, 0.3, 1e-26, 2), phi
}

// TestRowGradientHessian checks the object's gradient and Hessian, as used by the Newton
// solve, against central differences of f(r).
func TestRowGradientHessian(t *testing.T) {
	for _, d := range []int{1, 2, 3} {
		sw, phi := smallProblem(t, 5, 4, d, uint64(d))
		rp := sw.rp
		rp.phi = phi
		k := rp.k
		a, q := make([]float64, k), make([]float64, k)
		p := sw.p[:k]
		rng := rand.New(rand.NewPCG(3, uint64(d)))
		r := make([]float64, d)
		for j := range r {
			r[j] = rng.NormFloat64()
		}
		f := func(x []float64) float64 { return rp.eval(p, x, a, q) }
		grad := func(x []float64) []float64 {
			rp.eval(p, x, a, q)
			g := make([]float64, d)
			for c := range k {
				for j := range d {
					g[j] += (q[c] - p[c]) * phi[c*d+j]
				}
			}
			for j := range d {
				g[j] += 2 * rp.etaR * x[j]
			}
			return g
		}
		const h = 1e-5
		g := grad(r)
		for j := range d {
			x := append([]float64(nil), r...)
			x[j] += h
			fp := f(x)
			gp := grad(x)
			x[j] -= 2 * h
			fm := f(x)
			gm := grad(x)
			if fd := (fp - fm) / (2 * h); math.Abs(fd-g[j]) > 1e-7*(1+math.Abs(g[j])) {
				t.Errorf("d=%d ∂f/∂r_%d = %.12g, central difference %.12g", d, j, g[j], fd)
			}
			// Hessian column j: Σ_k q_k (φ_k − φ̄)(φ_k − φ̄)ᵀ + 2η I, as solve builds it.
			rp.eval(p, r, a, q)
			var mean [maxD]float64
			for c := range k {
				for i := range d {
					mean[i] += q[c] * phi[c*d+i]
				}
			}
			for i := range d {
				var hij float64
				for c := range k {
					hij += q[c] * (phi[c*d+i] - mean[i]) * (phi[c*d+j] - mean[j])
				}
				if i == j {
					hij += 2 * rp.etaR
				}
				if fd := (gp[i] - gm[i]) / (2 * h); math.Abs(fd-hij) > 1e-7*(1+math.Abs(hij)) {
					t.Errorf("d=%d H[%d][%d] = %.12g, central difference %.12g", d, i, j, hij, fd)
				}
			}
		}
	}
}

// TestNewtonSolvesRow checks that solve reaches a point where the gradient vanishes, and that
// it is the minimum: no random nearby point is lower.
func TestNewtonSolvesRow(t *testing.T) {
	sw, phi := smallProblem(t, 20, 5, 2, 11)
	rp := sw.rp
	rp.phi = phi
	k, d := rp.k, rp.d
	a, q, q2 := make([]float64, k), make([]float64, k), make([]float64, k)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 20 {
		p := sw.p[i*k : i*k+k]
		r := []float64{10 * rng.NormFloat64(), 10 * rng.NormFloat64()} // far from the optimum
		f, steps := rp.solve(p, r, a, q, q2)
		if steps == 0 || steps >= rp.maxSteps {
			t.Errorf("row %d: %d Newton steps", i, steps)
		}
		for range 50 {
			x := []float64{r[0] + 1e-3*rng.NormFloat64(), r[1] + 1e-3*rng.NormFloat64()}
			if fx := rp.eval(p, x, a, q2); fx < f {
				t.Fatalf("row %d: f(%v) = %.15g below the solution's %.15g", i, x, fx, f)
			}
		}
		_ = d
	}
}

// sweepF solves all objects for phi and returns F(Φ) = Σ_i min f_i + η_φ‖Φ‖² and its gradient.
func sweepF(t *testing.T, sw *sweeper, phi []float64, etaPhi float64) (float64, []float64) {
	t.Helper()
	g := make([]float64, len(phi))
	f, _, err := sw.sweep(context.Background(), phi, g)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range phi {
		f += etaPhi * v * v
		g[j] += 2 * etaPhi * v
	}
	return f, g
}

// TestClassGradient checks ∂F/∂Φ (the envelope gradient the sweep returns) against central
// differences of F(Φ) = min_R J(R, Φ), and the Hessian used as L-BFGS's preconditioner against
// central differences of that gradient.
func TestClassGradient(t *testing.T) {
	for _, d := range []int{1, 2, 3} {
		sw, phi := smallProblem(t, 60, 4, d, 20+uint64(d))
		const etaPhi = 0.7
		_, g := sweepF(t, sw, phi, etaPhi)
		sweepF(t, sw, phi, etaPhi) // objects solved for phi
		hess := sw.hessian(phi, etaPhi)
		const h = 1e-5
		for j := range phi {
			x := append([]float64(nil), phi...)
			x[j] += h
			fp, gp := sweepF(t, sw, x, etaPhi)
			x[j] -= 2 * h
			fm, gm := sweepF(t, sw, x, etaPhi)
			if fd := (fp - fm) / (2 * h); math.Abs(fd-g[j]) > 1e-6*(1+math.Abs(g[j])) {
				t.Errorf("d=%d ∂F/∂φ[%d] = %.12g, central difference %.12g", d, j, g[j], fd)
			}
			for i := range phi {
				fd := (gp[i] - gm[i]) / (2 * h)
				if hij := hess.At(i, j); math.Abs(fd-hij) > 1e-5*(1+math.Abs(hij)) {
					t.Errorf("d=%d H[%d][%d] = %.10g, central difference %.10g", d, i, j, hij, fd)
				}
			}
		}
	}
}
