package mds

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
)

// SMACOF is metric MDS by majorisation (raw stress), as scikit-learn's MDS(metric=True,
// n_init=1).
type SMACOF struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// MaxIter caps the Guttman transforms; 0 means 300.
	MaxIter int
	// Eps stops when the stress per unit of Σ‖y_i‖ falls by less than Eps; 0 means 1e-3.
	Eps float64
	// Init is the starting configuration (n×D); nil means uniform on [0,1)^D from Seed.
	Init *mat.Dense
	// Seed seeds the random start.
	Seed uint64
	// Progress, if not nil, receives ("smacof", iteration, MaxIter) reports.
	Progress lowdim.Progress
}

var _ lowdim.Embedder = SMACOF{}

// Fit embeds d.X. The returned *Model's Cost is scikit-learn's stress_: the raw stress of
// the configuration before the last Guttman transform (Y is after it).
func (s SMACOF) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil {
		return nil, dataset.Invalidf("smacof: no data")
	}
	delta, n, err := euclidean(ctx, "smacof", d.X)
	if err != nil {
		return nil, err
	}
	return s.fit(ctx, delta, n)
}

func (s SMACOF) fit(ctx context.Context, delta []float64, n int) (*Model, error) {
	dim, err := dimOf(s.Dim, n, "smacof")
	if err != nil {
		return nil, err
	}
	maxIter, eps := s.MaxIter, s.Eps
	if maxIter == 0 {
		maxIter = 300
	}
	if eps == 0 {
		eps = 1e-3
	}
	if maxIter < 0 || eps < 0 || math.IsNaN(eps) {
		return nil, dataset.Invalidf("smacof: MaxIter %d, Eps %v: expected positive values", maxIter, eps)
	}
	y := mat.NewDense(n, dim, nil)
	if s.Init != nil {
		if r, c := s.Init.Dims(); r != n || c != dim {
			return nil, dataset.Invalidf("smacof: Init is %d×%d, want %d×%d", r, c, n, dim)
		}
		y.Copy(s.Init)
	} else {
		rng := rand.New(rand.NewPCG(s.Seed, 0x5ac0f))
		for i := range y.RawMatrix().Data {
			y.RawMatrix().Data[i] = rng.Float64()
		}
	}
	next := mat.NewDense(n, dim, nil)
	nw := min(runtime.NumCPU(), n)
	rowStress := make([]float64, n) // summed in row order: the same bytes for any nw
	oldStress, stress := math.NaN(), 0.0
	it := 0
	for it = 0; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// One pass: stress of Y and the Guttman transform (1/n) Σ_j r_ij (y_i − y_j),
		// r_ij = δ_ij/d_ij with d_ij = 0 read as 1e-5 (scikit-learn's guard).
		parallel(n, nw, func(_, lo, hi int) {
			acc := make([]float64, dim)
			for i := lo; i < hi; i++ {
				yi := y.RawRowView(i)
				row := delta[i*n : (i+1)*n]
				sum := 0.0
				for c := range acc {
					acc[c] = 0
				}
				for j := 0; j < n; j++ {
					yj := y.RawRowView(j)
					dd := 0.0
					for c, v := range yi {
						e := v - yj[c]
						dd += e * e
					}
					dij := math.Sqrt(dd)
					if j != i {
						e := dij - row[j]
						sum += e * e
					}
					if dij == 0 {
						dij = 1e-5
					}
					r := row[j] / dij
					for c, v := range yi {
						acc[c] += r * (v - yj[c])
					}
				}
				out := next.RawRowView(i)
				for c := range out {
					out[c] = acc[c] / float64(n)
				}
				rowStress[i] = sum
			}
		})
		stress = 0
		for _, v := range rowStress {
			stress += v
		}
		stress /= 2
		y, next = next, y
		norm := 0.0
		for i := 0; i < n; i++ {
			norm += mat.Norm(y.RowView(i), 2)
		}
		s.Progress.Report("smacof", it+1, maxIter)
		if !math.IsNaN(oldStress) && oldStress-stress/norm < eps {
			break
		}
		oldStress = stress / norm
	}
	return &Model{Y: y, Cost: stress, Iterations: min(it+1, maxIter)}, nil
}

// parallel splits [0, n) into nw contiguous parts (fixed by n and nw only) and runs them.
func parallel(n, nw int, f func(w, lo, hi int)) {
	var wg sync.WaitGroup
	for w := 0; w < nw; w++ {
		lo, hi := w*n/nw, (w+1)*n/nw
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w, lo, hi)
		}()
	}
	wg.Wait()
}

func numCPU() int { return runtime.NumCPU() }
