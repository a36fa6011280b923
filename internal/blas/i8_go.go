//go:build !openblas || !cgo

package blas

// I8Native reports whether I8NT runs the AVX-512 VNNI kernel; this build (without -tags openblas
// or without cgo) always uses the portable Go loop.
const I8Native = false

func i8nt(c []int32, ldc int, a *I8A, b *I8B, j0, j1 int) { i8ntGo(c, ldc, a, b, j0, j1) }

func dist2Row(dst []float64, si float64, sq []float64, dot []int32) { dist2RowGo(dst, si, sq, dot) }

func sqrtSum(si float64, sq []float64, dot []int32) float64 { return sqrtSumGo(si, sq, dot) }

func sqrtSum2D(a, b float64, xs, ys []float64) float64 { return sqrtSum2DGo(a, b, xs, ys) }
