package nerv

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/neighbors"
)

// ExactGraphMax is the most rows whose input k-NN graph is searched exactly by default. The
// exact search's blocked products cost O(n²·d) and NN-descent's about O(n·k²·d) per round,
// so the exact one wins at small n: on MNIST's PCA-50 rows with k = 90 (2 cores, load 2.7–3.5,
// two runs each) exact against NN-descent took 0.81–0.90 s against 2.4–2.7 s at 10,000 rows,
// 2.8–3.1 against 4.8–5.1 s at 20,000 and 6.5–6.6 against 7.8–8.9 s at 30,000; the crossing
// is near 40,000. Below it the graph is also exact rather than 98–99.9 % right.
const ExactGraphMax = 30000

// Path selects how the cost and gradient are evaluated.
type Path int

const (
	// PathAuto is the exact path up to ApproxMin rows and the approximate one above.
	PathAuto Path = iota
	// PathExact evaluates every pair: O(n²) per evaluation, the paper's numbers.
	PathExact
	// PathApprox keeps the input neighbourhoods on a k-NN graph and approximates the output
	// sums with a Barnes–Hut tree: O(n·k + n log n) per evaluation.
	PathApprox
)

// ApproxMin is the largest n that PathAuto fits exactly. At n = 3,000 the exact t-SNE takes
// about a minute on two cores and the approximate one a few seconds; below it the exact path
// (the papers' and dredviz's numbers) costs little.
const ApproxMin = 3000

// Defaults of the approximate path.
const (
	DefaultTheta          = 0.5
	DefaultExaggeration   = 12
	DefaultExagIterations = 250
	// DefaultApproxIterations is the number of gradient-descent iterations after early
	// exaggeration (openTSNE's default; with the learning rate n/α more change nothing visible).
	DefaultApproxIterations = 500
	// DefaultPCADims is the number of principal components the approximate path searches
	// neighbours in (PCADims). On the first 10,000 MNIST digits the t-SNE map's 5-NN error is
	// 0.044 from 50 components against 0.050 from all 784 pixels (T(20) 0.980 against 0.979):
	// the trailing components are mostly pen noise that blurs the neighbourhoods.
	DefaultPCADims = 50
	// pcaSampleMax: the PCA start is fitted on at most this many evenly spaced rows, then
	// applied to all; the leading directions of 20,000 MNIST digits are those of all 70,000 to
	// within the rounding that a start needs, at a seventh of the cost.
	pcaSampleMax = 20000
)

// approxFor reports whether a fit of n rows takes the approximate path. PathAuto takes it for
// t-SNE and t-NeRV above ApproxMin rows, and for any member given a precomputed graph (which only
// the approximate path can use); SNE takes it only when PathApprox asks, because its Gaussian
// output kernel is wide at scale (each row's covers a tenth of the points or more), which makes
// the Barnes–Hut sums nearly O(n²): on 3,000 MNIST digits it drew the exact fit's map (smoothed
// recall loss 2.73 against 2.65) in 32 s against the exact path's 13 s. NeRV with λ < 1 has no
// approximate path at all (fitNamed refuses it; package documentation, "At scale").
func (e Embedder) approxFor(n int) bool {
	switch e.Path {
	case PathExact:
		return false
	case PathApprox:
		return true
	}
	return e.Graph != nil || e.Variant == StudentT && n > ApproxMin
}

// gridFor reports whether Gaussian NeRV or SNE can take the grid path (approx_grid.go): it needs
// the rows, for the principal components behind the precision term, and a 2-D output.
func (e Embedder) gridFor(dim int, x *mat.Dense) bool {
	return e.Variant == Gaussian && dim == 2 && x != nil && e.Graph == nil && e.Distances == nil
}

// gridAuto reports whether PathAuto sends a Gaussian fit of n rows to the grid path: above
// ApproxMin rows, like t-SNE and t-NeRV.
func (e Embedder) gridAuto(n, dim int, x *mat.Dense) bool {
	return e.Path == PathAuto && n > ApproxMin && e.gridFor(dim, x)
}

