package pepaper

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/posterior"
	"github.com/lowdim/lowdim/viz"
)

// LDATopics is the number of LDA topics fitted to BBC; PE shows 5 of them.
const LDATopics = 20

// PETopics is the topic experiment (paper §7, Fig. 6): LDA on BBC news, each word's posterior
// over 5 chosen topics, embedded by PE.
type PETopics struct {
	Docs, Words, Topics, Iterations int
	// Chosen are the 5 topics shown: for each BBC class in turn, the not yet chosen topic with
	// the largest mean proportion θ_dk over the class's documents. Names are their top words.
	Chosen     []int
	ChosenFor  []string // the BBC class each was chosen for
	TopicNames []string
	// Labels colours each word by its most probable chosen topic.
	Labels []int
	// Annotations are the labelled example words: the top words of each topic and, for each
	// pair of topics, the frequent word most evenly shared between them.
	Annotations []viz.Annotation
	PE          *pe.Model
	// LogLikelihood is the sampler's last log p(w|z).
	LogLikelihood         float64
	LDASeconds, PESeconds float64
}

// RunPETopics fits LDA to the BBC counts d and embeds the word posteriors over 5 topics.
func RunPETopics(ctx context.Context, c PEConfig, d *dataset.Set) (*PETopics, error) {
	c.defaults()
	t0 := time.Now()
	lda, err := posterior.LDA{Topics: LDATopics, Iterations: c.LDAIterations, Seed: c.Seed}.Fit(ctx, d.X)
	if err != nil {
		return nil, fmt.Errorf("reproduce: LDA on %s: %w", d.Name, err)
	}
	r := &PETopics{Docs: d.Len(), Words: d.Dim(), Topics: LDATopics, Iterations: c.LDAIterations, LDASeconds: time.Since(t0).Seconds()}
	if len(lda.Trace) > 0 {
		r.LogLikelihood = lda.Trace[len(lda.Trace)-1]
	}
	// One topic per class, greedily.
	taken := make([]bool, LDATopics)
	for cl, name := range d.ClassNames {
		mean := make([]float64, LDATopics)
		for i, l := range d.Labels {
			if l != cl {
				continue
			}
			for k := range mean {
				mean[k] += lda.DocTopics.At(i, k)
			}
		}
		best := -1
		for k, v := range mean {
			if !taken[k] && (best < 0 || v > mean[best]) {
				best = k
			}
		}
		taken[best] = true
		r.Chosen = append(r.Chosen, best)
		r.ChosenFor = append(r.ChosenFor, name)
		if len(r.Chosen) == 5 {
			break
		}
	}
	word := func(j int) string {
		if j < len(d.FeatureNames) {
			return d.FeatureNames[j]
		}
		return fmt.Sprintf("w%d", j)
	}
	var notes []viz.Annotation
	for _, k := range r.Chosen {
		top, err := lda.TopWords(k, 4)
		if err != nil {
			return nil, err
		}
		var ws []string
		for _, j := range top {
			ws = append(ws, word(j))
			notes = append(notes, viz.Annotation{Row: j, Text: word(j)})
		}
		r.TopicNames = append(r.TopicNames, strings.Join(ws[:3], " "))
	}
	p, err := lda.WordPosteriors(r.Chosen)
	if err != nil {
		return nil, err
	}
	r.Labels = argmaxRows(p)

	// Frequent words (the 2,000 most frequent) shared by two topics: for each pair, the word
	// with the largest min(p_a, p_b) among those with p_a + p_b ≥ 0.8.
	v := d.Dim()
	freq := make([]float64, v)
	for i := 0; i < d.Len(); i++ {
		for j, x := range d.X.RawRowView(i) {
			freq[j] += x
		}
	}
	order := make([]int, v)
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return freq[order[a]] > freq[order[b]] })
	if len(order) > 2000 {
		order = order[:2000]
	}
	used := map[int]bool{}
	for _, n := range notes {
		used[n.Row] = true
	}
	for a := 0; a < len(r.Chosen); a++ {
		for b := a + 1; b < len(r.Chosen); b++ {
			best, bestV := -1, 0.0
			for _, j := range order {
				pa, pb := p.At(j, a), p.At(j, b)
				if used[j] || pa+pb < 0.8 {
					continue
				}
				if m := min(pa, pb); m > bestV {
					best, bestV = j, m
				}
			}
			if best >= 0 {
				used[best] = true
				notes = append(notes, viz.Annotation{Row: best, Text: word(best)})
			}
		}
	}
	r.Annotations = notes

	t0 = time.Now()
	m, err := pe.Embedder{Seed: c.Seed, Workers: c.Workers, Normalize: true}.FitPosteriors(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("reproduce: PE on word posteriors: %w", err)
	}
	r.PESeconds = time.Since(t0).Seconds()
	r.PE = m
	c.logf("topics: LDA %d topics, %d sweeps (%.1fs); PE on %d words × 5 topics %.2fs", LDATopics, c.LDAIterations, r.LDASeconds, v, r.PESeconds)
	return r, nil
}
