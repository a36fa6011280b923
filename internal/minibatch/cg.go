package minibatch

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// CG takes a few iterations of nonlinear conjugate gradients on one mini-batch's cost, restarted
// for every batch: the optimiser of the HOPE paper (Min et al. 2010) and of parametric t-SNE
// (van der Maaten 2009). It keeps its vectors between batches.
//
// It is gonum's optimize.CG at its defaults (Hestenes–Stiefel β, More–Thuente line searches
// with curvature factor 0.1 and decrease factor 0, gonum's first-order initial step, restarts
// after 6·dim iterations or when successive gradients turn by more than cos⁻¹(−0.9)), run as
// optimize.Minimize runs it, with the loop written out here and gonum's MoreThuente and
// HestenesStiefel doing their parts. On a network's millions of parameters optimize.Minimize's
// plumbing cost as much as the evaluations: a copy of x per evaluation, two per major
// iteration into its result, five fresh Locations per call, the step sizer's and the CG state's
// own copies, the same dot products taken twice, an ∞-norm by math.Max calls. Here vectors are
// swapped rather than copied and each product is taken once, by the gonum floats routine gonum
// uses on the same operands; the ∞-norm (a maximum, exact in any order) and dst = y + α·s (one
// element at a time) run on two goroutines, and the 2-norm beside the dot products. So the
// bytes are gonum's: TestCGMatchesGonum checks them against optimize.Minimize on More, Garbow
// and Hillstrom's functions, including batches ended by the evaluation cap, a failed line
// search, no progress and a vanished gradient.
//
// Measured (plain build, the shared 2-core machine): deep-AE's batch of 100 on its 3.3M
// parameters (about 5 evaluations of 35–40 ms) took 530 ms through optimize.Minimize and takes
// about 295 ms, and an MNIST deep-AE epoch 4 minutes instead of 7.5. BenchmarkCG, where the cost
// is one cheap pass over deep-AE's 3.3M parameters, times the optimiser alone: 157 ms against
// optimize.Minimize's 452 (medians of 5, side by side, 27 Nov 2026).
type CG struct {
	xt, g, gPrev, dir, spare []float64
	hs                       optimize.HestenesStiefel
	ls                       optimize.MoreThuente
}

