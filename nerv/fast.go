package nerv

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"lowdim/baseline/cmds"
	"lowdim/dataset"
	"lowdim/linproj"
	"lowdim/neighbors"
)

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

func (e Embedder) approxFor(n int) bool {
	if e.Variant == Gaussian {
		return false
	}
	switch e.Path {
	case PathExact:
		return false
	case PathApprox:
		return true
	}
	return n > ApproxMin || e.Graph != nil
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

// fitApprox is fit on the approximate path (package documentation, "At scale").
func (e Embedder) fitApprox(ctx context.Context, d *dataset.Set, who string, n int, k float64, dim int, lam float64, workers int) (*Result, error) {
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
	var err error
	var start *mat.Dense // PCA coordinates to start from, when the reduction made them
	if x != nil && e.Graph == nil && e.Distances == nil {
		pd := e.PCADims
		if pd == 0 {
			pd = DefaultPCADims
		}
		if _, h := x.Dims(); pd > 0 && h > pd {
			if x, err = reducePCA(ctx, x, pd); err != nil {
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
		g, mean, err = graphFromDistances(ctx, who, e.Distances, gk)
	default:
		if x == nil {
			return nil, dataset.Invalidf("%s: no data", who)
		}
		g, err = neighbors.KNN(ctx, x, gk, neighbors.Options{Workers: workers, Progress: e.Progress})
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
	student := e.Variant == StudentT
	sp, err := newSparseP(ctx, g, mean, k, e.Calibration, student, workers)
	if err != nil {
		return nil, err
	}
	y, err := e.approxStart(ctx, x, start, n, dim, mean, student)
	if err != nil {
		return nil, err
	}
	a := newApprox(sp, dim, lam, student, e.theta(), workers)
	res := &Result{Sigma2: sp.sigma2, Storage: fmt.Sprintf("k-NN graph (k = %d, %d probabilities), Barnes–Hut θ = %g", g.K, sp.entries, e.theta())}
	if student {
		s := gdSchedule{iters: e.Iterations, exagIters: e.ExaggerationIterations, exag: e.Exaggeration, lr: e.LearningRate}
		if s.iters <= 0 {
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
		_, _, _, it, err := runGD(ctx, y, dim, s, a.eval, e.Progress)
		if err != nil {
			return nil, err
		}
		a.allTerms = true
		res.Cost, res.Precision, res.Recall = a.eval(y, make([]float64, len(y)), 1)
		res.Iterations, res.Evaluations = it, it+1
	} else {
		if err := e.gaussApprox(ctx, a, y, res); err != nil {
			return nil, err
		}
	}
	res.Y = mat.NewDense(n, dim, y)
	return res, nil
}

// reducePCA returns the first dims principal components of the rows of x, the directions fitted
// on at most pcaSampleMax evenly spaced rows.
func reducePCA(ctx context.Context, x *mat.Dense, dims int) (*mat.Dense, error) {
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
		return nil, err
	}
	p := mat.NewDense(n, dims, nil)
	if err := m.(*linproj.PCAModel).Transform(p, x); err != nil {
		return nil, err
	}
	return p, nil
}

// graphFromDistances keeps the gk nearest of each row of a given distance matrix.
func graphFromDistances(ctx context.Context, who string, dist mat.Matrix, gk int) (*neighbors.Graph, float64, error) {
	sq, n, err := dataset.SquaredDistances(who, dist)
	if err != nil {
		return nil, 0, err
	}
	if gk >= n {
		return nil, 0, dataset.Invalidf("%s: %d neighbours per row need more than %d points", who, gk, n)
	}
	g := &neighbors.Graph{N: n, K: gk, Index: make([]int32, n*gk), Dist2: make([]float64, n*gk)}
	var h neighbors.TopK
	var sum float64
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		h.Reset(gk)
		for j, v := range sq[i*n : (i+1)*n] {
			if j != i {
				h.Push(v, int32(j))
				sum += math.Sqrt(v)
			}
		}
		idx, d2 := g.Row(i)
		h.Sorted(idx, d2)
	}
	return g, sum / float64(n) / float64(n-1), nil
}

// graphMean stands in for the mean input distance when only a graph is given: the mean distance
// to the graph's neighbours times the ratio that rows of MNIST show between the two is not
// general, so NeRV (whose output bandwidths live on the mean-normalised scale) takes the mean of
// the graph's distances itself; t-SNE does not depend on the scale.
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
		r, c := e.Start.Dims()
		if r != n || c != dim {
			return nil, dataset.Invalidf("%s: the starting layout is %d×%d, expected %d×%d", e.name(), r, c, n, dim)
		}
		for i := range n {
			copy(y[i*dim:], e.Start.RawRowView(i))
		}
		return y, nil
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
		if p, err = reducePCA(ctx, x, dim); err != nil {
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
