// Package mre is multiple relational embedding (MRE; Memisevic and Hinton, NIPS 2005) in its
// supervised use, the row of the NeRV paper's supervised comparison (§5.2): a stochastic
// neighbour embedding that matches several input neighbourhood relations at once, each measured
// in the shared latent space under a relation-specific diagonal rescaling.
//
// Here the relations are two, as in the NeRV paper's use. For relation c, row i's input
// neighbourhood is a distribution P^c_i over the other rows, and its latent neighbourhood is
//
//	Q^c_ij = exp(−d^c_ij) / Σ_{k≠i} exp(−d^c_ik),   d^c_ij = Σ_a (r^c_a)² (y_ia − y_ja)²,
//
// and MRE minimises E = Σ_c w_c Σ_i KL(P^c_i ‖ Q^c_i) over the latent points y_i and the
// relation weights r^c by L-BFGS (gonum/optimize) with the analytic gradient
//
//		∂E/∂y_i = 2 Σ_c w_c Σ_j (P^c_ij − Q^c_ij + P^c_ji − Q^c_ji) R^c² (y_i − y_j),
//		∂E/∂r^c_a = 2 w_c r^c_a Σ_i Σ_j (P^c_ij − Q^c_ij) (y_ia − y_ja)².
//
//	  - Relation 1, the features: P¹_ij ∝ exp(−‖x_i − x_j‖²/σ²), one width σ = σ_MRE for all
//	    rows (the NeRV paper: "for MRE the only free parameter is its neighborhood smoothness
//	    parameter σ_MRE"). Its scale r¹ is fixed at 1: scaling all y by t and every r^c by 1/t
//	    leaves E unchanged, and fixing one relation's scale removes that freedom.
//	  - Relation 2, the classes: P²_ij = 1/(n_c − 1) for the other labelled rows j of row i's
//	    class (n_c of them in all), 0 otherwise; its weights r² are learnt (started at 1), so the
//	    class relation may stretch the latent axes differently from the feature relation.
//	    Rows labelled −1 take no part in it — neither as i nor as j — which is how MRE uses
//	    unlabelled rows (the NeRV paper: "for unlabeled points, divergences that involve
//	    neighborhoods based on labels are simply left out"); a class with one labelled row has
//	    no class neighbourhood and its row's class term is left out likewise.
//
// What the papers available here do not pin down, and this package chooses (documented on the
// fields): the weight of the class relation against the feature relation (1), diagonal rather
// than full transforms, the start (PCA scaled by 1/σ, so that latent and input neighbourhoods
// start at the same scale), and the default σ (the width at which the mean perplexity of P¹ is
// 30). MRE is not parametric: there is no Transform; rows to be placed later are fitted with
// the others, unlabelled.
package mre

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/membudget"
	"github.com/lowdim/lowdim/linproj"
)

// Defaults of the MRE settings.
const (
	DefaultDim        = 2
	DefaultPerplexity = 30
	DefaultMaxIter    = 1000
)

// MRE holds the settings; the zero value of each field means its documented default.
type MRE struct {
	// Dim is the latent dimension; 0 means 2.
	Dim int
	// Sigma is σ_MRE, the width of the feature relation's Gaussian neighbourhoods; 0 means the
	// width at which the mean perplexity of the rows of P¹ is Perplexity.
	Sigma float64
	// Perplexity sets the default Sigma (unused when Sigma is given); 0 means 30.
	Perplexity float64
	// ClassWeight is w₂, the weight of the class relation's divergences (the feature
	// relation's is 1); 0 means 1, a negative value means 0 (the class relation is left out:
	// MRE with one relation, an SNE of one global width).
	ClassWeight float64
	// MaxIter bounds the L-BFGS iterations; 0 means 1000.
	MaxIter int
	// Workers bounds the goroutines of the cost and gradient; 0 means runtime.NumCPU(). The
	// result does not depend on it.
	Workers int
	// Progress, if not nil, receives ("mre", iteration, MaxIter) reports.
	Progress lowdim.Progress
}

