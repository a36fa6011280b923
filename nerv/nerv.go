package nerv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/neighbors"
)

// Variant selects the NeRV family member.
type Variant int

const (
	// Gaussian is NeRV: per-point conditional p_j|i and q_j|i with the same σ_i in both spaces.
	Gaussian Variant = iota
	// StudentT is t-NeRV: joint p_ij = (p_j|i + p_i|j)/(2n) and a Student-t q_ij ∝ (1+e_ij)⁻¹.
	StudentT
)

// Init selects the starting layout.
type Init int

const (
	// InitPCA starts from the principal components of the features (classical MDS of a given
	// distance matrix), divided by the mean input distance so both spaces share a scale.
	InitPCA Init = iota
	// InitRandom starts uniformly at random in the unit square (cube), from Seed.
	InitRandom
)

// Default settings (the zero value of a field means these).
const (
	DefaultLambda       = 0.1 // dredviz's default: mostly precision
	DefaultPerplexity   = 20  // effective number of neighbours k_eff
	DefaultAnnealRounds = 10
	DefaultAnnealSteps  = 3
	DefaultIterations   = 200  // CG iterations after annealing, at most
	DefaultTolerance    = 1e-5 // relative cost change over 3 iterations that stops the final CG
	DefaultMemoryBudget = 2 << 30
)

// Embedder fits NeRV, t-NeRV, SNE or t-SNE (see the package documentation). The zero value is
// NeRV with λ = 0.1 and 20 effective neighbours, PCA initialisation and the paper's annealing.
type Embedder struct {
	Variant Variant
	// Lambda is λ ∈ [0, 1], the weight of recall (KL(p‖q)) against precision (KL(q‖p)); nil
	// means DefaultLambda. λ = 1 is SNE (Gaussian) or t-SNE (StudentT).
	Lambda *float64
	// Perplexity is k_eff, the effective number of neighbours, 1 < k_eff < n−1; 0 means 20.
	Perplexity float64
	// Dim is the output dimension, 1..3 are sensible; 0 means 2.
	Dim int
	// Init is the starting layout; Start, if not nil (n×Dim), overrides it.
	Init  Init
	Start *mat.Dense
	Seed  uint64
	// Calibration of σ_i: affinity.Exact (default) or affinity.Dredviz (the authors' coarse
	// golden-section search, whose neighbourhoods are those `lowdim eval` measures with).
	Calibration affinity.Calibration
	// Distances, if not nil, is the n×n input dissimilarity matrix used instead of Euclidean
	// distances between the rows of the data (dredviz's --inputdist).
	Distances mat.Matrix
	// RawScale optimises the paper's cost on the output coordinates as they are. By default
	// (false) NeRV and SNE divide the output distances by their mean, as the input's are: the
	// cost is then scale-free and is exactly the smoothed precision/recall that package quality
	// (and dredviz's klmeasure) report for the result. t-NeRV always uses raw coordinates.
	RawScale bool
	// AnnealRounds rounds of AnnealSteps CG iterations each shrink σ_i from half the input diameter
	// to its calibrated value; 0 means 10 and 3. Set AnnealRounds < 0 to skip annealing. (The paper
	// and dredviz take 2 steps a round, but their golden-section line search walks to the line's
	// minimum; gonum's Moré–Thuente search stops at the first strong-Wolfe point, and on the
	// S-curve 2 such steps a round end in a poorer layout — cost 0.35 against 0.28 with 3.)
	AnnealRounds, AnnealSteps int
	// Iterations caps the CG iterations after annealing (0 means 200; on the grid path of NeRV
	// and SNE, from the t-SNE layout, 0 means DefaultGridIterations); Tolerance is the relative
	// cost change over 3 iterations below which they stop (0 means 1e-5).
	Iterations int
	Tolerance  float64
	// MemoryBudget bounds the bytes of n×n tables (0 means 2 GiB): input distances are kept as
	// float64, else float32, else recomputed from the features each evaluation; NeRV caches input
	// probabilities only when they fit as well. t-NeRV needs its joint probabilities in memory.
	// Before the exact path allocates, it estimates all its tables and refuses with the figure
	// when they exceed the memory available (see lowdim/internal/membudget); the budget only
	// chooses the storage, so the result never depends on the machine's free memory.
	MemoryBudget int64
	Workers      int             // goroutines; 0 means runtime.NumCPU()
	Progress     lowdim.Progress // receives ("knn", …), then ("nerv", iteration, total iterations)

	// Path chooses the exact O(n²) evaluation or the approximate one (sparse neighbours and
	// Barnes–Hut far-field sums); the zero value PathAuto takes the approximate path above
	// ApproxMin rows. See the package documentation, "At scale".
	Path Path
	// Theta is the Barnes–Hut opening angle θ of the approximate path; 0 means 0.5, and a
	// negative value means θ = 0 (every far-field sum exact).
	Theta float64
	// GraphK is the number of nearest neighbours kept per row on the approximate path; 0 means
	// 3·k_eff (at most n−1). Graph, if not nil, is a precomputed k-NN graph used instead of a
	// search (its rows must match the data's).
	GraphK int
	Graph  *neighbors.Graph
	// ExactGraph searches the exact k-NN graph (neighbors.KNN, blocked products) at any n.
	// Without it the search is exact up to ExactGraphMax rows and NN-descent
	// (neighbors.ApproxKNN: recall ≥ 0.98 on MNIST, several times faster at 70,000 rows; see
	// package neighbors) above.
	ExactGraph bool
	// PCADims: on the approximate path, rows with more features are first reduced to this many
	// principal components, and neighbours are searched there (Rtsne's default, and what
	// FIt-SNE's and openTSNE's authors advise): 0 means 50, negative keeps every feature.
	PCADims int
	// Exaggeration α multiplies the attraction for the first ExaggerationIterations iterations of
	// the approximate t-SNE/t-NeRV optimiser (0 means 12 and 250); LearningRate 0 means
	// max(n/α, 200).
	Exaggeration           float64
	ExaggerationIterations int
	LearningRate           float64
	Warn                   func(string) // receives warnings (duplicate rows); nil means silent
}

