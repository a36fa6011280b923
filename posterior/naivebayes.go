package posterior

import (
	"context"
	"math"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
)

// NaiveBayes fits a multinomial naive Bayes model to word counts (PE paper, Appendix C;
// McCallum & Nigam 1998). A document x (V counts) of class k is a bag of tokens drawn from
// θ_k, so p(x|c_k) ∝ Π_j θ_kj^{x_j}, and θ_k is the MAP estimate under a symmetric
// Dirichlet prior of smoothing λ_k:
//
//	θ_kj = (Σ_{i∈C_k} x_ij + λ_k) / (Σ_{i∈C_k} Σ_j x_ij + λ_k V)
//
// (the paper's denominator N_k + λ_k V is a typo: the counts are tokens, so the row sums
// enter). With Smoothing 0, each λ_k is chosen by exact leave-one-out cross-validation: it
// maximises
//
//	Σ_{i∈C_k} log p(x_i | θ_k^{(−i)}),   θ_kj^{(−i)} = (n_kj − x_ij + λ) / (N_k − L_i + λV),
//
// where n_kj and N_k are the class's word and token counts and L_i the length of document i;
// the document's counts are subtracted, nothing is refitted, and the sum runs over the
// non-zero counts only. λ ranges over [SmoothingMin, SmoothingMax]: a grid of quarter decades,
// then a golden-section search on log λ between the best grid point's neighbours. A class
// with a single document has a flat LOO likelihood (θ^{(−i)} is uniform whatever λ) and gets
// λ = 1 (Laplace).
//
// The class priors π_k are the relative frequencies of the labelled rows, or Priors when set.
// Rows labelled −1 (unknown) are ignored by the fit. Counts must be non-negative integers.
type NaiveBayes struct {
	// Smoothing is λ for every class; 0 means each λ_k is chosen by leave-one-out
	// cross-validation. Negative values are an error.
	Smoothing float64
	// Priors are the class priors π (K positive numbers, normalised to sum 1); nil means the
	// relative class frequencies of the labelled rows.
	Priors []float64
	// Progress, if not nil, receives ("naive bayes", classes done, K) reports during the
	// choice of λ.
	Progress lowdim.Progress
}

// The range of the leave-one-out search for λ_k.
const (
	SmoothingMin = 1e-3
	SmoothingMax = 10
)

// smoothingGridPerDecade is the number of grid points per decade of the λ search.
const smoothingGridPerDecade = 4

// NaiveBayesModel is a fitted multinomial naive Bayes model. The exported fields describe the
// fit and may be read freely; the parameters are reached through methods that copy them.
type NaiveBayesModel struct {
	// Lambda holds the smoothing λ_k of each class.
	Lambda []float64
	// LOOLogLikelihood holds, per class, Σ_{i∈C_k} log p(x_i | θ_k^{(−i)}) at λ_k (the full
	// multinomial log-probability, coefficient included).
	LOOLogLikelihood []float64
	// ClassDocs holds the number of labelled documents of each class.
	ClassDocs []int

	v          int
	counts     []float64 // K×V word counts n_kj
	tokens     []float64 // N_k
	logTheta   []float64 // V×K: log θ_kj at [j*K+k]
	logPrior   []float64 // log π_k
	fixedPrior bool      // priors were given, so leaving a document out does not change them
}

