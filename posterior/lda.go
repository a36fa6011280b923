package posterior

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
)

// LDA fits latent Dirichlet allocation (Blei, Ng & Jordan 2003) to a corpus of word counts by
// collapsed Gibbs sampling (Griffiths & Steyvers 2004), as in Appendix E of the PE paper. Each
// token's topic z is resampled in turn from
//
//	p(z = k | rest) ∝ (n_dk + α)(n_kw + β)/(n_k + Vβ),
//
// the counts taken without the token itself (n_dk: tokens of document d in topic k; n_kw:
// tokens of word w in topic k; n_k: tokens in topic k). Topics start uniformly at random from
// the seeded source; the sweep order is fixed (documents in order, the words of a document in
// column order), so the same seed gives the same model, bit for bit.
//
// The model's estimates are posterior means given the sampled assignments, averaged over
// Samples states Thin sweeps apart ending with the last sweep:
//
//	φ_kw = (n_kw + β)/(n_k + Vβ),   p(z_k) = n_k/N,   θ_dk = (n_dk + α)/(n_d + Kα).
//
// Averaging states of one chain is safe once it has converged and the states are close
// together (topics do not swap labels within a few sweeps of a converged chain).
//
// Sampling: the conditional is split as SparseLDA does (Yao, Mimno & McCallum 2009) into
//
//	αβ/(n_k + Vβ)  +  n_dk β/(n_k + Vβ)  +  (n_dk + α) n_kw/(n_k + Vβ),
//
// a smoothing bucket shared by all tokens, a document bucket over the document's topics and
// a word bucket over the word's topics, which visit only non-zero counts; the sampler keeps
// per-document and per-word lists of non-zero topics. Counts are int32 in flat arrays.
type LDA struct {
	// Topics is the number of topics K (at least 2).
	Topics int
	// Alpha is the symmetric Dirichlet prior on each document's topic proportions; 0 means
	// 50/K (Griffiths & Steyvers).
	Alpha float64
	// Beta is the symmetric Dirichlet prior on each topic's word distribution; 0 means 0.01.
	Beta float64
	// Iterations is the number of Gibbs sweeps over all tokens; 0 means 500.
	Iterations int
	// Samples is the number of states averaged into the estimates; 0 means 1 (the last).
	Samples int
	// Thin is the number of sweeps between averaged states; 0 means 10.
	Thin int
	// Seed seeds the initial assignment and the sampler.
	Seed uint64
	// Progress, if not nil, receives ("lda", sweeps done, Iterations) after every sweep.
	Progress lowdim.Progress
}

// Defaults of the LDA settings.
const (
	DefaultLDABeta       = 0.01
	DefaultLDAIterations = 500
	DefaultLDAThin       = 10
)

// ldaTraceEvery is the number of sweeps between entries of LDAModel.Trace.
const ldaTraceEvery = 10

// LDAModel is a fitted LDA model.
type LDAModel struct {
	// Phi is K×V: row k is the word distribution φ_k·= p(w|z_k).
	Phi *mat.Dense
	// TopicProb holds p(z_k), the share of the corpus's tokens assigned to topic k.
	TopicProb []float64
	// DocTopics is D×K: row d holds document d's topic proportions θ_d·.
	DocTopics *mat.Dense
	// Alpha and Beta are the priors used; Iterations the number of sweeps; Tokens the
	// corpus's token count N.
	Alpha, Beta float64
	Iterations  int
	Tokens      int
	// Trace holds log p(w|z) (Griffiths & Steyvers eq. 2) of the initial assignment and after
	// every 10th sweep, to judge convergence.
	Trace []float64
}