// Places reports whether a fit of n feature rows returns a *Map, which places new rows and has
// a model file: t-SNE and t-NeRV fitted from features on the approximate path, without a
// precomputed graph. The CLI asks before fitting, so that -model is refused before a long fit.
func (e Embedder) Places(n int) bool {
	return e.Variant == StudentT && e.Graph == nil && e.Distances == nil && e.approxFor(n)
}

func (e Embedder) theta() float64 {
	switch {
	case e.Theta < 0:
		return 0
	case e.Theta == 0:
		return DefaultTheta
	}
	return e.Theta
}

// approxInput is what the approximate path computes before it optimises: the input
// probabilities on the k-NN graph and what the start and a Map need.
type approxInput struct {
	x      *mat.Dense // the rows, nil when only distances or a graph were given
	g      *neighbors.Graph
	mean   float64
	rowSq  []float64
	sp     *sparseP
	start  *mat.Dense // PCA coordinates to start from, when the reduction made them
	pca    *linproj.PCAModel
	graphK int
}

// prepareApprox computes the approximate path's input: the k-NN graph (from the rows, reduced to
// PCADims principal components, or from Distances, or e.Graph) and the joint (t-SNE, t-NeRV) or
// conditional (NeRV) probabilities on it; logs keeps their logarithms (sparseP).
func (e Embedder) prepareApprox(ctx context.Context, d *dataset.Set, who string, n int, k float64, dim int, logs bool, workers int) (*approxInput, error) {
	if dim > 3 {
		return nil, dataset.Invalidf("%s: the approximate path embeds in 1 to 3 dimensions, not %d; use the exact path (-exact)", who, dim)
	}
	var x *mat.Dense
	if d != nil {
		x = d.X
	}
	gk := e.GraphK
	if gk == 0 {
		gk = min(n-1, int(math.Ceil(3*k)))
	}
	if gk < 2 || gk >= n {
		return nil, dataset.Invalidf("%s: %d neighbours per row in the graph: expected 2 ≤ k < n = %d", who, gk, n)
	}
	var g *neighbors.Graph
	var mean float64
	var rowSq []float64
	var err error
	var start *mat.Dense // PCA coordinates to start from, when the reduction made them
	var pca *linproj.PCAModel
	if x != nil && e.Graph == nil && e.Distances == nil {
		pd := e.PCADims
		if pd == 0 {
			pd = DefaultPCADims
		}
		if _, h := x.Dims(); pd > 0 && h > pd {
			if x, pca, err = reducePCA(ctx, x, pd); err != nil {
				return nil, err
			}
			start = x
		}
	}
	switch {
	case e.Graph != nil:
		g = e.Graph
		if g.N != n {
			return nil, dataset.Invalidf("%s: the k-NN graph has %d rows but the data %d", who, g.N, n)
		}
		if x != nil {
			mean, err = inputMean(ctx, x, e.Seed, workers)
		} else {
			mean, err = graphMean(g), nil
		}
	case e.Distances != nil:
		g, mean, rowSq, err = graphFromDistances(ctx, who, e.Distances, gk)
	default:
		if x == nil {
			return nil, dataset.Invalidf("%s: no data", who)
		}
		if e.ExactGraph || n <= ExactGraphMax {
			g, err = neighbors.KNN(ctx, x, gk, neighbors.Options{Workers: workers, Progress: e.Progress})
		} else {
			g, err = neighbors.ApproxKNN(ctx, x, gk, neighbors.ApproxOptions{Seed: e.Seed, Workers: workers, Progress: e.Progress})
		}
		if err == nil {
			mean, err = inputMean(ctx, x, e.Seed, workers)
		}
	}
	if err != nil {
		return nil, err
	}
	if k >= float64(g.K) {
		return nil, dataset.Invalidf("%s: %g effective neighbours need a graph of more than %g neighbours per row, found %d", who, k, k, g.K)
	}
	if dups := graphDuplicates(g); dups > 0 && e.Warn != nil {
		e.Warn(fmt.Sprintf("%s: %d pairs of points are at distance 0 (duplicate rows): each is the other's nearest neighbour with equal probability; NeRV will pull them together", who, dups))
	}
	if rowSq == nil && x != nil {
		rowSq = rowSquares(x)
	}
	sp, err := newSparseP(ctx, g, mean, k, e.Calibration, e.Variant == StudentT, logs, rowSq, workers)
	if err != nil {
		return nil, err
	}
	return &approxInput{x: x, g: g, mean: mean, rowSq: rowSq, sp: sp, start: start, pca: pca, graphK: g.K}, nil
}

