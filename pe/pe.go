package pe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/dataset"
)

// Defaults of Embedder's settings (a zero field means these).
const (
	DefaultEtaR          = 0.1   // the paper's η_r (web-page experiment)
	DefaultEtaPhiPerRow  = 0.01  // η_φ = 0.01·n: the paper's η_φ = 50 at its n = 5,000
	DefaultTolerance     = 1e-6  // per-object gradient, see Embedder.Tolerance
	DefaultMaxIterations = 1000  // L-BFGS iterations on Φ
	DefaultWarmup        = 20000 // rows of the warm-up sample
	DefaultRestarts      = 4     // seeded random starts tried beside the MDS start
	rowTolerance         = 1e-7  // ‖∂J/∂r_i‖ at which an object's Newton iteration stops
)

// Init chooses the starting class points Φ.
type Init int

const (
	// InitMDS (the default) places the classes by classical MDS of a class dissimilarity read
	// from the posteriors: class k's profile is the average posterior row weighted by p_ik,
	// and d_kl is the Euclidean distance between profiles. It is deterministic.
	InitMDS Init = iota
	// InitRandom draws Φ from a seeded standard normal (the paper's step 1).
	InitRandom
)

// Embedder is Parametric Embedding (Iwata et al., Neural Computation 2007). The zero value is
// usable: 2-D, η_r = 0.1, η_φ = 0.01·n, uniform priors, Φ from classical MDS.
type Embedder struct {
	Dim int // output dimension, 1..3 (0 means 2)
	// EtaR is η_r, the weight of Σ_i‖r_i‖² (0 means DefaultEtaR).
	EtaR float64
	// EtaPhi is η_φ, the weight of Σ_k‖φ_k‖² (0 means DefaultEtaPhiPerRow·n). The data term
	// grows with n while Σ_k‖φ_k‖² does not, so a fixed η_φ pulls the classes together at small
	// n and not at all at large n; scaling it with n keeps the picture the same from 100 to
	// 1,000,000 objects and equals the paper's 50 at its 5,000.
	EtaPhi float64
	// Priors are the class priors π_k (nil means uniform); they must be positive and are
	// normalised to sum 1.
	Priors []float64
	Init   Init
	// Start, if not nil, is the K×D starting Φ (Init is then ignored).
	Start *mat.Dense
	Seed  uint64 // for InitRandom and the warm-up sample
	// Tolerance stops the optimisation of Φ when every entry of ∂J/∂Φ is at most Tolerance·n
	// (0 means DefaultTolerance).
	Tolerance float64
	// MaxIterations caps the L-BFGS iterations on Φ at full size (0 means DefaultMaxIterations).
	MaxIterations int
	// Warmup: when n > 2·Warmup, Φ is first fitted on a seeded random sample of Warmup objects
	// and the full fit starts from it. The full fit still runs to Tolerance on all n objects, so
	// the result is the same minimum; only the number of full-size sweeps drops. 0 means
	// DefaultWarmup; a negative value turns the warm-up off.
	Warmup int
	// Restarts: J has local minima (a start can fold two class groups through each other),
	// so besides the start chosen by Init (or Start) Φ is also fitted from Restarts seeded
	// random starts, on the warm-up sample when there is one and on all objects otherwise,
	// and the fit with the lowest J is kept. 0 means DefaultRestarts; a negative value tries
	// the one start only (the paper's protocol).
	Restarts int
	// Normalize rescales each posterior row to sum 1 instead of rejecting rows whose sum is
	// off by more than 1e-6.
	Normalize bool
	Workers   int // parallel workers (0 means runtime.NumCPU())
	Progress  lowdim.Progress
}

// Model is a fitted Parametric Embedding: the class points Φ, the priors and η_r define the
// map from any posterior row to its coordinates (Transform); Y holds the training objects.
type Model struct {
	Y      *mat.Dense // n×D objects r_i
	Phi    *mat.Dense // K×D class points φ_k
	Priors []float64  // π_k, summing to 1
	EtaR   float64
	EtaPhi float64 // the η_φ used in the fit

	Cost        float64 // J at the optimum
	KL          float64 // mean over objects of KL(p_i ‖ q_i)
	Iterations  int     // L-BFGS iterations on Φ at full size
	Sweeps      int     // full-size sweeps (objects solved for one Φ)
	Starts      int     // starts tried (1 + restarts); the kept one had the lowest J
	WarmupRows  int     // size of the warm-up sample (0: none)
	NewtonSteps int     // Newton steps on objects, over all sweeps
}