// Fit fits the model to the count matrix x (n×V) with labels (n values, −1 = unknown and
// ignored) for classes classes. Errors caused by the data or the settings wrap
// dataset.ErrInvalid.
func (nb NaiveBayes) Fit(ctx context.Context, x mat.Matrix, labels []int, classes int) (*NaiveBayesModel, error) {
	const what = "naive bayes"
	if nb.Smoothing < 0 || math.IsNaN(nb.Smoothing) || math.IsInf(nb.Smoothing, 0) {
		return nil, dataset.Invalidf("%s: Smoothing %v is not a non-negative number", what, nb.Smoothing)
	}
	if nb.Priors != nil {
		if len(nb.Priors) != classes {
			return nil, dataset.Invalidf("%s: %d priors for %d classes", what, len(nb.Priors), classes)
		}
		for c, p := range nb.Priors {
			if !(p > 0) || math.IsInf(p, 0) {
				return nil, dataset.Invalidf("%s: prior %d is %v (want a positive number)", what, c, p)
			}
		}
	}
	if x == nil {
		return nil, dataset.Invalidf("%s: no data", what)
	}
	n, _ := x.Dims()
	docs, err := checkLabels(what, labels, n, classes)
	if err != nil {
		return nil, err
	}
	c, err := readCounts(x, what)
	if err != nil {
		return nil, err
	}
	k, v := classes, c.v
	m := &NaiveBayesModel{
		Lambda:           make([]float64, k),
		LOOLogLikelihood: make([]float64, k),
		ClassDocs:        docs,
		v:                v,
		counts:           make([]float64, k*v),
		tokens:           make([]float64, k),
		logTheta:         make([]float64, v*k),
		logPrior:         make([]float64, k),
		fixedPrior:       nb.Priors != nil,
	}
	byClass := make([][]int, k)
	for i, l := range labels {
		if l < 0 {
			continue
		}
		byClass[l] = append(byClass[l], i)
		cols, vals := c.row(i)
		nk := m.counts[l*v : l*v+v]
		for t, j := range cols {
			nk[j] += vals[t]
		}
		m.tokens[l] += c.rowSum[i]
	}

	// λ_k, classes spread over the workers.
	var done atomic.Int64
	parallelRows(k, 1, func() bool { return ctx.Err() != nil }, func(_, lo, _ int) {
		l := newLOO(c, byClass[lo], m.counts[lo*v:lo*v+v], m.tokens[lo])
		lambda := nb.Smoothing
		if lambda == 0 {
			lambda = l.choose()
		}
		m.Lambda[lo] = lambda
		m.LOOLogLikelihood[lo] = l.logLikelihood(lambda) + l.coef
		nb.Progress.Report(what, int(done.Add(1)), k)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	for kk := 0; kk < k; kk++ {
		lam := m.Lambda[kk]
		lz := math.Log(m.tokens[kk] + lam*float64(v))
		nk := m.counts[kk*v : kk*v+v]
		for j, cnt := range nk {
			m.logTheta[j*k+kk] = math.Log(cnt+lam) - lz
		}
	}
	if nb.Priors != nil {
		var z float64
		for _, p := range nb.Priors {
			z += p
		}
		for kk, p := range nb.Priors {
			m.logPrior[kk] = math.Log(p / z)
		}
	} else {
		var z float64
		for _, d := range docs {
			z += float64(d)
		}
		for kk, d := range docs {
			m.logPrior[kk] = math.Log(float64(d) / z)
		}
	}
	return m, nil
}

// loo evaluates the leave-one-out log-likelihood of one class as a function of λ.
type loo struct {
	v     float64
	a, x  []float64 // per non-zero count of the class's documents: n_kj − x_ij and x_ij
	len   []float64 // per document: N_k − L_i and L_i
	coef  float64   // Σ_i log(L_i! / Π_j x_ij!), constant in λ
	ndocs int
}

func newLOO(c *csr, docs []int, nk []float64, tokens float64) *loo {
	l := &loo{v: float64(c.v), ndocs: len(docs)}
	for _, i := range docs {
		cols, vals := c.row(i)
		for t, j := range cols {
			l.a = append(l.a, nk[j]-vals[t])
			l.x = append(l.x, vals[t])
			lg, _ := math.Lgamma(vals[t] + 1)
			l.coef -= lg
		}
		l.len = append(l.len, tokens-c.rowSum[i], c.rowSum[i])
		lg, _ := math.Lgamma(c.rowSum[i] + 1)
		l.coef += lg
	}
	return l
}

// logLikelihood returns Σ_i [Σ_j x_ij log(n_kj − x_ij + λ) − L_i log(N_k − L_i + λV)].
func (l *loo) logLikelihood(lambda float64) float64 {
	var s float64
	for t, a := range l.a {
		s += l.x[t] * math.Log(a+lambda)
	}
	lv := lambda * l.v
	for t := 0; t < len(l.len); t += 2 {
		s -= l.len[t+1] * math.Log(l.len[t]+lv)
	}
	return s
}

// choose returns the λ in [SmoothingMin, SmoothingMax] of the largest LOO log-likelihood.
func (l *loo) choose() float64 {
	if l.ndocs < 2 {
		return 1
	}
	lo, hi := math.Log(SmoothingMin), math.Log(SmoothingMax)
	steps := int(math.Round(math.Log10(SmoothingMax/SmoothingMin) * smoothingGridPerDecade))
	f := func(t float64) float64 { return l.logLikelihood(math.Exp(t)) }
	grid := make([]float64, steps+1)
	best := 0
	for s := range grid {
		grid[s] = f(lo + (hi-lo)*float64(s)/float64(steps))
		if grid[s] > grid[best] {
			best = s
		}
	}
	at := func(s int) float64 { return lo + (hi-lo)*float64(s)/float64(steps) }
	t := goldenMax(f, at(max(best-1, 0)), at(min(best+1, steps)), 1e-7)
	if f(t) < grid[best] { // cannot happen for a unimodal bracket; guards a rough one
		t = at(best)
	}
	return math.Exp(t)
}

// goldenMax returns an argmax of f on [a, b] by golden-section search to width tol.
func goldenMax(f func(float64) float64, a, b, tol float64) float64 {
	r := (math.Sqrt(5) - 1) / 2
	c, d := b-r*(b-a), a+r*(b-a)
	fc, fd := f(c), f(d)
	for b-a > tol {
		if fc >= fd {
			b, d, fd = d, c, fc
			c = b - r*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + r*(b-a)
			fd = f(d)
		}
	}
	if fc >= fd {
		return c
	}
	return d
}

// Dims returns the number of classes K and of words V.
func (m *NaiveBayesModel) Dims() (k, v int) {
	if m == nil {
		return 0, 0
	}
	return len(m.logPrior), m.v
}

// LogTheta returns the K×V matrix of log θ_kj.
func (m *NaiveBayesModel) LogTheta() *mat.Dense {
	k, v := m.Dims()
	t := mat.NewDense(k, v, nil)
	for j := 0; j < v; j++ {
		for c := 0; c < k; c++ {
			t.Set(c, j, m.logTheta[j*k+c])
		}
	}
	return t
}

// LogPrior returns log π_k.
func (m *NaiveBayesModel) LogPrior() []float64 { return slices.Clone(m.logPrior) }

// check verifies the model and sizes dst for rows of x, returning x in CSR form.
func (m *NaiveBayesModel) check(what string, dst *mat.Dense, x mat.Matrix) (*csr, error) {
	if m == nil || m.logTheta == nil {
		return nil, dataset.Invalidf("%s: no fitted model", what)
	}
	if dst == nil || x == nil {
		return nil, dataset.Invalidf("%s: nil matrix", what)
	}
	k, v := m.Dims()
	n, cols := x.Dims()
	if cols != v {
		return nil, dataset.Invalidf("%s: data have %d columns, the model was fitted on %d", what, cols, v)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(n, k)
	} else if r, c := dst.Dims(); r != n || c != k {
		return nil, dataset.Invalidf("%s: dst is %d×%d, want %d×%d", what, r, c, n, k)
	}
	return readCounts(x, what)
}

// Posteriors writes p(c_k|x_i) ∝ π_k Π_j θ_kj^{x_ij} for the rows of x (n×V counts) into dst
// (n×K; an empty dst is resized), computed in log space (log-sum-exp). Rows are split over
// runtime.NumCPU() workers.
func (m *NaiveBayesModel) Posteriors(dst *mat.Dense, x mat.Matrix) error {
	c, err := m.check("naive bayes posteriors", dst, x)
	if err != nil {
		return err
	}
	m.posteriors(dst, c, nil)
	return nil
}

// LeaveOneOutPosteriors writes into dst (n×K; an empty dst is resized) the posteriors of the
// training documents x (n×V) as if each one's label were unknown, as in the paper: for a row
// labelled k, class k's θ is re-estimated without the document (its counts subtracted from
// n_k· and N_k, λ_k kept) and, when the priors are the class frequencies, so is its prior
// count (n_k − 1 documents). Rows labelled −1 get the ordinary posteriors. labels must be the
// labels the model was fitted with; a row whose counts exceed its class's is refused.
func (m *NaiveBayesModel) LeaveOneOutPosteriors(dst *mat.Dense, x mat.Matrix, labels []int) error {
	const what = "naive bayes leave-one-out posteriors"
	c, err := m.check(what, dst, x)
	if err != nil {
		return err
	}
	k, v := m.Dims()
	if len(labels) != c.n {
		return dataset.Invalidf("%s: %d labels for %d rows", what, len(labels), c.n)
	}
	for i, l := range labels {
		if l < -1 || l >= k {
			return dataset.Invalidf("%s: row %d has label %d (want −1 or a class in 0..%d)", what, i+1, l, k-1)
		}
		if l < 0 {
			continue
		}
		if m.tokens[l]-c.rowSum[i] < 0 || (!m.fixedPrior && m.ClassDocs[l] < 1) {
			return dataset.Invalidf("%s: row %d is not a training document of class %d (it has more tokens than the class)", what, i+1, l)
		}
		cols, vals := c.row(i)
		for t, j := range cols {
			if m.counts[l*v+int(j)] < vals[t] {
				return dataset.Invalidf("%s: row %d is not a training document of class %d (word %d occurs %v times, %v in the class)",
					what, i+1, l, j+1, vals[t], m.counts[l*v+int(j)])
			}
		}
	}
	m.posteriors(dst, c, labels)
	return nil
}

// posteriors fills dst from the CSR rows; with labels, labelled rows are left out of their
// class's estimates.
func (m *NaiveBayesModel) posteriors(dst *mat.Dense, c *csr, labels []int) {
	k, v := m.Dims()
	var logDocs []float64
	if labels != nil && !m.fixedPrior {
		logDocs = make([]float64, k)
		for kk, d := range m.ClassDocs {
			logDocs[kk] = math.Log(float64(d))
		}
	}
	parallelRows(c.n, 64, nil, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			p := dst.RawRowView(i)
			cols, vals := c.row(i)
			l := -1
			if labels != nil {
				l = labels[i]
			}
			if l >= 0 && logDocs != nil {
				copy(p, logDocs) // the prior counts; their common denominator cancels
			} else {
				copy(p, m.logPrior)
			}
			for t, j := range cols {
				lt := m.logTheta[int(j)*k : int(j)*k+k]
				for kk := range p {
					p[kk] += vals[t] * lt[kk]
				}
			}
			if l >= 0 {
				// Class l's term without this document.
				lam := m.Lambda[l]
				nk := m.counts[l*v : l*v+v]
				s := m.logPrior[l]
				if logDocs != nil {
					s = math.Log(float64(m.ClassDocs[l] - 1))
				}
				for t, j := range cols {
					s += vals[t] * math.Log(nk[j]-vals[t]+lam)
				}
				p[l] = s - c.rowSum[i]*math.Log(m.tokens[l]-c.rowSum[i]+lam*float64(v))
			}
			softmaxLog(p)
		}
	})
}
