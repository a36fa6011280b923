// Package blas holds the few dense kernels whose speed matters: the products of row blocks that
// every distance computation needs (DgemmNT, SgemmNT, and exact int8 products I8NT/I8GemmNT with
// Dist2Row and SqrtSum to turn them into distances), and the loops that run over all n² pairs of
// the quality measures (ExpSums: a row entropy with dredviz's clamped exponents; KLSums: the
// smoothed KL divergences of a row; MinMax; the bucket arithmetic of the rank passes, Buckets and
// FineBuckets; RankKL).
//
// Three builds, one contract:
//
//   - The plain build (`go build`, `go install`, with or without cgo) on amd64 runs Go assembly
//     kernels (asm_amd64.s, hand-written) chosen at run time by the CPU's features
//     (golang.org/x/sys/cpu): on AVX-512 VNNI the int8 products (vpdpbusd, an 8×32 register
//     tile), on AVX-512 F/DQ/BW/VL the float64 product (a 4×4 tile of dot products read in
//     place), the vectorised exponential sums, Dist2Row, SqrtSum, MinMax and the bucket
//     arithmetic. On AVX2 + FMA (Haswell … Alder Lake, Zen 1–3): the int8 products (vpmovzxbw
//     and vpmaddwd, a 4×8 tile, A widened to int16 when packed), the float64 product (a 4×3
//     tile of dot products read in place; for k ≤ 128 a packed 4×12 tile), ExpSums, KLSums (a
//     table-free degree-13 exponential), Dist2Row and MinMax; SqrtSum and the bucket arithmetic
//     run the portable loops there. arm64 and every other architecture run the portable Go loops
//     and gonum's BLAS (no NEON kernels yet; the int8 products then fall back to gonum's float32
//     product in package neighbors). Active is the level in use; LOWDIM_CPU=generic (or avx2,
//     avx512) lowers it, so that one machine tests every path; `lowdim version` prints it
//     (Kernels).
//   - `-tags openblas` with cgo runs the C twins (i8_c.go, expsum_c.go; GCC intrinsics and inline
//     assembly: AVX-512 where both the CPU and Active allow it, else scalar C) and OpenBLAS's
//     dgemm and sgemm through dlopen, its kernels chosen from Active too (SkylakeX, or Haswell
//     at the avx2 level), so that LOWDIM_CPU=avx2 emulates an AVX2 machine in both builds. It is
//     kept as the reference the plain build is measured against (scripts/fastdefault.sh).
//
// Only row-major A times transposed B is offered: C = alpha·A·Bᵀ + beta·C, in double (DgemmNT)
// and single precision (SgemmNT: package neighbors uses it for small-integer data when the CPU
// lacks VNNI, where every partial sum is an integer below 2²⁴ and so exact). In the plain build
// every element of C is computed in an order fixed by k alone, so a row of C does not depend on
// how a caller splits its rows (TestDgemmNTRowsIndependent); OpenBLAS does not promise that, so
// callers split products in blocks that do not depend on the number of workers.
//
// The OpenBLAS build opens libopenblas.so.0 at start (Debian: apt-get install libopenblas0) and
// falls back to gonum when it is missing; Name says which is in use, Threaded whether DgemmNT
// spreads itself over the cores (gonum's does; OpenBLAS is set to one thread, and the assembly
// kernel runs on its caller's goroutine, so callers split large products themselves).
//
// Exact int8 products (I8NT, I8GemmNT; see i8.go): C = A·Bᵀ in int32 for int8 operands, exact
// on every path. Package neighbors uses them for pixel-like data (every column spanning at most
// 255 values) when I8Native.
//
// Measured on one core of the shared 2-core machine (Xeon with AVX-512 VNNI; go test -cpu 1
// -benchtime 10x, plain build against -tags openblas interleaved, medians of 3, while other jobs
// kept the load average at 19–25, which inflates every figure by 2–4×; the ratios are the
// steadier numbers): BenchmarkI8NT on MNIST's block (239×70,000, k = 717) 357 against 320 ms;
// BenchmarkExpSums 42 against 61 µs and BenchmarkKLSums 80 against 246 µs per row of 70,000
// (the C loop branches per element); Dist2Row 22 against 19 µs, SqrtSum 33 against 42 µs;
// BenchmarkDgemmNT (k = 784) 38 against 32 ms for 32×4096 but 327 against 172 ms for 256×4096,
// where OpenBLAS's packed kernel wins (gonum's pure Go: 3.3 GFLOP/s in the same runs, 3–4×
// slower than either); at k = 50 (256×4096, the packed short-k route) 19–35 against 12–17 ms.
// Whole runs (scripts/fastdefault.sh, the README's table): the same CPU time as -tags openblas
// on eval of MNIST 10k, a HOPE epoch, NeRV, PE and exact k-NN on MNIST 70k; 1.19× on eval of
// MNIST 70k. Earlier figures, quieter machine, -tags openblas: BenchmarkDgemmNT gonum
// 9.8 and OpenBLAS 59 GFLOP/s; BenchmarkI8NT 273 GOP/s against sgemm's 60 GFLOP/s; the C kernel
// alone 560–585 GOP/s on 239×70,000; SqrtSum by reciprocal square root and Newton steps
// 0.36–0.44 ns per element against 0.94 with vsqrtpd.
package blas

// DgemmNT sets C = alpha·A·Bᵀ + beta·C for row-major A (m×k, stride lda), B (n×k, stride ldb)
// and C (m×n, stride ldc).
func DgemmNT(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	dgemmNT(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmNT is DgemmNT in single precision.
func SgemmNT(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	sgemmNT(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Transpose writes the r×c row-major a into dst as c×r, in 32×32 tiles so that both sides are
// read and written a cache line at a time. DgemmNT takes its right operand transposed; callers
// whose operand is stored the other way round pass it through here.
func Transpose(dst, a []float64, r, c int) { TransposeCols(dst, a, r, c, 0, c) }

// TransposeCols is Transpose restricted to a's columns j0 ≤ j < j1, that is to dst's rows j0…j1
// (a contiguous span of dst), so that goroutines given disjoint spans write disjoint memory.
func TransposeCols(dst, a []float64, r, c, j0, j1 int) {
	const tile = 32
	for i0 := 0; i0 < r; i0 += tile {
		for jt := j0; jt < j1; jt += tile {
			for i := i0; i < min(i0+tile, r); i++ {
				row := a[i*c : i*c+c]
				for j := jt; j < min(jt+tile, j1); j++ {
					dst[j*r+i] = row[j]
				}
			}
		}
	}
}
