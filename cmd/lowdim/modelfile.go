package main

import (
	"strings"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/nerv"
)

// modelMethods names the methods whose every fit from features has a model file (lowdim
// transform reads it); a method's own file adds its name where it registers the method. The
// nerv family's tsne and tnerv have one only on the approximate path (nerv.Embedder.Places).
var modelMethods = map[string]bool{"pca": true, "pe": true, "hope": true, "shope": true}

// checkModelFile refuses -model before the fit (which can take hours) when the fit of method
// by emb, on n rows of features or on a distance matrix, will not have a model file.
func checkModelFile(method string, emb lowdim.Embedder, n int, distances bool) error {
	if !distances {
		if modelMethods[method] {
			return nil
		}
		if e, ok := emb.(nerv.Embedder); ok && e.Places(n) {
			return nil
		}
	}
	what := "this " + method + " fit is not parametric and cannot place new rows"
	if distances {
		what = "a fit of a distance matrix cannot place new rows (they have no distances to the training rows)"
	}
	return usagef("-model: %s (models: %s; tsne and tnerv fitted from features on the approximate path, -approx or n > %d)",
		what, strings.Join(sortedKeys(modelMethods), ", "), nerv.ApproxMin)
}
