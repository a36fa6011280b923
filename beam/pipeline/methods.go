package pipeline

import (
	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/nerv"
)

// MethodSpec names a parametric method and its common settings (zero = the method's default),
// as `lowdim embed -method NAME` takes them. It is plain data, so that Beam can ship it to the
// worker that fits the sample.
type MethodSpec struct {
	Name       string  // pca, tsne or tnerv
	Dim        int     // output dimension; 0 means 2
	Seed       uint64  // the method's own randomness (initialisation, optimisation)
	Perplexity float64 // tsne, tnerv; 0 means 20
	Lambda     float64 // tnerv: λ; 0 means 0.1
	Iterations int     // tsne, tnerv; 0 means the method's default
}

// SampleMethods are the names MethodSpec knows: those whose models can place new rows.
// t-SNE and t-NeRV are fitted on nerv's approximate path, whose models transform.
var SampleMethods = []string{"pca", "tnerv", "tsne"}

// Embedder returns the method's embedder.
func (m MethodSpec) Embedder() (lowdim.Embedder, error) {
	ne := func(lambda float64) nerv.Embedder {
		return nerv.Embedder{Variant: nerv.StudentT, Lambda: nerv.Lambda(lambda), Perplexity: m.Perplexity,
			Dim: m.Dim, Seed: m.Seed, Iterations: m.Iterations, Path: nerv.PathApprox}
	}
	switch m.Name {
	case "pca":
		return linproj.PCA{Dim: m.Dim}, nil
	case "tsne":
		return ne(1), nil
	case "tnerv":
		l := m.Lambda
		if l == 0 {
			l = 0.1
		}
		return ne(l), nil
	}
	return nil, dataset.Invalidf("method %q: expected one of %v", m.Name, SampleMethods)
}
