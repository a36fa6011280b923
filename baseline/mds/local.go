package mds

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/graph"
	"github.com/lowdim/lowdim/dataset"
)

// Defaults of the Local family, dredviz 1.0.2's lmds defaults.
const (
	DefaultAlpha          = 0.25 // initial learning rate
	DefaultRoundsPerPoint = 400  // stochastic rounds per point
	DefaultLMDSNeighbors  = 20   // K of local MDS
	DefaultCDANeighbors   = 10   // k of CDA's geodesic graph
)

// LMDS is local MDS (Venna and Kaski 2006) as dredviz 1.0.2's lmds computes it: see the
// package comment. dredviz's own comparison files are not among the shared golden data, so
// the tests check the cost and its behaviour rather than a peer's coordinates.
type LMDS struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// Lambda ∈ [0, 1] weights the input-neighbourhood (recall, continuity) term; 0, dredviz's
	// default, is all trustworthiness.
	Lambda float64
	// Neighbors is K, the neighbourhood every point keeps when the radius has shrunk; 0 means
	// DefaultLMDSNeighbors (n − 1 when there are fewer other points).
	Neighbors int
	// Alpha is the initial learning rate; 0 means DefaultAlpha.
	Alpha float64
	// Rounds is the number of stochastic rounds; 0 means DefaultRoundsPerPoint·n.
	Rounds int
	// Seed seeds the random start (uniform on [0,1)^D, as dredviz) and the order of rounds.
	Seed uint64
	// Progress, if not nil, receives ("lmds", round, Rounds) reports every n rounds.
	Progress lowdim.Progress
}

// CCA is curvilinear component analysis with the step-function weighting of the NeRV
// paper: LMDS's engine at λ = 0 and K = 0.
type CCA struct {
	Dim      int             // output dimension; 0 means 2
	Alpha    float64         // initial learning rate; 0 means DefaultAlpha
	Rounds   int             // stochastic rounds; 0 means DefaultRoundsPerPoint·n
	Seed     uint64          // random start and round order
	Progress lowdim.Progress // ("cca", round, Rounds) every n rounds
}

// CDA is curvilinear distance analysis: CCA on geodesic distances along the k-NN graph
// (as Isomap's). A disconnected graph is refused, naming its number of components.
type CDA struct {
	Dim       int             // output dimension; 0 means 2
	Neighbors int             // k of the graph; 0 means DefaultCDANeighbors
	Alpha     float64         // initial learning rate; 0 means DefaultAlpha
	Rounds    int             // stochastic rounds; 0 means DefaultRoundsPerPoint·n
	Seed      uint64          // random start and round order
	Progress  lowdim.Progress // ("knn" | "geodesics" | "cda", done, total)
}

var (
	_ lowdim.Embedder = LMDS{}
	_ lowdim.Embedder = CCA{}
	_ lowdim.Embedder = CDA{}
)

// Fit embeds d.X; Cost is E at the last round's radius.
func (l LMDS) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil {
		return nil, dataset.Invalidf("lmds: no data")
	}
	if !(l.Lambda >= 0 && l.Lambda <= 1) {
		return nil, dataset.Invalidf("lmds: Lambda %v: expected a number in [0, 1]", l.Lambda)
	}
	delta, n, err := euclidean(ctx, "lmds", d.X)
	if err != nil {
		return nil, err
	}
	k := l.Neighbors
	if k == 0 {
		k = min(DefaultLMDSNeighbors, n-1) // as dredviz clamps it
	}
	return localFit(ctx, local{who: "lmds", dim: l.Dim, lambda: l.Lambda, k: k, alpha: l.Alpha, rounds: l.Rounds, seed: l.Seed, prog: l.Progress}, delta, n)
}

// Fit embeds d.X; Cost is E at the last round's radius.
func (c CCA) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil {
		return nil, dataset.Invalidf("cca: no data")
	}
	delta, n, err := euclidean(ctx, "cca", d.X)
	if err != nil {
		return nil, err
	}
	return localFit(ctx, local{who: "cca", dim: c.Dim, alpha: c.Alpha, rounds: c.Rounds, seed: c.Seed, prog: c.Progress}, delta, n)
}