// storage describes the approximate path's input for Result.Storage.
func (e Embedder) storage(sp *sparseP, graphK int) string {
	return fmt.Sprintf("k-NN graph (k = %d, %d probabilities), Barnes–Hut θ = %g", graphK, sp.entries, e.theta())
}

// fitApprox is fit on the approximate path (package documentation, "At scale").
func (e Embedder) fitApprox(ctx context.Context, d *dataset.Set, who string, n int, k float64, dim int, lam float64, workers int) (*Result, error) {
	student := e.Variant == StudentT
	in, err := e.prepareApprox(ctx, d, who, n, k, dim, !student || lam < 1, workers)
	if err != nil {
		return nil, err
	}
	// Locals, not in's fields: the graph (1 GB at 10⁶ rows, k = 90) is dead once P is built
	// unless NeRV's t-SNE start needs it.
	x, g, mean, rowSq, sp, start, pca, graphK := in.x, in.g, in.mean, in.rowSq, in.sp, in.start, in.pca, in.graphK
	res := &Result{Sigma2: sp.sigma2, Storage: e.storage(sp, graphK)}
	var y []float64
	if student || e.Start == nil {
		// NeRV starts from the t-SNE layout of the same graph (see gaussMinimize).
		tsp := sp
		if !student {
			if tsp, err = newSparseP(ctx, g, mean, k, e.Calibration, true, false, rowSq, workers); err != nil {
				return nil, err
			}
		}
		if y, err = e.approxStart(ctx, x, start, n, dim, mean, true); err != nil {
			return nil, err
		}
		a := newApprox(tsp, dim, 1, true, e.theta(), workers)
		if err := e.runStudent(ctx, a, y, e.ExaggerationIterations, nil, res); err != nil {
			return nil, err
		}
		if student && lam < 1 {
			// t-NeRV refines the t-SNE layout: the precision term acts on a layout whose
			// clusters early exaggeration has already formed (package documentation, "At scale").
			a := newApprox(sp, dim, lam, true, e.theta(), workers)
			if err := e.runStudent(ctx, a, y, -1, e.augmenter(ctx, sp, x, dim, true, workers), res); err != nil {
				return nil, err
			}
		}
		if student {
			res.Y = mat.NewDense(n, dim, y)
			if x != nil && e.Graph == nil && e.Distances == nil {
				res.asMap = &Map{Result: res, variant: StudentT, lambda: lam, perplexity: k, k: graphK, theta: e.theta(), mean: mean, pca: pca, ref: x}
			}
			return res, nil
		}
	} else if y, err = e.approxStart(ctx, x, start, n, dim, mean, false); err != nil {
		return nil, err
	}
	if e.gridFor(dim, x) {
		gn, err := newGridNeRV(ctx, x, sp, lam, !e.RawScale, DefaultGridPCs, DefaultGridLevels, workers)
		if err != nil {
			return nil, err
		}
		res.Storage = fmt.Sprintf("k-NN graph (k = %d, %d probabilities), FFT grid in %d bandwidth levels, %d principal components for log p", graphK, sp.entries, len(gn.lb), gn.hp)
		if err := e.gaussMinimize(ctx, gn.eval, y, DefaultGridIterations, res); err != nil {
			return nil, err
		}
		res.Y = mat.NewDense(n, dim, y)
		return res, nil
	}
	a := newApprox(sp, dim, lam, false, e.theta(), workers)
	a.initGauss(!e.RawScale)
	if err := e.gaussMinimize(ctx, a.eval, y, DefaultIterations, res); err != nil {
		return nil, err
	}
	res.Y = mat.NewDense(n, dim, y)
	return res, nil
}

