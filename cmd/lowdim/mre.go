package main

import (
	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/mre"
)

// Multiple relational embedding, the NeRV paper's §5 row (issue 17): the feature relation and
// the class relation of INPUT's labels, every setting at its default; rows labelled with an
// empty or unknown label take part in the feature relation only. It has no model file (MRE is
// not parametric).
func init() {
	methods["mre"] = func(s methodSettings) lowdim.Embedder { return mre.MRE{Dim: s.dim, Progress: s.progress} }
}
