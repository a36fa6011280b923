package nervpaper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
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
	Metrics      []FoldMetric
	// SIsomapK is the graph size S-Isomap used in each fold (foldSIsomap).
	SIsomapK []int
	// Example is SNeRV λ = 0.1 of the first fold: every row embedded, Test marks the held-out
	// rows (their labels were hidden from the fit).
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
	g, _, _ := mix.Dims()
	n := d.Len()
	fm := FoldMetric{Gaussians: g, Width: mix.Width, Perplexity: 0.5 * float64(n) / float64(g), Mixture: mix}
	// Floor and ceiling only bind on small quick runs (G close to n): a neighbourhood of two or
	// three points says little, and k_eff must stay below n−1.
	fm.Perplexity = math.Max(MinPerplexity, math.Min(fm.Perplexity, float64(n)/2))
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

// RunSupervised runs c.Folds-fold cross-validation on d (already the random subset): in each fold
// the held-out rows are embedded with their labels hidden, by SNeRV at λ = 0.1 and 0.3, by
// Parametric Embedding of the same fold's discriminative mixture (fitted on the training rows'
// posteriors, held-out rows placed by Transform), by PCA (fitted on all rows; it never sees
// labels), by NCA (a linear map learnt from the training rows' labels) and by supervised Isomap
// of the training rows with its out-of-sample network (foldSIsomap), and by MRE of all rows
// (baseline/mre: the held-out rows take part in its feature relation only, as the paper
// describes; σ_MRE at the package's default, a mean perplexity of 30, where the paper chose it
// by internal validation; at most c.MREIterations L-BFGS iterations, since at n = 1,500 one
// iteration costs about 0.2 s on a loaded 2-core machine and the package's 1,000 would add
// half an hour per data set), and classified by 5-NN among the training rows in the
// embedding. The two methods with the lowest mean error are compared by a paired t-test.
func RunSupervised(ctx context.Context, c Config, d *dataset.Set) (*Supervised, error) {
	c.defaults()
	if !d.HasLabels() {
		return nil, dataset.Invalidf("reproduce: %s has no labels", d.Name)
	}
	start := time.Now()
	n := d.Len()
	folds := Folds(n, c.Folds, c.Seed)
	r := &Supervised{Data: d.Name, N: n, Classes: len(d.ClassNames), Folds: c.Folds, Labels: d.Labels, ClassNames: d.ClassNames}
	names := make([]string, 0, len(SupervisedLambdas)+2)
	for _, lam := range SupervisedLambdas {
		names = append(names, fmt.Sprintf("SNeRV (λ = %g)", lam))
	}
	names = append(names, "PE", "PCA", "NCA", "S-Isomap", "MRE")
	r.Methods = make([]CVScore, len(names))
	for m := range names {
		r.Methods[m] = CVScore{Method: names[m], Errors: make([]float64, c.Folds)}
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
		t0 := time.Now()
		ys, fm, err := SNeRV{
			Mixture: posterior.DiscriminativeMixture{Seed: c.Seed + uint64(f), ValidationFolds: max(c.ValidationFolds, 0)},
			Lambdas: SupervisedLambdas, Workers: c.Workers, Iterations: iters, Seed: c.Seed,
		}.Fit(ctx, hidden)
		if err != nil {
			return nil, fmt.Errorf("reproduce: %s fold %d: %w", d.Name, f+1, err)
		}
		secs := make([]float64, len(names))
		for m := range SupervisedLambdas {
			secs[m] = time.Since(t0).Seconds() / float64(len(SupervisedLambdas))
		}
		r.Metrics = append(r.Metrics, fm)
		t0 = time.Now()
		py, err := foldPE(ctx, c, fm.Mixture, d, train, test)
		if err != nil {
			return nil, fmt.Errorf("reproduce: %s fold %d: PE: %w", d.Name, f+1, err)
		}
		ys = append(ys, py)
		secs[len(SupervisedLambdas)] = time.Since(t0).Seconds()
		t0 = time.Now()
		pm, err := linproj.PCA{}.Fit(ctx, hidden)
		if err != nil {
			return nil, fmt.Errorf("reproduce: %s fold %d: PCA: %w", d.Name, f+1, err)
		}
		ys = append(ys, pm.Embedding())
		secs[len(SupervisedLambdas)+1] = time.Since(t0).Seconds()
		// NCA learns its map from the training rows' labels; the held-out rows (label −1) are
		// embedded by the map only.
		t0 = time.Now()
		nm, err := nca.NCA{MaxIter: iters}.Fit(ctx, hidden)
		if err != nil {
			return nil, fmt.Errorf("reproduce: %s fold %d: NCA: %w", d.Name, f+1, err)
		}
		ys = append(ys, nm.Embedding())
		secs[len(SupervisedLambdas)+2] = time.Since(t0).Seconds()
		t0 = time.Now()
		sy, sk, err := foldSIsomap(ctx, c, d, train, test)
		if err != nil {
			return nil, fmt.Errorf("reproduce: %s fold %d: S-Isomap: %w", d.Name, f+1, err)
		}
		ys = append(ys, sy)
		r.SIsomapK = append(r.SIsomapK, sk)
		secs[len(SupervisedLambdas)+3] = time.Since(t0).Seconds()
		// MRE embeds every row at once, the held-out ones through the feature relation only.
		t0 = time.Now()
		mm, err := mre.MRE{MaxIter: c.MREIterations, Workers: c.Workers}.Fit(ctx, hidden)
		if err != nil {
			return nil, fmt.Errorf("reproduce: %s fold %d: MRE: %w", d.Name, f+1, err)
		}
		ys = append(ys, mm.Embedding())
		secs[len(SupervisedLambdas)+4] = time.Since(t0).Seconds()
		for m, y := range ys {
			e, err := reproduce.HeldOutKNNError(y, d.Labels, train, test, 5)
			if err != nil {
				return nil, fmt.Errorf("reproduce: %s fold %d: %w", d.Name, f+1, err)
			}
			r.Methods[m].Errors[f] = e
			r.Methods[m].Seconds += secs[m]
		}
		if f == 0 {
			r.Example, r.ExampleMap = ys[0], inTest
		}
		c.logf("%s: fold %d/%d  G=%d s=%.3g k_eff=%.1f  5-NN test error: SNeRV 0.1 %.3f, SNeRV 0.3 %.3f, PE %.3f, PCA %.3f, NCA %.3f, S-Isomap %.3f (K %d), MRE %.3f  (SNeRV %.1fs, PE %.2fs, S-Isomap %.1fs, MRE %.1fs)",
			d.Name, f+1, c.Folds, fm.Gaussians, fm.Width, fm.Perplexity,
			r.Methods[0].Errors[f], r.Methods[1].Errors[f], r.Methods[2].Errors[f], r.Methods[3].Errors[f], r.Methods[4].Errors[f], r.Methods[5].Errors[f], sk, r.Methods[6].Errors[f],
			secs[0]*float64(len(SupervisedLambdas)), secs[len(SupervisedLambdas)], secs[len(SupervisedLambdas)+3], secs[len(SupervisedLambdas)+4])
	}
	for m := range r.Methods {
		r.Methods[m].Mean, r.Methods[m].Std = reproduce.MeanStd(r.Methods[m].Errors)
	}
	r.Best, r.Second = twoBest(r.Methods)
	t, err := reproduce.PairedTTest(r.Methods[r.Best].Errors, r.Methods[r.Second].Errors)
	if err != nil {
		return nil, err
	}
	r.Test = t
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

// SIsomapKs are the graph sizes foldSIsomap tries, smallest first.
var SIsomapKs = []int{10, 20, 40, 80, 160}

// foldSIsomap embeds one fold by supervised Isomap (Geng et al. 2005) of the training rows, with
// the smallest K of SIsomapKs whose graph is connected (the label-aware dissimilarity keeps a
// row's nearest rows in its class, so small K leaves one component per class or group of
// classes; the paper does not say how it chose K), and places the held-out rows by the model's
// out-of-sample network, which sees their features only. It returns every row's coordinates and
// the K used.
func foldSIsomap(ctx context.Context, c Config, d *dataset.Set, train, test []int) (*mat.Dense, int, error) {
	tr := d.Subset(train)
	var (
		m   lowdim.Model
		err error
		k   int
	)
	for _, k = range SIsomapKs {
		if k >= len(train) {
			break
		}
		m, err = sisomap.SIsomap{K: k, Seed: c.Seed}.Fit(ctx, tr)
		var de *sisomap.DisconnectedError
		if !errors.As(err, &de) {
			break
		}
	}
	if err != nil {
		return nil, k, err
	}
	sm, ok := m.(*sisomap.Model)
	if !ok {
		return nil, k, dataset.Invalidf("S-Isomap: %d training rows are too few for K = %d", len(train), SIsomapKs[0])
	}
	_, dim := sm.Y.Dims()
	xt := mat.NewDense(len(test), d.Dim(), nil)
	for a, i := range test {
		xt.SetRow(a, d.X.RawRowView(i))
	}
	yt := mat.NewDense(len(test), dim, nil)
	if err := sm.Transform(yt, xt); err != nil {
		return nil, k, err
	}
	y := mat.NewDense(d.Len(), dim, nil)
	for a, i := range train {
		y.SetRow(i, sm.Y.RawRowView(a))
	}
	for a, i := range test {
		y.SetRow(i, yt.RawRowView(a))
	}
	return y, k, nil
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