// Fit embeds d.X; Cost is E (on the geodesic distances) at the last round's radius.
func (c CDA) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("cda: no data")
	}
	n := d.Len()
	k := c.Neighbors
	if k == 0 {
		k = DefaultCDANeighbors
	}
	g, _, err := graph.KNN(ctx, "cda", d.X, k, c.Progress)
	if err != nil {
		return nil, err
	}
	if err := g.Connected("cda", k); err != nil {
		return nil, err
	}
	if err := checkBudget("cda", n); err != nil {
		return nil, err
	}
	delta := make([]float64, n*n)
	if err := g.ShortestPaths(ctx, delta, c.Progress); err != nil {
		return nil, err
	}
	return localFit(ctx, local{who: "cda", dim: c.Dim, alpha: c.Alpha, rounds: c.Rounds, seed: c.Seed, prog: c.Progress}, delta, n)
}

type local struct {
	who    string
	dim    int
	lambda float64
	k      int
	alpha  float64
	rounds int
	seed   uint64
	prog   lowdim.Progress
}

// localFit runs the stochastic rounds on δ (n×n, overwritten by δ/mean δ).
func localFit(ctx context.Context, s local, delta []float64, n int) (*Model, error) {
	dim, err := dimOf(s.dim, n, s.who)
	if err != nil {
		return nil, err
	}
	alpha, rounds := s.alpha, s.rounds
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if rounds == 0 {
		rounds = DefaultRoundsPerPoint * n
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) || rounds < 0 || s.k < 0 || s.k >= n {
		return nil, dataset.Invalidf("%s: Alpha %v, Rounds %d, Neighbors %d: expected Alpha > 0, Rounds ≥ 0, Neighbors < n = %d", s.who, alpha, rounds, s.k, n)
	}
	// δ ← δ / mean_{i≠j} δ_ij, as dredviz scales its input.
	mean, dmax := 0.0, 0.0
	for _, v := range delta {
		mean += v
		dmax = math.Max(dmax, v)
	}
	mean /= float64(n) * float64(n-1)
	if mean == 0 {
		return nil, dataset.Invalidf("%s: all %d points coincide", s.who, n)
	}
	for i := range delta {
		delta[i] /= mean
	}
	dmax /= mean
	// ρ_i: the distance to the K-th nearest other point (0 when K = 0).
	rho := make([]float64, n)
	if s.k > 0 {
		buf := make([]float64, n)
		for i := 0; i < n; i++ {
			copy(buf, delta[i*n:(i+1)*n])
			buf[i] = math.Inf(-1) // itself first
			sort.Float64s(buf)
			rho[i] = buf[s.k]
		}
	}
	rng := rand.New(rand.NewPCG(s.seed, 0x10ca1))
	y := mat.NewDense(n, dim, nil)
	yd := y.RawMatrix().Data
	for i := range yd {
		yd[i] = rng.Float64()
	}
	r0 := 1.5 * dmax
	radius := r0
	for t := 0; t < rounds; t++ {
		if t%n == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			s.prog.Report(s.who, t, rounds)
		}
		frac := float64(t) / float64(rounds)
		radius = r0 * (1 - frac)
		a := alpha * (1 - frac)
		i := rng.IntN(n)
		yi := yd[i*dim : (i+1)*dim]
		row := delta[i*n : (i+1)*n]
		reach := math.Max(radius, rho[i])
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			yj := yd[j*dim : (j+1)*dim]
			dd := 0.0
			for c, v := range yj {
				e := v - yi[c]
				dd += e * e
			}
			d := math.Sqrt(dd)
			w := 0.0
			if row[j] < reach {
				w += s.lambda
			}
			if d < reach {
				w += 1 - s.lambda
			}
			if w == 0 || d == 0 {
				continue
			}
			f := a * w * (row[j]/d - 1)
			for c, v := range yi {
				yj[c] += f * (yj[c] - v)
			}
		}
	}
	s.prog.Report(s.who, rounds, rounds)
	return &Model{Y: y, Cost: localCost(yd, delta, rho, n, dim, radius, s.lambda), Iterations: rounds}, nil
}

// localCost is E at radius r.
func localCost(y, delta, rho []float64, n, dim int, r, lambda float64) float64 {
	sum := 0.0
	for i := 0; i < n; i++ {
		reach := math.Max(r, rho[i])
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			dd := 0.0
			for c := 0; c < dim; c++ {
				e := y[i*dim+c] - y[j*dim+c]
				dd += e * e
			}
			d := math.Sqrt(dd)
			e := delta[i*n+j] - d
			if d < reach {
				sum += (1 - lambda) * e * e
			}
			if delta[i*n+j] < reach {
				sum += lambda * e * e
			}
		}
	}
	return sum / 2
}
