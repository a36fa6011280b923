package nerv

import (
	"context"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/learnmetric"
	"github.com/lowdim/lowdim/posterior"
)

// Supervised is supervised NeRV (SNeRV, Venna et al. 2010 §5): NeRV on learning-metric distances.
// A discriminative Gaussian mixture p̂(c|x) (eq. 10, package posterior) is fitted to the labelled
// rows; the distance between two rows is the length of the straight segment between them in the
// Fisher metric of p̂ (package learnmetric, Pieces pieces); NeRV then embeds every row on those
// distances with k_eff = 0.5·n/G effective neighbours unless Embedder.Perplexity says otherwise.
//
// Rows labelled −1 are embedded but do not train the mixture: that is how held-out rows are placed.
type Supervised struct {
	Embedder // NeRV settings; Distances must be nil, Variant Gaussian or StudentT
	Mixture  posterior.DiscriminativeMixture
	Pieces   int // pieces T of each segment; 0 means 10
}

// SupervisedResult is a fitted SNeRV embedding with the mixture and distances behind it.
type SupervisedResult struct {
	Result
	Mixture *posterior.Mixture
}

// Fit fits the mixture to d's labelled rows, computes the learning-metric distances between all
// rows, and embeds them. The model is a *SupervisedResult.
func (s Supervised) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("snerv: no data")
	}
	if s.Distances != nil {
		return nil, dataset.Invalidf("snerv: computes its own distances; Distances must be nil")
	}
	labelled, classes := 0, map[int]bool{}
	for _, l := range d.Labels {
		if l >= 0 {
			labelled++
			classes[l] = true
		}
	}
	if labelled == 0 {
		return nil, dataset.Invalidf("snerv: the data have no labels: supervised NeRV learns its metric from them")
	}
	if len(classes) < 2 {
		return nil, dataset.Invalidf("snerv: all labelled rows are of one class: there is nothing to discriminate")
	}
	if err := s.checkMemory(d.Len(), d.Dim()); err != nil {
		return nil, err
	}
	mix := s.Mixture
	if mix.Progress == nil {
		mix.Progress = s.Progress
	}
	if mix.Seed == 0 {
		mix.Seed = s.Seed
	}
	m, err := mix.Fit(ctx, d)
	if err != nil {
		return nil, err
	}
	dist, err := learnmetric.Distances(ctx, m, d.X, learnmetric.Options{Pieces: s.Pieces, Progress: s.Progress})
	if err != nil {
		return nil, err
	}
	e := s.Embedder
	e.Distances = dist
	if e.Perplexity == 0 {
		g, _, _ := m.Dims()
		n, _ := d.X.Dims()
		e.Perplexity = max(0.5*float64(n)/float64(g), 2)
	}
	r, err := e.fitNamed(ctx, d, "snerv")
	if err != nil {
		return nil, err
	}
	return &SupervisedResult{Result: *r, Mixture: m}, nil
}
