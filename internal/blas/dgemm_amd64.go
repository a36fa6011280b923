//go:build !(openblas && cgo)

package blas

import (
	"math"
	"sync"
)

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
	if k <= dShortK {
		dgemmPacked(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
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

// dgemmAVX2 is dgemmAsm's route on AVX2 + FMA (16 vector registers of 4 lanes): a 4×3 tile of
// dot products read in place (dotTileAVX2: twelve accumulators, B's three rows in registers, A's
// values as the memory operands of the multiply-adds) over the first k4 = k − k mod 4 indices,
// the last k mod 4 products added after the lanes, in increasing l. Each element of C is again its
// own dot product in an order fixed by k alone, so a row of C does not depend on the caller's split.
func dgemmAVX2(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if lda < max(1, k) || ldb < max(1, k) || ldc < max(1, n) ||
		len(a) < (m-1)*lda+k || len(b) < (n-1)*ldb+k || len(c) < (m-1)*ldc+n {
		panic("blas: DgemmNT: slice too short for the stated dimensions")
	}
	if k == 0 || alpha == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
		return
	}
	if k <= dShortK {
		dgemmPackedAVX2(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	k4 := k &^ 3
	rowsA := max(4, min(m, dBytesA/(8*k))&^3)
	var out [12]float64
	var ar [4][]float64
	var br [3][]float64
	for i0 := 0; i0 < m; i0 += rowsA {
		i1 := min(m, i0+rowsA)
		for j := 0; j < n; j += 3 {
			// Missing rows of a tile at the edges repeat the last one; their results are dropped.
			for q := range br {
				br[q] = b[min(j+q, n-1)*ldb:][:k]
			}
			nc := min(3, n-j)
			for i := i0; i < i1; i += 4 {
				for r := range ar {
					ar[r] = a[min(i+r, m-1)*lda:][:k]
				}
				if k4 > 0 {
					dotTileAVX2(&ar[0][0], &ar[1][0], &ar[2][0], &ar[3][0], &br[0][0], &br[1][0], &br[2][0], k4, &out)
				} else {
					out = [12]float64{}
				}
				for r := range min(4, i1-i) {
					row := c[(i+r)*ldc+j : (i+r)*ldc+j+nc]
					for q := range row {
						t := out[3*r+q]
						for l := k4; l < k; l++ {
							t += ar[r][l] * br[q][l]
						}
						if beta == 0 {
							row[q] = alpha * t
						} else {
							row[q] = alpha*t + beta*row[q]
						}
					}
				}
			}
		}
	}
}

// The short-k route on AVX2 (k ≤ dShortK, as on AVX-512 and for the same reason: at k = 50 the
// dot-product tile ran 4× slower than OpenBLAS's Haswell kernel): A packed in row panels of 4 and
// B in column panels of 12 (in Go; a few per cent of the product when m is small), then the 4×12
// register tile of dgemmKernelAVX2. dNC2 columns of B per packed block: a multiple of 12 that
// fits the pool's buffer.
const (
	dMR2 = 4
	dNR2 = 12
	dNC2 = dNC / dNR2 * dNR2
)

func dgemmPackedAVX2(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	w := dgemmPool.Get().(*dgemmWork)
	defer dgemmPool.Put(w)
	read := 0
	if beta != 0 {
		read = 1
	}
	for ic := 0; ic < m; ic += dMC {
		mc := min(dMC, m-ic)
		packGo(w.a, a, lda, ic, mc, k, dMR2)
		for jc := 0; jc < n; jc += dNC2 {
			nc := min(dNC2, n-jc)
			packGo(w.b, b, ldb, jc, nc, k, dNR2)
			for jr := 0; jr < nc; jr += dNR2 {
				pb := &w.b[jr*k]
				for ir := 0; ir < mc; ir += dMR2 {
					pa := &w.a[ir*k]
					i, j := ic+ir, jc+jr
					if ir+dMR2 <= mc && jr+dNR2 <= nc {
						dgemmKernelAVX2(k, pa, pb, &c[i*ldc+j], ldc, alpha, beta, read)
						continue
					}
					// An edge tile: into the scratch tile, then the rows and columns that exist,
					// rounded as the kernel rounds them (fma(beta, C, alpha·acc)).
					dgemmKernelAVX2(k, pa, pb, &w.tile[0], dNR2, alpha, 0, 0)
					for r := range min(dMR2, mc-ir) {
						row := c[(i+r)*ldc+j : (i+r)*ldc+j+min(dNR2, nc-jr)]
						t := w.tile[r*dNR2:]
						for q := range row {
							if beta == 0 {
								row[q] = t[q]
							} else {
								row[q] = math.FMA(beta, row[q], t[q])
							}
						}
					}
				}
			}
		}
	}
}

// packGo is pack without gathers: panel q of wd rows holds, for each l < k, the wd values of its
// rows adjacent (zeros beyond rn).
func packGo(dst, x []float64, ld, r0, rn, k, wd int) {
	for q := 0; q < rn; q += wd {
		panel := dst[q*k : (q+wd)*k]
		rows := min(wd, rn-q)
		if rows < wd {
			clear(panel)
		}
		for r := range rows {
			for l, v := range x[(r0+q+r)*ld : (r0+q+r)*ld+k] {
				panel[l*wd+r] = v
			}
		}
	}
}

// Short k (k ≤ dShortK: package neighbors' PCA-50 rows, say) leaves the dot-product tile above
// little to amortise its horizontal sums over (3.5× slower than OpenBLAS at k = 50), so those
// products take Goto's route instead: A packed in row panels of 12 and B in column panels of 16
// (each k index's values adjacent; by gathers, a few per cent of the product), then a 12×16
// register tile of broadcast fused multiply-adds that writes C directly. Which route runs
// depends on k alone, so rows of C still do not depend on the caller's split.
const (
	dShortK = 128
	dMR     = 12
	dNR     = 16
	dMC     = 264 // rows of A per packed block (264·128·8 = 270 KB)
	dNC     = 512 // columns of B per packed block (512 KB)
)

type dgemmWork struct {
	a, b []float64
	tile [dMR * dNR]float64
	idx  [16]int64
}

var dgemmPool = sync.Pool{New: func() any {
	return &dgemmWork{a: make([]float64, dMC*dShortK), b: make([]float64, dNC*dShortK)}
}}

func dgemmPacked(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	w := dgemmPool.Get().(*dgemmWork)
	defer dgemmPool.Put(w)
	read := 0
	if beta != 0 {
		read = 1
	}
	for ic := 0; ic < m; ic += dMC {
		mc := min(dMC, m-ic)
		w.pack(w.a, a, lda, ic, mc, k, dMR)
		for jc := 0; jc < n; jc += dNC {
			nc := min(dNC, n-jc)
			w.pack(w.b, b, ldb, jc, nc, k, dNR)
			for jr := 0; jr < nc; jr += dNR {
				pb := &w.b[jr*k]
				for ir := 0; ir < mc; ir += dMR {
					pa := &w.a[ir*k]
					i, j := ic+ir, jc+jr
					if ir+dMR <= mc && jr+dNR <= nc {
						dgemmKernelAVX512(k, pa, pb, &c[i*ldc+j], ldc, alpha, beta, read)
						continue
					}
					// An edge tile: into the scratch tile, then the rows and columns that exist.
					dgemmKernelAVX512(k, pa, pb, &w.tile[0], dNR, alpha, 0, 0)
					for r := range min(dMR, mc-ir) {
						row := c[(i+r)*ldc+j : (i+r)*ldc+j+min(dNR, nc-jr)]
						t := w.tile[r*dNR:]
						for q := range row {
							if beta == 0 {
								row[q] = t[q]
							} else {
								row[q] = t[q] + beta*row[q]
							}
						}
					}
				}
			}
		}
	}
}

// pack packs rows r0 ≤ r < r0 + rn of the row-major x (stride ld, k columns) into dst as panels
// of wd rows: panel q holds, for each l < k, the wd values of its rows adjacent (zeros beyond rn).
func (w *dgemmWork) pack(dst, x []float64, ld, r0, rn, k, wd int) {
	for q := 0; q < rn; q += wd {
		panel := dst[q*k : (q+wd)*k]
		if q+wd <= rn {
			for r := range wd {
				w.idx[r] = int64(8 * r * ld)
			}
			packPanelAVX512(&panel[0], &x[(r0+q)*ld], k, &w.idx, wd)
			continue
		}
		clear(panel)
		for r := range rn - q {
			for l, v := range x[(r0+q+r)*ld : (r0+q+r)*ld+k] {
				panel[l*wd+r] = v
			}
		}
	}
}
