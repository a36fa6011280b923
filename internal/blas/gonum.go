//go:build !openblas || !cgo

package blas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Name names the implementation in use.
var Name = "gonum"

func dgemmNT(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas64.Implementation().Dgemm(blas.NoTrans, blas.Trans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
