package quality

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// maxExp is dredviz's floor on an exponent: a neighbour weight is exp(−min(t, 450)).
const maxExp = 450

// skipExp: a weight exp(−t) with t more than skipExp above the row's smallest t is below 1e-26 of
// the largest weight; it is left out of sums where it cannot change a double-precision result.
const skipExp = 60

// dblMin is C's DBL_MIN, the smallest normal double: dredviz starts its σ² search there.
const dblMin = 0x1p-1022

// minSigma2 is dredviz's floor on a calibrated σ².
const minSigma2 = 1e-10

// entropyBits returns the entropy in bits of w_j ∝ exp(−min(a_j/s2, 450)); amin is min_j a_j.
func entropyBits(a []float64, amin, s2 float64) float64 {
	inv := 1 / s2
	tmin := math.Min(amin*inv, maxExp)
	var z, s float64
	for _, v := range a {
		d := math.Min(v*inv, maxExp) - tmin
		if d > skipExp {
			continue
		}
		w := math.Exp(-d)
		z += w
		s += w * d
	}
	return (math.Log(z) + s/z) / math.Ln2
}

// entropyTarget is dredviz's wanted row entropy in bits: log₂ k, or 1 bit when k < 2.
func entropyTarget(k int) float64 {
	if k < 2 {
		return 1
	}
	return math.Log(float64(k)) / math.Ln2
}

// calibrateSigma2 returns dredviz's σ² for the row values a (squared distances, or squared ranks,
// after the mean rescaling): the σ² that the golden-section line search of dredviz 1.0.2 reaches
// when it minimises |H(σ²) − entropyTarget(k)|. See searchSigma2.
func calibrateSigma2(a []float64, k int) float64 {
	amin := math.Inf(1)
	for _, v := range a {
		amin = math.Min(amin, v)
	}
	target := entropyTarget(k)
	s2 := searchSigma2(func(s2 float64) float64 {
		if s2 <= 0 {
			return math.MaxFloat64
		}
		return math.Abs(entropyBits(a, amin, s2) - target)
	})
	return math.Max(s2, minSigma2)
}

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
		p, r := smoothedRow(ac.a[:0], ac.b[:0], i, dx, dy, sx, sy, k)
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

// smoothedRow returns KL(q_i‖p_i) and KL(p_i‖q_i) for row i given its squared input and output
// distances and the squared rescaling factors sx, sy. a and b are scratch buffers.
func smoothedRow(a, b []float64, i int, dx, dy []float64, sx, sy float64, k int) (prec, rec float64) {
	for j := range dx {
		if j != i {
			a = append(a, dx[j]*sx)
			b = append(b, dy[j]*sy)
		}
	}
	inv := 1 / calibrateSigma2(a, k)
	// Exponents t = min(d²/σ², 450); the row minimum is subtracted before exp (the normalisation
	// cancels it), so that nothing underflows.
	minP, minQ := math.Inf(1), math.Inf(1)
	for j := range a {
		minP = math.Min(minP, a[j])
		minQ = math.Min(minQ, b[j])
	}
	minP, minQ = math.Min(minP*inv, maxExp), math.Min(minQ*inv, maxExp)
	var zp, zq, sp, sq float64
	for j := range a {
		tp := math.Min(a[j]*inv, maxExp) - minP
		tq := math.Min(b[j]*inv, maxExp) - minQ
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
	// log p_j = −tp_j − log Zp (shifted exponents), so KL(p‖q) = Σ p_j (tq_j − tp_j) + log Zq − log Zp.
	rec = sp/zp + lzq - lzp
	prec = sq/zq + lzp - lzq
	return prec, rec
}
