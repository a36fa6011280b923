package nervpaper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/mre"
	"github.com/lowdim/lowdim/baseline/nca"
	"github.com/lowdim/lowdim/baseline/sisomap"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/learnmetric"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/posterior"
	"github.com/lowdim/lowdim/reproduce"
)

// SupervisedLambdas are the two λ of supervised NeRV the paper ran (§5.3).
var SupervisedLambdas = []float64{0.1, 0.3}

// CVScore is one method's held-out 5-NN error in every cross-validation fold.
type CVScore struct {
	Method    string
	Errors    []float64 // fold f's error at index f
	Mean, Std float64   // over the folds (unbiased standard deviation)
	Seconds   float64   // wall time of all fits (mixtures and distances included for SNeRV)
}

// FoldMetric describes the learning metric of one fold.
type FoldMetric struct {
	Gaussians  int     // G chosen by the mixture's internal validation
	Width      float64 // s chosen likewise
	Perplexity float64 // k_eff = 0.5·n/G given to NeRV
	// Mixture is the fold's fitted discriminative mixture (eq. 10); PE embeds its posteriors.
	Mixture *posterior.Mixture
}

// Supervised is the result of the supervised experiment on one data set (paper §5.3–5.4).
type Supervised struct {
	Data              string
	N, Classes, Folds int
	Methods           []CVScore
	// Best indexes the smallest mean error and Second the smallest of another method family
	// (twoBest); Test is the paired t-test of their fold errors, as in the paper's Table 3.
	Best, Second int
	Test         reproduce.TTest
	Metrics      []FoldMetric // one per fold when SNeRV or PE ran
	// SIsomap and MRE are the settings those methods used in each fold, chosen by inner
	// validation (validate.go); empty when the method did not run.
	SIsomap []SIsomapChoice
	MRE     []MREChoice
	// Skipped names the rows of methods left out by Config.Methods.
	Skipped []string
	// Example is SNeRV λ = 0.1 of the first fold (nil when SNeRV did not run): every row
	// embedded, ExampleMap marks the held-out rows (their labels were hidden from the fit).
	Example    *mat.Dense
	ExampleMap []bool
	Labels     []int
	ClassNames []string
	Seconds    float64
}

// Folds splits 0..n−1 into k folds of nearly equal size by a permutation seeded with seed.
func Folds(n, k int, seed uint64) [][]int {
	perm := rand.New(rand.NewPCG(seed, 0x666f6c64)).Perm(n)
	folds := make([][]int, k)
	for r, i := range perm {
		folds[r%k] = append(folds[r%k], i)
	}
	return folds
}

// MinPerplexity is the smallest k_eff SNeRV gives NeRV.
const MinPerplexity = 5

// SNeRV is supervised NeRV composed from its parts (paper §5.1, METHODS.md §2): the
// discriminative mixture of eq. 10 fitted to the labelled rows of d (label −1 rows are ignored,
// which is how held-out rows are embedded without their labels), learning-metric distances
// between all rows along straight segments in 10 pieces, and NeRV on those distances with
// k_eff = 0.5·n/G (at least MinPerplexity). It is nerv.Supervised's pipeline, split so that one
// mixture and one distance matrix serve every λ (the paper's two λ then cost one mixture fit and
// one n×n learning-metric computation per fold instead of two); a test checks that both give the
// same embedding.
type SNeRV struct {
	Mixture posterior.DiscriminativeMixture
	Lambdas []float64
	Workers int
	// Iterations caps NeRV's final CG iterations (0 means nerv's default).
	Iterations int
	Seed       uint64
}

// Fit returns one embedding of all rows of d per λ, and the metric it used.
func (s SNeRV) Fit(ctx context.Context, d *dataset.Set) ([]*mat.Dense, FoldMetric, error) {
	mix, err := s.Mixture.Fit(ctx, d)
	if err != nil {
		return nil, FoldMetric{}, fmt.Errorf("discriminative mixture: %w", err)
	}
	dist, err := learnmetric.Distances(ctx, mix, d.X, learnmetric.Options{})
	if err != nil {
		return nil, FoldMetric{}, fmt.Errorf("learning metric: %w", err)
	}
	fm := foldMetric(mix, d.Len())
	out := make([]*mat.Dense, len(s.Lambdas))
	for i, lam := range s.Lambdas {
		m, err := nerv.Embedder{
			Lambda: nerv.Lambda(lam), Perplexity: fm.Perplexity, Distances: dist,
			Seed: s.Seed, Workers: s.Workers, Iterations: s.Iterations,
		}.Fit(ctx, d)
		if err != nil {
			return nil, fm, fmt.Errorf("NeRV λ=%g (k_eff %.1f) on learning-metric distances: %w", lam, fm.Perplexity, err)
		}
		out[i] = m.Embedding()
	}
	return out, fm, nil
}