// Embedding returns the training objects' coordinates.
func (m *Model) Embedding() *mat.Dense { return m.Y }

// Classes returns the class points Φ (K×D).
func (m *Model) Classes() *mat.Dense { return m.Phi }

// Fit embeds d.Posteriors (n×K). It returns a *Model.
func (e Embedder) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.Posteriors == nil {
		return nil, dataset.Invalidf("pe: the data set has no class posteriors (PE embeds p(c|x), not features)")
	}
	return e.FitPosteriors(ctx, d.Posteriors)
}

// FitPosteriors embeds the objects of the n×K posterior matrix p.
func (e Embedder) FitPosteriors(ctx context.Context, p mat.Matrix) (*Model, error) {
	pl, err := e.prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	return pl.fit(ctx, nil)
}

// plan is a checked PE problem with its starts drawn: what FitPosteriors and Begin share, so
// that a Run computes what Fit computes.
type plan struct {
	pd                []float64 // n×K posteriors, row-major, checked
	n, k, dim         int
	logPrior, priors  []float64
	etaR, etaPhi, tol float64
	iters, workers    int
	warm              int
	phi               []float64   // the start chosen by Init (or Start); receives the fitted Φ
	starts            [][]float64 // phi, then the seeded random restarts
	rng               *rand.Rand  // after the starts: draws the warm-up sample
	progress          lowdim.Progress
}

// prepare checks e and p and draws the starts.
func (e Embedder) prepare(ctx context.Context, p mat.Matrix) (*plan, error) {
	n, k := p.Dims()
	dim := e.Dim
	if dim == 0 {
		dim = 2
	}
	if dim < 1 || dim > maxD {
		return nil, dataset.Invalidf("pe: dimension %d: expected 1, 2 or 3", dim)
	}
	if n < 2 {
		return nil, dataset.Invalidf("pe: %d objects: expected at least 2", n)
	}
	pd, err := Check(p, e.Normalize)
	if err != nil {
		return nil, err
	}
	logPrior, priors, err := logPriors(e.Priors, k)
	if err != nil {
		return nil, err
	}
	etaR := e.EtaR
	if etaR == 0 {
		etaR = DefaultEtaR
	}
	if !(etaR > 0) || math.IsInf(etaR, 0) {
		return nil, dataset.Invalidf("pe: η_r = %g: expected a positive number", etaR)
	}
	etaPhi := e.EtaPhi
	if etaPhi == 0 {
		etaPhi = DefaultEtaPhiPerRow * float64(n)
	}
	if !(etaPhi > 0) || math.IsInf(etaPhi, 0) {
		return nil, dataset.Invalidf("pe: η_φ = %g: expected a positive number", etaPhi)
	}
	tol := e.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}
	if !(tol > 0) {
		return nil, dataset.Invalidf("pe: tolerance %g: expected a positive number", tol)
	}
	iters := e.MaxIterations
	if iters == 0 {
		iters = DefaultMaxIterations
	}
	if iters < 1 {
		return nil, dataset.Invalidf("pe: %d iterations: expected a positive number", iters)
	}
	workers := e.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	rng := rand.New(rand.NewPCG(e.Seed, 0x9e3779b97f4a7c15))
	phi, err := e.start(ctx, pd, n, k, dim, rng)
	if err != nil {
		return nil, err
	}

	restarts := e.Restarts
	if restarts == 0 {
		restarts = DefaultRestarts
	}
	starts := [][]float64{phi}
	for range max(restarts, 0) {
		starts = append(starts, randomStart(rng, k, dim))
	}
	warm := e.Warmup
	if warm == 0 {
		warm = DefaultWarmup
	}
	return &plan{pd: pd, n: n, k: k, dim: dim, logPrior: logPrior, priors: priors, etaR: etaR, etaPhi: etaPhi, tol: tol,
		iters: iters, workers: workers, warm: warm, phi: phi, starts: starts, rng: rng, progress: e.Progress}, nil
}

