//go:build !amd64 && !(openblas && cgo)

package blas

// Other architectures (arm64 among them) run the portable Go loops: no assembly kernels yet.

// I8Native reports whether I8NT runs a vector kernel: never on this architecture.
var I8Native = false

func wideA() bool { return false }

func i8nt(c []int32, ldc int, a *I8A, b *I8B, j0, j1 int) { i8ntGo(c, ldc, a, b, j0, j1) }

func dist2Row(dst []float64, si float64, sq []float64, dot []int32) { dist2RowGo(dst, si, sq, dot) }

func sqrtSum(si float64, sq []float64, dot []int32) float64 { return sqrtSumGo(si, sq, dot) }

func sqrtSum2D(a, b float64, xs, ys []float64) float64 { return sqrtSum2DGo(a, b, xs, ys) }

func expSums(a []float64, inv, clamp, tmin, skip float64) (z, s float64) {
	return expSumsGo(a, inv, clamp, tmin, skip)
}

func klSums(a, b []float64, ia, ib, clamp, pmin, qmin, skip float64) (zp, sp, zq, sq float64) {
	return klSumsGo(a, b, ia, ib, clamp, pmin, qmin, skip)
}

func minMax(a []float64, lo, hi float64) (float64, float64) { return minMaxGo(a, lo, hi) }

func rankKL(seq []float64, other []int32, skip, r0 int32, scale, inv, clamp, tmin, lz, cp, clp float64) (a, b float64) {
	return rankKLGo(seq, other, skip, r0, scale, inv, clamp, tmin, lz, cp, clp)
}

func buckets(cb []uint16, d []float64, lo, scale, last float64) { bucketsGo(cb, d, lo, scale, last) }

func fineBuckets(sb []uint32, ks []float64, lo, sc, base float64, last uint32) {
	fineBucketsGo(sb, ks, lo, sc, base, last)
}

func kernelLines() []string {
	return []string{
		"exact int8 products, exp sums, distance rows, bucket sort: portable Go",
		"float64/float32 products (DgemmNT, SgemmNT): " + Name,
	}
}

func dgemmNT(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	dgemmGonum(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func dgemmSerial() bool { return false }

func productsName() string { return "gonum" }
