package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
)

// Moments are the count, mean and scatter matrix M = Σ (x − mean)(x − mean)ᵀ of a run of rows
// (a shard, or a group of consecutive shards). Two runs a and b combine exactly (Chan, Golub &
// LeVeque 1979):
//
//	n = na + nb,  δ = mean_b − mean_a,  mean = mean_a + δ·nb/n,  M = Ma + Mb + (na·nb/n)·δδᵀ
//
// which, unlike summing raw Σxxᵀ, never subtracts two large numbers to get a small one.
// Scatter holds the H×H matrix row-major; only its upper triangle is kept up to date.
type Moments struct {
	Index   int    // the first shard covered; runs merge in Index order
	Path    string // that shard, and the line of its first row, for width errors
	Line    int
	H       int
	N       int
	Mean    []float64
	Scatter []float64
}

// merge adds b (which follows a in the row order) to a.
func (a *Moments) merge(b *Moments) error {
	if b.N == 0 {
		return nil
	}
	if a.N == 0 {
		*a = Moments{Index: a.Index, Path: b.Path, Line: b.Line, H: b.H, N: b.N,
			Mean: append([]float64(nil), b.Mean...), Scatter: append([]float64(nil), b.Scatter...)}
		return nil
	}
	if a.H != b.H {
		return &dataset.ParseError{File: b.Path, Line: b.Line,
			Expected: fmt.Sprintf("%d feature columns (as %s)", a.H, a.Path), Found: fmt.Sprintf("%d", b.H)}
	}
	n := a.N + b.N
	delta := make([]float64, a.H)
	for j := range delta {
		delta[j] = b.Mean[j] - a.Mean[j]
	}
	f := float64(b.N) / float64(n)
	for j := range a.Mean {
		a.Mean[j] += delta[j] * f
	}
	for j := range a.Scatter {
		a.Scatter[j] += b.Scatter[j]
	}
	sym := blas64.Symmetric{N: a.H, Stride: a.H, Data: a.Scatter, Uplo: blas.Upper}
	blas64.Syr(float64(a.N)*float64(b.N)/float64(n), blas64.Vector{N: a.H, Inc: 1, Data: delta}, sym)
	a.N = n
	return nil
}

// blockRows is the number of rows whose moments are formed directly (one syrk) before they are
// merged into a shard's running moments.
const blockRows = 512

// shardMoments returns the moments of a data set's rows, block by block in row order.
func shardMoments(x *mat.Dense) (*Moments, error) {
	n, h := x.Dims()
	acc := &Moments{}
	buf := make([]float64, blockRows*h)
	for lo := 0; lo < n; lo += blockRows {
		hi := min(lo+blockRows, n)
		b := &Moments{H: h, N: hi - lo, Mean: make([]float64, h), Scatter: make([]float64, h*h)}
		for i := lo; i < hi; i++ {
			for j, v := range x.RawRowView(i) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, dataset.Invalidf("row %d column %d is %v", i+1, j+1, v)
				}
				b.Mean[j] += v
			}
		}
		for j := range b.Mean {
			b.Mean[j] /= float64(hi - lo)
		}
		c := blas64.General{Rows: hi - lo, Cols: h, Stride: h, Data: buf[:(hi-lo)*h]}
		for i := lo; i < hi; i++ {
			row := c.Data[(i-lo)*h : (i-lo+1)*h]
			for j, v := range x.RawRowView(i) {
				row[j] = v - b.Mean[j]
			}
		}
		blas64.Syrk(blas.Trans, 1, c, 0, blas64.Symmetric{N: h, Stride: h, Data: b.Scatter, Uplo: blas.Upper})
		if err := acc.merge(b); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// momentsFn reads a shard and emits its moments.
type momentsFn struct {
	Opt ReadOptions
}