// Model is a fitted MRE embedding.
type Model struct {
	// Y holds the n×Dim latent points of all rows.
	Y *mat.Dense
	// Sigma is the σ_MRE used.
	Sigma float64
	// ClassScale is r², the class relation's learnt diagonal scale of the latent axes.
	ClassScale []float64
	// Cost is E at the end; Start is E at the start.
	Cost, Start float64
	// Iterations and Evaluations count L-BFGS's major iterations and cost evaluations.
	Iterations, Evaluations int
}

// Embedding returns the latent points.
func (m *Model) Embedding() *mat.Dense { return m.Y }

var _ lowdim.Embedder = MRE{}

// Fit embeds every row of d. Rows labelled −1 are embedded by the feature relation alone.
func (e MRE) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	s, err := e.resolve()
	if err != nil {
		return nil, err
	}
	if d == nil || d.X == nil || d.Len() == 0 {
		return nil, dataset.Invalidf("mre: no data")
	}
	n, h := d.X.Dims()
	if n < 3 {
		return nil, dataset.Invalidf("mre: %d rows; at least 3 are needed", n)
	}
	if d.Labels != nil && len(d.Labels) != n {
		return nil, dataset.Invalidf("mre: %d labels for %d rows", len(d.Labels), n)
	}
	for i := range n {
		for j, v := range d.X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("mre: row %d column %d is %v", i+1, j+1, v)
			}
		}
	}
	if s.Dim > h {
		return nil, dataset.Invalidf("mre: Dim %d exceeds the %d columns (the start is PCA)", s.Dim, h)
	}
	labels, err := classLabels(d, s.ClassWeight)
	if err != nil {
		return nil, err
	}
	squares := int64(2) // P¹ and the feature kernel (see objective)
	if labels != nil {
		squares++ // the class kernel
	}
	if err := membudget.Check(membudget.Need{Who: "mre", N: n, What: "the n×n feature neighbourhoods P¹ and the relations' kernels",
		Bytes: squares * 8 * int64(n) * int64(n), PerN: func(m int) int64 { return squares * 8 * int64(m) * int64(m) }}); err != nil {
		return nil, err
	}
	p := pairwiseSq(d.X)
	sigma := s.Sigma
	if sigma == 0 {
		if sigma, err = widthForPerplexity(ctx, p, s.Perplexity, s.Workers); err != nil {
			return nil, err
		}
	}
	if err := featureNeighbourhoods(ctx, p, sigma, s.Workers); err != nil {
		return nil, err
	}
	start, err := linproj.PCA{Dim: s.Dim}.Fit(ctx, d)
	if err != nil {
		return nil, err
	}
	x0 := make([]float64, n*s.Dim+s.Dim)
	y0 := start.Embedding()
	for i := range n {
		for a := range s.Dim {
			x0[i*s.Dim+a] = y0.At(i, a) / sigma
		}
	}
	for a := range s.Dim {
		x0[n*s.Dim+a] = 1
	}
	obj := newObjective(p, labels, s.ClassWeight, s.Dim, s.Workers)
	f0, err := obj.cost(ctx, x0)
	if err != nil {
		return nil, err
	}
	evals := 0
	problem := optimize.Problem{
		Func: func(x []float64) float64 {
			evals++
			f, _ := obj.cost(ctx, x)
			return f
		},
		Grad: func(g, x []float64) {
			_, _ = obj.cost(ctx, x)
			copy(g, obj.grad)
		},
	}
	iter := 0
	settings := &optimize.Settings{
		MajorIterations:   s.MaxIter,
		GradientThreshold: 1e-8,
		Converger:         &optimize.FunctionConverge{Relative: 1e-9, Iterations: 20},
		Recorder: recorderFunc(func(op optimize.Operation) {
			if op&optimize.MajorIteration != 0 {
				iter++
				e.Progress.Report("mre", iter, s.MaxIter)
			}
		}),
	}
	res, err := optimize.Minimize(problem, x0, settings, &optimize.LBFGS{})
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if err != nil && (res == nil || !isLinesearchFailure(err)) {
		return nil, err
	}
	y := mat.NewDense(n, s.Dim, slices.Clone(res.X[:n*s.Dim]))
	return &Model{Y: y, Sigma: sigma, ClassScale: slices.Clone(res.X[n*s.Dim:]), Cost: res.F, Start: f0,
		Iterations: res.Stats.MajorIterations, Evaluations: evals}, nil
}