// SupervisedMethods names the methods of §5 that Config.Methods selects from, in the report's
// row order: SNeRV (at both λ), PE, PCA, NCA, S-Isomap and MRE.
var SupervisedMethods = []string{"snerv", "pe", "pca", "nca", "sisomap", "mre"}

// supervisedRows maps a method of SupervisedMethods to its rows' names.
func supervisedRows(method string) []string {
	switch method {
	case "snerv":
		var out []string
		for _, lam := range SupervisedLambdas {
			out = append(out, fmt.Sprintf("SNeRV (λ = %g)", lam))
		}
		return out
	case "pe":
		return []string{"PE"}
	case "pca":
		return []string{"PCA"}
	case "nca":
		return []string{"NCA"}
	case "sisomap":
		return []string{"S-Isomap"}
	case "mre":
		return []string{"MRE"}
	}
	return nil
}

// foldMetric describes a fold's mixture, fitted to the labelled rows of n rows in all.
func foldMetric(mix *posterior.Mixture, n int) FoldMetric {
	g, _, _ := mix.Dims()
	fm := FoldMetric{Gaussians: g, Width: mix.Width, Perplexity: 0.5 * float64(n) / float64(g), Mixture: mix}
	// Floor and ceiling only bind on small quick runs (G close to n): a neighbourhood of two or
	// three points says little, and k_eff must stay below n−1.
	fm.Perplexity = math.Max(MinPerplexity, math.Min(fm.Perplexity, float64(n)/2))
	return fm
}

