package main

import (
	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/mds"
)

// The distance-preserving baselines of issue 17 (package baseline/mds).
func init() {
	methods["smacof"] = func(s methodSettings) lowdim.Embedder {
		return mds.SMACOF{Dim: s.dim, Seed: s.seed, Progress: s.progress}
	}
	methods["sammon"] = func(s methodSettings) lowdim.Embedder {
		return mds.Sammon{Dim: s.dim, Progress: s.progress}
	}
	methods["cca"] = func(s methodSettings) lowdim.Embedder {
		return mds.CCA{Dim: s.dim, Seed: s.seed, Progress: s.progress}
	}
	methods["lmds"] = func(s methodSettings) lowdim.Embedder {
		return mds.LMDS{Dim: s.dim, Seed: s.seed, Progress: s.progress}
	}
	graphKMethods["cda"] = true
	methods["cda"] = func(s methodSettings) lowdim.Embedder {
		return mds.CDA{Dim: s.dim, Neighbors: s.graphK, Seed: s.seed, Progress: s.progress}
	}
}
