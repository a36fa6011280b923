//go:build !openblas || !cgo

package blas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Cgo reports whether this build calls C kernels (-tags openblas with cgo).
const Cgo = false

// Name names the implementation of the products in use.
var Name = productsName()

// Threaded reports whether DgemmNT spreads one product over the cores itself (gonum's Dgemm
// does); when false, callers with large products split them by rows over their own workers.
var Threaded = !dgemmSerial()

func dgemmGonum(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas64.Implementation().Dgemm(blas.NoTrans, blas.Trans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func sgemmNT(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	blas32.Implementation().Sgemm(blas.NoTrans, blas.Trans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