// Lambda returns a pointer to v, for Embedder.Lambda.
func Lambda(v float64) *float64 { return &v }

// Result is a fitted NeRV embedding. It is not parametric; Map is the result that can place new rows.
type Result struct {
	Y *mat.Dense // n×Dim coordinates
	// Cost is the final value of the optimised cost: per point for NeRV (as dredviz reports it),
	// λ KL(p‖q) + (1−λ) KL(q‖p) of the joint distributions for t-NeRV.
	Cost float64
	// Precision and Recall are the two divergences at the end: mean KL(q_i‖p_i) and mean
	// KL(p_i‖q_i) for NeRV (smoothed precision and recall losses at the calibrated σ_i), the joint
	// KL(q‖p) and KL(p‖q) for t-NeRV.
	Precision, Recall float64
	Sigma2            []float64 // calibrated σ_i² on the mean-normalised scale
	Iterations        int       // CG iterations in all
	Evaluations       int       // cost-and-gradient evaluations in all
	Storage           string    // how the input distances were kept

	asMap *Map // the result with what places new rows, when it can (see Map)
}

// Embedding returns the coordinates.
func (r *Result) Embedding() *mat.Dense { return r.Y }

func (e Embedder) lambda() float64 {
	if e.Lambda == nil {
		return DefaultLambda
	}
	return *e.Lambda
}

func (e Embedder) name() string {
	l := e.lambda()
	switch {
	case e.Variant == StudentT && l == 1:
		return "tsne"
	case e.Variant == StudentT:
		return "tnerv"
	case l == 1:
		return "sne"
	}
	return "nerv"
}