// Fit runs the sampler on counts (D documents × V words; non-negative integers). Errors
// caused by the data or the settings wrap dataset.ErrInvalid; a cancelled ctx stops the
// sampler and returns ctx.Err().
func (l LDA) Fit(ctx context.Context, counts mat.Matrix) (*LDAModel, error) {
	const what = "lda"
	k := l.Topics
	alpha, beta := l.Alpha, l.Beta
	iters, samples, thin := l.Iterations, l.Samples, l.Thin
	switch {
	case k < 2:
		return nil, dataset.Invalidf("%s: %d topics (want at least 2)", what, k)
	case k > math.MaxInt32:
		return nil, dataset.Invalidf("%s: %d topics", what, k)
	case alpha < 0 || math.IsNaN(alpha) || math.IsInf(alpha, 0):
		return nil, dataset.Invalidf("%s: Alpha %v is not a non-negative number", what, alpha)
	case beta < 0 || math.IsNaN(beta) || math.IsInf(beta, 0):
		return nil, dataset.Invalidf("%s: Beta %v is not a non-negative number", what, beta)
	case iters < 0 || samples < 0 || thin < 0:
		return nil, dataset.Invalidf("%s: negative Iterations, Samples or Thin (%d, %d, %d)", what, iters, samples, thin)
	}
	if alpha == 0 {
		alpha = 50 / float64(k)
	}
	if beta == 0 {
		beta = DefaultLDABeta
	}
	if iters == 0 {
		iters = DefaultLDAIterations
	}
	if samples == 0 {
		samples = 1
	}
	if thin == 0 {
		thin = DefaultLDAThin
	}
	if (samples-1)*thin >= iters {
		return nil, dataset.Invalidf("%s: %d samples %d sweeps apart do not fit in %d sweeps", what, samples, thin, iters)
	}
	c, err := readCounts(counts, what)
	if err != nil {
		return nil, err
	}
	var total float64
	for _, s := range c.rowSum {
		total += s
	}
	if total == 0 {
		return nil, dataset.Invalidf("%s: the corpus has no tokens", what)
	}
	if total > math.MaxInt32/2 {
		return nil, dataset.Invalidf("%s: %v tokens (max %d)", what, total, math.MaxInt32/2)
	}

	s := newGibbs(c, k, alpha, beta, int(total), rand.New(rand.NewPCG(l.Seed, 0x6c6461))) // "lda"
	m := &LDAModel{
		Phi:        mat.NewDense(k, c.v, nil),
		TopicProb:  make([]float64, k),
		DocTopics:  mat.NewDense(c.n, k, nil),
		Alpha:      alpha,
		Beta:       beta,
		Iterations: iters,
		Tokens:     int(total),
		Trace:      []float64{s.logLikelihood()},
	}
	for it := 1; it <= iters; it++ {
		if err := s.sweep(ctx); err != nil {
			return nil, err
		}
		if it%ldaTraceEvery == 0 {
			m.Trace = append(m.Trace, s.logLikelihood())
		}
		if left := iters - it; left%thin == 0 && left/thin < samples {
			s.accumulate(m, 1/float64(samples))
		}
		l.Progress.Report(what, it, iters)
	}
	return m, nil
}

// gibbs is the state of the collapsed Gibbs sampler.
type gibbs struct {
	k, v, d     int
	alpha, beta float64
	vbeta       float64
	words       []int32 // token t's word
	docPtr      []int   // document d's tokens are docPtr[d]:docPtr[d+1]
	z           []int32 // token t's topic
	nwk         []int32 // V×K
	ndk         []int32 // D×K
	nk          []int32 // K
	rng         *rand.Rand

	// Sparse bookkeeping: the topics with n_kw > 0 of each word (wTop[w*K:w*K+wLen[w]],
	// unordered) with pos[w*K+k] its index there (−1 when absent); the same for the
	// current document (dTop, dPos, dLen).
	wTop, wPos []int32
	wLen       []int32
	dTop, dPos []int32
	dLen       int

	inv    []float64 // 1/(n_k + Vβ)
	coef   []float64 // (n_dk + α)/(n_k + Vβ) for the current document
	sBkt   float64   // Σ_k αβ/(n_k + Vβ)
	buf    []float64 // cumulative weights
	bufTop []int32
}

func newGibbs(c *csr, k int, alpha, beta float64, n int, rng *rand.Rand) *gibbs {
	s := &gibbs{
		k: k, v: c.v, d: c.n, alpha: alpha, beta: beta, vbeta: float64(c.v) * beta,
		words:  make([]int32, 0, n),
		docPtr: make([]int, c.n+1),
		z:      make([]int32, n),
		nwk:    make([]int32, c.v*k),
		ndk:    make([]int32, c.n*k),
		nk:     make([]int32, k),
		rng:    rng,
		wTop:   make([]int32, c.v*k),
		wPos:   make([]int32, c.v*k),
		wLen:   make([]int32, c.v),
		dTop:   make([]int32, k),
		dPos:   make([]int32, k),
		inv:    make([]float64, k),
		coef:   make([]float64, k),
		buf:    make([]float64, k),
		bufTop: make([]int32, k),
	}
	for d := 0; d < c.n; d++ {
		cols, vals := c.row(d)
		for t, w := range cols {
			for range int(vals[t]) {
				s.words = append(s.words, w)
			}
		}
		s.docPtr[d+1] = len(s.words)
	}
	for i := range s.wPos {
		s.wPos[i] = -1
	}
	for t, w := range s.words {
		z := int32(rng.IntN(k))
		s.z[t] = z
		s.nwk[int(w)*k+int(z)]++
		s.nk[z]++
	}
	for d := 0; d < c.n; d++ {
		for t := s.docPtr[d]; t < s.docPtr[d+1]; t++ {
			s.ndk[d*k+int(s.z[t])]++
		}
	}
	for w := 0; w < c.v; w++ {
		for kk := 0; kk < k; kk++ {
			if s.nwk[w*k+kk] > 0 {
				s.wAdd(w, int32(kk))
			}
		}
	}
	return s
}

