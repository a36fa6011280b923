package affinity

import "math"

// searchSigma2 reproduces the line search dredviz uses to calibrate σ²: starting from DBL_MIN
// with unit step, it brackets a minimum of f by halving (or doubling) the step, then narrows the
// bracket by golden sections to an ABSOLUTE width of 0.01 (at most 40 steps), and returns the
// bracket's middle unless an end scored better. The coarse absolute tolerance is what makes
// dredviz's row entropies ≈ 4.36 bits instead of log₂ 20 = 4.32 on the S-curve; one more quirk
// is kept on purpose: when a golden point left of the middle loses, the new left end takes the
// right end's cost rather than its own. Both change the golden numbers (by 2.5e-2 and 4.8e-3).
func searchSigma2(f func(float64) float64) float64 {
	var memo []memoEntry
	cost := func(s2 float64) float64 {
		for _, m := range memo {
			if m.s2 == s2 {
				return m.cost
			}
		}
		c := f(s2)
		memo = append(memo, memoEntry{s2, c})
		return c
	}
	return goldenSearch(func(x, y float64) bool { return cost(x) < cost(y) })
}

// goldenSearch is that search. A "cost" is represented by the point σ² at which it is taken, and
// less(x, y) reports whether the cost at x is below the cost at y; so callers decide how (and
// whether) to compute costs.
func goldenSearch(less func(x, y float64) bool) float64 {
	const (
		grow   = 2.0
		golden = 0.61803399
		width  = 1e-2
		maxIt  = 40
	)
	at := func(x float64) float64 { return dblMin + x } // the point whose cost stands for f(x)
	a, b, c := 0.0, 1.0, 0.0
	fa := at(a)
	fb := at(b)
	var best, fc float64
	it := 0
	if less(fa, fb) {
		c, best, fc = b, fa, fb
		step := b / grow
		var fx float64
		for {
			it++
			b = step
			step /= grow
			fx = at(b)
			if !(less(fa, fx) && it < maxIt) {
				break
			}
		}
		if less(fx, best) {
			best = fx
		} else {
			b = 0x1p-52
		}
		fb = fx
	} else {
		best = fb
		step := b * grow
		var fx float64
		for {
			it++
			c = step
			step *= grow
			fx = at(c)
			if !(less(fx, best) && it < maxIt) {
				break
			}
		}
		if it == maxIt && less(fx, fb) {
			fc = fb
			c = b
			b = (a + c) / 2
		} else {
			fc = fx
		}
	}
	// fa < fb first (the reference tests fa < fc first; the comparisons are pure, so the order of
	// the conjuncts does not matter): after the doubling branch it is known false, which spares
	// computing the cost at c.
	if less(fa, fb) && less(fa, fc) {
		return dblMin
	}
	tol := width
	if c < width {
		tol = width * c
	}
	for it = 0; c-a > tol && it < maxIt; it++ {
		if c-b > b-a {
			x := b + golden*(c-b)
			if fx := at(x); less(fx, best) {
				a, fa = b, best
				b, best = x, fx
			} else {
				c, fc = x, fx
			}
		} else {
			x := a + golden*(b-a)
			if fx := at(x); less(fx, best) {
				c, fc = b, best
				b, best = x, fx
			} else {
				a, fa = x, fc // sic: dredviz's quirk, see searchSigma2
			}
		}
	}
	mid := (a + c) / 2
	fm := at(mid)
	if less(fa, fc) {
		if less(fa, fm) {
			return dblMin + a
		}
	} else if less(fc, fm) {
		return dblMin + c
	}
	return dblMin + mid
}

// DredvizLineSearch is the σ² that dredviz's line search (Sigma2 with Dredviz) reaches, for a
// caller that computes the row entropies elsewhere: less(x, y) must report whether
// |H(x) − DredvizTarget(k)| < |H(y) − DredvizTarget(k)|, H(σ²) being the row entropy in bits. The
// search calls less on points fixed by the answers so far, so a caller whose entropies come from
// a distributed pass can replay it with the entropies known, and speculate on the rest.
func DredvizLineSearch(less func(x, y float64) bool) float64 {
	return math.Max(goldenSearch(less), MinSigma2)
}

// DredvizTarget is the row entropy in bits that dredviz's search aims at for k effective
// neighbours: log₂ k, or 1 bit when k < 2.
func DredvizTarget(k float64) float64 { return dredvizTarget(k) }