// fit runs the plan (once: it consumes the starts). yield, if not nil, is called after every
// L-BFGS iteration on Φ (see fitter.yield).
func (pl *plan) fit(ctx context.Context, yield func(stage string, phi []float64) error) (*Model, error) {
	n, k, dim, phi, pd, etaPhi, iters := pl.n, pl.k, pl.dim, pl.phi, pl.pd, pl.etaPhi, pl.iters
	starts := pl.starts
	m := &Model{Priors: pl.priors, EtaR: pl.etaR, EtaPhi: etaPhi, Starts: len(starts)}
	f := fitter{k: k, d: dim, logPrior: pl.logPrior, etaR: pl.etaR, tol: pl.tol, workers: pl.workers, ctx: ctx, progress: pl.progress, yield: yield}
	warm := pl.warm
	// best fits Φ from every start on the n objects of p (η_φ = eta) and returns the result
	// of lowest J, its Φ written into phi. Ties keep the earlier start.
	best := func(p []float64, n int, eta float64, stage string) (*fitResult, error) {
		var kept *fitResult
		for s, start := range starts {
			st := stage
			if len(starts) > 1 {
				st = fmt.Sprintf("%s (start %d of %d)", stage, s+1, len(starts))
			}
			r, err := f.run(p, n, start, eta, iters, st, nil)
			if err != nil {
				return nil, err
			}
			if kept == nil || r.cost < kept.cost {
				kept = r
				copy(phi, start)
			}
		}
		return kept, nil
	}
	var res *fitResult
	var err error
	if warm > 0 && n > 2*warm {
		// Φ from a sample: the same problem at a fraction of the cost, with η_φ scaled to it.
		idx := pl.rng.Perm(n)[:warm]
		sub := make([]float64, warm*k)
		for i, j := range idx {
			copy(sub[i*k:i*k+k], pd[j*k:j*k+k])
		}
		ws := etaPhi * float64(warm) / float64(n)
		wr, err := best(sub, warm, ws, "pe warm-up")
		if err != nil {
			return nil, err
		}
		pre := wr.sw.hessian(phi, ws)
		pre.ScaleSym(float64(n)/float64(warm), pre)
		m.WarmupRows = warm
		if res, err = f.run(pd, n, phi, etaPhi, iters, "pe", pre); err != nil {
			return nil, err
		}
	} else if res, err = best(pd, n, etaPhi, "pe"); err != nil {
		return nil, err
	}
	m.Y = mat.NewDense(n, dim, res.r)
	m.Phi = mat.NewDense(k, dim, phi)
	m.Cost = res.cost
	m.KL = (res.cost - res.penalty + entropySum(pd)) / float64(n)
	m.Iterations, m.Sweeps, m.NewtonSteps = res.iterations, res.sweeps, res.steps
	return m, nil
}

// entropySum is Σ_i Σ_k p_ik log p_ik (so that KL = cross-entropy + this).
func entropySum(p []float64) float64 {
	var s float64
	for _, v := range p {
		if v > 0 {
			s += v * math.Log(v)
		}
	}
	return s
}

// logPriors validates and normalises the priors.
func logPriors(pri []float64, k int) (logs, priors []float64, err error) {
	priors = make([]float64, k)
	if pri == nil {
		for c := range priors {
			priors[c] = 1 / float64(k)
		}
	} else {
		if len(pri) != k {
			return nil, nil, dataset.Invalidf("pe: %d priors for %d classes", len(pri), k)
		}
		mx := 0.0
		for c, v := range pri {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, nil, dataset.Invalidf("pe: prior of class %d is %g: expected a positive number", c+1, v)
			}
			mx = math.Max(mx, v)
		}
		var s float64
		for _, v := range pri {
			s += v
		}
		scale := 1.0
		if math.IsInf(s, 1) { // 1e308 + 1e308: scale by the largest first
			scale, s = mx, 0
			for _, v := range pri {
				s += v / mx
			}
		}
		for c, v := range pri {
			priors[c] = v / scale / s
			if priors[c] == 0 {
				return nil, nil, dataset.Invalidf("pe: prior of class %d is %g, too small next to the largest, %g, to be a float64 after normalisation", c+1, pri[c], mx)
			}
		}
	}
	logs = make([]float64, k)
	for c, v := range priors {
		logs[c] = math.Log(v)
	}
	return logs, priors, nil
}

