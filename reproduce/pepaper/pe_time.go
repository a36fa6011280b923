package pepaper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/reproduce"
)

// TimeClasses is K of the synthetic posteriors of the timing section.
const TimeClasses = 10

// DirichletConcentration is the concentration of pe.DirichletMixture in the timing section.
const DirichletConcentration = 5

// PETimeRow is one timed fit size.
type PETimeRow struct {
	N       int
	Seconds float64 // median wall time of pe.FitPosteriors over the repeats
	// Iterations, Sweeps and NewtonSteps are those of the median run (pe.Model's fields);
	// WarmupRows is the warm-up sample (0: none).
	Iterations, Sweeps, NewtonSteps, WarmupRows int
}

// PETimeSeries is one kind of input timed at every size.
type PETimeSeries struct {
	Name string
	K    int
	Rows []PETimeRow
	// Slope is the log-log regression slope of Seconds on n over all sizes; SlopeSmall over
	// n ≤ 10,000 (the paper's range was 500–5,000).
	Slope, SlopeSmall float64
}

// PETime is the timing experiment (paper §5.5, Fig. 3–4, Table 2).
type PETime struct {
	Sizes   []int
	Repeats int
	Series  []PETimeSeries // Dirichlet, Dirichlet without warm-up, real posteriors
	Seconds float64
}

// PETimeSizes returns 1e3, 3e3, 5e3 (the paper's largest), 1e4, 3e4, … up to max.
func PETimeSizes(max int) []int {
	var s []int
	for _, n := range []int{1000, 3000, 5000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000} {
		if n <= max {
			s = append(s, n)
		}
	}
	return s
}

// RunPETime times pe.FitPosteriors (defaults: MDS start, η's scaled with n) on K = 10
// Dirichlet-mixture posteriors at every size, the same without the warm-up sample (only the
// sizes where the warm-up applies, n > 2·pe.DefaultWarmup), and on the real posteriors real
// (n×K rows, tiled in a seeded random order, or subsampled, to each size).
func RunPETime(ctx context.Context, c PEConfig, real *mat.Dense) (*PETime, error) {
	c.defaults()
	start := time.Now()
	r := &PETime{Sizes: PETimeSizes(c.TimeMax), Repeats: c.TimeRepeats}
	fit := func(p *mat.Dense, e pe.Embedder) (PETimeRow, error) {
		n, _ := p.Dims()
		times := make([]float64, c.TimeRepeats)
		models := make([]*pe.Model, c.TimeRepeats)
		for i := range times {
			t0 := time.Now()
			m, err := e.FitPosteriors(ctx, p)
			if err != nil {
				return PETimeRow{}, err
			}
			times[i], models[i] = time.Since(t0).Seconds(), m
		}
		sorted := append([]float64(nil), times...)
		med := reproduce.Median(sorted)
		m := models[0]
		for i, t := range times {
			if t == med {
				m = models[i]
			}
		}
		return PETimeRow{N: n, Seconds: med, Iterations: m.Iterations, Sweeps: m.Sweeps, NewtonSteps: m.NewtonSteps, WarmupRows: m.WarmupRows}, nil
	}
	dir := PETimeSeries{Name: "Dirichlet mixture", K: TimeClasses}
	plain := PETimeSeries{Name: "Dirichlet mixture, no warm-up", K: TimeClasses}
	rk := 0
	if real != nil {
		_, rk = real.Dims()
	}
	rs := PETimeSeries{Name: fmt.Sprintf("R8 naive Bayes (K = %d, tiled)", rk), K: rk}
	for _, n := range r.Sizes {
		p, _, err := pe.DirichletMixture(n, TimeClasses, DirichletConcentration, c.Seed)
		if err != nil {
			return nil, err
		}
		row, err := fit(p, pe.Embedder{Seed: c.Seed, Workers: c.Workers, Restarts: -1})
		if err != nil {
			return nil, fmt.Errorf("reproduce: timing PE at n = %d: %w", n, err)
		}
		dir.Rows = append(dir.Rows, row)
		if n > 2*pe.DefaultWarmup {
			if row, err = fit(p, pe.Embedder{Seed: c.Seed, Workers: c.Workers, Warmup: -1, Restarts: -1}); err != nil {
				return nil, fmt.Errorf("reproduce: timing PE without warm-up at n = %d: %w", n, err)
			}
		}
		plain.Rows = append(plain.Rows, row)
		p = nil
		line := fmt.Sprintf("time n=%d: Dirichlet %.2fs (%d it, %d sweeps), no warm-up %.2fs (%d it, %d sweeps)",
			n, dir.Rows[len(dir.Rows)-1].Seconds, dir.Rows[len(dir.Rows)-1].Iterations, dir.Rows[len(dir.Rows)-1].Sweeps,
			row.Seconds, row.Iterations, row.Sweeps)
		if real != nil {
			row, err := fit(tile(real, n, c.Seed), pe.Embedder{Seed: c.Seed, Workers: c.Workers, Normalize: true, Restarts: -1})
			if err != nil {
				return nil, fmt.Errorf("reproduce: timing PE on real posteriors at n = %d: %w", n, err)
			}
			rs.Rows = append(rs.Rows, row)
			line += fmt.Sprintf(", real %.2fs (%d it, %d sweeps)", row.Seconds, row.Iterations, row.Sweeps)
		}
		c.logf("%s", line)
	}
	r.Series = []PETimeSeries{dir, plain}
	if real != nil {
		r.Series = append(r.Series, rs)
	}
	for i := range r.Series {
		r.Series[i].Slope = logLogSlope(r.Series[i].Rows, math.MaxInt)
		r.Series[i].SlopeSmall = logLogSlope(r.Series[i].Rows, 10_000)
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// tile returns n rows of p: a seeded random order of its rows, repeated (with a fresh order per
// pass) as often as needed.
func tile(p *mat.Dense, n int, seed uint64) *mat.Dense {
	m, k := p.Dims()
	rng := rand.New(rand.NewPCG(seed, 0x74696c65))
	out := mat.NewDense(n, k, nil)
	var perm []int
	for i := 0; i < n; i++ {
		if i%m == 0 {
			perm = rng.Perm(m)
		}
		out.SetRow(i, p.RawRowView(perm[i%m]))
	}
	return out
}

// logLogSlope is the least-squares slope of log(seconds) on log(n) over the rows with n ≤ max
// (NaN with fewer than two).
func logLogSlope(rows []PETimeRow, max int) float64 {
	var x, y []float64
	for _, r := range rows {
		if r.N <= max && r.Seconds > 0 {
			x = append(x, math.Log(float64(r.N)))
			y = append(y, math.Log(r.Seconds))
		}
	}
	if len(x) < 2 {
		return math.NaN()
	}
	_, beta := stat.LinearRegression(x, y, nil, false)
	return beta
}
