package linproj

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// PCA is principal component analysis: it projects the centred data on the Dim directions
// of largest variance.
//
// The result equals scikit-learn's PCA(n_components=Dim, svd_solver="full") including signs
// (checked to 1e-9 against scikit-learn 1.2.1 in the tests): component k is flipped so that
// the embedding column k's entry of largest absolute value (the first one, on exact ties)
// is positive — scikit-learn's svd_flip with u_based_decision=True, since that entry is the
// largest of U's column k too (Y = U·S).
//
// The method is chosen by shape. For tall data (n ≥ 2H) the H×H scatter matrix XcᵀXc is
// accumulated over row blocks (centred on the fly, BLAS syrk, parallel over
// runtime.NumCPU() workers, no centred copy of X) and decomposed with EigenSym: O(nH²/2 + H³)
// and cancellable between blocks. Forming XcᵀXc squares the condition number, which costs
// accuracy only in directions of tiny variance — never in the leading components asked for.
// Otherwise (n < 2H, where the scatter matrix would be as large as the data or larger) a
// thin SVD of the centred data is used: O(nH·min(n, H)).
type PCA struct {
	// Dim is the output dimension D, 1 ≤ D ≤ min(n, H); 0 means 2.
	Dim int
	// Progress, if not nil, receives ("pca", done, total) reports.
	Progress lowdim.Progress
}

// PCAModel is a fitted PCA: y = Componentsᵀ (x − Mean).
type PCAModel struct {
	Mean []float64 // H column means of the training data
	// Components is H×D with orthonormal columns, in order of decreasing variance.
	Components *mat.Dense
	// Variance holds the D explained variances (eigenvalues of the sample covariance,
	// denominator n−1), decreasing.
	Variance []float64
	// TotalVariance is the sum of all H variances (the trace of the sample covariance);
	// Variance[k]/TotalVariance is component k's explained variance ratio.
	TotalVariance float64

	// embedding is the n×D training embedding; nil for a model assembled from partial sums
	// (lowdim/beam's distributed fit), whose training rows were never in one place.
	embedding *mat.Dense
}

var (
	_ lowdim.Embedder    = PCA{}
	_ lowdim.Transformer = (*PCAModel)(nil)
	_ modelio.Model      = (*PCAModel)(nil)
)

// pcaKind is the modelio kind of PCAModel; pcaVersion its payload layout version.
const (
	pcaKind    = "pca"
	pcaVersion = 1
)

func init() { modelio.Register(pcaKind, pcaVersion, decodePCA) }

// blockRows is the number of rows centred and accumulated at a time.
const blockRows = 512

type pcaRoute int

const (
	routeAuto pcaRoute = iota
	routeCov           // EigenSym of the H×H scatter matrix
	routeSVD           // thin SVD of the centred data
)

// Fit computes the principal components of d.X and the training embedding. It returns a
// *PCAModel.
func (p PCA) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("pca: no data")
	}
	return fitPCA(ctx, d.X, p.Dim, p.Progress, routeAuto)
}

func fitPCA(ctx context.Context, x *mat.Dense, dim int, prog lowdim.Progress, route pcaRoute) (*PCAModel, error) {
	n, h := x.Dims()
	if dim == 0 {
		dim = 2
	}
	switch {
	case n < 2:
		return nil, dataset.Invalidf("pca: need at least 2 rows, have %d", n)
	case dim < 0 || dim > min(n, h):
		return nil, dataset.Invalidf("pca: Dim %d out of range 1..min(n=%d, H=%d)", dim, n, h)
	}
	mean, err := columnMeans(ctx, x)
	if err != nil {
		return nil, err
	}
	if route == routeAuto {
		route = routeSVD
		if n >= 2*h {
			route = routeCov
		}
	}
	m := &PCAModel{Mean: mean, Variance: make([]float64, dim)}
	switch route {
	case routeCov:
		err = m.fitCov(ctx, x, dim, prog)
	default:
		err = m.fitSVD(ctx, x, dim, prog)
	}
	if err != nil {
		return nil, err
	}
	// Project the training data, then fix each component's sign (svd_flip, u-based).
	m.embedding = mat.NewDense(n, dim, nil)
	if err := m.project(ctx, m.embedding, x); err != nil {
		return nil, err
	}
	for k := 0; k < dim; k++ {
		best, arg := -1.0, 0
		for i := 0; i < n; i++ {
			if a := math.Abs(m.embedding.At(i, k)); a > best {
				best, arg = a, i
			}
		}
		if m.embedding.At(arg, k) < 0 {
			for i := 0; i < n; i++ {
				m.embedding.Set(i, k, -m.embedding.At(i, k))
			}
			for j := 0; j < h; j++ {
				m.Components.Set(j, k, -m.Components.At(j, k))
			}
		}
	}
	prog.Report("pca", 1, 1)
	return m, nil
}

