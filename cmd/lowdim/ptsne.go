package main

import (
	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/ptsne"
)

// Parametric t-SNE (issue 17 part 4, the HOPE paper's pt-SNE row) with the package's defaults;
// -optimizer (registered with hope's flags, checked there) picks Adam or the paper's CG.
func init() {
	modelMethods["ptsne"] = true
	methods["ptsne"] = func(s methodSettings) lowdim.Embedder {
		e := ptsne.Embedder{Dim: s.dim, Seed: s.seed, Progress: s.progress}
		if s.hope.optimizer == "cg" {
			e.Optimizer = ptsne.CG
		}
		return e
	}
}
