// Package cmds is classical (Torgerson) multidimensional scaling.
//
// Given dissimilarities d_ij, classical MDS doubly centres B = −½ J D⁽²⁾ J (J = I − 11ᵀ/n,
// D⁽²⁾ the squared dissimilarities) and embeds with the leading eigenpairs of B:
// y_ik = √λ_k u_ik. For Euclidean distances between feature vectors B is the Gram matrix
// of the centred data, so the result equals PCA's embedding (same sign convention too).
//
// The method is not parametric: a Model has no Transform, and it is not saved as a model
// file.
package cmds

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/eigs"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/membudget"
	"github.com/lowdim/lowdim/linproj"
)

// DirectLimit is the largest n for which CMDS.Fit builds the n×n distance matrix and
// decomposes −½JD⁽²⁾J. Above it, Fit takes the equivalent PCA route (eigenpairs of the H×H
// covariance, or a thin SVD), whose result is the same up to rounding (tested). The n×n
// route costs O(n²) memory and O(n³) time in the tridiagonal reduction: measured on the
// project machine, n = 1000 takes 1.4 s and n = 1797 (digits) 7.3 s, against milliseconds
// for PCA at H = 64.
const DirectLimit = 1000

// LanczosAbove is the number of objects above which FromDistances, which has no features to
// fall back on, finds the eigenpairs by Lanczos instead of the tridiagonal reduction (see
// topEigen): 1.0 s at n = 5,000 (BenchmarkFromDistances) where the reduction takes minutes.
// Below it the reduction, exact to rounding, stays: NeRV started from classical MDS of KL
// distances between near-one-hot posteriors (reproduce pe's SNE) proved to depend on the last
// bits of its start (package nerv, on near-duplicates): on 2,225 BBC documents its final cost is
// 1.9 from the reduction's start and 14–20 from Lanczos's; the reports' rows keep their bits.
// (The Lanczos start once also put every point at the origin: a NaN that nerv no longer lets
// through.)
const LanczosAbove = 3000

// CMDS embeds features by classical MDS of their Euclidean distances.
type CMDS struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// Progress, if not nil, receives ("cmds", done, total) reports.
	Progress lowdim.Progress
}

// Model is a classical MDS embedding.
type Model struct {
	// Y is the n×D embedding. Column k is √λ_k times the k-th eigenvector of B, signed so
	// that its entry of largest absolute value (the first, on exact ties) is positive.
	// A column whose eigenvalue is not positive (beyond rounding: λ_k ≤ 1e-10·λ_1) is all
	// zeros: the input is non-Euclidean (negative λ_k) or has rank below D.
	Y *mat.Dense
	// Eigenvalues holds λ_1 ≥ … ≥ λ_D of B, negative ones included, so callers can see
	// when and by how much the input is non-Euclidean.
	Eigenvalues []float64
}

var _ lowdim.Embedder = CMDS{}

// Embedding returns Y.
func (m *Model) Embedding() *mat.Dense { return m.Y }

// Fit embeds d.X by classical MDS of the Euclidean distances between its rows; for
// n > DirectLimit by the equivalent PCA. It returns a *Model.
func (c CMDS) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("cmds: no data")
	}
	n := d.Len()
	if n > DirectLimit {
		return fitPCA(ctx, d, c.Dim, c.Progress)
	}
	if err := membudget.Check(need(n, "")); err != nil {
		return nil, err
	}
	x, scale := d.X, 1.0
	if s := maxAbs(d.X.RawMatrix()); outOfRange(s) {
		// Squares of features beyond ~1e154 overflow and below ~1e-154 vanish: work on x/s.
		x, scale = mat.NewDense(n, d.Dim(), nil), s
		x.Scale(1/s, d.X)
	}
	dist, err := euclidean(ctx, x, c.Progress)
	if err != nil {
		return nil, err
	}
	return fromSquared(ctx, dist, n, c.Dim, scale, c.Progress)
}

// outOfRange reports whether a largest distance or feature s is far enough from 1 that
// squares of such values (and sums of n² of them) could overflow or lose everything to
// underflow; such inputs are scaled by 1/s first and the embedding by s after (the
// eigenvalues by s², which may then overflow to +Inf: they are reported as computed).
func outOfRange(s float64) bool { return s > 0 && !math.IsInf(s, 1) && (s > 1e100 || s < 1e-100) }