// columnMeans returns the column means of x and refuses non-finite values.
func columnMeans(ctx context.Context, x *mat.Dense) ([]float64, error) {
	n, h := x.Dims()
	mean := make([]float64, h)
	for i := 0; i < n; i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for j, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("pca: row %d column %d is %v", i+1, j+1, v)
			}
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	return mean, nil
}

// forBlocks runs f over the row blocks [lo, hi) of n rows on runtime.NumCPU() workers; each
// worker w gets its own index for its buffers. It stops early on ctx cancellation or the
// first error and reports progress per block.
func forBlocks(ctx context.Context, n int, prog lowdim.Progress, stage string, f func(w, lo, hi int) error) error {
	nb := (n + blockRows - 1) / blockRows
	workers := min(runtime.NumCPU(), nb)
	var next, done atomic.Int64
	var once sync.Once
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return
				}
				err := ctx.Err()
				if err == nil {
					err = f(w, b*blockRows, min((b+1)*blockRows, n))
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(nb))
					return
				}
				prog.Report(stage, int(done.Add(1)), nb)
			}
		}(w)
	}
	wg.Wait()
	return firstErr
}

func workerCount(n int) int {
	return min(runtime.NumCPU(), (n+blockRows-1)/blockRows)
}

// fitCov: scatter matrix over row blocks, then EigenSym.
func (m *PCAModel) fitCov(ctx context.Context, x *mat.Dense, dim int, prog lowdim.Progress) error {
	cov, err := covariance(ctx, x, m.Mean, prog)
	if err != nil {
		return err
	}
	for i := range m.Mean {
		m.TotalVariance += cov.At(i, i)
	}
	vals, vecs, err := TopEigenSym(ctx, cov, dim)
	if err != nil {
		return err
	}
	m.Components = vecs
	for k := range vals {
		m.Variance[k] = math.Max(vals[k], 0)
	}
	return nil
}

// covariance returns the sample covariance (denominator n−1) of the rows of x about mean.
func covariance(ctx context.Context, x *mat.Dense, mean []float64, prog lowdim.Progress) (*mat.SymDense, error) {
	n, h := x.Dims()
	// The scatter matrix is summed in a fixed number of streams, stream s taking blocks
	// s, s+S, … in order, and the streams are added in order: the result is bit-identical
	// whatever the number of CPUs or the scheduling. S is capped so that the accumulators
	// take at most ~64 MB.
	nb := (n + blockRows - 1) / blockRows
	streams := max(1, min(8, nb, (64<<20)/(8*h*h)))
	acc := make([]blas64.Symmetric, streams)
	for s := range acc {
		acc[s] = blas64.Symmetric{N: h, Stride: h, Data: make([]float64, h*h), Uplo: blas.Upper}
	}
	var next, done atomic.Int64
	errs := make([]error, streams)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.NumCPU(), streams); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]float64, blockRows*h)
			for {
				s := int(next.Add(1) - 1)
				if s >= streams {
					return
				}
				for b := s; b < nb; b += streams {
					if errs[s] = ctx.Err(); errs[s] != nil {
						return
					}
					lo, hi := b*blockRows, min((b+1)*blockRows, n)
					blk := blas64.General{Rows: hi - lo, Cols: h, Stride: h, Data: buf[:(hi-lo)*h]}
					if errs[s] = centre(blk, x, lo, mean); errs[s] != nil {
						return
					}
					blas64.Syrk(blas.Trans, 1, blk, 1, acc[s])
					prog.Report("pca", int(done.Add(1)), nb)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	cov := mat.NewSymDense(h, nil)
	scale := 1 / float64(n-1)
	for i := 0; i < h; i++ {
		for j := i; j < h; j++ {
			s := 0.0
			for w := range acc {
				s += acc[w].Data[i*h+j]
			}
			cov.SetSym(i, j, s*scale)
		}
	}
	return cov, nil
}

// fitSVD: thin SVD of the centred data.
func (m *PCAModel) fitSVD(ctx context.Context, x *mat.Dense, dim int, prog lowdim.Progress) error {
	n, h := x.Dims()
	xc := mat.NewDense(n, h, nil)
	raw := xc.RawMatrix()
	err := forBlocks(ctx, n, nil, "", func(w, lo, hi int) error {
		return centre(blas64.General{Rows: hi - lo, Cols: h, Stride: h, Data: raw.Data[lo*h : hi*h]}, x, lo, m.Mean)
	})
	if err != nil {
		return err
	}
	prog.Report("pca", 0, 1)
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThinV) {
		return fmt.Errorf("pca: SVD of the %d×%d centred data did not converge", n, h)
	}
	s := svd.Values(nil) // descending
	for _, v := range s {
		m.TotalVariance += v * v
	}
	m.TotalVariance /= float64(n - 1)
	var v mat.Dense
	svd.VTo(&v)
	m.Components = mat.DenseCopyOf(v.Slice(0, h, 0, dim))
	for k := 0; k < dim; k++ {
		m.Variance[k] = s[k] * s[k] / float64(n-1)
	}
	return ctx.Err()
}

