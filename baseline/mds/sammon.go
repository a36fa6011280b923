package mds

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// Sammon is Sammon's (1969) non-linear mapping.
type Sammon struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// MaxIter caps the L-BFGS iterations; 0 means 500.
	MaxIter int
	// Init is the starting configuration (n×D); nil means the PCA projection (classical MDS).
	Init *mat.Dense
	// Progress, if not nil, receives ("sammon", iteration, MaxIter) reports.
	Progress lowdim.Progress
}

var _ lowdim.Embedder = Sammon{}

// Fit embeds d.X. The returned *Model's Cost is Sammon's stress E at Y.
func (s Sammon) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil {
		return nil, dataset.Invalidf("sammon: no data")
	}
	delta, n, err := euclidean(ctx, "sammon", d.X)
	if err != nil {
		return nil, err
	}
	dim, err := dimOf(s.Dim, n, "sammon")
	if err != nil {
		return nil, err
	}
	maxIter := s.MaxIter
	if maxIter == 0 {
		maxIter = 500
	}
	if maxIter < 0 {
		return nil, dataset.Invalidf("sammon: MaxIter %d: expected a positive number", maxIter)
	}
	y0 := s.Init
	if y0 == nil {
		pm, err := linproj.PCA{Dim: dim}.Fit(ctx, d)
		if err != nil {
			return nil, err
		}
		y0 = pm.Embedding()
	} else if r, c := y0.Dims(); r != n || c != dim {
		return nil, dataset.Invalidf("sammon: Init is %d×%d, want %d×%d", r, c, n, dim)
	}
	st := newSammonStress(delta, n, dim)
	if st.c == 0 {
		return nil, dataset.Invalidf("sammon: all %d points coincide", n)
	}
	x0 := mat.DenseCopyOf(y0).RawMatrix().Data
	iter := 0
	p := optimize.Problem{
		Func: func(x []float64) float64 { return st.eval(x, nil) },
		Grad: func(g, x []float64) { st.eval(x, g) },
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		MajorIterations:   maxIter,
		GradientThreshold: 1e-10,
		Converger:         &optimize.FunctionConverge{Relative: 1e-10, Iterations: 20},
		Recorder: recorderFunc(func() {
			iter++
			s.Progress.Report("sammon", iter, maxIter)
		}),
	}
	res, err := optimize.Minimize(p, x0, settings, &optimize.LBFGS{})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, err
	}
	// Stopping at MaxIter or on a line-search failure still leaves a usable embedding (each
	// accepted step lowered E); only a non-finite result is an error.
	if math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return nil, dataset.Invalidf("sammon: the stress became %v", res.F)
	}
	return &Model{Y: mat.NewDense(n, dim, res.X), Cost: res.F, Iterations: res.Stats.MajorIterations}, nil
}

// recorderFunc adapts a function to optimize.Recorder, called once per major iteration.
type recorderFunc func()

func (recorderFunc) Init() error { return nil }
func (f recorderFunc) Record(_ *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op == optimize.MajorIteration {
		f()
	}
	return nil
}

// sammonStress evaluates E = (1/c) Σ_{i<j, δ_ij>0} (δ_ij − d_ij)²/δ_ij and its gradient
// ∂E/∂y_i = (2/c) Σ_{j: δ_ij>0} (d_ij − δ_ij)/(δ_ij d_ij) (y_i − y_j) (terms with d_ij = 0
// are 0, the subgradient).
type sammonStress struct {
	delta  []float64
	n, dim int
	c      float64
	row    []float64
}

func newSammonStress(delta []float64, n, dim int) *sammonStress {
	c := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			c += delta[i*n+j]
		}
	}
	return &sammonStress{delta: delta, n: n, dim: dim, c: c, row: make([]float64, n)}
}

func (s *sammonStress) eval(y, grad []float64) float64 {
	n, dim := s.n, s.dim
	parallel(n, min(n, numCPU()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			yi := y[i*dim : (i+1)*dim]
			var gi []float64
			if grad != nil {
				gi = grad[i*dim : (i+1)*dim]
				for c := range gi {
					gi[c] = 0
				}
			}
			sum := 0.0
			for j := 0; j < n; j++ {
				dl := s.delta[i*n+j]
				if j == i || dl == 0 {
					continue
				}
				yj := y[j*dim : (j+1)*dim]
				dd := 0.0
				for c, v := range yi {
					e := v - yj[c]
					dd += e * e
				}
				d := math.Sqrt(dd)
				e := dl - d
				sum += e * e / dl
				if gi != nil && d > 0 {
					f := 2 * (d - dl) / (dl * d * s.c)
					for c, v := range yi {
						gi[c] += f * (v - yj[c])
					}
				}
			}
			s.row[i] = sum
		}
	})
	tot := 0.0
	for _, v := range s.row {
		tot += v
	}
	return tot / 2 / s.c
}