// Minimize runs iters major iterations of conjugate gradients from x on the cost eval, which
// returns the cost at its first argument and sets its second to the gradient there, and must
// not modify its first argument. Major iterations are counted as gonum counts them, the start
// being the first: iters = 3 takes two line searches, where the papers' minimize.m takes three
// for its 3. Three take deep-AE from 24.36 to 21.57 % on USPS and from 23.40 to 19.72 % on
// MNIST, and pt-SNE from 11.91 to 11.26 % and from 7.55 to 6.44 %, so packages baseline/deepae
// and ptsne default to 4; they leave dt-NCA and dt-MCML no better, whose default stays 3 (the
// packages have the figures). At most 6·iters
// evaluations are made, the start's included. Minimize returns the cost at the start.
//
// On return x holds the last point a line search accepted (or the point where the gradient
// vanished, or the start if none was accepted or the start's cost or gradient is not finite).
// More–Thuente with decrease factor 0 accepts only a cost no greater than its search's start,
// so x never moves to a point worse than the start by the batch's own measure: a failed line
// search, a NaN, a cost that rose all leave x at the last accepted point.
//
// eval's last call need not have been at the returned x: a caller whose eval sets state from
// its argument must set it again from x.
func (c *CG) Minimize(x []float64, eval func(x, grad []float64) float64, iters int) float64 {
	if iters < 1 {
		panic("minibatch: CG.Minimize needs at least one iteration")
	}
	n := len(x)
	if len(c.xt) != n {
		c.xt, c.g, c.gPrev = make([]float64, n), make([]float64, n), make([]float64, n)
		c.dir, c.spare = make([]float64, n), make([]float64, n)
	}
	maxEvals := 6 * iters
	f0 := eval(x, c.g)
	evals := 1
	// optimize's checkStartingLocation: a start it cannot use ends the run where it began. The
	// largest |gᵢ| is also gonum's ∞-norm (a maximum is exact in any order, so this loop, a
	// fifth the time of floats.Norm's math.Max calls, gives its bits), and it is infinite or NaN
	// exactly when some gᵢ is.
	gMax := maxAbs(c.g)
	if math.IsInf(f0, 1) || math.IsNaN(f0) || math.IsInf(gMax, 1) || math.IsNaN(gMax) {
		return f0
	}
	// The start is major iteration 1 (and 6·iters > 1 evaluations are allowed).
	if math.IsInf(f0, -1) || iters == 1 {
		return f0
	}

	// x is the line search's start (gonum's LinesearchMethod.x, the last major iterate and its
	// optimal Location); xt the trial point (its Location.X). dir doubles as the previous
	// direction between searches: gonum copies one into the other, so both hold the same values.
	xt, g := c.xt, c.g
	f := f0
	restartAfter := int(math.Ceil(6 * float64(n)))
	fromRestart := 0

	// CG.InitDirection: steepest descent, with FirstOrderStepSize.Init's step.
	floats.ScaleTo(c.dir, -1, g)
	gPrevNorm := floats.Norm(g, 2)
	c.hs.Init(&optimize.Location{Gradient: g})
	step := math.Max(1e-3, math.Min(1/gMax, 1))
	dirNormPrev := gPrevNorm // ‖−g‖₂, which floats.Norm computes from |gᵢ|
	projGrad := floats.Dot(g, c.dir)
	projGradPrev := projGrad
	c.g, c.gPrev = c.gPrev, c.g // the start's gradient becomes the previous one
	g = c.g
	major := 1
	for {
		// LinesearchMethod.initNextLinesearch, after the direction.
		if projGrad >= 0 {
			return f0 // ErrNonDescentDirection: x is the last major iterate
		}
		c.ls = optimize.MoreThuente{CurvatureFactor: 0.1}
		c.ls.Init(f, projGrad, step)
		lastStep := step
		addScaledTo(xt, x, step, c.dir)
		if floats.Equal(x, xt) {
			return f0 // ErrNoProgress
		}
		// The line search. When More–Thuente asks for the step it just had, gonum evaluates the
		// same point again: that counts towards the cap but gives the same cost and gradient.
		same := false
		for {
			if !same {
				f = eval(xt, g)
			}
			evals++
			if evals >= maxEvals {
				return f0 // optimize stops on the evaluation that reaches the cap, unused
			}
			op, s, err := c.ls.Iterate(f, floats.Dot(g, c.dir))
			if err != nil {
				return f0
			}
			if op == optimize.MajorIteration {
				break
			}
			if same = s == lastStep; !same {
				addScaledTo(xt, x, s, c.dir)
				if floats.Equal(x, xt) {
					return f0
				}
				lastStep = s
			}
		}
		// A major iteration at xt: optimize's performMajorIteration, then localOptimizer's
		// gradient check.
		major++
		if math.IsInf(f, -1) || major >= iters || maxAbs(g) < 1e-12 {
			copy(x, xt)
			return f0
		}
		// CG.NextDirection, with FirstOrderStepSize.StepSize; xPrev is x, still the last
		// major iterate until it is moved to xt below.
		fromRestart++
		restart := fromRestart == restartAfter
		// floats.Norm's 2-norm rescales as it goes, a division an element: it is bound by
		// arithmetic where the dot products and the distance are bound by memory, so it runs
		// beside them.
		var gNorm, gDot, beta, dist float64
		var wg sync.WaitGroup
		wg.Go(func() { gNorm = floats.Norm(g, 2) })
		gDot = floats.Dot(g, c.gPrev)
		beta = c.hs.Beta(g, c.gPrev, c.dir)
		dist = floats.Distance(xt, x, 2)
		wg.Wait()
		if gDot <= -0.9*gNorm*gPrevNorm {
			restart = true
		}
		if beta == 0 {
			restart = true
		}
		newDir := c.spare
		floats.ScaleTo(newDir, -1, g)
		if !restart {
			floats.AddScaled(newDir, beta, c.dir)
			if projGrad = floats.Dot(g, newDir); projGrad >= 0 {
				restart = true
				floats.ScaleTo(newDir, -1, g)
			}
		}
		if restart {
			projGrad = floats.Dot(g, newDir)
		}
		// A restart takes a unit step (gonum computes the first-order step and discards it).
		if restart {
			step, fromRestart = 1, 0
			dirNormPrev = gNorm // newDir is −g
		} else {
			step = math.Max(1e-3, math.Min(dist/dirNormPrev*projGradPrev/projGrad, 1))
			dirNormPrev = floats.Norm(newDir, 2)
		}
		projGradPrev = projGrad
		c.spare, c.dir = c.dir, newDir
		c.g, c.gPrev = c.gPrev, c.g
		g = c.g
		gPrevNorm = gNorm
		copy(x, xt)
	}
}

// maxAbs is max |xᵢ| (0 for no elements), NaN if any xᵢ is: floats.Norm(x, math.Inf(1)), whose
// math.Max calls take five times as long. A maximum is exact in any order, so the halves run
// on two goroutines and four lanes within each.
func maxAbs(x []float64) float64 {
	var m [2]float64
	halves(len(x), func(h, lo, hi int) {
		var l [4]float64
		y := x[lo:hi]
		i := 0
		for ; i+4 <= len(y); i += 4 {
			a0, a1, a2, a3 := math.Abs(y[i]), math.Abs(y[i+1]), math.Abs(y[i+2]), math.Abs(y[i+3])
			if a0 != a0 || a1 != a1 || a2 != a2 || a3 != a3 {
				m[h] = math.NaN()
				return
			}
			l[0], l[1], l[2], l[3] = max(l[0], a0), max(l[1], a1), max(l[2], a2), max(l[3], a3)
		}
		for ; i < len(y); i++ {
			a := math.Abs(y[i])
			if a != a {
				m[h] = math.NaN()
				return
			}
			l[0] = max(l[0], a)
		}
		m[h] = max(l[0], l[1], l[2], l[3])
	})
	if m[0] != m[0] || m[1] != m[1] {
		return math.NaN()
	}
	return max(m[0], m[1])
}

// addScaledTo is floats.AddScaledTo(dst, y, alpha, s), dst = y + alpha·s, one element at a
// time and so the same bits when the halves run on two goroutines: on 26 MB vectors one core
// does not use all the memory bandwidth.
func addScaledTo(dst, y []float64, alpha float64, s []float64) {
	halves(len(dst), func(_, lo, hi int) { floats.AddScaledTo(dst[lo:hi], y[lo:hi], alpha, s[lo:hi]) })
}

// halves calls f(0, 0, n/2) and f(1, n/2, n), the second on another goroutine when n is large
// enough for that to pay.
func halves(n int, f func(h, lo, hi int)) {
	if n < 1<<15 {
		f(0, 0, n/2)
		f(1, n/2, n)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { f(1, n/2, n) })
	f(0, 0, n/2)
	wg.Wait()
}