func (f *momentsFn) ProcessElement(ctx context.Context, sh Shard, emit func(Moments)) error {
	s, err := readShard(ctx, sh.Path, f.Opt)
	if err != nil {
		return err
	}
	m, err := shardMoments(s.X)
	if err != nil {
		return fmt.Errorf("%s: %w", sh.Path, err)
	}
	m.Index, m.Path, m.Line = sh.Index, sh.Path, firstLine(s)
	emit(*m)
	return nil
}

// fanIn is the number of runs merged at each level of the reduction tree.
const fanIn = 32

// groupKeyFn keys a run by its group at the next level: Index / fanIn^level.
type groupKeyFn struct {
	Div int
}

func (f *groupKeyFn) ProcessElement(m Moments) (int, Moments) { return m.Index / f.Div, m }

// mergeGroup merges a group of runs in Index order, so that the sums are the same whatever the
// runner's grouping and ordering: the fit is reproducible to the bit on any runner.
func mergeGroup(key int, iter func(*Moments) bool, emit func(Moments)) error {
	var runs []Moments
	var m Moments
	for iter(&m) {
		runs = append(runs, m)
		m = Moments{}
	}
	sort.Slice(runs, func(a, b int) bool { return runs[a].Index < runs[b].Index })
	acc := Moments{Index: runs[0].Index}
	for i := range runs {
		if err := acc.merge(&runs[i]); err != nil {
			return err
		}
	}
	acc.Index = runs[0].Index
	emit(acc)
	return nil
}

// reduceMoments merges the per-shard moments into one, through a tree of fixed shape (groups
// of fanIn consecutive shards, then groups of those, …) that only depends on the shard count.
func reduceMoments(s beam.Scope, m beam.PCollection, shards int) beam.PCollection {
	div := 1
	for {
		div *= fanIn
		keyed := beam.ParDo(s, &groupKeyFn{Div: div}, m)
		m = beam.ParDo(s, mergeGroup, beam.GroupByKey(s, keyed))
		// Runs now start at multiples of div, and Index/div is their group; one group is left
		// when every shard index is below div.
		if shards <= div {
			return m
		}
	}
}

// Basis is the PCA basis before its signs are fixed.
type Basis struct {
	N             int
	Mean          []float64
	Components    []float64 // H×D row-major
	H, D          int
	Variance      []float64
	TotalVariance float64
}

func (b *Basis) model() *linproj.PCAModel {
	return &linproj.PCAModel{Mean: b.Mean, Components: mat.NewDense(b.H, b.D, append([]float64(nil), b.Components...)),
		Variance: b.Variance, TotalVariance: b.TotalVariance}
}

// basisFn turns the global moments into the top Dim eigenpairs of the sample covariance
// M/(n−1), as linproj.PCA's scatter-matrix route does.
type basisFn struct {
	Dim int
}

func (f *basisFn) ProcessElement(ctx context.Context, m Moments) (Basis, error) {
	dim := f.Dim
	if dim == 0 {
		dim = 2
	}
	switch {
	case m.N < 2:
		return Basis{}, dataset.Invalidf("pca: need at least 2 rows, have %d", m.N)
	case dim < 0 || dim > min(m.N, m.H):
		return Basis{}, dataset.Invalidf("pca: Dim %d out of range 1..min(n=%d, H=%d)", dim, m.N, m.H)
	}
	h := m.H
	cov := mat.NewSymDense(h, nil)
	scale := 1 / float64(m.N-1)
	total := 0.0
	for i := 0; i < h; i++ {
		for j := i; j < h; j++ {
			cov.SetSym(i, j, m.Scatter[i*h+j]*scale)
		}
		total += cov.At(i, i)
	}
	vals, vecs, err := linproj.TopEigenSym(ctx, cov, dim)
	if err != nil {
		return Basis{}, err
	}
	b := Basis{N: m.N, Mean: m.Mean, H: h, D: dim, Variance: make([]float64, dim), TotalVariance: total,
		Components: make([]float64, 0, h*dim)}
	for k := range vals {
		b.Variance[k] = math.Max(vals[k], 0)
	}
	for i := 0; i < h; i++ {
		b.Components = append(b.Components, vecs.RawRowView(i)...)
	}
	return b, nil
}