// initRadius is the root-mean-square norm of the starting class points: about the distance at
// which a unit-variance Gaussian's posterior is near one-hot.
const initRadius = 2.0

// start returns the starting Φ (K×D, row-major).
func (e Embedder) start(ctx context.Context, p []float64, n, k, d int, rng *rand.Rand) ([]float64, error) {
	phi := make([]float64, k*d)
	switch {
	case e.Start != nil:
		r, c := e.Start.Dims()
		if r != k || c != d {
			return nil, dataset.Invalidf("pe: starting class points are %d×%d, want %d×%d", r, c, k, d)
		}
		for i := range k {
			for j := range d {
				v := e.Start.At(i, j)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, dataset.Invalidf("pe: starting class point %d is not finite", i+1)
				}
				phi[i*d+j] = v
			}
		}
		return phi, nil
	case e.Init == InitRandom:
		return randomStart(rng, k, d), nil
	case e.Init == InitMDS:
		if err := classMDS(ctx, p, n, k, d, phi); err != nil {
			return nil, err
		}
	default:
		return nil, dataset.Invalidf("pe: unknown Init %d", e.Init)
	}
	// Scale to initRadius; a degenerate start (all classes alike) falls back to a seeded draw.
	var ss float64
	for _, v := range phi {
		ss += v * v
	}
	if rms := math.Sqrt(ss / float64(k)); rms > 1e-12 {
		for i := range phi {
			phi[i] *= initRadius / rms
		}
	} else {
		for i := range phi {
			phi[i] = rng.NormFloat64()
		}
	}
	return phi, nil
}

// randomStart draws Φ (K×D) from a standard normal and scales it to initRadius.
func randomStart(rng *rand.Rand, k, d int) []float64 {
	phi := make([]float64, k*d)
	for i := range phi {
		phi[i] = rng.NormFloat64()
	}
	var ss float64
	for _, v := range phi {
		ss += v * v
	}
	if rms := math.Sqrt(ss / float64(k)); rms > 1e-12 {
		floats.Scale(initRadius/rms, phi)
	}
	return phi
}

// classMDS writes the classical-MDS layout of the class profiles into phi (K×D).
func classMDS(ctx context.Context, p []float64, n, k, d int, phi []float64) error {
	prof := make([]float64, k*k) // prof[c] = Σ_i p_ic p_i / Σ_i p_ic
	w := make([]float64, k)
	for i := range n {
		row := p[i*k : i*k+k]
		for c, pc := range row {
			if pc == 0 {
				continue
			}
			w[c] += pc
			dst := prof[c*k : c*k+k]
			for l, v := range row {
				dst[l] += pc * v
			}
		}
	}
	for c := range k {
		if w[c] > 0 {
			for l := range k {
				prof[c*k+l] /= w[c]
			}
		}
	}
	dist := mat.NewSymDense(k, nil)
	for a := range k {
		for b := a + 1; b < k; b++ {
			var s float64
			for l := range k {
				t := prof[a*k+l] - prof[b*k+l]
				s += t * t
			}
			dist.SetSym(a, b, math.Sqrt(s))
		}
	}
	md := min(d, k)
	mds, err := cmds.FromDistances(ctx, dist, md)
	if err != nil {
		return fmt.Errorf("pe: class MDS: %w", err)
	}
	for c := range k {
		for j := range md {
			phi[c*d+j] = mds.Y.At(c, j)
		}
	}
	return nil
}

// fitter runs L-BFGS on Φ; every evaluation solves all objects for that Φ.
type fitter struct {
	k, d     int
	logPrior []float64
	etaR     float64
	tol      float64
	workers  int
	ctx      context.Context
	progress lowdim.Progress
	// yield, if not nil, is called after every L-BFGS iteration with the stage and the
	// iteration's Φ (K×D; not to be kept): a Run parks there between its steps. An error stops
	// the fit with that error.
	yield func(stage string, phi []float64) error
}

