//go:build !(openblas && cgo)

package blas

// The float64 product of the plain build on AVX-512 (dgemmAsm; gonum's Dgemm below that level).
// C = alpha·A·Bᵀ + beta·C reads rows of A and of B, both contiguous in k, so the kernel
// (dotTileAVX512) is a 4×4 tile of dot products straight from the operands: four rows of A and
// four of B loaded eight k-indices at a time feed 16 fused multiply-adds, with no packing at all.
// A first version in Goto's style (12×16 register tile over packed panels) spent 40% of a HOPE
// epoch packing, since HOPE multiplies small row blocks by a whole weight matrix; this one
// measured ~ (see the package doc) against OpenBLAS.
//
// Every element of C is its own dot product — eight partial sums in increasing k, added in a
// fixed tree — whatever m, n and the caller's split of the rows, so a row of C does not depend on
// the block it was computed in.

// dRowsA bounds the rows of A in one sweep over the columns so that they stay in L2 (256 KB of
// them) while the four rows of B of a tile stay in L1.
const dBytesA = 256 << 10

func dgemmAsm(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if lda < max(1, k) || ldb < max(1, k) || ldc < max(1, n) ||
		len(a) < (m-1)*lda+k || len(b) < (n-1)*ldb+k || len(c) < (m-1)*ldc+n {
		panic("blas: DgemmNT: slice too short for the stated dimensions")
	}
	if k == 0 || alpha == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row) // C is not read when beta is 0 (BLAS: NaNs there do not propagate)
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
		return
	}
	rowsA := max(4, min(m, dBytesA/(8*k))&^3)
	var out [16]float64
	for i0 := 0; i0 < m; i0 += rowsA {
		i1 := min(m, i0+rowsA)
		for j := 0; j < n; j += 4 {
			// Missing rows of a tile at the edges repeat the last one; their results are dropped.
			b0, b1, b2, b3 := &b[j*ldb], &b[min(j+1, n-1)*ldb], &b[min(j+2, n-1)*ldb], &b[min(j+3, n-1)*ldb]
			nc := min(4, n-j)
			for i := i0; i < i1; i += 4 {
				dotTileAVX512(&a[i*lda], &a[min(i+1, m-1)*lda], &a[min(i+2, m-1)*lda], &a[min(i+3, m-1)*lda],
					b0, b1, b2, b3, k, &out)
				for r := range min(4, i1-i) {
					row := c[(i+r)*ldc+j : (i+r)*ldc+j+nc]
					t := out[4*r : 4*r+nc]
					if beta == 0 {
						for q := range row {
							row[q] = alpha * t[q]
						}
					} else {
						for q := range row {
							row[q] = alpha*t[q] + beta*row[q]
						}
					}
				}
			}
		}
	}
}
