// Package isomap is Isomap (Tenenbaum, de Silva and Langford 2000): classical MDS of the
// geodesic distances along the k-nearest-neighbour graph.
//
// The graph joins i and j when either is among the other's k nearest (Euclidean) neighbours,
// with the Euclidean length as the edge's; δ_ij is the shortest path between them
// (Dijkstra from every vertex). The embedding is y_ik = √λ_k u_ik for the top eigenpairs of
// K = −½ J Δ⁽²⁾ J (J = I − 11ᵀ/n), as scikit-learn's Isomap (KernelPCA on −½Δ⁽²⁾), with the
// same sign convention: each column's entry of largest |value| is positive.
//
// The eigenpairs come from Lanczos iteration on K applied as J(−½Δ⁽²⁾)J without forming it
// (package baseline/internal/eigs): O(n²) per product instead of the O(n³) tridiagonal
// reduction gonum's EigenSym does.
//
// A graph with several connected components has no geodesic distance between them: Fit
// refuses it with an error naming the number of components (scikit-learn 1.2 instead joins
// the components by their nearest pairs, with a warning).
//
// Out of sample (Model.Transform, scikit-learn's Isomap.transform): a new point x reaches
// training point j by the shortest of d(x, x_i) + δ_ij over its k nearest training points i;
// those distances g are mapped by the training kernel's centring and projection,
// y_k = Σ_j ((−½g_j² − m_j) − (mean_j(−½g²) − m̄)) u_jk / √λ_k, m_j the training kernel's
// column means. A training row so transformed lands on its fitted coordinates.
//
// Model files (kind "isomap", package modelio) keep the training rows, the k-NN graph and the
// kernel's centring and projection, not the n×n geodesic matrix (8n² bytes: 200 MB at
// n = 5,000, against 1.3 MB for the rest). A loaded model recomputes the geodesics from the
// graph on its first Transform, by the same Dijkstra as the fit, so it places rows bit for bit
// as the fitted model does.
package isomap

import (
	"context"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/eigs"
	"github.com/lowdim/lowdim/baseline/internal/graph"
	"github.com/lowdim/lowdim/baseline/internal/oos"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/membudget"
)

// DefaultNeighbors is scikit-learn's default n_neighbors.
const DefaultNeighbors = 5

// Isomap embeds features by classical MDS of k-NN graph geodesics.
type Isomap struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// Neighbors is k, the neighbours per point in the graph; 0 means DefaultNeighbors.
	Neighbors int
	// Progress, if not nil, receives ("knn" | "geodesics", done, total) reports.
	Progress lowdim.Progress
}

// Model is a fitted Isomap.
type Model struct {
	// Y is the n×D embedding.
	Y *mat.Dense
	// Eigenvalues are λ_1 ≥ … ≥ λ_D of the centred kernel.
	Eigenvalues []float64
	// Geodesic is the n×n matrix of graph distances δ_ij, row-major.
	Geodesic []float64

	x       *mat.Dense // training rows
	k       int
	colMean []float64    // m_j: column means of −½Δ⁽²⁾
	grand   float64      // m̄
	proj    *mat.Dense   // u_jk / √λ_k
	g       *graph.Graph // the k-NN graph, from which a loaded model recomputes Geodesic

	geoOnce sync.Once // Geodesic's recomputation by a loaded model
	geoErr  error
}

var (
	_ lowdim.Embedder    = Isomap{}
	_ lowdim.Transformer = (*Model)(nil)
)

// Embedding returns Y.
func (m *Model) Embedding() *mat.Dense { return m.Y }

// Bytes estimates the memory Fit needs for n rows beyond its input: the n×n geodesic
// distances and the k-NN graph.
func Bytes(n int) int64 { return membudget.Square(n, 1) + 64*int64(n)*int64(DefaultNeighbors) }

// Fit embeds d.X. It returns a *Model.
func (s Isomap) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("isomap: no data")
	}
	n := d.Len()
	dim, k := s.Dim, s.Neighbors
	if dim == 0 {
		dim = 2
	}
	if k == 0 {
		k = DefaultNeighbors
	}
	if dim < 1 || dim >= n {
		return nil, dataset.Invalidf("isomap: Dim %d out of range 1..%d", dim, n-1)
	}
	if err := membudget.Check(membudget.Need{Who: "isomap", N: n, What: "the n×n geodesic distances", Bytes: Bytes(n), PerN: Bytes}); err != nil {
		return nil, err
	}
	g, _, err := graph.KNN(ctx, "isomap", d.X, k, s.Progress)
	if err != nil {
		return nil, err
	}
	if err := g.Connected("isomap", k); err != nil {
		return nil, err
	}
	geo := make([]float64, n*n)
	if err := g.ShortestPaths(ctx, geo, s.Progress); err != nil {
		return nil, err
	}
	m, err := fromGeodesic(ctx, geo, n, dim)
	if err != nil {
		return nil, err
	}
	m.x, m.k, m.g = mat.DenseCopyOf(d.X), k, g
	return m, nil
}

