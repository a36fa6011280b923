package affinity

// searchSigma2 reproduces the line search dredviz uses to calibrate σ²: starting from DBL_MIN
// with unit step, it brackets a minimum of f by halving (or doubling) the step, then narrows the
// bracket by golden sections to an ABSOLUTE width of 0.01 (at most 40 steps), and returns the
// bracket's middle unless an end scored better. The coarse absolute tolerance is what makes
// dredviz's row entropies ≈ 4.36 bits instead of log₂ 20 = 4.32 on the S-curve; one more quirk
// is kept on purpose: when a golden point left of the middle loses, the new left end takes the
// right end's cost rather than its own. Both change the golden numbers (by 2.5e-2 and 4.8e-3).
func searchSigma2(f func(float64) float64) float64 {
	const (
		grow   = 2.0
		golden = 0.61803399
		width  = 1e-2
		maxIt  = 40
	)
	at := func(x float64) float64 { return f(dblMin + x) }
	// Bracket (a, b, c) with costs fa, fb(est), fc.
	a, b, c := 0.0, 1.0, 0.0
	fa := at(a)
	fb := at(b)
	var best, fc float64
	it := 0
	if fa < fb { // the minimum lies below the unit step: halve it until it beats the start
		c, best, fc = b, fa, fb
		step := b / grow
		var fx float64
		for {
			it++
			b = step
			step /= grow
			fx = at(b)
			if !(fx > fa && it < maxIt) {
				break
			}
		}
		if fx < best {
			best = fx
		} else {
			b = 0x1p-52 // DBL_EPSILON
		}
		fb = fx
	} else { // double the step until the cost stops falling below the unit step's
		best = fb
		step := b * grow
		var fx float64
		for {
			it++
			c = step
			step *= grow
			fx = at(c)
			if !(fx < best && it < maxIt) {
				break
			}
		}
		if it == maxIt && fx < fb {
			fc = fb
			c = b
			b = (a + c) / 2
		} else {
			fc = fx
		}
	}
	if fa < fc && fa < fb {
		return dblMin
	}
	tol := width
	if c < width {
		tol = width * c
	}
	for it = 0; c-a > tol && it < maxIt; it++ {
		if c-b > b-a {
			x := b + golden*(c-b)
			if fx := at(x); fx < best {
				a, fa = b, best
				b, best = x, fx
			} else {
				c, fc = x, fx
			}
		} else {
			x := a + golden*(b-a)
			if fx := at(x); fx < best {
				c, fc = b, best
				b, best = x, fx
			} else {
				a, fa = x, fc // sic: dredviz's quirk, see above
			}
		}
	}
	mid := (a + c) / 2
	fm := at(mid)
	if fa < fc {
		if fm > fa {
			return dblMin + a
		}
	} else if fm > fc {
		return dblMin + c
	}
	return dblMin + mid
}