func (s *gibbs) wAdd(w int, k int32) {
	base := w * s.k
	s.wPos[base+int(k)] = s.wLen[w]
	s.wTop[base+int(s.wLen[w])] = k
	s.wLen[w]++
}

func (s *gibbs) wRemove(w int, k int32) {
	base := w * s.k
	p := s.wPos[base+int(k)]
	last := s.wLen[w] - 1
	lk := s.wTop[base+int(last)]
	s.wTop[base+int(p)] = lk
	s.wPos[base+int(lk)] = p
	s.wPos[base+int(k)] = -1
	s.wLen[w] = last
}

func (s *gibbs) dAdd(k int32) {
	s.dPos[k] = int32(s.dLen)
	s.dTop[s.dLen] = k
	s.dLen++
}

func (s *gibbs) dRemove(k int32) {
	p := s.dPos[k]
	s.dLen--
	lk := s.dTop[s.dLen]
	s.dTop[p] = lk
	s.dPos[lk] = p
	s.dPos[k] = -1
}

// sweep resamples every token once.
func (s *gibbs) sweep(ctx context.Context) error {
	k := s.k
	alpha, beta, vbeta := s.alpha, s.beta, s.vbeta
	ab := alpha * beta
	s.sBkt = 0
	for kk := 0; kk < k; kk++ {
		s.inv[kk] = 1 / (float64(s.nk[kk]) + vbeta)
		s.sBkt += ab * s.inv[kk]
	}
	for d := 0; d < s.d; d++ {
		if d%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		lo, hi := s.docPtr[d], s.docPtr[d+1]
		if lo == hi {
			continue
		}
		nd := s.ndk[d*k : d*k+k]
		// Document bucket r = Σ_k n_dk β/(n_k + Vβ) and the coefficients of the word bucket.
		s.dLen = 0
		for i := range s.dPos {
			s.dPos[i] = -1
		}
		var r float64
		for kk := 0; kk < k; kk++ {
			if nd[kk] > 0 {
				s.dAdd(int32(kk))
				r += float64(nd[kk]) * beta * s.inv[kk]
			}
			s.coef[kk] = (float64(nd[kk]) + alpha) * s.inv[kk]
		}
		for t := lo; t < hi; t++ {
			w := int(s.words[t])
			old := s.z[t]
			nw := s.nwk[w*k : w*k+k]

			// Remove the token.
			o := int(old)
			s.sBkt -= ab * s.inv[o]
			r -= float64(nd[o]) * beta * s.inv[o]
			nd[o]--
			nw[o]--
			s.nk[o]--
			s.inv[o] = 1 / (float64(s.nk[o]) + vbeta)
			s.sBkt += ab * s.inv[o]
			r += float64(nd[o]) * beta * s.inv[o]
			s.coef[o] = (float64(nd[o]) + alpha) * s.inv[o]
			if nd[o] == 0 {
				s.dRemove(old)
			}
			if nw[o] == 0 {
				s.wRemove(w, old)
			}

			// Word bucket q = Σ_{k: n_kw>0} coef_k n_kw, cumulated in buf.
			var q float64
			wt := s.wTop[w*k : w*k+int(s.wLen[w])]
			for i, kk := range wt {
				q += s.coef[kk] * float64(nw[kk])
				s.buf[i] = q
			}
			u := s.rng.Float64() * (s.sBkt + r + q)
			var nz int32
			switch {
			case u < q:
				nz = wt[len(wt)-1]
				for i, c := range s.buf[:len(wt)] {
					if u < c {
						nz = wt[i]
						break
					}
				}
			case u < q+r:
				u -= q
				nz = s.dTop[s.dLen-1]
				for _, kk := range s.dTop[:s.dLen] {
					u -= float64(nd[kk]) * beta * s.inv[kk]
					if u < 0 {
						nz = kk
						break
					}
				}
			default:
				u -= q + r
				nz = int32(k - 1)
				for kk := 0; kk < k; kk++ {
					u -= ab * s.inv[kk]
					if u < 0 {
						nz = int32(kk)
						break
					}
				}
			}

			// Add it back with topic nz.
			n := int(nz)
			s.sBkt -= ab * s.inv[n]
			r -= float64(nd[n]) * beta * s.inv[n]
			if nd[n] == 0 {
				s.dAdd(nz)
			}
			if nw[n] == 0 {
				s.wAdd(w, nz)
			}
			nd[n]++
			nw[n]++
			s.nk[n]++
			s.inv[n] = 1 / (float64(s.nk[n]) + vbeta)
			s.sBkt += ab * s.inv[n]
			r += float64(nd[n]) * beta * s.inv[n]
			s.coef[n] = (float64(nd[n]) + alpha) * s.inv[n]
			s.z[t] = nz
		}
	}
	// The buckets were updated incrementally; the next sweep recomputes them from the counts,
	// so rounding does not accumulate beyond one sweep.
	return nil
}