type fitResult struct {
	r                         []float64
	cost, penalty             float64 // J and the η terms in it
	iterations, sweeps, steps int
	sw                        *sweeper
}

// run fits Φ (updated in place) to the posteriors p (n×K). pre, if not nil, is an estimate of
// the Hessian of F at the start (from the warm-up sample): L-BFGS then works in variables in
// which that Hessian is the identity and its first step is the Newton step.
func (f *fitter) run(p []float64, n int, phi []float64, etaPhi float64, iters int, stage string, pre *mat.SymDense) (*fitResult, error) {
	k, d := f.k, f.d
	kd := k * d
	r := make([]float64, n*d)
	for i := range n { // start every object at its posterior mean of Φ
		for c := range k {
			w := p[i*k+c]
			for j := range d {
				r[i*d+j] += w * phi[c*d+j]
			}
		}
	}
	sw := newSweeper(p, r, n, k, d, f.logPrior, f.etaR, rowTolerance*rowTolerance, f.workers)
	res := &fitResult{r: r, sw: sw}
	var (
		lastPhi, lastG = make([]float64, kd), make([]float64, kd)
		lastF          float64
		valid          bool
		evalErr        error
	)
	// evaluate solves the objects for Φ = x and caches F and ∂F/∂Φ.
	evaluate := func(x []float64) {
		if valid && equalSlices(x, lastPhi) {
			return
		}
		copy(lastPhi, x)
		fr, steps, err := sw.sweep(f.ctx, lastPhi, lastG)
		if err != nil {
			evalErr = err
			lastF = math.NaN()
			valid = false
			return
		}
		res.sweeps++
		res.steps += steps
		var phi2 float64
		for j, v := range lastPhi {
			lastG[j] += 2 * etaPhi * v
			phi2 += v * v
		}
		lastF = fr + etaPhi*phi2
		valid = true
	}
	threshold := f.tol * float64(n)
	converged := func() bool {
		for _, v := range lastG {
			if math.Abs(v) > threshold {
				return false
			}
		}
		return true
	}
	evaluate(phi)
	if evalErr != nil {
		return nil, evalErr
	}
	// The variables of the optimiser: Φ = Φ0 + C z, C = I or c·L⁻ᵀ with pre = L Lᵀ.
	phi0 := append([]float64(nil), phi...)
	var cm *mat.Dense
	if pre != nil && !converged() {
		cm = preconditioner(pre, lastG)
	}
	toPhi := func(dst, z []float64) {
		if cm == nil {
			copy(dst, z)
			return
		}
		copy(dst, phi0)
		for a := range kd {
			row := cm.RawRowView(a)
			for b, v := range z {
				dst[a] += row[b] * v
			}
		}
	}
	phiBuf := make([]float64, kd)
	rec := &recorder{progress: f.progress, stage: stage, total: iters}
	var yieldErr error
	if f.yield != nil {
		yphi := make([]float64, kd)
		rec.yield = func(z []float64) error {
			toPhi(yphi, z)
			yieldErr = f.yield(stage, yphi)
			return yieldErr
		}
	}
	prob := optimize.Problem{
		Func: func(z []float64) float64 { toPhi(phiBuf, z); evaluate(phiBuf); return lastF },
		Grad: func(g, z []float64) {
			toPhi(phiBuf, z)
			evaluate(phiBuf)
			if cm == nil {
				copy(g, lastG)
				return
			}
			for b := range g { // g_z = Cᵀ g_Φ
				var v float64
				for a := range kd {
					v += cm.At(a, b) * lastG[a]
				}
				g[b] = v
			}
		},
		Status: func() (optimize.Status, error) {
			if evalErr != nil {
				return optimize.Failure, evalErr
			}
			return optimize.NotTerminated, nil
		},
	}
	z0 := append([]float64(nil), phi...)
	if cm != nil {
		z0 = make([]float64, kd)
	}
	settings := &optimize.Settings{
		MajorIterations: iters,
		FuncEvaluations: 20*iters + 50,
		Converger:       &gradientConverge{done: converged, stall: optimize.FunctionConverge{Relative: 1e-13, Iterations: 10}},
		Recorder:        rec,
	}
	if !converged() {
		out, err := optimize.Minimize(prob, z0, settings, &optimize.LBFGS{})
		if evalErr != nil {
			return nil, evalErr
		}
		if yieldErr != nil {
			return nil, yieldErr
		}
		if out == nil {
			return nil, fmt.Errorf("pe: optimisation failed: %w", err)
		}
		// A non-finite cost or gradient at the start leaves gonum's zero vector as the result.
		var ef optimize.ErrFunc
		var eg optimize.ErrGrad
		if err != nil && (errors.As(err, &ef) || errors.As(err, &eg)) {
			return nil, fmt.Errorf("pe: optimisation failed: %w", err)
		}
		toPhi(phi, out.X)
		res.iterations = out.Stats.MajorIterations
		// The objects must be solved for the returned Φ (the last evaluation may have been a
		// rejected trial point).
		evaluate(phi)
		if evalErr != nil {
			return nil, evalErr
		}
	}
	res.cost = lastF
	var rr, pp float64
	for _, v := range r {
		rr += v * v
	}
	for _, v := range phi {
		pp += v * v
	}
	res.penalty = f.etaR*rr + etaPhi*pp
	f.progress.Report(stage, iters, iters)
	return res, nil
}

