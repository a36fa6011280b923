package deepnet

import (
	iblas "github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/internal/minibatch"
)

// Every product of the network and of the RBMs is C = alpha·A·Bᵀ + beta·C of row-major blocks
// (internal/blas DgemmNT: the AVX-512 or AVX2 assembly kernel, gonum's Dgemm elsewhere), with
// transposed copies made where the natural product has another form. Through the network's
// 500→2000 layer, with the copies counted, it was 5.7–8.1× faster than gonum's mat.Mul, which
// ptsne used before (BenchmarkProduct, -benchtime 10x -count 3 interleaved on the shared 2-core
// AVX-512 machine at load 4–6, medians: a batch of 1,000 rows forward 65.8 against 379 ms, the
// weight gradient 90.6 against 513 ms; an RBM batch of 100 rows 8.2 against 46.5 and 4.8
// against 39.4 ms). The assembly kernel runs on its caller's goroutine, so the products
// are split over a pool of workers in blocks of C that depend on the shape alone; each element
// of C is its own dot product in an order fixed by k, so the bytes do not depend on the number
// of workers either.

// gemmBlocks is the number of blocks a product is split into.
const gemmBlocks = 16

// splitProducts is true when products should be split over the pool (the assembly and OpenBLAS
// kernels run on one thread; gonum's Dgemm spreads its blocks over the cores itself).
var splitProducts = !iblas.Threaded

// Gemm multiplies on a pool of workers (nil: on the caller's goroutine alone).
type Gemm struct {
	pool  *minibatch.Pool
	args  gemmArgs
	job   func(int)
	tr    trArgs
	trJob func(int)
}

type trArgs struct {
	dst, a []float64
	r, c   int
}

type gemmArgs struct {
	m, n, k       int
	alpha, beta   float64
	a, b, c       []float64
	lda, ldb, ldc int
	cols          bool // split C by columns (else by rows)
}

// NewGemm returns a Gemm that splits products over workers goroutines (the caller's among them).
func NewGemm(workers int) *Gemm {
	g := &Gemm{}
	if splitProducts && workers > 1 {
		g.pool = minibatch.NewPool(workers)
	}
	g.job = g.block
	g.trJob = g.trBlock
	return g
}

// Close stops the pool's workers.
func (g *Gemm) Close() {
	if g.pool != nil {
		g.pool.Close()
	}
}

// NT sets C = alpha·A·Bᵀ + beta·C for row-major A (m×k), B (n×k) and C (m×n).
func (g *Gemm) NT(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if g.pool == nil || max(m, n) < 4*gemmBlocks {
		iblas.DgemmNT(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	g.args = gemmArgs{m: m, n: n, k: k, alpha: alpha, beta: beta, a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc, cols: n > m}
	g.pool.Run(gemmBlocks, g.job)
}

// Transpose writes the r×c row-major a into dst as c×r (internal/blas Transpose). A transpose
// reads and writes every element once and is bound by memory, yet the network's weights
// (3.3 million in deep-AE) are transposed at every forward pass: on one goroutine that was a sixth
// of a deep-AE evaluation's time, beside products split over the pool. Large ones are split
// too, by spans of dst's rows; a copy is exact, so the bytes are those of one goroutine. Split
// over 2 cores, a deep-AE cost and gradient on a batch of 100 took 41.6 against 43.8 ms and its
// CG batch 335 against 347 ms (medians of 5, interleaved, idle 2-core AVX-512 machine, plain
// build): memory bandwidth, not the core, bounds a transpose, so two goroutines gain little more.
func (g *Gemm) Transpose(dst, a []float64, r, c int) {
	if g.pool == nil || r*c < 1<<16 || c < trBlocks*32 {
		iblas.Transpose(dst, a, r, c)
		return
	}
	g.tr = trArgs{dst: dst, a: a, r: r, c: c}
	g.pool.Run(trBlocks, g.trJob)
	g.tr = trArgs{}
}

// trBlocks is the number of spans a large transpose is split into.
const trBlocks = 8

// trBlock transposes block blk of the pool's: a span of a's columns in whole 32-column tiles.
func (g *Gemm) trBlock(blk int) {
	t := &g.tr
	tiles := (t.c + 31) / 32
	lo, hi := minibatch.Span(blk, trBlocks, tiles)
	iblas.TransposeCols(t.dst, t.a, t.r, t.c, 32*lo, min(32*hi, t.c))
}

// block computes block blk of C: a span of its rows, or of its columns when C is wide (a batch
// of 100 rows times the 2,000 units of a layer), in multiples of 4 so that the kernel's tiles
// are whole.
func (g *Gemm) block(blk int) {
	a := &g.args
	if a.cols {
		lo, hi := span4(blk, a.n)
		if hi > lo {
			iblas.DgemmNT(a.m, hi-lo, a.k, a.alpha, a.a, a.lda, a.b[lo*a.ldb:], a.ldb, a.beta, a.c[lo:], a.ldc)
		}
		return
	}
	lo, hi := span4(blk, a.m)
	if hi > lo {
		iblas.DgemmNT(hi-lo, a.n, a.k, a.alpha, a.a[lo*a.lda:], a.lda, a.b, a.ldb, a.beta, a.c[lo*a.ldc:], a.ldc)
	}
}

// span4 returns block b of gemmBlocks over n, its ends rounded to multiples of 4.
func span4(b, n int) (lo, hi int) {
	lo, hi = minibatch.Span(b, gemmBlocks, n)
	lo, hi = lo&^3, hi&^3
	if b == gemmBlocks-1 {
		hi = n
	}
	return lo, hi
}