// Fit embeds d (its features, or e.Distances) and returns a *Result, or a *Map (which also
// places new rows) for t-SNE and t-NeRV fitted from features on the approximate path.
func (e Embedder) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	r, err := e.fit(ctx, d)
	if err != nil {
		return nil, err
	}
	if r.asMap != nil {
		return r.asMap, nil
	}
	return r, nil
}

func (e Embedder) fit(ctx context.Context, d *dataset.Set) (*Result, error) {
	return e.fitNamed(ctx, d, e.name())
}

// settings are an Embedder's settings resolved for a data set (zero fields: their defaults).
type settings struct {
	n, dim, workers int
	k, lam          float64
	budget          int64
	x               *mat.Dense
}

// resolve checks e's settings against d and resolves their defaults; who names the method in errors.
func (e Embedder) resolve(d *dataset.Set, who string) (settings, error) {
	var st settings
	lam := e.lambda()
	if math.IsNaN(lam) || lam < 0 || lam > 1 {
		return st, dataset.Invalidf("%s: λ = %g is outside [0, 1]", who, lam)
	}
	dim := e.Dim
	if dim == 0 {
		dim = 2
	}
	if dim < 1 {
		return st, dataset.Invalidf("%s: output dimension %d is not positive", who, dim)
	}
	k := e.Perplexity
	if k == 0 {
		k = DefaultPerplexity
	}
	budget := e.MemoryBudget
	if budget == 0 {
		budget = DefaultMemoryBudget
	}
	workers := e.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var x *mat.Dense
	if d != nil {
		x = d.X
	}
	if e.Distances == nil && x == nil {
		return st, dataset.Invalidf("%s: no data", who)
	}
	n := 0
	if e.Distances != nil {
		n, _ = e.Distances.Dims()
	} else {
		n, _ = x.Dims()
	}
	if n < 3 {
		return st, dataset.Invalidf("%s: needs at least 3 points, have %d", who, n)
	}
	if math.IsNaN(k) || k <= 1 || k >= float64(n-1) {
		return st, dataset.Invalidf("%s: %g effective neighbours: expected more than 1 and fewer than n−1 = %d (the other points)", who, k, n-1)
	}
	st = settings{n: n, dim: dim, workers: workers, k: k, lam: lam, budget: budget, x: x}
	return st, nil
}

