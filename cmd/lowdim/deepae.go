package main

import (
	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/deepae"
)

// The deep autoencoder (issue 17, the HOPE paper's deep-AE row) with the package's defaults:
// the 500–500–2000 encoder pretrained as RBMs, fine-tuned by per-batch CG; -model saves it for
// lowdim transform.
func init() {
	modelMethods["deepae"] = true
	methods["deepae"] = func(s methodSettings) lowdim.Embedder {
		return deepae.Embedder{Dim: s.dim, Seed: s.seed, Progress: s.progress}
	}
}