// reducePCA returns the first dims principal components of the rows of x, the directions fitted
// on at most pcaSampleMax evenly spaced rows, and the PCA that maps rows there.
func reducePCA(ctx context.Context, x *mat.Dense, dims int) (*mat.Dense, *linproj.PCAModel, error) {
	n, h := x.Dims()
	fitX := x
	if n > pcaSampleMax {
		fitX = mat.NewDense(pcaSampleMax, h, nil)
		for r := range pcaSampleMax {
			fitX.SetRow(r, x.RawRowView(int(int64(r)*int64(n)/pcaSampleMax)))
		}
	}
	m, err := linproj.PCA{Dim: dims}.Fit(ctx, &dataset.Set{X: fitX})
	if err != nil {
		return nil, nil, err
	}
	pm := m.(*linproj.PCAModel)
	p := mat.NewDense(n, dims, nil)
	if err := pm.Transform(p, x); err != nil {
		return nil, nil, err
	}
	return p, pm, nil
}

// runStudent runs the gradient-descent schedule of t-SNE/t-NeRV on a, from y.
//
// exagIters is the number of early-exaggeration iterations (0 means the default, negative none).
// aug, if not nil, returns the input probabilities augmented with the layout's output neighbours
// (sparseP.augment); it is called before the first evaluation and every augmentEvery after.
func (e Embedder) runStudent(ctx context.Context, a *approx, y []float64, exagIters int, aug func(y []float64) (*sparseP, error), res *Result) error {
	s := e.schedule(a.n, exagIters)
	eval := a.eval
	var augErr error
	if aug != nil {
		calls := 0
		eval = func(y, g []float64, exag float64) (float64, float64, float64) {
			if calls%augmentEvery == 0 && augErr == nil {
				var sp *sparseP
				if sp, augErr = aug(y); augErr == nil {
					a.sp = sp
				}
			}
			calls++
			return a.eval(y, g, exag)
		}
	}
	g := newGD(len(y), s)
	g.workers = len(a.workers)
	total := s.exagIters + s.iters
	_, _, _, err := g.run(ctx, y, a.dim, s.exagIters, total, eval, e.Progress)
	var order []int32
	if err == nil && aug == nil && a.n >= renumberMin && s.iters > 0 {
		// renumber.go: the rows in the layout's tree order for the rest of the run.
		sp0 := a.sp
		order = layoutOrder(y, a.dim)
		a.sp = sp0.renumber(order)
		defer func() { a.sp = sp0 }()
		copy(y, permuteRows(y, a.dim, order))
		copy(g.upd, permuteRows(g.upd, a.dim, order))
		copy(g.gains, permuteRows(g.gains, a.dim, order))
	}
	if err == nil {
		_, _, _, err = g.run(ctx, y, a.dim, total, total, eval, e.Progress)
	}
	if err == nil {
		err = augErr
	}
	if err != nil {
		return err
	}
	a.allTerms = true
	res.Cost, res.Precision, res.Recall = a.eval(y, make([]float64, len(y)), 1)
	if order != nil {
		yr := slices.Clone(y)
		for m, i := range order {
			copy(y[int(i)*a.dim:(int(i)+1)*a.dim], yr[m*a.dim:(m+1)*a.dim])
		}
	}
	res.Iterations, res.Evaluations = g.it, g.it+1
	return nil
}

// schedule returns the gradient-descent schedule of n rows with exagIters iterations of early
// exaggeration (0 means the default, negative none).
func (e Embedder) schedule(n, exagIters int) gdSchedule {
	s := gdSchedule{iters: e.Iterations, exagIters: exagIters, exag: e.Exaggeration, lr: e.LearningRate}
	if s.iters <= 0 || e.Variant == Gaussian {
		s.iters = DefaultApproxIterations
	}
	if s.exagIters == 0 {
		s.exagIters = DefaultExagIterations
	}
	s.exagIters = max(s.exagIters, 0)
	if s.exag == 0 {
		s.exag = DefaultExaggeration
	}
	if s.lr <= 0 {
		s.lr = math.Max(float64(n)/s.exag, 200)
	}
	return s
}

// augmentEvery is the number of iterations between two updates of the output neighbours that
// augment adds to the precision term: a layout that is already t-SNE's moves a few points'
// neighbourhoods in fifty iterations.
const augmentEvery = 50

// augmenter returns the function that augments sp with the output neighbours of a layout, or nil
// when the input rows are unknown (a precomputed graph or distance matrix: the floor alone then
// stands for every pair outside the graph).
func (e Embedder) augmenter(ctx context.Context, sp *sparseP, x *mat.Dense, dim int, joint bool, workers int) func(y []float64) (*sparseP, error) {
	if x == nil || e.Graph != nil || e.Distances != nil {
		return nil
	}
	return func(y []float64) (*sparseP, error) {
		return sp.augment(ctx, x, y, dim, sp.k, joint, workers)
	}
}