// fitNamed is fit with who naming the method in errors.
func (e Embedder) fitNamed(ctx context.Context, d *dataset.Set, who string) (*Result, error) {
	st, err := e.resolve(d, who)
	if err != nil {
		return nil, err
	}
	n, dim, workers, k, lam, budget, x := st.n, st.dim, st.workers, st.k, st.lam, st.budget, st.x
	if e.approxFor(n) || e.gridAuto(n, dim, x) {
		if e.Variant == Gaussian && lam < 1 && !e.gridFor(dim, x) {
			return nil, dataset.Invalidf("%s: λ = %g on the approximate path needs the data rows and a 2-D output: NeRV's precision term needs the input log p of every pair, which the fast path gets from the rows' principal components (package documentation, \"Gaussian NeRV at scale\"), and its FFT grid is 2-D; a k-NN graph or a distance matrix alone, or -dim %d, has no such path. Use the exact path (-exact, O(n²) per step) or tnerv", who, lam, dim)
		}
		return e.fitApprox(ctx, d, who, n, k, dim, lam, workers)
	}
	if n > ApproxMin && e.Path == PathAuto && e.Warn != nil {
		e.Warn(fmt.Sprintf("%s: n = %d on the exact path: every step costs O(n²) — about %.0f× a step at n = %d; tnerv and tsne take the fast path above %d rows, and nerv and sne too when given the rows and a 2-D output", who, n, float64(n)*float64(n)/(ApproxMin*ApproxMin), ApproxMin, ApproxMin))
	}
	if err := e.checkExact(who, n, dim, workers, budget, e.Distances != nil, 0); err != nil {
		return nil, err
	}
	in, err := newInput(ctx, x, e.Distances, budget, workers)
	if err != nil {
		return nil, err
	}
	if in.dups > 0 && e.Warn != nil {
		e.Warn(fmt.Sprintf("%s: %d pairs of points are at distance 0 (duplicate rows): each is the other's nearest neighbour with equal probability; NeRV will pull them together", who, in.dups))
	}
	if err := in.calibrate(ctx, k, e.Calibration, workers); err != nil {
		return nil, err
	}
	y, err := e.start(ctx, x, in, dim)
	if err != nil {
		return nil, err
	}
	cache := e.Variant == Gaussian && bytesFor(store64, n)*2+bytesFor(in.how, n) <= budget
	ev := newEvaluator(in, dim, lam, e.Variant == StudentT, !e.RawScale, cache, workers)
	defer ev.close()

	res := &Result{Sigma2: in.final, Storage: in.how.String()}
	opt := &optimizer{ev: ev, ctx: ctx, res: res, progress: e.Progress}
	rounds, steps := e.AnnealRounds, e.AnnealSteps
	if rounds == 0 {
		rounds = DefaultAnnealRounds
	}
	if steps <= 0 {
		steps = DefaultAnnealSteps
	}
	if rounds < 0 {
		rounds = 0
	}
	iters := e.Iterations
	if iters <= 0 {
		iters = DefaultIterations
	}
	tol := e.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	opt.total = rounds*steps + iters
	s2 := make([]float64, n)
	r0 := in.maxD / 2
	for round := range rounds {
		r := r0 * (1 - float64(round)/float64(rounds))
		for i, f := range in.final {
			s2[i] = math.Max(2*r*r, f)
		}
		ev.setSigma(s2)
		if err := opt.minimize(y, steps, 0); err != nil {
			return nil, err
		}
	}
	ev.setSigma(in.final)
	if err := opt.minimize(y, iters, tol); err != nil {
		return nil, err
	}
	grad := make([]float64, len(y))
	res.Cost, res.Precision, res.Recall = ev.eval(y, grad)
	res.Evaluations++
	res.Y = mat.NewDense(n, dim, y)
	return res, nil
}

// givenStart copies e.Start (n×dim) into y.
func (e Embedder) givenStart(y []float64, n, dim int) ([]float64, error) {
	r, c := e.Start.Dims()
	if r != n || c != dim {
		return nil, dataset.Invalidf("%s: the starting layout is %d×%d, expected %d×%d", e.name(), r, c, n, dim)
	}
	for i := range n {
		copy(y[i*dim:], e.Start.RawRowView(i))
	}
	return y, nil
}

// start returns the initial layout, row-major.
func (e Embedder) start(ctx context.Context, x *mat.Dense, in *input, dim int) ([]float64, error) {
	n := in.n
	y := make([]float64, n*dim)
	switch {
	case e.Start != nil:
		return e.givenStart(y, n, dim)
	case e.Init == InitRandom:
		rng := rand.New(rand.NewPCG(e.Seed, 0x6e657276))
		for k := range y {
			y[k] = rng.Float64()
		}
		return y, nil
	}
	var m lowdim.Model
	var err error
	if e.Distances != nil {
		m, err = cmds.FromDistances(ctx, e.Distances, dim)
	} else {
		if _, h := x.Dims(); h < dim {
			return nil, dataset.Invalidf("%s: %d features cannot start a %d-dimensional PCA layout; use random initialisation", e.name(), h, dim)
		}
		m, err = linproj.PCA{Dim: dim}.Fit(ctx, &dataset.Set{X: x})
	}
	if err != nil {
		return nil, err
	}
	p := m.Embedding()
	s := 1 / in.mean
	for i := range n {
		for c, v := range p.RawRowView(i) {
			y[i*dim+c] = v * s
		}
	}
	return y, nil
}

// costFunc is what the optimiser minimises: the exact evaluator or the approximate one.
type costFunc interface {
	eval(y, grad []float64) (cost, prec, rec float64)
}

