package nervpaper

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/quality"
	"github.com/lowdim/lowdim/reproduce"
)

// Score holds the measures of one embedding of one data set.
type Score struct {
	Method string
	// Lambda is NeRV's λ; NaN for methods without one.
	Lambda float64
	// KNNError is the leave-one-out 5-NN classification error in the embedding (paper Table 2).
	KNNError float64
	// RankPrecision and RankRecall are 1 − the normalised rank-based losses (quality.RankBased),
	// F their harmonic mean 2PR/(P+R): the paper's parameter-selection criterion (§4.3.2).
	RankPrecision, RankRecall, F float64
	// SmoothedPrecisionLoss and SmoothedRecallLoss are the mean KL(q_i‖p_i) and KL(p_i‖q_i)
	// with 20 effective neighbours (quality.Smoothed, dredviz klmeasure's conventions).
	SmoothedPrecisionLoss, SmoothedRecallLoss float64
	// Trustworthiness and Continuity at k = 20.
	Trustworthiness, Continuity float64
	Seconds                     float64 // wall time of the fit (not of the evaluation)
	// Start is 0 for the PCA start and r for the r-th random start (Config.RandomStarts).
	Start int
	Y     *mat.Dense
}

// Unsupervised is the result of the unsupervised experiment on one data set (paper §4.5, Table 2).
type Unsupervised struct {
	Data       string
	N, Classes int
	// Sweep holds NeRV at every λ of the grid, in grid order; Best indexes the λ with the largest
	// F-measure (the first on ties).
	Sweep []Score
	Best  int
	// Restarts holds, for every λ of the grid, the fit with the largest F among the PCA start
	// and the random starts (Config.RandomStarts; nil without them), and RestartBest the λ
	// chosen among those: the paper's protocol.
	Restarts    []Score
	RestartBest int
	// Methods holds PCA, classical MDS, t-SNE and NeRV at the chosen λ (from the PCA start).
	Methods []Score
	// Paper is the paper's NeRV 5-NN error for this data set (Table 2), NaN if it has none.
	Paper float64
	// Baselines are Table 2's other rows computed with lowdim's methods (baselines.go).
	Baselines  []Baseline
	Labels     []int
	ClassNames []string
	Seconds    float64
}

// PaperTable2 holds the NeRV row of the paper's Table 2 (5-NN error, n = 1,500 subsets).
var PaperTable2 = map[string]float64{"Letter": 0.532, "Phoneme": 0.079, "Landsat": 0.139}

// DefaultLambdas is the λ grid of the F-measure rule: 0, 0.1, …, 1.
func DefaultLambdas() []float64 {
	g := make([]float64, 11)
	for i := range g {
		g[i] = float64(i) / 10
	}
	return g
}

// score measures the embedding y of d.
func (c *Config) score(ctx context.Context, method string, lambda float64, d *dataset.Set, y *mat.Dense, secs float64) (Score, error) {
	r, err := quality.Evaluate(ctx, d.X, y, d.Labels, quality.Options{Workers: c.Workers})
	if err != nil {
		return Score{}, fmt.Errorf("reproduce: measuring %s on %s: %w", method, d.Name, err)
	}
	s := Score{
		Method: method, Lambda: lambda, KNNError: math.NaN(),
		RankPrecision: 1 - r.RankPrecisionLoss, RankRecall: 1 - r.RankRecallLoss,
		SmoothedPrecisionLoss: r.SmoothedPrecisionLoss, SmoothedRecallLoss: r.SmoothedRecallLoss,
		Trustworthiness: r.Trustworthiness[len(r.Trustworthiness)-1],
		Continuity:      r.Continuity[len(r.Continuity)-1],
		Seconds:         secs, Y: y,
	}
	s.F = fMeasure(s.RankPrecision, s.RankRecall)
	if r.KNNError != nil {
		s.KNNError = *r.KNNError
	}
	return s, nil
}