// isLinesearchFailure reports the errors after which L-BFGS's result is still the best point
// found: the line search gave up near a stationary point of this non-convex cost.
func isLinesearchFailure(err error) bool {
	return errors.Is(err, optimize.ErrLinesearcherFailure) || errors.Is(err, optimize.ErrNoProgress) ||
		errors.Is(err, optimize.ErrNonDescentDirection)
}

// recorderFunc adapts a function to optimize.Recorder.
type recorderFunc func(optimize.Operation)

func (r recorderFunc) Init() error { return nil }
func (r recorderFunc) Record(_ *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	r(op)
	return nil
}

// resolve fills the defaults and checks the settings.
func (e MRE) resolve() (MRE, error) {
	switch {
	case e.Dim < 0:
		return e, dataset.Invalidf("mre: Dim %d is negative", e.Dim)
	case e.Sigma < 0 || math.IsNaN(e.Sigma) || math.IsInf(e.Sigma, 0):
		return e, dataset.Invalidf("mre: Sigma %v is not a positive number", e.Sigma)
	case e.Perplexity < 0 || math.IsNaN(e.Perplexity) || math.IsInf(e.Perplexity, 0):
		return e, dataset.Invalidf("mre: Perplexity %v is not a positive number", e.Perplexity)
	case math.IsNaN(e.ClassWeight) || math.IsInf(e.ClassWeight, 0):
		return e, dataset.Invalidf("mre: ClassWeight %v is not a number", e.ClassWeight)
	case e.MaxIter < 0:
		return e, dataset.Invalidf("mre: MaxIter %d is negative", e.MaxIter)
	case e.Workers < 0:
		return e, dataset.Invalidf("mre: Workers %d is negative", e.Workers)
	}
	if e.Dim == 0 {
		e.Dim = DefaultDim
	}
	if e.Perplexity == 0 {
		e.Perplexity = DefaultPerplexity
	}
	switch {
	case e.ClassWeight == 0:
		e.ClassWeight = 1
	case e.ClassWeight < 0:
		e.ClassWeight = 0
	}
	if e.MaxIter == 0 {
		e.MaxIter = DefaultMaxIter
	}
	if e.Workers == 0 {
		e.Workers = runtime.NumCPU()
	}
	return e, nil
}

// classLabels returns each row's class for the class relation (−1: the row takes no part),
// or nil when the relation is left out. A class with a single labelled row is dropped from
// it (that row has no class neighbourhood).
func classLabels(d *dataset.Set, w float64) ([]int, error) {
	if w == 0 {
		return nil, nil
	}
	if !d.HasLabels() {
		return nil, dataset.Invalidf("mre: the data have no labels: MRE's second relation is the classes (a label column; or ClassWeight < 0 to leave it out)")
	}
	count := map[int]int{}
	for i, l := range d.Labels {
		if l < -1 {
			return nil, dataset.Invalidf("mre: row %d has label %d (want −1 for unknown or a class index)", i+1, l)
		}
		if l >= 0 {
			count[l]++
		}
	}
	multi := 0
	for _, c := range count {
		if c > 1 {
			multi++
		}
	}
	if multi == 0 {
		return nil, dataset.Invalidf("mre: no class has two labelled rows: the class relation has no neighbourhoods")
	}
	out := slices.Clone(d.Labels)
	for i, l := range out {
		if l >= 0 && count[l] < 2 {
			out[i] = -1
		}
	}
	return out, nil
}