// SignCand is, for component K, the projected row of largest absolute value met so far: the
// sign convention (scikit-learn's svd_flip, as linproj.PCA) makes that entry positive. On
// exact ties the row first in the global order wins, as in a single pass over all rows.
type SignCand struct {
	K   int
	Abs float64
	Neg bool
	Gid int64
}

func (a SignCand) beats(b SignCand) bool { return a.Abs > b.Abs || a.Abs == b.Abs && a.Gid < b.Gid }

// signFn projects a shard on the basis and emits its candidate per component.
type signFn struct {
	Opt ReadOptions
}

func (f *signFn) ProcessElement(ctx context.Context, sh Shard, b Basis, emit func(int, SignCand)) error {
	s, err := readShard(ctx, sh.Path, f.Opt)
	if err != nil {
		return err
	}
	if s.Dim() != b.H {
		return widthError(sh.Path, s, b.H, "as the first shard")
	}
	var y mat.Dense
	if err := b.model().Transform(&y, s.X); err != nil {
		return fmt.Errorf("%s: %w", sh.Path, err)
	}
	n, _ := y.Dims()
	for k := 0; k < b.D; k++ {
		best := SignCand{K: k, Abs: -1}
		for i := 0; i < n; i++ {
			if a := math.Abs(y.At(i, k)); a > best.Abs {
				best = SignCand{K: k, Abs: a, Neg: y.At(i, k) < 0, Gid: gid(sh.Index, i)}
			}
		}
		emit(0, best)
	}
	return nil
}

// finishPCA fixes the signs and encodes the model as a modelio file.
func finishPCA(_ int, iter func(*SignCand) bool, b Basis) ([]byte, error) {
	best := make([]SignCand, b.D)
	for k := range best {
		best[k].Abs = -1
	}
	var c SignCand
	for iter(&c) {
		if c.beats(best[c.K]) {
			best[c.K] = c
		}
	}
	m := b.model()
	for k, c := range best {
		if c.Neg {
			for j := 0; j < b.H; j++ {
				m.Components.Set(j, k, -m.Components.At(j, k))
			}
		}
	}
	var buf bytes.Buffer
	if err := modelio.Encode(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// FitPCA adds a distributed PCA fit of the shards' rows to s and returns a PCollection holding
// one element: the model file's bytes (modelio, kind "pca", without a training embedding).
// It reads the shards twice: once for the moments (per shard, then merged in a fixed tree),
// once to fix the components' signs. The result equals linproj.PCA on the concatenated rows
// to rounding (1e-9 in the tests); linproj switches to an SVD of the centred data when
// n < 2H, which agrees to the same tolerance in the leading components.
func FitPCA(s beam.Scope, shards []Shard, opt ReadOptions, dim int) beam.PCollection {
	s = s.Scope("FitPCA")
	in := shardList(s, shards)
	mom := beam.ParDo(s, &momentsFn{Opt: opt}, in)
	total := reduceMoments(s, mom, len(shards))
	basis := beam.ParDo(s, &basisFn{Dim: dim}, total)
	cands := beam.ParDo(s, &signFn{Opt: opt}, in, beam.SideInput{Input: basis})
	return beam.ParDo(s, finishPCA, beam.GroupByKey(s, cands), beam.SideInput{Input: basis})
}

// writeBytesFn writes its one input element to Path.
type writeBytesFn struct {
	Path string
}

func (f *writeBytesFn) ProcessElement(ctx context.Context, b []byte) error {
	return writeFile(ctx, f.Path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// WriteBytes writes the single []byte element of col to path.
func WriteBytes(s beam.Scope, col beam.PCollection, path string) {
	beam.ParDo0(s.Scope("Write"), &writeBytesFn{Path: path}, col)
}