// optimizer runs gonum's nonlinear conjugate gradient on the evaluator, caching the gradient
// computed together with each cost.
type optimizer struct {
	ev       costFunc
	ctx      context.Context
	res      *Result
	progress lowdim.Progress
	done     int
	total    int

	lastX, lastG []float64
	lastF        float64
	valid        bool
}

func (o *optimizer) evaluate(x []float64) {
	if o.valid && equal(x, o.lastX) {
		return
	}
	if o.lastX == nil {
		o.lastX, o.lastG = make([]float64, len(x)), make([]float64, len(x))
	}
	copy(o.lastX, x)
	o.lastF, _, _ = o.ev.eval(o.lastX, o.lastG)
	o.valid = true
	o.res.Evaluations++
}

func equal(a, b []float64) bool {
	for i, v := range a {
		if b[i] != v {
			return false
		}
	}
	return true
}

// minimize runs at most iters CG iterations from y (updated in place). tol > 0 stops earlier
// when the cost has changed by less than tol relative over 3 iterations.
func (o *optimizer) minimize(y []float64, iters int, tol float64) error {
	o.valid = false // σ may have changed
	p := optimize.Problem{
		Func: func(x []float64) float64 { o.evaluate(x); return o.lastF },
		Grad: func(g, x []float64) { o.evaluate(x); copy(g, o.lastG) },
		Status: func() (optimize.Status, error) {
			if err := o.ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		MajorIterations: iters,
		// A guard: at a cost that is zero to rounding (a perfect layout of a few points) gonum's
		// Moré–Thuente search can ask for the same point forever.
		FuncEvaluations: 30*iters + 50,
		Converger:       optimize.NeverTerminate{},
		Recorder:        o,
	}
	before := o.done
	if tol > 0 {
		settings.Converger = &optimize.FunctionConverge{Relative: tol, Iterations: 3}
	}
	r, err := optimize.Minimize(p, y, settings, newMethod())
	if cerr := o.ctx.Err(); cerr != nil {
		return cerr
	}
	if r == nil {
		return fmt.Errorf("nerv: optimisation failed: %w", err)
	}
	if err != nil && !errors.Is(err, optimize.ErrLinesearcherFailure) && !isBenign(err) {
		return fmt.Errorf("nerv: optimisation failed: %w", err)
	}
	copy(y, r.X)
	// gonum does not record the iteration that reaches the limit: count from its statistics.
	o.res.Iterations += r.Stats.MajorIterations
	o.done = before + r.Stats.MajorIterations
	o.progress.Report("nerv", min(o.done, o.total), o.total)
	return nil
}

// isBenign reports optimiser stops that leave a usable, improved point (the line search could
// not improve further: the cost is flat to rounding). A non-finite cost or gradient at the start
// is not: gonum then returns the zero vector as its point, every output at one place.
func isBenign(err error) bool {
	var e optimize.ErrFunc
	var g optimize.ErrGrad
	return !errors.As(err, &e) && !errors.As(err, &g)
}

// Init is called by gonum at the start of each Minimize.
func (o *optimizer) Init() error { return nil }

// Record counts major iterations for the progress report.
func (o *optimizer) Record(_ *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op == optimize.MajorIteration {
		o.done++
		o.progress.Report("nerv", min(o.done, o.total), o.total)
	}
	return nil
}

// newMethod returns the optimiser: gonum's nonlinear conjugate gradient (Hestenes–Stiefel β,
// Moré–Thuente line search). Its default first step is clamped to [1e-3, 1]/‖g‖∞, which is far
// too short for NeRV's small per-point gradients and costs several extra evaluations per
// iteration: the bounds are opened (on the S-curve, 132 instead of 195 evaluations to the same
// cost).
var newMethod = func() optimize.Method {
	return &optimize.CG{InitialStep: &optimize.FirstOrderStepSize{MinStepSize: 1e-12, MaxStepSize: 1e12}}
}