// RunSupervised runs c.Folds-fold cross-validation on d (already the random subset): in each fold
// the held-out rows are embedded with their labels hidden, by SNeRV at λ = 0.1 and 0.3, by
// Parametric Embedding of the same fold's discriminative mixture (fitted on the training rows'
// posteriors, held-out rows placed by Transform), by PCA (fitted on all rows; it never sees
// labels), by NCA (a linear map learnt from the training rows' labels), by supervised Isomap
// of the training rows with its out-of-sample network (α and K chosen by inner validation on
// the training rows, validate.go), and by MRE of all rows (baseline/mre: the held-out rows take
// part in its feature relation only, as the paper describes; σ_MRE chosen by inner validation
// likewise; at most c.MREIterations L-BFGS iterations, since at n = 1,500 one iteration costs
// about 0.15 s on a 2-core machine and the package's 1,000 would add half an hour per data
// set), and classified by 5-NN among the training rows in the embedding. Only the methods of
// c.Methods run. The two methods with the lowest mean error (of different families) are
// compared by a paired t-test.
func RunSupervised(ctx context.Context, c Config, d *dataset.Set) (*Supervised, error) {
	c.defaults()
	if !d.HasLabels() {
		return nil, dataset.Invalidf("reproduce: %s has no labels", d.Name)
	}
	start := time.Now()
	n := d.Len()
	folds := Folds(n, c.Folds, c.Seed)
	r := &Supervised{Data: d.Name, N: n, Classes: len(d.ClassNames), Folds: c.Folds, Labels: d.Labels, ClassNames: d.ClassNames}
	sel := func(m string) bool { return slices.Contains(c.Methods, m) }
	for _, m := range SupervisedMethods {
		if !sel(m) {
			r.Skipped = append(r.Skipped, supervisedRows(m)...)
			continue
		}
		for _, name := range supervisedRows(m) {
			r.Methods = append(r.Methods, CVScore{Method: name, Errors: make([]float64, c.Folds)})
		}
	}
	iters := 0
	if c.Quick {
		iters = 50
	}
	for f, test := range folds {
		inTest := make([]bool, n)
		for _, i := range test {
			inTest[i] = true
		}
		train := make([]int, 0, n-len(test))
		hidden := d.Subset(seq(n))
		hidden.Name = d.Name
		for i := range inTest {
			if inTest[i] {
				hidden.Labels[i] = -1
			} else {
				train = append(train, i)
			}
		}
		fail := func(what string, err error) error {
			return fmt.Errorf("reproduce: %s fold %d: %s%w", d.Name, f+1, what, err)
		}
		var (
			ys   []*mat.Dense
			secs []float64
			note []string // the fold's chosen settings, for the log
		)
		t0 := time.Now()
		took := func(y ...*mat.Dense) {
			for range y {
				secs = append(secs, time.Since(t0).Seconds()/float64(len(y)))
			}
			ys = append(ys, y...)
			t0 = time.Now()
		}
		var fm FoldMetric
		switch {
		case sel("snerv"):
			var sy []*mat.Dense
			var err error
			sy, fm, err = SNeRV{
				Mixture: posterior.DiscriminativeMixture{Seed: c.Seed + uint64(f), ValidationFolds: max(c.ValidationFolds, 0)},
				Lambdas: SupervisedLambdas, Workers: c.Workers, Iterations: iters, Seed: c.Seed,
			}.Fit(ctx, hidden)
			if err != nil {
				return nil, fail("", err)
			}
			took(sy...)
			if f == 0 {
				r.Example, r.ExampleMap = sy[0], inTest
			}
		case sel("pe"):
			// PE alone still needs the fold's mixture (not SNeRV's distances).
			mix, err := posterior.DiscriminativeMixture{Seed: c.Seed + uint64(f), ValidationFolds: max(c.ValidationFolds, 0)}.Fit(ctx, hidden)
			if err != nil {
				return nil, fail("discriminative mixture: ", err)
			}
			fm = foldMetric(mix, n)
			t0 = time.Now()
		}
		if fm.Mixture != nil {
			r.Metrics = append(r.Metrics, fm)
			note = append(note, fmt.Sprintf("G=%d s=%.3g k_eff=%.1f", fm.Gaussians, fm.Width, fm.Perplexity))
		}
		if sel("pe") {
			py, err := foldPE(ctx, c, fm.Mixture, d, train, test)
			if err != nil {
				return nil, fail("PE: ", err)
			}
			took(py)
		}
		if sel("pca") {
			pm, err := linproj.PCA{}.Fit(ctx, hidden)
			if err != nil {
				return nil, fail("PCA: ", err)
			}
			took(pm.Embedding())
		}
		if sel("nca") {
			// NCA learns its map from the training rows' labels; the held-out rows (label −1)
			// are embedded by the map only.
			nm, err := nca.NCA{MaxIter: iters}.Fit(ctx, hidden)
			if err != nil {
				return nil, fail("NCA: ", err)
			}
			took(nm.Embedding())
		}
		if sel("sisomap") {
			sy, ch, err := c.foldSIsomap(ctx, d, train, test, c.Seed+uint64(f))
			if err != nil {
				return nil, fail("S-Isomap: ", err)
			}
			took(sy)
			r.SIsomap = append(r.SIsomap, ch)
			note = append(note, fmt.Sprintf("S-Isomap α=%g K=%d", ch.Alpha, ch.K))
		}
		if sel("mre") {
			// MRE embeds every row at once, the held-out ones through the feature relation only.
			ch := MREChoice{Perplexity: mre.DefaultPerplexity, Error: math.NaN()}
			if c.InnerFolds > 0 {
				var err error
				if ch, err = c.validateMRE(ctx, d, train, c.Seed+uint64(f)); err != nil {
					return nil, fail("", err)
				}
			}
			mm, err := mre.MRE{Perplexity: ch.Perplexity, MaxIter: c.MREIterations, Workers: c.Workers}.Fit(ctx, hidden)
			if err != nil {
				return nil, fail("MRE: ", err)
			}
			ch.Sigma = mm.(*mre.Model).Sigma
			took(mm.Embedding())
			r.MRE = append(r.MRE, ch)
			note = append(note, fmt.Sprintf("MRE perplexity %g (σ %.3g)", ch.Perplexity, ch.Sigma))
		}
		var errs, times []string
		for m, y := range ys {
			e, err := reproduce.HeldOutKNNError(y, d.Labels, train, test, 5)
			if err != nil {
				return nil, fail("", err)
			}
			r.Methods[m].Errors[f] = e
			r.Methods[m].Seconds += secs[m]
			errs = append(errs, fmt.Sprintf("%s %.3f", r.Methods[m].Method, e))
			times = append(times, fmt.Sprintf("%s %.1fs", r.Methods[m].Method, secs[m]))
		}
		c.logf("%s: fold %d/%d  %s  5-NN test error: %s  (%s)", d.Name, f+1, c.Folds, strings.Join(note, ", "), strings.Join(errs, ", "), strings.Join(times, ", "))
	}
	for m := range r.Methods {
		r.Methods[m].Mean, r.Methods[m].Std = reproduce.MeanStd(r.Methods[m].Errors)
	}
	r.Best, r.Second = twoBest(r.Methods)
	r.Test = reproduce.TTest{T: math.NaN(), P: math.NaN()}
	if r.Second >= 0 {
		t, err := reproduce.PairedTTest(r.Methods[r.Best].Errors, r.Methods[r.Second].Errors)
		if err != nil {
			return nil, err
		}
		r.Test = t
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// foldPE embeds one fold by Parametric Embedding of the fold's discriminative mixture: the
// posteriors p̂(c|x) of the training rows are fitted by pe.FitPosteriors, and the held-out rows
// are placed by the fitted model's Transform of their own p̂(c|x) (their labels are never used).
// It returns every row's coordinates (rows in neither list stay at the origin).
func foldPE(ctx context.Context, c Config, mix *posterior.Mixture, d *dataset.Set, train, test []int) (*mat.Dense, error) {
	rows := func(idx []int) *mat.Dense {
		x := mat.NewDense(len(idx), d.Dim(), nil)
		for a, i := range idx {
			x.SetRow(a, d.X.RawRowView(i))
		}
		return x
	}
	var ptrain, ptest mat.Dense
	if err := mix.Posteriors(&ptrain, rows(train)); err != nil {
		return nil, err
	}
	if err := mix.Posteriors(&ptest, rows(test)); err != nil {
		return nil, err
	}
	m, err := pe.Embedder{Seed: c.Seed, Workers: c.Workers, Normalize: true}.FitPosteriors(ctx, &ptrain)
	if err != nil {
		return nil, err
	}
	_, dim := m.Y.Dims()
	yt := mat.NewDense(len(test), dim, nil)
	if err := m.TransformPosteriors(ctx, yt, &ptest, true); err != nil {
		return nil, err
	}
	y := mat.NewDense(d.Len(), dim, nil)
	for a, i := range train {
		y.SetRow(i, m.Y.RawRowView(a))
	}
	for a, i := range test {
		y.SetRow(i, yt.RawRowView(a))
	}
	return y, nil
}

// SIsomapKs are the graph sizes S-Isomap tries, smallest first; each is twice the one before, so
// that 2K₀ (validate.go) is the next one.
var SIsomapKs = []int{10, 20, 40, 80, 160}

// foldSIsomap embeds one fold by supervised Isomap (Geng et al. 2005) of the training rows and
// places the held-out rows by the model's out-of-sample network, which sees their features
// only. α and K are chosen by c.validateSIsomap on the training rows (K₀ or 2K₀, K₀ the
// smallest K of SIsomapKs whose graph is connected: the label-aware dissimilarity keeps a row's
// nearest rows in its class, so small K leaves one component per class or group of classes);
// without validation α is the package default and K is K₀. It returns every row's coordinates
// and the choice.
func (c *Config) foldSIsomap(ctx context.Context, d *dataset.Set, train, test []int, seed uint64) (*mat.Dense, SIsomapChoice, error) {
	ch := SIsomapChoice{Alpha: sisomap.DefaultAlpha, Error: math.NaN()}
	if c.InnerFolds > 0 {
		var err error
		if ch, err = c.validateSIsomap(ctx, d, train, seed); err != nil {
			return nil, ch, err
		}
	}
	// The outer fits keep the run's seed for the network's centres, as before validation.
	y, k, err := sisomapEmbed(ctx, c.Seed, d, train, test, ch.Alpha, SIsomapKs)
	if err == nil && ch.Double {
		y, k, err = sisomapEmbed(ctx, c.Seed, d, train, test, ch.Alpha, []int{2 * k})
	}
	ch.K = k
	return y, ch, err
}

// twoBest returns the index of the smallest mean error and of the smallest among the methods of
// another family (first on ties). A family is the name before " (": the two SNeRV λ are one
// method with two settings, and the paper's Table 3 tests the best method against the best
// *other* method (on Letter SNeRV against PE), not one setting against another.
func twoBest(ms []CVScore) (best, second int) {
	best, second = -1, -1
	for i, m := range ms {
		if best < 0 || m.Mean < ms[best].Mean {
			best = i
		}
	}
	for i, m := range ms {
		if family(m.Method) != family(ms[best].Method) && (second < 0 || m.Mean < ms[second].Mean) {
			second = i
		}
	}
	return best, second
}

// family is a method's name without its setting: "SNeRV (λ = 0.1)" → "SNeRV".
func family(name string) string {
	if i := strings.Index(name, " ("); i >= 0 {
		return name[:i]
	}
	return name
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
