package nerv

import (
	"context"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// storage says how the input's squared distances are kept.
type storage int

const (
	store64    storage = iota // dense n×n float64
	store32                   // dense n×n float32 (half the memory; 7 significant digits)
	storeFeats                // nothing stored: each row is recomputed from the features, O(n·H)
)

func (s storage) String() string {
	return [...]string{"float64 matrix", "float32 matrix", "recomputed from features"}[s]
}

// input holds the mean-normalised squared input distances d_ij²/mean(d)² in one of three forms,
// and its calibrated σ_i².
type input struct {
	n     int
	how   storage
	d64   []float64
	d32   []float32
	x     *mat.Dense // features, when how == storeFeats
	scale float64    // 1/mean(d)²: multiplies raw squared distances
	mean  float64    // mean raw distance over the n(n−1) ordered pairs
	maxD  float64    // largest normalised distance
	final []float64  // calibrated σ_i²
	dups  int        // number of unordered pairs at distance 0
}

// bytesFor is the memory a storage form takes for n points.
func bytesFor(how storage, n int) int64 {
	switch how {
	case store64:
		return 8 * int64(n) * int64(n)
	case store32:
		return 4 * int64(n) * int64(n)
	}
	return 0
}

// row returns the normalised squared distances of row i, in buf unless stored as float64.
func (in *input) row(i int, buf []float64) []float64 {
	n := in.n
	switch in.how {
	case store64:
		return in.d64[i*n : (i+1)*n]
	case store32:
		src := in.d32[i*n : (i+1)*n]
		for j, v := range src {
			buf[j] = float64(v)
		}
		return buf[:n]
	}
	xi := in.x.RawRowView(i)
	for j := range n {
		var s float64
		for k, v := range in.x.RawRowView(j) {
			d := xi[k] - v
			s += d * d
		}
		buf[j] = s * in.scale
	}
	return buf[:n]
}

// newInput builds the input from features x or, when dist is not nil, from a given distance
// matrix. budget bounds the bytes the stored distances may take.
func newInput(ctx context.Context, x *mat.Dense, dist mat.Matrix, budget int64, workers int) (*input, error) {
	in := &input{}
	if dist != nil {
		sq, n, err := dataset.SquaredDistances("nerv", dist)
		if err != nil {
			return nil, err
		}
		if x != nil {
			if r, _ := x.Dims(); r != n {
				return nil, dataset.Invalidf("nerv: the distance matrix has %d rows but the data %d", n, r)
			}
		}
		in.n, in.how, in.d64 = n, store64, sq
		var sum float64
		for i := range n {
			for j := range n {
				if j != i {
					sum += math.Sqrt(sq[i*n+j])
				}
			}
		}
		in.mean = sum / float64(n*(n-1))
	} else {
		if err := in.fromFeatures(ctx, x, budget, workers); err != nil {
			return nil, err
		}
	}
	n := in.n
	if !(in.mean > 0) {
		return nil, dataset.Invalidf("nerv: all %d points are identical: there are no neighbourhoods to keep", n)
	}
	in.scale = 1 / (in.mean * in.mean)
	if in.how == store64 && dist != nil {
		for k := range in.d64 {
			in.d64[k] *= in.scale
		}
	}
	// The diameter and duplicates.
	buf := make([]float64, n)
	var maxSq float64
	for i := range n {
		r := in.row(i, buf)
		for j, v := range r {
			if j == i {
				continue
			}
			maxSq = math.Max(maxSq, v)
			if v == 0 && j > i {
				in.dups++
			}
		}
	}
	in.maxD = math.Sqrt(maxSq)
	return in, nil
}

// fromFeatures computes the squared Euclidean distances of the rows of x in one streamed pass,
// storing them if the budget allows.
func (in *input) fromFeatures(ctx context.Context, x *mat.Dense, budget int64, workers int) error {
	if x == nil {
		return dataset.Invalidf("nerv: no data")
	}
	n, _ := x.Dims()
	in.n = n
	switch {
	case bytesFor(store64, n) <= budget:
		in.how, in.d64 = store64, make([]float64, n*n)
	case bytesFor(store32, n) <= budget:
		in.how, in.d32 = store32, make([]float32, n*n)
	default:
		in.how, in.x = storeFeats, x
	}
	opt := neighbors.Options{Workers: workers}
	sums := make([]float64, n) // per row, added up in row order: the mean does not depend on the workers
	err := neighbors.Rows(ctx, x, opt, func(_, i int, d2 []float64) error {
		var s float64
		for j, v := range d2 {
			if j != i {
				s += math.Sqrt(v)
			}
		}
		sums[i] = s
		switch in.how {
		case store64:
			copy(in.d64[i*n:(i+1)*n], d2)
		case store32:
			dst := in.d32[i*n : (i+1)*n]
			for j, v := range d2 {
				dst[j] = float32(v)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var sum float64
	for _, s := range sums {
		sum += s
	}
	in.mean = sum / float64(n) / float64(n-1)
	scale := 1 / (in.mean * in.mean)
	switch in.how {
	case store64:
		for k := range in.d64 {
			in.d64[k] *= scale
		}
	case store32:
		for k := range in.d32 {
			in.d32[k] = float32(float64(in.d32[k]) * scale)
		}
	}
	return nil
}

// calibrate finds σ_i² for every row (in parallel) so that the entropy of p_·|i is ln k.
func (in *input) calibrate(ctx context.Context, k float64, cal affinity.Calibration, workers int) error {
	n := in.n
	in.final = make([]float64, n)
	return parallelRows(ctx, n, workers, func(i int, buf []float64) {
		r := in.row(i, buf[:n])
		a := buf[n : 2*n-1]
		copy(a, r[:i])
		copy(a[i:], r[i+1:])
		in.final[i] = sigma2(a, k, cal)
	}, 2*n)
}

// parallelRows calls fn(i, buf) for i = 0..n−1 on workers goroutines, each with its own scratch
// buffer of length bufLen; it stops early when ctx is cancelled.
func parallelRows(ctx context.Context, n, workers int, fn func(i int, buf []float64), bufLen int) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]float64, bufLen)
			for {
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				i := next
				next += 16
				mu.Unlock()
				if i >= n {
					return
				}
				for r := i; r < min(i+16, n); r++ {
					fn(r, buf)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// minSigma2 floors every calibrated σ_i² (squared distances scaled to mean 1). NeRV uses σ_i² in
// the output space too, as 1/σ_i² times squared output distances: below about 1e-30 (a distance
// 1e-15 of the mean, the rounding of coordinates of order 1) no layout can resolve the
// neighbourhood, and further down the reciprocal overflows and the cost turns NaN. Exact
// duplicates no longer get there (affinity's calibration aims past the tied group), but near
// ones can: on reproduce pe's √KL distances between near-one-hot posteriors, 2,138 of BBC's 2,225
// rows have their 20 nearest neighbours within rounding of each other and σ² down to 3e-39.
// dredviz floors at affinity.MinSigma2 = 1e-10; that would move supervised NeRV, whose
// learning-metric rows reach 8e-24 on Letter where the mixture's posterior is flat.
const minSigma2 = 1e-30

// sigma2 is affinity.Sigma2 floored at minSigma2.
func sigma2(a []float64, k float64, cal affinity.Calibration) float64 {
	return math.Max(affinity.Sigma2(a, k, cal), minSigma2)
}