// maxAbs is the largest |entry| of a general matrix; NaN and ±Inf give NaN or +Inf, which
// outOfRange passes on to euclidean's check.
func maxAbs(r blas64.General) float64 {
	m := 0.0
	for i := 0; i < r.Rows; i++ {
		for _, v := range r.Data[i*r.Stride : i*r.Stride+r.Cols] {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

// fitPCA is the large-n route: the eigenvalues of B = XcXcᵀ are (n−1) times the explained
// variances, and y = √λ u is PCA's projection.
func fitPCA(ctx context.Context, d *dataset.Set, dim int, prog lowdim.Progress) (*Model, error) {
	m, err := linproj.PCA{Dim: dim, Progress: prog}.Fit(ctx, d)
	if err != nil {
		return nil, err
	}
	pm := m.(*linproj.PCAModel)
	ev := make([]float64, len(pm.Variance))
	for k, v := range pm.Variance {
		ev[k] = v * float64(d.Len()-1)
	}
	y := mat.DenseCopyOf(pm.Embedding())
	zeroSmall(y, ev)
	return &Model{Y: y, Eigenvalues: ev}, nil
}

// FromDistances embeds n objects given their n×n dissimilarity matrix d (a mat.Symmetric
// or any square mat.Matrix) into dim dimensions (0 means 2; 1 ≤ dim ≤ n).
//
// d must be square with n ≥ 2, finite, non-negative, with a zero diagonal and symmetric;
// "zero" and "symmetric" allow rounding of 1e-9 times the largest entry (asymmetric pairs
// within it are averaged). Anything else is an error wrapping dataset.ErrInvalid.
//
// Any such d has an answer, and FromDistances returns it: rank-deficient matrices (points on
// a line, duplicates, near-one-hot posteriors) are the normal case for MDS, and their zero
// or negative eigenvalues give zero columns (see Model.Y). Distances of any finite magnitude,
// 1e-300 or 1e300, are scaled to a largest entry of 1 before they are squared.
func FromDistances(ctx context.Context, d mat.Matrix, dim int) (*Model, error) {
	if d != nil {
		if r, c := d.Dims(); r == c && r >= 2 {
			if err := membudget.Check(need(r, "from features, classical MDS is PCA in O(n·H) memory (CMDS.Fit above 1,000 rows; lowdim embed -method cmds without -distances)")); err != nil {
				return nil, err
			}
		}
	}
	// Distances whose squares would over- or underflow are divided by the largest first (the
	// embedding is multiplied back by it), before SquaredDistances checks and squares them.
	scale := 1.0
	if d != nil {
		r, c := d.Dims()
		m := 0.0
		for i := range r {
			for j := range c {
				if v := d.At(i, j); v > m && !math.IsInf(v, 0) {
					m = v
				}
			}
		}
		if outOfRange(m) {
			scale = m
			sd := mat.NewDense(r, c, nil)
			for i := range r {
				for j := range c {
					sd.Set(i, j, d.At(i, j)/m)
				}
			}
			d = sd
		}
	}
	sq, n, err := dataset.SquaredDistances("cmds", d)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return fromSquared(ctx, sq, n, dim, scale, nil)
}

// Bytes estimates the memory FromDistances (and Fit's n×n route) takes for n objects beyond its
// input: three n×n float64 matrices at once — the squared distances, the doubly centred B and
// the tridiagonal reduction's working copy of B (above LanczosAbove only if Lanczos falls back
// to it; Lanczos's own basis of at most max(60·D, 600) n-vectors is smaller) — and O(n)
// vectors (the reduction's blocked work space, 32 columns). Both check it against the
// available memory (package lowdim/internal/membudget) before they allocate, and refuse when
// it does not fit. (When inverse iteration fails its check, the fallback to a full
// mat.EigenSym takes two more n×n matrices; that is rare and not counted.)
func Bytes(n int) int64 { return membudget.Square(n, 3) + 8*64*int64(n) }

// need is the membudget check of the n×n route.
func need(n int, instead string) membudget.Need {
	return membudget.Need{Who: "cmds", N: n, What: "the n×n double centring and its eigenvectors", Bytes: Bytes(n), PerN: Bytes, Instead: instead}
}

// fromSquared: double centring of −½D⁽²⁾ and the top eigenpairs. sq holds the squared
// distances divided by scale²; the embedding is multiplied by scale, the eigenvalues by scale².
func fromSquared(ctx context.Context, sq []float64, n, dim int, scale float64, prog lowdim.Progress) (*Model, error) {
	if dim == 0 {
		dim = 2
	}
	if dim < 1 || dim > n {
		return nil, dataset.Invalidf("cmds: Dim %d out of range 1..%d (number of objects)", dim, n)
	}
	rowMean := make([]float64, n)
	for i := 0; i < n; i++ {
		rowMean[i] = floats.Sum(sq[i*n:(i+1)*n]) / float64(n)
	}
	grand := floats.Sum(rowMean) / float64(n)
	b := mat.NewSymDense(n, nil)
	raw := b.RawSymmetric()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			row[j] = -0.5 * (sq[i*n+j] - rowMean[i] - rowMean[j] + grand)
		}
	}
	prog.Report("cmds", 0, 1)
	vals, vecs, err := topEigen(ctx, b, dim)
	if err != nil {
		return nil, err
	}
	y := mat.NewDense(n, dim, nil)
	for k := 0; k < dim; k++ {
		col := mat.Col(nil, k, vecs)
		best, arg := -1.0, 0
		for i, v := range col {
			if a := math.Abs(v); a > best {
				best, arg = a, i
			}
		}
		s := math.Sqrt(math.Max(vals[k], 0))
		if col[arg] < 0 {
			s = -s
		}
		floats.Scale(s, col)
		y.SetCol(k, col)
	}
	zeroSmall(y, vals)
	if scale != 1 {
		y.Scale(scale, y)
		for k := range vals {
			vals[k] = vals[k] * scale * scale // not scale², which may underflow
		}
	}
	prog.Report("cmds", 1, 1)
	return &Model{Y: y, Eigenvalues: vals}, nil
}

// topEigen returns B's dim algebraically largest eigenpairs. Up to LanczosAbove objects it reduces
// B to tridiagonal form (linproj.TopEigenSym, exact to rounding, O(n³)); above, lanczosTop runs Lanczos
// on B (package baseline/internal/eigs, as Isomap does), O(n²) a step and some tens of steps,
// with B's rows multiplied in parallel: the reduction took 202 s of a 223 s supervised Isomap
// fit of 5,000 MNIST digits (one core, since gonum's dsytrd is serial). Should Lanczos not
// converge within its basis, the tridiagonal route gives the answer.
func topEigen(ctx context.Context, b *mat.SymDense, dim int) ([]float64, *mat.Dense, error) {
	if b.SymmetricDim() <= LanczosAbove {
		return linproj.TopEigenSym(ctx, b, dim)
	}
	return lanczosTop(ctx, b, dim)
}

// lanczosTop is topEigen's Lanczos route.
func lanczosTop(ctx context.Context, b *mat.SymDense, dim int) ([]float64, *mat.Dense, error) {
	n := b.SymmetricDim()
	// Mirror the upper triangle so that each row is contiguous for the products; the
	// SymDense itself reads the upper triangle only.
	raw := b.RawSymmetric()
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
		}
	}
	workers := min(runtime.NumCPU(), n)
	chunk := (n + workers - 1) / workers
	apply := func(dst, src []float64) {
		var wg sync.WaitGroup
		for lo := 0; lo < n; lo += chunk {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := lo; i < min(lo+chunk, n); i++ {
					dst[i] = floats.Dot(raw.Data[i*raw.Stride:i*raw.Stride+n], src)
				}
			}()
		}
		wg.Wait()
	}
	vals, vecs, err := eigs.Largest(ctx, n, dim, apply, 0)
	if errors.Is(err, eigs.ErrNoConvergence) {
		return linproj.TopEigenSym(ctx, b, dim)
	}
	return vals, vecs, err
}

