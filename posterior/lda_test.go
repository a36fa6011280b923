package posterior

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// synthCorpus draws a corpus from known topics: k topics over v words, each a sparse
// Dirichlet(0.05) distribution, d documents of length words with topic proportions from
// Dirichlet(0.2). It returns the counts and the true topics (k×v).
func synthCorpus(k, v, d, words int, seed uint64) (*mat.Dense, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	phi := make([][]float64, k)
	for t := range phi {
		phi[t] = dirichlet(rng, v, 0.05)
	}
	x := mat.NewDense(d, v, nil)
	for i := 0; i < d; i++ {
		theta := dirichlet(rng, k, 0.2)
		for range words {
			w := categorical(rng, phi[categorical(rng, theta)])
			x.Set(i, w, x.At(i, w)+1)
		}
	}
	return x, phi
}

func totalVariation(p, q []float64) float64 {
	var s float64
	for i := range p {
		s += math.Abs(p[i] - q[i])
	}
	return s / 2
}

// TestLDARecoversTopics fits LDA to a corpus drawn from 4 known topics and checks that every
// true topic has its own fitted topic close to it in total variation.
func TestLDARecoversTopics(t *testing.T) {
	const k, v = 4, 60
	x, truth := synthCorpus(k, v, 200, 60, 1)
	m, err := LDA{Topics: k, Alpha: 0.2, Iterations: 300, Samples: 5, Seed: 3}.Fit(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	used := make([]bool, k)
	for i, tr := range truth {
		best, bestTV := -1, math.Inf(1)
		for j := 0; j < k; j++ {
			if tv := totalVariation(tr, m.Phi.RawRowView(j)); tv < bestTV {
				best, bestTV = j, tv
			}
		}
		t.Logf("true topic %d ↔ fitted %d: total variation %.4f", i, best, bestTV)
		// 12,000 tokens over 4×60 word probabilities: sampling noise alone gives a total
		// variation of a few hundredths; a wrong or merged topic gives over 0.5.
		if bestTV > 0.1 {
			t.Errorf("true topic %d: nearest fitted topic %d at total variation %.3f", i, best, bestTV)
		}
		if used[best] {
			t.Errorf("fitted topic %d matches two true topics", best)
		}
		used[best] = true
	}
	if m.Trace[len(m.Trace)-1] <= m.Trace[0] {
		t.Errorf("log p(w|z) did not increase: %v", m.Trace)
	}
	// Estimates are distributions.
	for j := 0; j < k; j++ {
		if s := mat.Sum(m.Phi.Slice(j, j+1, 0, v)); math.Abs(s-1) > 1e-12 {
			t.Errorf("φ_%d sums to %v", j, s)
		}
	}
	var sp float64
	for _, p := range m.TopicProb {
		sp += p
	}
	if math.Abs(sp-1) > 1e-12 {
		t.Errorf("p(z) sums to %v", sp)
	}
	for d := 0; d < 200; d++ {
		if s := mat.Sum(m.DocTopics.Slice(d, d+1, 0, k)); math.Abs(s-1) > 1e-12 {
			t.Errorf("θ_%d sums to %v", d, s)
		}
	}
}

// TestLDAWordPosteriors checks the Bayes inversion: rows sum to 1, a subset renormalises the
// full posterior, and p(z|w) ∝ φ_zw p(z).
func TestLDAWordPosteriors(t *testing.T) {
	x, _ := synthCorpus(5, 30, 50, 40, 2)
	m, err := LDA{Topics: 5, Iterations: 50, Seed: 1}.Fit(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	full, err := m.WordPosteriors(nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := []int{3, 0, 4}
	part, err := m.WordPosteriors(sub)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := part.Dims(); r != 30 || c != 3 {
		t.Fatalf("subset posteriors are %d×%d, want 30×3", r, c)
	}
	for w := 0; w < 30; w++ {
		var z, zs float64
		for j := 0; j < 5; j++ {
			z += m.Phi.At(j, w) * m.TopicProb[j]
		}
		for _, j := range sub {
			zs += full.At(w, j)
		}
		var rs, rp float64
		for j := 0; j < 5; j++ {
			want := m.Phi.At(j, w) * m.TopicProb[j] / z
			if got := full.At(w, j); math.Abs(got-want) > 1e-12 {
				t.Errorf("p(z_%d|w_%d) = %v, want %v", j, w, got, want)
			}
			rs += full.At(w, j)
		}
		for c, j := range sub {
			if got, want := part.At(w, c), full.At(w, j)/zs; math.Abs(got-want) > 1e-12 {
				t.Errorf("restricted p(z_%d|w_%d) = %v, want %v", j, w, got, want)
			}
			rp += part.At(w, c)
		}
		if math.Abs(rs-1) > 1e-12 || math.Abs(rp-1) > 1e-12 {
			t.Errorf("word %d: rows sum to %v and %v", w, rs, rp)
		}
	}
	for _, bad := range [][]int{{0, 0}, {5}, {-1}} {
		if _, err := m.WordPosteriors(bad); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("topics %v: %v", bad, err)
		}
	}
	top, err := m.TopWords(2, 4)
	if err != nil || len(top) != 4 {
		t.Fatalf("top words %v, %v", top, err)
	}
	for i := 1; i < len(top); i++ {
		if m.Phi.At(2, top[i]) > m.Phi.At(2, top[i-1]) {
			t.Errorf("top words out of order: %v", top)
		}
	}
	for w := 0; w < 30; w++ {
		if m.Phi.At(2, w) > m.Phi.At(2, top[3]) && !containsInt(top, w) {
			t.Errorf("word %d (φ %v) beats the fourth top word", w, m.Phi.At(2, w))
		}
	}
	if _, err := m.TopWords(7, 3); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("topic out of range: %v", err)
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestLDADeterministic(t *testing.T) {
	x, _ := synthCorpus(3, 20, 30, 30, 4)
	fit := func(seed uint64) *LDAModel {
		m, err := LDA{Topics: 3, Iterations: 40, Samples: 2, Seed: seed}.Fit(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, c := fit(7), fit(7), fit(8)
	if !mat.Equal(a.Phi, b.Phi) || !mat.Equal(a.DocTopics, b.DocTopics) {
		t.Error("the same seed gave different models")
	}
	if mat.Equal(a.Phi, c.Phi) {
		t.Error("different seeds gave the same model")
	}
}

func TestLDACancel(t *testing.T) {
	x, _ := synthCorpus(3, 20, 30, 30, 5)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := LDA{Topics: 3, Iterations: 1000, Progress: func(string, int, int) {
		calls++
		if calls == 3 {
			cancel()
		}
	}}.Fit(ctx, x)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit: %v", err)
	}
	if calls != 3 {
		t.Errorf("%d sweeps reported after cancelling at the third", calls)
	}
}

func TestLDAErrors(t *testing.T) {
	x, _ := synthCorpus(3, 20, 30, 30, 6)
	neg := mat.DenseCopyOf(x)
	neg.Set(2, 3, -2)
	frac := mat.DenseCopyOf(x)
	frac.Set(2, 3, 1.5)
	nan := mat.DenseCopyOf(x)
	nan.Set(0, 0, math.NaN())
	for name, tc := range map[string]struct {
		l LDA
		x mat.Matrix
	}{
		"one topic":       {LDA{Topics: 1}, x},
		"negative alpha":  {LDA{Topics: 3, Alpha: -1}, x},
		"NaN beta":        {LDA{Topics: 3, Beta: math.NaN()}, x},
		"negative iters":  {LDA{Topics: 3, Iterations: -1}, x},
		"samples too far": {LDA{Topics: 3, Iterations: 20, Samples: 3, Thin: 10}, x},
		"negative count":  {LDA{Topics: 3}, neg},
		"fractional":      {LDA{Topics: 3}, frac},
		"NaN":             {LDA{Topics: 3}, nan},
		"no tokens":       {LDA{Topics: 3}, mat.NewDense(4, 5, nil)},
		"no data":         {LDA{Topics: 3}, nil},
	} {
		if _, err := tc.l.Fit(context.Background(), tc.x); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: %v does not wrap dataset.ErrInvalid", name, err)
		}
	}
}

// TestLDABBC fits 20 topics to BBC news with the default 500 sweeps and checks that the
// topics follow the five news classes: each document's dominant topic, mapped to its
// topic's majority class, gives the document's class for most documents.
func TestLDABBC(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("500 Gibbs sweeps over BBC (426,000 tokens); skipped under -short and -race")
	}
	d := bbc(t)
	start := time.Now()
	m, err := LDA{Topics: 20, Seed: 1}.Fit(context.Background(), d.X)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("K = 20, %d sweeps over %d tokens: %v; log p(w|z) %.6g → %.6g", m.Iterations, m.Tokens, time.Since(start),
		m.Trace[0], m.Trace[len(m.Trace)-1])
	k := 5
	votes := make([][]int, 20)
	for j := range votes {
		votes[j] = make([]int, k)
	}
	dominant := make([]int, len(d.Labels))
	for i, l := range d.Labels {
		row := m.DocTopics.RawRowView(i)
		for j := range row {
			if row[j] > row[dominant[i]] {
				dominant[i] = j
			}
		}
		votes[dominant[i]][l]++
	}
	right := 0
	for i, l := range d.Labels {
		v := votes[dominant[i]]
		best := 0
		for c := range v {
			if v[c] > v[best] {
				best = c
			}
		}
		if best == l {
			right++
		}
	}
	for j := 0; j < 20; j++ {
		w, _ := m.TopWords(j, 6)
		names := make([]string, len(w))
		for i, x := range w {
			names[i] = d.FeatureNames[x]
		}
		t.Logf("topic %2d p(z) %.3f %v", j, m.TopicProb[j], names)
	}
	purity := float64(right) / float64(len(d.Labels))
	t.Logf("purity of the dominant topics against the five classes: %.3f", purity)
	// The classes are distinct news sections; topics that follow them give a purity near 0.9,
	// topics unrelated to them about 0.23 (the largest class's share).
	if purity < 0.75 {
		t.Errorf("purity %.3f, want ≥ 0.75", purity)
	}
}

// BenchmarkLDABBC times 20 Gibbs sweeps with 50 topics over BBC news (426,000 tokens).
func BenchmarkLDABBC(b *testing.B) {
	d := bbc(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (LDA{Topics: 50, Iterations: 20, Seed: 1}).Fit(context.Background(), d.X); err != nil {
			b.Fatal(err)
		}
	}
}