// pairwiseSq returns the n×n squared Euclidean distances of x's rows (diagonal 0), as
// ‖x_i‖² + ‖x_j‖² − 2 x_i·x_j by one matrix product, clamped at 0 against rounding.
func pairwiseSq(x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	p := mat.NewDense(n, n, nil)
	p.Mul(x, x.T())
	sq := make([]float64, n)
	for i := range n {
		sq[i] = p.At(i, i)
	}
	for i := range n {
		row := p.RawRowView(i)
		for j := range row {
			row[j] = max(sq[i]+sq[j]-2*row[j], 0)
		}
		row[i] = 0
	}
	return p
}

// tile is the block of rows parallel hands out, and pass 0's tile of the kernels.
const tile = 64

// parallel runs f(lo, hi) over fixed blocks of tile rows of 0..n−1 on at most w goroutines;
// the blocks do not depend on w, so neither do the results.
func parallel(ctx context.Context, n, w int, f func(lo, hi int)) error {
	const block = tile
	nb := (n + block - 1) / block
	var (
		wg   sync.WaitGroup
		next = make(chan int, nb)
	)
	for b := range nb {
		next <- b
	}
	close(next)
	for range min(w, nb) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				if ctx.Err() != nil {
					return
				}
				f(b*block, min(b*block+block, n))
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// rowEntropy returns the entropy (nats) of row i's neighbourhood exp(−d_ij/σ²)/Z over j ≠ i.
func rowEntropy(d []float64, i int, beta float64) float64 {
	m := math.Inf(1)
	for j, v := range d {
		if j != i {
			m = math.Min(m, v)
		}
	}
	var z, s float64
	for j, v := range d {
		if j == i {
			continue
		}
		u := (v - m) * beta
		e := math.Exp(-u)
		z += e
		s += e * u
	}
	return math.Log(z) + s/z
}

// widthForPerplexity returns the σ at which the mean over rows of exp(H(P¹_i)) is perp, by
// bisection on log σ (the mean perplexity grows with σ, from 1 to n − 1).
func widthForPerplexity(ctx context.Context, d2 *mat.Dense, perp float64, workers int) (float64, error) {
	n, _ := d2.Dims()
	if perp >= float64(n-1) {
		return 0, dataset.Invalidf("mre: Perplexity %g needs more than %d rows", perp, n)
	}
	var med []float64
	for i := 0; i < n; i += max(1, n/200) {
		for j, v := range d2.RawRowView(i) {
			if j != i && v > 0 {
				med = append(med, v)
			}
		}
	}
	if len(med) == 0 {
		return 0, dataset.Invalidf("mre: every row is the same: no neighbourhood has a width")
	}
	slices.Sort(med)
	s0 := math.Sqrt(med[len(med)/2])
	h := make([]float64, n)
	meanPerp := func(sigma float64) (float64, error) {
		beta := 1 / (sigma * sigma)
		err := parallel(ctx, n, workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				h[i] = math.Exp(rowEntropy(d2.RawRowView(i), i, beta))
			}
		})
		return floats.Sum(h) / float64(n), err
	}
	lo, hi := math.Log(s0)-12, math.Log(s0)+6
	for range 40 {
		mid := (lo + hi) / 2
		v, err := meanPerp(math.Exp(mid))
		if err != nil {
			return 0, err
		}
		if v < perp {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2), nil
}

// featureNeighbourhoods overwrites the squared distances d2 by P¹: row i becomes
// exp(−d_ij/σ²)/Σ_{k≠i} exp(−d_ik/σ²), with P¹_ii = 0.
func featureNeighbourhoods(ctx context.Context, d2 *mat.Dense, sigma float64, workers int) error {
	n, _ := d2.Dims()
	beta := 1 / (sigma * sigma)
	return parallel(ctx, n, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := d2.RawRowView(i)
			m := math.Inf(1)
			for j, v := range row {
				if j != i {
					m = math.Min(m, v)
				}
			}
			var z float64
			for j, v := range row {
				if j == i {
					row[j] = 0
					continue
				}
				row[j] = math.Exp(-(v - m) * beta)
				z += row[j]
			}
			floats.Scale(1/z, row)
		}
	})
}