// preconditioner returns C = c·V Λ'^(−1/2) for h = V Λ Vᵀ, where Λ' clamps the eigenvalues
// to at least minCurvature·λ_max: F is unchanged when Φ and R rotate together, so h has a zero
// (or, away from the optimum, slightly negative) eigenvalue along the rotation, where the
// gradient vanishes anyway. c = ‖Λ'^(−1/2) Vᵀ g‖ makes gonum's first L-BFGS step (of unit length
// along −∇_z) the Newton step −h'⁻¹g. It returns nil when h has no positive eigenvalue.
func preconditioner(h *mat.SymDense, g []float64) *mat.Dense {
	var eig mat.EigenSym
	if !eig.Factorize(h, true) {
		return nil
	}
	vals := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	top := vals[len(vals)-1]
	if !(top > 0) || math.IsInf(top, 0) {
		return nil
	}
	kd := len(vals)
	scale := make([]float64, kd) // λ'^(−1/2)
	for i, l := range vals {
		scale[i] = 1 / math.Sqrt(max(l, minCurvature*top))
	}
	var c2 float64
	for i := range kd {
		var w float64
		for a := range kd {
			w += v.At(a, i) * g[a]
		}
		w *= scale[i]
		c2 += w * w
	}
	c := math.Sqrt(c2)
	if !(c > 0) || math.IsInf(c, 0) {
		return nil
	}
	cm := mat.NewDense(kd, kd, nil)
	for a := range kd {
		for i := range kd {
			cm.Set(a, i, c*v.At(a, i)*scale[i])
		}
	}
	return cm
}

// minCurvature is the smallest eigenvalue the preconditioner keeps, relative to the largest.
const minCurvature = 1e-3

// gradientConverge stops L-BFGS when ∂F/∂Φ (not the gradient in the optimiser's variables) is
// below the threshold, or when F has stalled.
type gradientConverge struct {
	done  func() bool
	stall optimize.FunctionConverge
}

func (g *gradientConverge) Init(dim int) { g.stall.Init(dim) }

func (g *gradientConverge) Converged(loc *optimize.Location) optimize.Status {
	if g.done() {
		return optimize.GradientThreshold
	}
	return g.stall.Converged(loc)
}

func equalSlices(a, b []float64) bool {
	for i, v := range a {
		if b[i] != v {
			return false
		}
	}
	return true
}

// recorder reports L-BFGS iterations as progress.
type recorder struct {
	progress lowdim.Progress
	stage    string
	done     int
	total    int
	yield    func(z []float64) error // the fitter's yield at the iteration's variables, or nil
}

func (r *recorder) Init() error { return nil }

func (r *recorder) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op == optimize.MajorIteration {
		r.done++
		r.progress.Report(r.stage, min(r.done, r.total), r.total)
		if r.yield != nil {
			return r.yield(loc.X)
		}
	}
	return nil
}
