package main

import (
	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/lda"
	"github.com/lowdim/lowdim/baseline/lmnn"
	"github.com/lowdim/lowdim/baseline/lpp"
	"github.com/lowdim/lowdim/baseline/mcml"
	"github.com/lowdim/lowdim/baseline/nca"
	"github.com/lowdim/lowdim/baseline/sisomap"
)

// The supervised baselines of issue 17 with their defaults: the linear maps of the HOPE paper's
// Tables 1–3 (each learns a D×H map from the labelled rows of INPUT) and supervised Isomap of
// the NeRV paper's §5 (every row labelled; new rows placed by its RBF network).
func init() {
	for _, name := range []string{"lda", "nca", "mcml", "lpp", "lmnn", "sisomap"} {
		modelMethods[name] = true
	}
	methods["lda"] = func(s methodSettings) lowdim.Embedder { return lda.LDA{Dim: s.dim} }
	methods["nca"] = func(s methodSettings) lowdim.Embedder { return nca.NCA{Dim: s.dim, Progress: s.progress} }
	methods["mcml"] = func(s methodSettings) lowdim.Embedder { return mcml.MCML{Dim: s.dim, Progress: s.progress} }
	methods["lpp"] = func(s methodSettings) lowdim.Embedder { return lpp.LPP{Dim: s.dim, Progress: s.progress} }
	methods["lmnn"] = func(s methodSettings) lowdim.Embedder { return lmnn.LMNN{Dim: s.dim, Progress: s.progress} }
	methods["sisomap"] = func(s methodSettings) lowdim.Embedder {
		return sisomap.SIsomap{Dim: s.dim, K: s.neighbors, Seed: s.seed, Progress: s.progress}
	}
}
