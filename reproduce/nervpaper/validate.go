package nervpaper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/mre"
	"github.com/lowdim/lowdim/baseline/sisomap"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/reproduce"
)

// The NeRV paper chose the free parameters of two comparison methods "using the validation
// sets" (§5.3): S-Isomap's α and its number of neighbours K, and MRE's σ_MRE. It does not say
// how the validation sets were drawn; here they are inner folds of each outer fold's training
// rows, so that the outer held-out rows never inform a choice, and the score of a setting is
// what the outer evaluation measures: the 5-NN error of the inner held-out rows, placed as the
// method places new rows (S-Isomap by its out-of-sample network, MRE by fitting them
// unlabelled along with the labelled rows), voted on by the inner training rows.

// SIsomapAlphas is the α grid of S-Isomap's validation. Geng et al. define α ∈ (0, 1] (a
// different-class dissimilarity starts at 1 − α, so α → 0 keeps classes apart and α = 1 lets a
// close pair of different classes be as near as a same-class pair); the grid spans the middle of
// that range around the package default 0.5. Smaller α needs larger K for a connected graph:
// 0.25 already needs K = 20 on 900 Letter training rows where 0.5 is connected at K = 10.
var SIsomapAlphas = []float64{0.25, 0.5, 0.75}

// MREPerplexities is σ_MRE's grid, given as the mean perplexity of the feature relation's
// neighbourhoods (mre.MRE.Perplexity; the package default is 30): a factor of about 3 each way.
var MREPerplexities = []float64{10, 30, 100}

// SIsomapChoice is S-Isomap's setting in one outer fold.
type SIsomapChoice struct {
	Alpha float64
	// Double is the K choice: false is K₀, the smallest K of SIsomapKs whose graph is connected
	// at Alpha, true is 2K₀. K₀ is found anew on each training set (it grows with the rows), so
	// the choice carries over from the inner training parts to the outer training rows.
	Double bool
	// K is the K of the outer fit.
	K int
	// Error is the chosen candidate's mean inner held-out 5-NN error; NaN without validation.
	Error float64
}

// MREChoice is MRE's setting in one outer fold.
type MREChoice struct {
	// Perplexity is the mean perplexity that sets σ_MRE.
	Perplexity float64
	// Sigma is the σ_MRE of the outer fit (it depends on the rows as well as Perplexity).
	Sigma float64
	// Error is the chosen candidate's mean inner held-out 5-NN error; NaN without validation.
	Error float64
}

// innerSplits returns the validation splits of train (indices into the data set): the first
// c.InnerRounds of c.InnerFolds parts, each held out in turn.
func (c *Config) innerSplits(train []int, seed uint64) (trains, tests [][]int) {
	parts := Folds(len(train), c.InnerFolds, seed)
	for r := range c.InnerRounds {
		held := make([]bool, len(train))
		for _, a := range parts[r] {
			held[a] = true
		}
		var tr, te []int
		for a, i := range train {
			if held[a] {
				te = append(te, i)
			} else {
				tr = append(tr, i)
			}
		}
		trains, tests = append(trains, tr), append(tests, te)
	}
	return trains, tests
}

// sisomapEmbed fits S-Isomap at alpha to the train rows of d with the first K of ks whose graph
// is connected, places the test rows by the model's out-of-sample network (features only), and
// returns every row's coordinates (rows in neither list stay at the origin) and the K used. When
// every K leaves the graph disconnected the last *sisomap.DisconnectedError is returned.
func sisomapEmbed(ctx context.Context, seed uint64, d *dataset.Set, train, test []int, alpha float64, ks []int) (*mat.Dense, int, error) {
	tr := d.Subset(train)
	var (
		sm  *sisomap.Model
		err error
		k   int
	)
	for _, k = range ks {
		if k >= len(train) {
			break
		}
		var m lowdim.Model
		m, err = sisomap.SIsomap{K: k, Alpha: alpha, Seed: seed}.Fit(ctx, tr)
		var de *sisomap.DisconnectedError
		if errors.As(err, &de) {
			continue
		}
		if err != nil {
			return nil, k, err
		}
		sm = m.(*sisomap.Model)
		break
	}
	if sm == nil {
		if err == nil {
			err = dataset.Invalidf("S-Isomap: %d training rows are too few for K = %d", len(train), ks[0])
		}
		return nil, k, err
	}
	_, dim := sm.Y.Dims()
	y := mat.NewDense(d.Len(), dim, nil)
	for a, i := range train {
		y.SetRow(i, sm.Y.RawRowView(a))
	}
	if len(test) > 0 {
		xt := mat.NewDense(len(test), d.Dim(), nil)
		for a, i := range test {
			xt.SetRow(a, d.X.RawRowView(i))
		}
		yt := mat.NewDense(len(test), dim, nil)
		if err := sm.Transform(yt, xt); err != nil {
			return nil, k, err
		}
		for a, i := range test {
			y.SetRow(i, yt.RawRowView(a))
		}
	}
	return y, k, nil
}

