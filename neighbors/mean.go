package neighbors

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/internal/blas"
)

// meanChunk is the number of columns one task of MeanDistance handles against a block of rows.
const meanChunk = 2048

// MeanDistance returns the mean Euclidean distance ‖x_i − x_j‖ over the n(n−1) ordered pairs
// i ≠ j (0 when n < 2). Every unordered pair is computed once, so it costs half a pass of Rows; the
// partial sums are added in a fixed order, so the result does not depend on the number of workers.
// The squared distances are those of Rows; their square roots and sums on the int8 path and for
// 2-D data come from blas.SqrtSum and blas.SqrtSum2D (on AVX-512, either build: each root
// within one unit in the last place, 16 interleaved partial sums per row), elsewhere correctly
// rounded roots in 2 interleaved sums per row; rows' sums are added in row order within a task,
// tasks in task order.
func MeanDistance(ctx context.Context, x *mat.Dense, opt Options) (float64, error) {
	return meanDistance(ctx, x, opt, blas.I8Native)
}

// meanDistance is MeanDistance with the int8 path allowed or not (tests compare the two).
func meanDistance(ctx context.Context, x *mat.Dense, opt Options, allowI8 bool) (float64, error) {
	n, d, err := check(x)
	if err != nil {
		return 0, err
	}
	if n < 2 {
		return 0, nil
	}
	var src *source
	var xs, ys []float64 // the columns of 2-D data
	switch {
	case d > directMax:
		src = prepareWith(x, allowI8)
	case d == 2:
		xs, ys = make([]float64, n), make([]float64, n)
		for i := range xs {
			r := x.RawRowView(i)
			xs[i], ys[i] = r[0], r[1]
		}
	}
	blockRows := blockRowsFor(n)
	// tasks: (row block, first column), columns from the block's first row on.
	type task struct{ lo, hi, c0, c1 int }
	var tasks []task
	for lo := 0; lo < n; lo += blockRows {
		hi := min(lo+blockRows, n)
		for c0 := lo; c0 < n; c0 += meanChunk {
			tasks = append(tasks, task{lo, hi, c0, min(c0+meanChunk, n)})
		}
	}
	sums := make([]float64, len(tasks))
	nw := min(opt.workers(), len(tasks))
	var (
		next     atomic.Int64
		done     atomic.Int64
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	for w := 0; w < nw; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf *meanBuf
			if src != nil {
				buf = src.newMeanBuf(blockRows)
			}
			for {
				t := int(next.Add(1) - 1)
				if t >= len(tasks) {
					return
				}
				if err := ctx.Err(); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				tk := tasks[t]
				var s float64
				if src == nil {
					if xs != nil {
						s = sum2D(xs, ys, tk.lo, tk.hi, tk.c0, tk.c1)
					} else {
						s = directSum(x, tk.lo, tk.hi, tk.c0, tk.c1)
					}
				} else {
					s = src.meanTask(tk.lo, tk.hi, tk.c0, tk.c1, buf)
				}
				sums[t] = s
				opt.Progress.Report("mean distance", int(done.Add(1)), len(tasks))
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var total float64
	for _, s := range sums {
		total += s
	}
	return 2 * total / (float64(n) * float64(n-1)), nil
}

// meanBuf holds one worker's buffers for source.meanTask.
type meanBuf struct {
	prod   []float64
	prod32 []float32
	prodI  []int32
	pa     blas.I8A
	packed int // first row of the block packed in pa (−1: none)
}

// newMeanBuf allocates the buffers of tasks of up to rows rows and meanChunk columns.
func (src *source) newMeanBuf(rows int) *meanBuf {
	switch {
	case src.i8 != nil:
		return &meanBuf{prodI: make([]int32, rows*meanChunk), packed: -1}
	case src.f32 != nil:
		return &meanBuf{prod32: make([]float32, rows*meanChunk)}
	default:
		return &meanBuf{prod: make([]float64, rows*meanChunk)}
	}
}

// meanTask returns Σ ‖x_i − x_j‖ over the rows lo ≤ i < hi and the columns max(c0, i+1) ≤ j < c1
// (c1 − c0 ≤ meanChunk).
func (src *source) meanTask(lo, hi, c0, c1 int, buf *meanBuf) float64 {
	nc, dc, sq := c1-c0, src.cols, src.sq
	var s float64
	switch {
	case src.i8 != nil:
		if buf.packed != lo { // tasks come in order: a worker often gets the same block again
			buf.pa.PackRows(src.i8, lo, hi)
			buf.packed = lo
		}
		blas.I8NT(buf.prodI, nc, &buf.pa, src.i8, c0, c1)
		for i := lo; i < hi; i++ {
			if j0 := max(c0, i+1); j0 < c1 {
				s += blas.SqrtSum(sq[i], sq[j0:c1], buf.prodI[(i-lo)*nc+j0-c0:])
			}
		}
	case src.f32 != nil:
		blas.SgemmNT(hi-lo, nc, dc, 1, src.f32[lo*dc:], dc, src.f32[c0*dc:], dc, 0, buf.prod32, nc)
		for i := lo; i < hi; i++ {
			if j0 := max(c0, i+1); j0 < c1 {
				s += sqrtSum32(sq[i], sq[j0:c1], buf.prod32[(i-lo)*nc+j0-c0:])
			}
		}
	default:
		blas.DgemmNT(hi-lo, nc, dc, 1, src.f64[lo*dc:], dc, src.f64[c0*dc:], dc, 0, buf.prod, nc)
		for i := lo; i < hi; i++ {
			if j0 := max(c0, i+1); j0 < c1 {
				s += sqrtSum64(sq[i], sq[j0:c1], buf.prod[(i-lo)*nc+j0-c0:])
			}
		}
	}
	return s
}

// sqrtSum32 returns Σ_j sqrt(max(si + sq[j] − 2·g[j], 0)).
func sqrtSum32(si float64, sq []float64, g []float32) float64 {
	g = g[:len(sq)]
	var a, b float64
	j := 0
	for ; j+1 < len(sq); j += 2 {
		a += math.Sqrt(max(si+sq[j]-2*float64(g[j]), 0))
		b += math.Sqrt(max(si+sq[j+1]-2*float64(g[j+1]), 0))
	}
	if j < len(sq) {
		a += math.Sqrt(max(si+sq[j]-2*float64(g[j]), 0))
	}
	return a + b
}

// sqrtSum64 is sqrtSum32 for double precision products.
func sqrtSum64(si float64, sq []float64, g []float64) float64 {
	g = g[:len(sq)]
	var a, b float64
	j := 0
	for ; j+1 < len(sq); j += 2 {
		a += math.Sqrt(max(si+sq[j]-2*g[j], 0))
		b += math.Sqrt(max(si+sq[j+1]-2*g[j+1], 0))
	}
	if j < len(sq) {
		a += math.Sqrt(max(si+sq[j]-2*g[j], 0))
	}
	return a + b
}

// sum2D returns Σ ‖x_i − x_j‖ over rows lo ≤ i < hi and columns max(c0, i+1) ≤ j < c1 of 2-D
// data whose columns are xs and ys: per row, blas.SqrtSum2D (on an AVX-512 CPU, 16 interleaved
// partial sums with -tags openblas, 8 in the plain build, and roots within one unit in the last place; otherwise
// correctly rounded roots in 2 interleaved sums), the rows' sums added in row order. The result
// depends on the task only, not on the number of workers.
func sum2D(xs, ys []float64, lo, hi, c0, c1 int) float64 {
	var s float64
	for i := lo; i < hi; i++ {
		if j0 := max(c0, i+1); j0 < c1 {
			s += blas.SqrtSum2D(xs[i], ys[i], xs[j0:c1], ys[j0:c1])
		}
	}
	return s
}

// directSum returns Σ ‖x_i − x_j‖ over rows lo ≤ i < hi and columns max(c0, i+1) ≤ j < c1 by
// plain loops (data of 1 or 3 to 8 columns).
func directSum(x *mat.Dense, lo, hi, c0, c1 int) float64 {
	var s float64
	for i := lo; i < hi; i++ {
		xi := x.RawRowView(i)
		for j := max(c0, i+1); j < c1; j++ {
			s += math.Sqrt(dist2(xi, x.RawRowView(j)))
		}
	}
	return s
}
