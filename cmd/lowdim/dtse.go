package main

import (
	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/dtse"
)

// dt-MCML and dt-NCA (issue 17, the HOPE paper's deep supervised rows) with the package's
// defaults: the 500–500–2000 network pretrained as RBMs, fine-tuned by per-batch CG to collapse
// the classes of INPUT's labelled rows; -model saves the network for lowdim transform.
func init() {
	for name, obj := range map[string]dtse.Objective{"dtmcml": dtse.MCML, "dtnca": dtse.NCA} {
		modelMethods[name] = true
		methods[name] = func(s methodSettings) lowdim.Embedder {
			return dtse.Embedder{Objective: obj, Dim: s.dim, Seed: s.seed, Progress: s.progress}
		}
	}
}