// validateSIsomap chooses S-Isomap's α and K on the training rows train of d: every α of
// SIsomapAlphas at K₀ (the smallest connected K of SIsomapKs on the inner training part) and at
// 2K₀, scored by the mean inner held-out 5-NN error over the splits, the smallest kept (the
// first in grid order — smaller α, then smaller K — on ties). A candidate that leaves some
// inner graph disconnected at every K is out. The α are fitted concurrently, at most c.Workers
// at a time (0: one per CPU; an S-Isomap fit mostly runs on one core); the choice does not
// depend on the order.
func (c *Config) validateSIsomap(ctx context.Context, d *dataset.Set, train []int, seed uint64) (SIsomapChoice, error) {
	trains, tests := c.innerSplits(train, seed)
	na := len(SIsomapAlphas)
	sum := make([]float64, 2*na) // candidate 2a is (α_a, K₀), 2a+1 is (α_a, 2K₀)
	out := make([]bool, 2*na)
	for r := range trains {
		errs := make([]error, na)
		scores := make([]float64, 2*na)
		var wg sync.WaitGroup
		workers := c.Workers
		if workers == 0 {
			workers = runtime.NumCPU()
		}
		sem := make(chan struct{}, workers)
		for a, alpha := range SIsomapAlphas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				scores[2*a], scores[2*a+1] = math.NaN(), math.NaN()
				y, k0, err := sisomapEmbed(ctx, seed, d, trains[r], tests[r], alpha, SIsomapKs)
				if err != nil {
					errs[a] = err
					return
				}
				if scores[2*a], err = reproduce.HeldOutKNNError(y, d.Labels, trains[r], tests[r], 5); err != nil {
					errs[a] = err
					return
				}
				if 2*k0 >= len(trains[r]) {
					return
				}
				if y, _, err = sisomapEmbed(ctx, seed, d, trains[r], tests[r], alpha, []int{2 * k0}); err != nil {
					errs[a] = err
					return
				}
				scores[2*a+1], errs[a] = reproduce.HeldOutKNNError(y, d.Labels, trains[r], tests[r], 5)
			}()
		}
		wg.Wait()
		for a, err := range errs {
			if err != nil && !errors.Is(err, dataset.ErrInvalid) {
				return SIsomapChoice{}, fmt.Errorf("S-Isomap validation, α = %g: %w", SIsomapAlphas[a], err)
			}
		}
		for i, s := range scores {
			if math.IsNaN(s) {
				out[i] = true
			}
			sum[i] += s
		}
	}
	best := -1
	for i := range sum {
		if !out[i] && (best < 0 || sum[i] < sum[best]) {
			best = i
		}
	}
	if best < 0 {
		return SIsomapChoice{}, dataset.Invalidf("S-Isomap validation: no α of %v gave a connected graph with K ≤ %d in every inner split", SIsomapAlphas, SIsomapKs[len(SIsomapKs)-1])
	}
	return SIsomapChoice{Alpha: SIsomapAlphas[best/2], Double: best%2 == 1, Error: sum[best] / float64(len(trains))}, nil
}

// validateMRE chooses σ_MRE, as a mean perplexity of MREPerplexities, on the training rows train
// of d: in each inner split MRE embeds all training rows with the inner held-out part's labels
// hidden — how the outer evaluation places held-out rows — and the score is the mean 5-NN error
// of those rows among the others, the smallest kept (the smaller perplexity on ties; a perplexity
// not below the training rows less one is skipped, as MRE refuses it). The inner fits stop after
// c.MREIterations iterations, as the outer ones do.
func (c *Config) validateMRE(ctx context.Context, d *dataset.Set, train []int, seed uint64) (MREChoice, error) {
	trains, tests := c.innerSplits(train, seed)
	local := make(map[int]int, len(train))
	for a, i := range train {
		local[i] = a
	}
	truth := d.Subset(train).Labels
	sum := make([]float64, len(MREPerplexities))
	for r := range trains {
		hidden := d.Subset(train)
		tr, te := make([]int, len(trains[r])), make([]int, len(tests[r]))
		for a, i := range trains[r] {
			tr[a] = local[i]
		}
		for a, i := range tests[r] {
			te[a] = local[i]
			hidden.Labels[te[a]] = -1
		}
		for p, perp := range MREPerplexities {
			if perp >= float64(len(train)-1) {
				continue // mre needs more rows than that (only in small quick runs)
			}
			m, err := mre.MRE{Perplexity: perp, MaxIter: c.MREIterations, Workers: c.Workers}.Fit(ctx, hidden)
			if err != nil {
				return MREChoice{}, fmt.Errorf("MRE validation, perplexity %g: %w", perp, err)
			}
			e, err := reproduce.HeldOutKNNError(m.Embedding(), truth, tr, te, 5)
			if err != nil {
				return MREChoice{}, err
			}
			sum[p] += e
		}
	}
	best := -1
	for p, perp := range MREPerplexities {
		if perp < float64(len(train)-1) && (best < 0 || sum[p] < sum[best]) {
			best = p
		}
	}
	if best < 0 {
		return MREChoice{}, dataset.Invalidf("MRE validation: %d training rows are too few for any perplexity of %v", len(train), MREPerplexities)
	}
	return MREChoice{Perplexity: MREPerplexities[best], Error: sum[best] / float64(len(trains))}, nil
}