// zeroSmall zeroes the columns whose eigenvalue is not positive beyond rounding.
func zeroSmall(y *mat.Dense, ev []float64) {
	n, _ := y.Dims()
	for k, l := range ev {
		if l <= 1e-10*math.Max(ev[0], 0) || l <= 0 {
			for i := 0; i < n; i++ {
				y.Set(i, k, 0)
			}
		}
	}
}

// euclidean returns the squared Euclidean distances between the rows of x (row-major n×n),
// computed over runtime.NumCPU() workers. Non-finite features are refused.
func euclidean(ctx context.Context, x *mat.Dense, prog lowdim.Progress) ([]float64, error) {
	n, _ := x.Dims()
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("cmds: row %d column %d is %v", i+1, j+1, v)
			}
		}
	}
	sq := make([]float64, n*n)
	rows := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rows {
				xi := x.RawRowView(i)
				for j := i + 1; j < n; j++ {
					s := 0.0
					for k, v := range x.RawRowView(j) {
						t := xi[k] - v
						s += t * t
					}
					sq[i*n+j], sq[j*n+i] = s, s
				}
				mu.Lock()
				done++
				prog.Report("distances", done, n)
				mu.Unlock()
			}
		}()
	}
	var err error
	for i := 0; i < n; i++ {
		if err = ctx.Err(); err != nil {
			break
		}
		rows <- i
	}
	close(rows)
	wg.Wait()
	return sq, err
}
