// Package laplacian is the Laplacian eigenmap (Belkin and Niyogi 2002) as scikit-learn's
// SpectralEmbedding(affinity="nearest_neighbors") computes it.
//
// Affinities: a_ij = ½([j ∈ N_k(i)] + [i ∈ N_k(j)]) for i ≠ j, N_k(i) the k − 1 nearest other
// points (scikit-learn counts the point itself among its k neighbours); degrees
// g_i = Σ_{j≠i} a_ij. The embedding solves the generalised problem L y = μ G y (L = G − A)
// through the normalised Laplacian ℒ = I − G^{−½} A G^{−½}: with ℒ v = μ v, y = G^{−½} v;
// the first pair (μ = 0, y constant) is dropped and the next D are the coordinates, each
// column's entry of largest |value| made positive. The vectors v have unit norm, so the
// scale of the coordinates is scikit-learn's too.
//
// The smallest eigenpairs of the sparse ℒ come from shift-invert Lanczos with a sparse
// (envelope) Cholesky factor, package baseline/internal/eigs: scikit-learn does the same
// with ARPACK and SuperLU.
//
// A disconnected graph has several zero eigenvalues and no unique embedding: Fit refuses it,
// naming the number of components (scikit-learn warns and goes on).
//
// There is no standard out-of-sample extension in scikit-learn: Model has no Transform.
package laplacian

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/eigs"
	"github.com/lowdim/lowdim/baseline/internal/graph"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// Eigenmap embeds features by the Laplacian eigenmap of their k-NN graph.
type Eigenmap struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// Neighbors is k, counting the point itself as scikit-learn does; 0 means
	// max(⌊n/10⌋, 1), scikit-learn's default.
	Neighbors int
	// Progress, if not nil, receives ("knn", done, total) reports.
	Progress lowdim.Progress
}

// Model is a fitted Laplacian eigenmap.
type Model struct {
	// Y is the n×D embedding.
	Y *mat.Dense
	// Eigenvalues are μ_2 ≤ … ≤ μ_{D+1} of the normalised Laplacian.
	Eigenvalues []float64
}

var _ lowdim.Embedder = Eigenmap{}

// Embedding returns Y.
func (m *Model) Embedding() *mat.Dense { return m.Y }

// Fit embeds d.X. It returns a *Model.
func (e Eigenmap) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("laplacian: no data")
	}
	n := d.Len()
	dim, k := e.Dim, e.Neighbors
	if dim == 0 {
		dim = 2
	}
	if k == 0 {
		k = max(n/10, 1)
	}
	if dim < 1 || dim+1 >= n {
		return nil, dataset.Invalidf("laplacian: Dim %d out of range 1..%d", dim, n-2)
	}
	if k < 2 || k > n {
		return nil, dataset.Invalidf("laplacian: %d neighbours (the point itself included) of %d points: expected 2 ≤ k ≤ n", k, n)
	}
	knn, err := neighbors.KNN(ctx, d.X, k-1, neighbors.Options{Progress: e.Progress})
	if err != nil {
		return nil, err
	}
	g := graph.Symmetrise(knn)
	if err := g.Connected("laplacian", k); err != nil {
		return nil, err
	}
	// Affinities from the directed graph: ½ per direction.
	b := eigs.NewBuilder(n)
	deg := make([]float64, n)
	for i := 0; i < n; i++ {
		idx, _ := knn.Row(i)
		for _, j := range idx {
			deg[i] += 0.5
			deg[j] += 0.5
		}
	}
	sq := make([]float64, n)
	for i, v := range deg {
		sq[i] = math.Sqrt(v)
	}
	for i := 0; i < n; i++ {
		b.Add(i, i, 1)
		idx, _ := knn.Row(i)
		for _, j := range idx {
			v := -0.5 / (sq[i] * sq[j])
			b.Add(i, int(j), v)
			b.Add(int(j), i, v)
		}
	}
	vals, vecs, err := eigs.Smallest(ctx, b.Build(), dim+1)
	if err != nil {
		return nil, err
	}
	// y = G^{−½} v, signs fixed, the first (constant) column dropped.
	y := mat.NewDense(n, dim+1, nil)
	for i := 0; i < n; i++ {
		for c := 0; c <= dim; c++ {
			y.Set(i, c, vecs.At(i, c)/sq[i])
		}
	}
	eigs.SignFix(y)
	return &Model{Y: mat.DenseCopyOf(y.Slice(0, n, 1, dim+1)), Eigenvalues: vals[1:]}, nil
}
