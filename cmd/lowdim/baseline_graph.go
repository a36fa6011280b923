package main

import (
	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/isomap"
	"github.com/lowdim/lowdim/baseline/laplacian"
	"github.com/lowdim/lowdim/baseline/lle"
)

// graphKMethods are the neighbourhood-graph baselines of issue 17: they take their graph's k
// from -graph-k (0, the flag's default, means each method's scikit-learn default).
var graphKMethods = map[string]bool{}

// baselineMethods are all of issue 17's baselines (graph and distance-preserving).
var baselineMethods = map[string]bool{
	"isomap": true, "laplacian": true, "lle": true, "hlle": true, "ltsa": true,
	"smacof": true, "sammon": true, "cca": true, "cda": true, "lmds": true,
}

func sortedKeys(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	return sortedStrings(s)
}

func init() {
	graphKMethods["isomap"] = true
	modelMethods["isomap"] = true
	methods["isomap"] = func(s methodSettings) lowdim.Embedder {
		return isomap.Isomap{Dim: s.dim, Neighbors: s.graphK, Progress: s.progress}
	}
}

func init() {
	graphKMethods["laplacian"] = true
	methods["laplacian"] = func(s methodSettings) lowdim.Embedder {
		return laplacian.Eigenmap{Dim: s.dim, Neighbors: s.graphK, Progress: s.progress}
	}
}

func init() {
	for name, v := range map[string]lle.Variant{"lle": lle.Standard, "hlle": lle.Hessian, "ltsa": lle.LTSA} {
		graphKMethods[name] = true
		modelMethods[name] = true
		methods[name] = func(s methodSettings) lowdim.Embedder {
			return lle.LLE{Dim: s.dim, Neighbors: s.graphK, Variant: v, Progress: s.progress}
		}
	}
}