// centre writes rows lo.. of x minus mean into b and refuses non-finite values.
func centre(b blas64.General, x mat.Matrix, lo int, mean []float64) error {
	rv, raw := x.(mat.RawRowViewer)
	for r := 0; r < b.Rows; r++ {
		dst := b.Data[r*b.Stride : r*b.Stride+b.Cols]
		if raw {
			for j, v := range rv.RawRowView(lo + r) {
				dst[j] = v - mean[j]
			}
		} else {
			for j := range dst {
				dst[j] = x.At(lo+r, j) - mean[j]
			}
		}
		for j, v := range dst {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return dataset.Invalidf("pca: row %d column %d is %v", lo+r+1, j+1, x.At(lo+r, j))
			}
		}
	}
	return nil
}

// project writes (x − Mean)·Components into dst, over row blocks in parallel.
func (m *PCAModel) project(ctx context.Context, dst *mat.Dense, x mat.Matrix) error {
	n, h := x.Dims()
	workers := workerCount(n)
	bufs := make([][]float64, workers)
	for w := range bufs {
		bufs[w] = make([]float64, blockRows*h)
	}
	// Components transposed (D×H, contiguous rows): with D ≪ H a dot product per output
	// entry is several times faster than a thin Gemm.
	_, d := m.Components.Dims()
	vt := make([][]float64, d)
	for k := range vt {
		vt[k] = mat.Col(nil, k, m.Components)
	}
	out := dst.RawMatrix()
	return forBlocks(ctx, n, nil, "", func(w, lo, hi int) error {
		b := blas64.General{Rows: hi - lo, Cols: h, Stride: h, Data: bufs[w][:(hi-lo)*h]}
		if err := centre(b, x, lo, m.Mean); err != nil {
			return err
		}
		for r := 0; r < hi-lo; r++ {
			row := b.Data[r*h : (r+1)*h]
			y := out.Data[(lo+r)*out.Stride:]
			for k, v := range vt {
				y[k] = floats.Dot(row, v)
			}
		}
		return nil
	})
}

// Embedding returns the n×D embedding of the training rows (not a copy), or nil when the
// model was assembled from its exported fields (a distributed fit) rather than by Fit.
func (m *PCAModel) Embedding() *mat.Dense { return m.embedding }

// Transform embeds the rows of x (m×H) into dst (m×D): dst = (x − Mean)·Components.
// dst must be m×D or empty (then it is resized). A wrong column count, a dst of the wrong
// shape or a non-finite value in x is an error wrapping dataset.ErrInvalid.
func (m *PCAModel) Transform(dst *mat.Dense, x mat.Matrix) error {
	if dst == nil || x == nil {
		return dataset.Invalidf("pca transform: nil matrix")
	}
	r, c := x.Dims()
	h, d := m.Components.Dims()
	if c != h {
		return dataset.Invalidf("pca transform: data have %d columns, the model was fitted on %d", c, h)
	}
	if r == 0 {
		return dataset.Invalidf("pca transform: no rows")
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, d)
	} else if dr, dc := dst.Dims(); dr != r || dc != d {
		return dataset.Invalidf("pca transform: dst is %d×%d, want %d×%d", dr, dc, r, d)
	}
	return m.project(context.Background(), dst, x)
}

// ModelKind returns "pca", the modelio kind of PCA models.
func (m *PCAModel) ModelKind() string { return pcaKind }

// MarshalBinary encodes the model (including the training embedding) as a modelio payload.
func (m *PCAModel) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	e.Float64s(m.Mean)
	e.Dense(m.Components)
	e.Float64s(m.Variance)
	e.Float64(m.TotalVariance)
	e.Dense(m.embedding)
	return e.Bytes(), nil
}

func decodePCA(version uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	m := &PCAModel{Mean: d.Float64s(), Components: d.Dense(), Variance: d.Float64s(), TotalVariance: d.Float64()}
	m.embedding = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if m.Components == nil {
		return nil, dataset.Invalidf("pca payload: no components")
	}
	h, dim := m.Components.Dims()
	switch {
	case len(m.Mean) != h:
		return nil, dataset.Invalidf("pca payload: %d means for %d features", len(m.Mean), h)
	case len(m.Variance) != dim:
		return nil, dataset.Invalidf("pca payload: %d variances for %d components", len(m.Variance), dim)
	}
	check := [][]float64{m.Mean, m.Variance, {m.TotalVariance}, m.Components.RawMatrix().Data}
	if m.embedding != nil {
		if _, c := m.embedding.Dims(); c != dim {
			return nil, dataset.Invalidf("pca payload: embedding has %d columns, want %d", c, dim)
		}
		check = append(check, m.embedding.RawMatrix().Data)
	}
	for _, s := range check {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("pca payload: non-finite value %v", v)
			}
		}
	}
	return m, nil
}