// fromGeodesic embeds n objects by classical MDS of the n×n distances geo (row-major,
// symmetric, finite), which the returned Model keeps.
func fromGeodesic(ctx context.Context, geo []float64, n, dim int) (*Model, error) {
	// m_j = mean_i(−½δ_ij²) (the kernel is symmetric: row and column means agree).
	colMean := make([]float64, n)
	parallelRows(n, func(i int) {
		s := 0.0
		for _, v := range geo[i*n : (i+1)*n] {
			s += v * v
		}
		colMean[i] = -0.5 * s / float64(n)
	})
	grand := floats.Sum(colMean) / float64(n)
	// K v = J(−½Δ⁽²⁾)(Jv): centre v, multiply, centre the result.
	cv := make([]float64, n)
	apply := func(dst, src []float64) {
		mu := floats.Sum(src) / float64(n)
		for i, v := range src {
			cv[i] = v - mu
		}
		parallelRows(n, func(i int) {
			s := 0.0
			for j, v := range geo[i*n : (i+1)*n] {
				s += v * v * cv[j]
			}
			dst[i] = -0.5 * s
		})
		mu = floats.Sum(dst) / float64(n)
		for i := range dst {
			dst[i] -= mu
		}
	}
	vals, vecs, err := eigs.Largest(ctx, n, dim, apply, 0)
	if err != nil {
		return nil, err
	}
	eigs.SignFix(vecs)
	y := mat.NewDense(n, dim, nil)
	proj := mat.NewDense(n, dim, nil)
	for k := 0; k < dim; k++ {
		l := math.Max(vals[k], 0)
		for i := 0; i < n; i++ {
			u := vecs.At(i, k)
			y.Set(i, k, math.Sqrt(l)*u)
			if l > 0 {
				proj.Set(i, k, u/math.Sqrt(l))
			}
		}
	}
	return &Model{Y: y, Eigenvalues: vals, Geodesic: geo, colMean: colMean, grand: grand, proj: proj}, nil
}

// parallelRows runs f(i) for i in [0, n) over runtime.NumCPU() workers; each i by one worker.
func parallelRows(n int, f func(i int)) {
	w := min(runtime.NumCPU(), n)
	var wg sync.WaitGroup
	chunk := (n + w - 1) / w
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// geodesic returns Geodesic, recomputing it from the graph once for a model read from a file.
func (m *Model) geodesic() ([]float64, error) {
	m.geoOnce.Do(func() {
		if m.Geodesic != nil {
			return
		}
		n := m.g.N
		if err := membudget.Check(membudget.Need{Who: "isomap", N: n, What: "the n×n geodesic distances of the model's graph", Bytes: membudget.Square(n, 1), PerN: func(n int) int64 { return membudget.Square(n, 1) }}); err != nil {
			m.geoErr = err
			return
		}
		geo := make([]float64, n*n)
		if err := m.g.ShortestPaths(context.Background(), geo, nil); err != nil {
			m.geoErr = err
			return
		}
		m.Geodesic = geo
	})
	return m.Geodesic, m.geoErr
}

// Transform embeds new rows x (m×H, H the training dimension) into dst (m×D, or empty to be
// resized).
func (m *Model) Transform(dst *mat.Dense, x mat.Matrix) error {
	n, h := m.x.Dims()
	_, dim := m.Y.Dims()
	r, err := oos.Check("isomap", dst, x, h, dim)
	if err != nil {
		return err
	}
	geo, err := m.geodesic()
	if err != nil {
		return err
	}
	parallelRows(r, func(i int) {
		row := make([]float64, h)
		for j := range row {
			row[j] = x.At(i, j)
		}
		// The k nearest training rows (ties by index), brute force.
		nb := make([]int, 0, m.k+1)
		nd := make([]float64, 0, m.k+1)
		for j := 0; j < n; j++ {
			d := 0.0
			for t, v := range m.x.RawRowView(j) {
				e := row[t] - v
				d += e * e
			}
			if len(nb) == m.k && d >= nd[m.k-1] {
				continue
			}
			p := len(nb)
			for p > 0 && nd[p-1] > d {
				p--
			}
			nb = append(nb[:p], append([]int{j}, nb[p:]...)...)
			nd = append(nd[:p], append([]float64{d}, nd[p:]...)...)
			if len(nb) > m.k {
				nb, nd = nb[:m.k], nd[:m.k]
			}
		}
		g := make([]float64, n)
		for j := range g {
			g[j] = math.Inf(1)
		}
		for t, a := range nb {
			da := math.Sqrt(nd[t])
			for j, v := range geo[a*n : (a+1)*n] {
				g[j] = math.Min(g[j], da+v)
			}
		}
		mean := 0.0
		for j := range g {
			g[j] = -0.5 * g[j] * g[j]
			mean += g[j]
		}
		mean /= float64(n)
		for k := 0; k < dim; k++ {
			s := 0.0
			for j, v := range g {
				s += (v - m.colMean[j] - mean + m.grand) * m.proj.At(j, k)
			}
			dst.Set(i, k, s)
		}
	})
	return nil
}