// fMeasure is 2PR/(P+R), 0 when P+R = 0.
func fMeasure(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// fitNeRV runs NeRV (or t-SNE) on d and returns the coordinates and the wall time.
func (c *Config) fitNeRV(ctx context.Context, e nerv.Embedder, d *dataset.Set) (*mat.Dense, float64, error) {
	return c.fitNeRVSeed(ctx, e, d, c.Seed)
}

// fitNeRVSeed is fitNeRV with the embedding's own seed (a random start's).
func (c *Config) fitNeRVSeed(ctx context.Context, e nerv.Embedder, d *dataset.Set, seed uint64) (*mat.Dense, float64, error) {
	e.Seed = seed
	e.Workers = c.Workers
	if c.Quick && e.Iterations == 0 {
		e.Iterations = 50
	}
	start := time.Now()
	m, err := e.Fit(ctx, d)
	if err != nil {
		return nil, 0, err
	}
	return m.Embedding(), time.Since(start).Seconds(), nil
}

// RunUnsupervised runs the unsupervised experiment on d (already the random subset): NeRV at
// every λ of c's grid, the λ with the best rank-based F-measure, and PCA, classical MDS and
// t-SNE for comparison, each measured by the leave-one-out 5-NN error and the quality measures.
func RunUnsupervised(ctx context.Context, c Config, d *dataset.Set) (*Unsupervised, error) {
	c.defaults()
	start := time.Now()
	u := &Unsupervised{Data: d.Name, N: d.Len(), Classes: len(d.ClassNames), Labels: d.Labels, ClassNames: d.ClassNames, Paper: math.NaN()}
	if p, ok := PaperTable2[d.Name]; ok {
		u.Paper = p
	}
	sweep, best, restarts, rbest, err := c.sweep(ctx, d)
	if err != nil {
		return nil, err
	}
	u.Sweep, u.Best, u.Restarts, u.RestartBest = sweep, best, restarts, rbest

	t0 := time.Now()
	pm, err := linproj.PCA{}.Fit(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("reproduce: PCA on %s: %w", d.Name, err)
	}
	pca, err := c.score(ctx, "PCA", math.NaN(), d, pm.Embedding(), time.Since(t0).Seconds())
	if err != nil {
		return nil, err
	}

	// Classical MDS straight from the n×n Euclidean distance matrix (not cmds.CMDS.Fit, which
	// takes the PCA route above DirectLimit): an independent computation of what, for Euclidean
	// distances, must equal PCA up to rounding.
	t0 = time.Now()
	dist := reproduce.Euclidean(d.X)
	mm, err := cmds.FromDistances(ctx, dist, 2)
	if err != nil {
		return nil, fmt.Errorf("reproduce: classical MDS on %s: %w", d.Name, err)
	}
	mds, err := c.score(ctx, "classical MDS", math.NaN(), d, mm.Y, time.Since(t0).Seconds())
	if err != nil {
		return nil, err
	}
	c.logf("%s: PCA 5-NN error %.3f, classical MDS %.3f", d.Name, pca.KNNError, mds.KNNError)

	y, secs, err := c.fitNeRV(ctx, nerv.Embedder{Variant: nerv.StudentT, Lambda: nerv.Lambda(1)}, d)
	if err != nil {
		return nil, fmt.Errorf("reproduce: t-SNE on %s: %w", d.Name, err)
	}
	tsne, err := c.score(ctx, "t-SNE", math.NaN(), d, y, secs)
	if err != nil {
		return nil, err
	}
	c.logf("%s: t-SNE 5-NN error %.3f  fit %.1fs", d.Name, tsne.KNNError, secs)
	u.Methods = []Score{pca, mds, tsne, u.Sweep[u.Best]}
	if u.Baselines, err = c.baselines(ctx, d); err != nil {
		return nil, err
	}
	u.Seconds = time.Since(start).Seconds()
	return u, nil
}

// sweep fits NeRV at every λ of c's grid from the PCA start and returns the scores and the
// index of the largest rank-based F-measure (the first on ties). With random starts it also
// returns, per λ, the best-F fit among the PCA start and the random starts, and the λ chosen
// among those.
func (c *Config) sweep(ctx context.Context, d *dataset.Set) (out []Score, best int, restarts []Score, rbest int, err error) {
	for i, lam := range c.Lambdas {
		y, secs, err := c.fitNeRV(ctx, nerv.Embedder{Lambda: nerv.Lambda(lam)}, d)
		if err != nil {
			return nil, 0, nil, 0, fmt.Errorf("reproduce: NeRV λ=%g on %s: %w", lam, d.Name, err)
		}
		s, err := c.score(ctx, "NeRV", lam, d, y, secs)
		if err != nil {
			return nil, 0, nil, 0, err
		}
		c.logf("%s: NeRV λ=%.2f  F=%.4f (P=%.4f R=%.4f)  smoothed losses P %.4f R %.4f  5-NN error %.3f  fit %.1fs",
			d.Name, lam, s.F, s.RankPrecision, s.RankRecall, s.SmoothedPrecisionLoss, s.SmoothedRecallLoss, s.KNNError, secs)
		out = append(out, s)
		if s.F > out[best].F {
			best = i
		}
		if c.RandomStarts == 0 {
			continue
		}
		kept := s
		for r := 1; r <= c.RandomStarts; r++ {
			e := nerv.Embedder{Lambda: nerv.Lambda(lam), Init: nerv.InitRandom}
			y, secs, err := c.fitNeRVSeed(ctx, e, d, c.Seed+uint64(r))
			if err != nil {
				return nil, 0, nil, 0, fmt.Errorf("reproduce: NeRV λ=%g on %s, random start %d: %w", lam, d.Name, r, err)
			}
			sr, err := c.score(ctx, "NeRV", lam, d, y, secs)
			if err != nil {
				return nil, 0, nil, 0, err
			}
			sr.Start = r
			c.logf("%s: NeRV λ=%.2f random start %d  F=%.4f  5-NN error %.3f  fit %.1fs", d.Name, lam, r, sr.F, sr.KNNError, secs)
			if sr.F > kept.F {
				kept = sr
			}
		}
		restarts = append(restarts, kept)
		if kept.F > restarts[rbest].F {
			rbest = i
		}
	}
	return out, best, restarts, rbest, nil
}