// graphFromDistances keeps the gk nearest of each row of a given distance matrix.
// It also returns each row's sum of squared distances.
func graphFromDistances(ctx context.Context, who string, dist mat.Matrix, gk int) (*neighbors.Graph, float64, []float64, error) {
	sq, n, err := dataset.SquaredDistances(who, dist)
	if err != nil {
		return nil, 0, nil, err
	}
	if gk >= n {
		return nil, 0, nil, dataset.Invalidf("%s: %d neighbours per row need more than %d points", who, gk, n)
	}
	rowSq := make([]float64, n)
	g := &neighbors.Graph{N: n, K: gk, Index: make([]int32, n*gk), Dist2: make([]float64, n*gk)}
	var h neighbors.TopK
	var sum float64
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, 0, nil, err
		}
		h.Reset(gk)
		for j, v := range sq[i*n : (i+1)*n] {
			if j != i {
				h.Push(v, int32(j))
				sum += math.Sqrt(v)
				rowSq[i] += v
			}
		}
		idx, d2 := g.Row(i)
		h.Sorted(idx, d2)
	}
	return g, sum / float64(n) / float64(n-1), rowSq, nil
}

// graphMean stands in for the mean input distance when only a graph is given: the mean of the
// graph's own distances. t-SNE and t-NeRV do not depend on the scale; NeRV's output bandwidths
// live on the mean-normalised scale, and a graph's distances are smaller than the mean over all
// pairs, so NeRV from a graph alone draws its output neighbourhoods wider than from the rows; a
// fixed correction would not be general.
func graphMean(g *neighbors.Graph) float64 {
	var s float64
	for _, v := range g.Dist2 {
		s += math.Sqrt(v)
	}
	return s / float64(len(g.Dist2))
}

// graphDuplicates counts unordered pairs at distance 0 in the graph.
func graphDuplicates(g *neighbors.Graph) int {
	var c int
	for i := range g.N {
		idx, d2 := g.Row(i)
		for m, v := range d2 {
			if v == 0 && int(idx[m]) > i {
				c++
			}
		}
	}
	return c
}

// approxStart returns the initial layout of the approximate path. t-SNE starts from the PCA
// layout scaled so that its first coordinate has standard deviation 10⁻⁴ (openTSNE's choice: the
// global arrangement of PCA, the small scale from which early exaggeration forms clusters), or
// from N(0, 10⁻⁸) with InitRandom (Rtsne's); NeRV from the layout the exact path uses.
func (e Embedder) approxStart(ctx context.Context, x, pcs *mat.Dense, n, dim int, mean float64, student bool) ([]float64, error) {
	y := make([]float64, n*dim)
	switch {
	case e.Start != nil:
		return e.givenStart(y, n, dim)
	case e.Init == InitRandom || (x == nil && e.Distances == nil):
		rng := rand.New(rand.NewPCG(e.Seed, 0x6e657276))
		for k := range y {
			if student {
				y[k] = 1e-4 * rng.NormFloat64()
			} else {
				y[k] = rng.Float64()
			}
		}
		return y, nil
	}
	var p *mat.Dense
	switch {
	case pcs != nil:
		p = pcs.Slice(0, n, 0, dim).(*mat.Dense)
	case x == nil:
		m, err := cmds.FromDistances(ctx, e.Distances, dim)
		if err != nil {
			return nil, err
		}
		p = m.Embedding()
	default:
		if _, h := x.Dims(); h < dim {
			return nil, dataset.Invalidf("%s: %d features cannot start a %d-dimensional PCA layout; use random initialisation", e.name(), h, dim)
		}
		var err error
		if p, _, err = reducePCA(ctx, x, dim); err != nil {
			return nil, err
		}
	}
	s := 1 / mean
	if student {
		s = 1e-4 / stat.StdDev(mat.Col(nil, 0, p), nil)
	}
	for i := range n {
		for c, v := range p.RawRowView(i) {
			y[i*dim+c] = v * s
		}
	}
	return y, nil
}