// logLikelihood returns log p(w|z) = K[lnΓ(Vβ) − V lnΓ(β)] + Σ_k [Σ_w lnΓ(n_kw + β) − lnΓ(n_k + Vβ)].
func (s *gibbs) logLikelihood() float64 {
	lgB, _ := math.Lgamma(s.beta)
	lgVB, _ := math.Lgamma(s.vbeta)
	ll := float64(s.k) * (lgVB - float64(s.v)*lgB)
	// Words with n_kw = 0 contribute lnΓ(β) each.
	zeros := 0
	for _, c := range s.nwk {
		if c == 0 {
			zeros++
			continue
		}
		g, _ := math.Lgamma(float64(c) + s.beta)
		ll += g
	}
	ll += float64(zeros) * lgB
	for _, c := range s.nk {
		g, _ := math.Lgamma(float64(c) + s.vbeta)
		ll -= g
	}
	return ll
}

// accumulate adds weight times the current state's estimates to the model.
func (s *gibbs) accumulate(m *LDAModel, weight float64) {
	k, v := s.k, s.v
	phi := m.Phi.RawMatrix()
	for kk := 0; kk < k; kk++ {
		inv := weight / (float64(s.nk[kk]) + s.vbeta)
		row := phi.Data[kk*phi.Stride : kk*phi.Stride+v]
		for w := range row {
			row[w] += (float64(s.nwk[w*k+kk]) + s.beta) * inv
		}
		m.TopicProb[kk] += weight * float64(s.nk[kk]) / float64(len(s.words))
	}
	ka := float64(k) * s.alpha
	for d := 0; d < s.d; d++ {
		row := m.DocTopics.RawRowView(d)
		inv := weight / (float64(s.docPtr[d+1]-s.docPtr[d]) + ka)
		for kk := range row {
			row[kk] += (float64(s.ndk[d*k+kk]) + s.alpha) * inv
		}
	}
}

// check verifies the model's shapes and returns K and V.
func (m *LDAModel) check() (k, v int, err error) {
	if m == nil || m.Phi == nil {
		return 0, 0, dataset.Invalidf("lda: no fitted model")
	}
	k, v = m.Phi.Dims()
	if len(m.TopicProb) != k {
		return 0, 0, dataset.Invalidf("lda: %d topic probabilities for %d topics", len(m.TopicProb), k)
	}
	return k, v, nil
}

// WordPosteriors returns the V×|topics| matrix of p(z_k|w) ∝ p(w|z_k) p(z_k) = φ_kw p(z_k)
// (Bayes inversion), restricted to the given topics (distinct indices; nil or empty means all
// topics, in order) and renormalised: column j belongs to topics[j], and every row sums to 1.
func (m *LDAModel) WordPosteriors(topics []int) (*mat.Dense, error) {
	k, v, err := m.check()
	if err != nil {
		return nil, err
	}
	if len(topics) == 0 {
		topics = make([]int, k)
		for i := range topics {
			topics[i] = i
		}
	}
	seen := make([]bool, k)
	for _, t := range topics {
		if t < 0 || t >= k {
			return nil, dataset.Invalidf("lda word posteriors: topic %d out of 0..%d", t, k-1)
		}
		if seen[t] {
			return nil, dataset.Invalidf("lda word posteriors: topic %d given twice", t)
		}
		seen[t] = true
	}
	p := mat.NewDense(v, len(topics), nil)
	logPrior := make([]float64, len(topics))
	for j, t := range topics {
		logPrior[j] = math.Log(m.TopicProb[t])
	}
	for w := 0; w < v; w++ {
		row := p.RawRowView(w)
		for j, t := range topics {
			row[j] = math.Log(m.Phi.At(t, w)) + logPrior[j]
		}
		softmaxLog(row)
	}
	return p, nil
}

// TopWords returns the indices of the n words of largest φ_kw in topic k, most probable
// first (ties by index); fewer when the vocabulary is smaller.
func (m *LDAModel) TopWords(topic, n int) ([]int, error) {
	k, v, err := m.check()
	if err != nil {
		return nil, err
	}
	if topic < 0 || topic >= k {
		return nil, dataset.Invalidf("lda top words: topic %d out of 0..%d", topic, k-1)
	}
	if n < 0 {
		return nil, dataset.Invalidf("lda top words: %d words", n)
	}
	row := m.Phi.RawRowView(topic)
	idx := make([]int, v)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
	return slices.Clip(idx[:min(n, v)]), nil
}
