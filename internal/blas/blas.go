// Package blas routes the few dense products whose speed matters (the blocked distance rows of
// package neighbors) either to gonum's pure-Go BLAS (the default) or, when built with
// `-tags openblas` and cgo, to the system OpenBLAS through a tiny cgo binding of cblas_dgemm and
// cblas_sgemm. The same build also vectorises the two other loops that run over all n² pairs of
// the quality measures: ExpSums (a row entropy with dredviz's clamped exponents) and KLSums (the
// smoothed KL divergences of a row), AVX-512 where the CPU has it (1.2 against 19 ns per element
// for the pure-Go loops with math.Exp, measured on rows of 70,000).
//
// Only row-major, non-transposed A times transposed B is offered: C = alpha·A·Bᵀ + beta·C, the
// product of two row blocks that every distance computation needs, in double (DgemmNT) and single
// precision (SgemmNT: package neighbors uses it for small-integer data, where every partial sum is
// an integer below 2²⁴ and so exact; OpenBLAS runs it about twice as fast).
//
// The OpenBLAS build opens libopenblas.so.0 with dlopen at start (Debian: apt-get install
// libopenblas0 or libopenblas-dev) and falls back to gonum when it is missing; Name says which is
// in use. It sets OpenBLAS to one thread: callers run one product per worker goroutine themselves.
// Measured here (one core, 256×784 times 784×4096, BenchmarkDgemmNT, median of 3): gonum 9.8,
// OpenBLAS 59 GFLOP/s (only 10 with the generic kernels OpenBLAS picks on its own in this VM);
// BenchmarkSgemmNT: OpenBLAS 103–131 GFLOP/s.
//
// Exact int8 products (I8NT, I8GemmNT; see i8.go): C = A·Bᵀ in int32 for int8 operands, by an
// AVX-512 VNNI micro-kernel (8 rows × 32 columns, vpdpbusd, written in inline assembly) with the
// same build on CPUs that have it (I8Native), a portable Go loop otherwise. Package neighbors
// uses it for pixel-like data (every column spanning at most 255 values), with Dist2Row and
// SqrtSum turning a row of products into squared distances or a sum of distances (AVX-512 too).
// Measured on one core of the shared 2-core machine (Xeon model 207, go test -cpu 1, GOMAXPROCS=1,
// medians of 5 while other jobs kept the load average at 3.5–4, which slows every figure by up to
// 2×; the ratios are the steadier numbers): BenchmarkI8NT 256×4096×784 6.0 ms (273 GOP/s)
// against BenchmarkSgemmNT 27.6 ms (60 GFLOP/s in that run, 109 unloaded); MNIST's blocks
// (k = 717): 239×70,000 89 ms against sgemm's 343 ms, 256×2048 2.7 against 8.6 ms. The kernel
// alone (C, best of 7, lighter load): 560–585 GOP/s on 239×70,000, 720 on 256×2048, against
// 120–137 GFLOP/s for OpenBLAS's sgemm. Per row of 70,000: Dist2Row 44 µs (Go loop 124),
// SqrtSum 75 µs (Go loop with math.Sqrt 159; in C, best of 200: 0.36–0.44 ns per element with the
// reciprocal square root and Newton steps it uses, 0.94 with vsqrtpd).
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
