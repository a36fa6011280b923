//go:build !(openblas && cgo)

package blas

import (
	"math"
)

// The plain build on amd64: Go assembly kernels (asm_amd64.s) chosen at run time by Active: all
// of them on AVX-512, a subset on AVX2 + FMA (see the package doc), the portable Go loops on the
// generic level. The results are those of the C kernels of -tags openblas up to
// the order of the final lane sums (ExpSums, KLSums, SqrtSum: a few units in the last place); the
// int8 products and Dist2Row are exact in both.

// I8Native reports whether I8NT runs a vector kernel (AVX-512 VNNI, or AVX2's vpmaddwd; false:
// the portable Go loop). It is fixed at start from Active.
var I8Native = Active >= AVX2

//go:noescape
func i8TileVNNI(ap, bp *uint8, kc int, c *int32, off, ldc, rows int, lanes uint32, corr *int32, first int)

//go:noescape
func i8TileAVX2(ap *int16, bp *uint8, kc int, c *int32, ldc int, corr *int32, first int)

//go:noescape
func dist2RowAVX512(dst *float64, si float64, sq *float64, dot *int32, n int)

//go:noescape
func sqrtSumAVX512(si float64, sq *float64, dot *int32, n int, k *[3]float64, out *[8]float64)

//go:noescape
func sqrtSum2DAVX512(a, b float64, xs, ys *float64, n int, k *[3]float64, out *[8]float64)

//go:noescape
func minMaxAVX512(a *float64, n int, lo, hi float64, out *[16]float64)

//go:noescape
func bucketsAVX512(cb *uint16, d *float64, n int, lo, scale, last float64)

//go:noescape
func fineBucketsAVX512(sb *uint32, ks *float64, n int, lo, sc, base float64, last uint32)

//go:noescape
func dgemmKernelAVX512(kc int, a, b, c *float64, ldc int, alpha, beta float64, readC int)

//go:noescape
func dotTileAVX2(a0, a1, a2, a3, b0, b1, b2 *float64, k4 int, out *[12]float64)

//go:noescape
func dgemmKernelAVX2(kc int, a, b, c *float64, ldc int, alpha, beta float64, readC int)

//go:noescape
func packPanelAVX512(dst, x *float64, kc int, idx *[16]int64, w int)

//go:noescape
func expSumsAVX2(a *float64, n int, inv, clamp, tmin, skip float64, k *exp4Consts, out *[8]float64)

//go:noescape
func klSumsAVX2(a, b *float64, n int, ia, ib, clamp, pmin, qmin, skip float64, k *exp4Consts, out *[16]float64)

//go:noescape
func minMaxAVX2(a *float64, n int, lo, hi float64, out *[8]float64)

//go:noescape
func dist2RowAVX2(dst *float64, si float64, sq *float64, dot *int32, n int)

//go:noescape
func dotTileAVX512(a0, a1, a2, a3, b0, b1, b2, b3 *float64, k int, out *[16]float64)

//go:noescape
func expSumsAVX512(a *float64, n int, inv, clamp, tmin, skip float64, k *expConsts, out *[16]float64)

//go:noescape
func klSumsAVX512(a, b *float64, n int, ia, ib, clamp, pmin, qmin, skip float64, k *expConsts, out *[32]float64)

// Blocking of the VNNI kernel: i8KC groups of 4 k-indices per pass over a B panel (i8KC·i8NR·4
// = 32 KiB stays in a 48 KiB L1), i8NC columns of B per chunk (i8NC·i8KC·4 bytes in L2).
const (
	i8KC = 256
	i8NC = 256
)

var zeroCorr [i8MR]int32

// i8ntVNNI: C[i][j − j0] for the rows of a and columns j0 ≤ j < j1 of b. Loops: k passes of i8KC
// groups; chunks of i8NC columns of B; per panel of i8MR rows of A (in L1) every i8NR-column
// panel of the chunk, so that C is written i8MR rows at a time.
func i8ntVNNI(c []int32, ldc int, a *I8A, b *I8B, j0, j1 int) {
	kg, m := a.kg, a.m
	for k0 := 0; k0 < kg; k0 += i8KC {
		kc := min(kg-k0, i8KC)
		first := 0
		if k0 == 0 {
			first = 1
		}
		last := k0+kc >= kg
		for q0 := j0 / i8NR; q0*i8NR < j1; q0 += i8NC / i8NR {
			for i := 0; i < m; i += i8MR {
				rows := min(m-i, i8MR)
				ap := &a.p[(i/i8MR*kg+k0)*i8MR*4]
				corr := &zeroCorr[0]
				if last {
					corr = &a.corr[i]
				}
				ci := &c[i*ldc]
				for q := q0; q < q0+i8NC/i8NR && q*i8NR < j1; q++ {
					p0 := q * i8NR
					// Lanes p0 + l with j0 ≤ p0 + l < j1; the kernel addresses ci + (p0 − j0),
					// before ci for the first panel, but touches only these lanes (masked
					// loads and stores do not fault on the others).
					lanes := uint32(0xffffffff)
					if p0 < j0 {
						lanes &= 0xffffffff << (j0 - p0)
					}
					if p0+i8NR > j1 {
						lanes &= 0xffffffff >> (p0 + i8NR - j1)
					}
					i8TileVNNI(ap, &b.p[(q*kg+k0)*i8NR*4], kc, ci, p0-j0, ldc, rows, lanes, corr, first)
				}
			}
		}
	}
}

// Blocking of the AVX2 kernel: i8KC2 groups of 4 k-indices per pass (a 4-row tile of widened A,
// i8KC2·32 bytes, and the B panel, i8KC2·128 bytes, stay in a 32 KiB L1); chunks of i8NC columns.
const i8KC2 = 128

var zeroCorr4 [4]int32

// i8ntAVX2 is i8ntVNNI's loop nest for the 4×8 tiles of i8TileAVX2 (A widened to int16: a.w).
// Tiles that stick out of the rows of A or the columns j0…j1 go through a scratch tile.
func i8ntAVX2(c []int32, ldc int, a *I8A, b *I8B, j0, j1 int) {
	if !a.wok {
		a.widen()
	}
	kg, m := a.kg, a.m
	var tile [32]int32
	for k0 := 0; k0 < kg; k0 += i8KC2 {
		kc := min(kg-k0, i8KC2)
		first := 0
		if k0 == 0 {
			first = 1
		}
		last := k0+kc >= kg
		for q0 := j0 / i8NR; q0*i8NR < j1; q0 += i8NC / i8NR {
			for i := 0; i < m; i += 4 {
				rows := min(m-i, 4)
				ap := &a.w[(i/4*kg+k0)*16]
				corr := zeroCorr4[:]
				if last {
					corr = a.corr[i : i+4] // padded to whole panels of 8
				}
				for q := q0; q < q0+i8NC/i8NR && q*i8NR < j1; q++ {
					for p0 := max(q*i8NR, j0&^7); p0 < min(q*i8NR+i8NR, j1); p0 += 8 {
						bp := &b.p[(q*kg+k0)*i8NR*4+(p0-q*i8NR)*4]
						if rows == 4 && p0 >= j0 && p0+8 <= j1 {
							i8TileAVX2(ap, bp, kc, &c[i*ldc+p0-j0], ldc, &corr[0], first)
							continue
						}
						i8TileAVX2(ap, bp, kc, &tile[0], 8, &zeroCorr4[0], 1)
						for r := range rows {
							for l := max(j0-p0, 0); l < min(8, j1-p0); l++ {
								v := tile[8*r+l] - corr[r]
								if first == 0 {
									v += c[(i+r)*ldc+p0+l-j0]
								}
								c[(i+r)*ldc+p0+l-j0] = v
							}
						}
					}
				}
			}
		}
	}
}

// wideA: Pack and PackRows widen A for the AVX2 kernel when it is the one in use.
func wideA() bool { return Active == AVX2 }

func i8nt(c []int32, ldc int, a *I8A, b *I8B, j0, j1 int) {
	switch {
	case Active >= AVX512VNNI:
		// The kernel's last row store reaches c[(m−1)·ldc + j1 − j0 − 1] at most: I8NT checked
		// len(c), and the packed panels are whole.
		i8ntVNNI(c, ldc, a, b, j0, j1)
	case Active >= AVX2:
		i8ntAVX2(c, ldc, a, b, j0, j1)
	default:
		i8ntGo(c, ldc, a, b, j0, j1)
	}
}

func dist2Row(dst []float64, si float64, sq []float64, dot []int32) {
	n := len(dst) &^ 7
	if Active >= AVX512 && n > 0 {
		dist2RowAVX512(&dst[0], si, &sq[0], &dot[0], n)
		dist2RowGo(dst[n:], si, sq[n:], dot[n:])
		return
	}
	if n4 := len(dst) &^ 3; Active >= AVX2 && n4 > 0 {
		dist2RowAVX2(&dst[0], si, &sq[0], &dot[0], n4)
		dist2RowGo(dst[n4:], si, sq[n4:], dot[n4:])
		return
	}
	dist2RowGo(dst, si, sq, dot)
}

// sqrtConsts: 2⁻¹⁰⁰⁰ (below it a squared distance counts as 0), 0.5 and 1.5 (Newton steps).
var sqrtConsts = [3]float64{0x1p-1000, 0.5, 1.5}

// sum8 adds eight lanes in a fixed tree.
func sum8(l *[8]float64) float64 {
	return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
}

func sqrtSum(si float64, sq []float64, dot []int32) float64 {
	n := len(sq) &^ 7
	if Active >= AVX512 && n > 0 {
		var out [8]float64
		sqrtSumAVX512(si, &sq[0], &dot[0], n, &sqrtConsts, &out)
		return sum8(&out) + sqrtSumGo(si, sq[n:], dot[n:])
	}
	return sqrtSumGo(si, sq, dot)
}

func sqrtSum2D(a, b float64, xs, ys []float64) float64 {
	n := len(xs) &^ 7
	if Active >= AVX512 && n > 0 {
		var out [8]float64
		sqrtSum2DAVX512(a, b, &xs[0], &ys[0], n, &sqrtConsts, &out)
		return sum8(&out) + sqrtSum2DGo(a, b, xs[n:], ys[n:])
	}
	return sqrtSum2DGo(a, b, xs, ys)
}

// expConsts is the layout EXPNEG reads (asm_amd64.s): the table 2^(−m/16), m < 16; 1.5·2⁵²;
// 16/ln2; ln2/16 split in a high part with trailing zero bits and the rest (so that k·hi is exact);
// the Taylor coefficients of e^r from 1/7! down to 1/1!.
type expConsts struct {
	tab                  [16]float64
	magic, scale, hi, lo float64
	poly                 [7]float64
}

var expK = func() *expConsts {
	k := &expConsts{
		magic: 0x1.8p52,
		scale: 23.083120654223414,
		hi:    6.93147180369123816490e-01 / 16,
		lo:    1.90821492927058770002e-10 / 16,
		poly:  [7]float64{1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1},
	}
	for m := range k.tab {
		k.tab[m] = math.Exp2(-float64(m) / 16)
	}
	return k
}()

// sum4 adds four lanes in a fixed tree.
func sum4(l []float64) float64 { return (l[0] + l[2]) + (l[1] + l[3]) }

// exp4Consts is the layout EXPNEG4 reads (asm_amd64.s), every constant as 4 lanes: 1.5·2⁵²,
// log₂e, ln2 split in a high part (k·hi exact) and the rest, 1023 << 52 (the exponent bias, as
// integers), then the Taylor coefficients of e^r from 1/13! down to 1/0!.
type exp4Consts struct {
	magic, log2e, hi, lo [4]float64
	bias                 [4]int64
	poly                 [14][4]float64
}

var exp4K = func() *exp4Consts {
	k := &exp4Consts{}
	for l := range 4 {
		k.magic[l], k.log2e[l] = 0x1.8p52, 1.4426950408889634
		k.hi[l], k.lo[l] = 6.93147180369123816490e-01, 1.90821492927058770002e-10
		k.bias[l] = 1023 << 52
		f := 1.0
		for d := 0; d <= 13; d++ {
			if d > 0 {
				f *= float64(d)
			}
			k.poly[13-d][l] = 1 / f
		}
	}
	return k
}()

func expSums(a []float64, inv, clamp, tmin, skip float64) (z, s float64) {
	n := len(a) &^ 7
	if Active >= AVX512 && n > 0 {
		var out [16]float64
		expSumsAVX512(&a[0], n, inv, clamp, tmin, skip, expK, &out)
		z0, s0 := expSumsGo(a[n:], inv, clamp, tmin, skip)
		return sum8((*[8]float64)(out[:8])) + z0, sum8((*[8]float64)(out[8:])) + s0
	}
	if n4 := len(a) &^ 3; Active >= AVX2 && n4 > 0 {
		var out [8]float64
		expSumsAVX2(&a[0], n4, inv, clamp, tmin, skip, exp4K, &out)
		z0, s0 := expSumsGo(a[n4:], inv, clamp, tmin, skip)
		return sum4(out[0:4]) + z0, sum4(out[4:8]) + s0
	}
	return expSumsGo(a, inv, clamp, tmin, skip)
}

func klSums(a, b []float64, ia, ib, clamp, pmin, qmin, skip float64) (zp, sp, zq, sq float64) {
	n := len(a) &^ 7
	if Active >= AVX512 && n > 0 {
		var out [32]float64
		klSumsAVX512(&a[0], &b[0], n, ia, ib, clamp, pmin, qmin, skip, expK, &out)
		zp, sp, zq, sq = klSumsGo(a[n:], b[n:], ia, ib, clamp, pmin, qmin, skip)
		return sum8((*[8]float64)(out[0:8])) + zp, sum8((*[8]float64)(out[8:16])) + sp,
			sum8((*[8]float64)(out[16:24])) + zq, sum8((*[8]float64)(out[24:32])) + sq
	}
	if n4 := len(a) &^ 3; Active >= AVX2 && n4 > 0 {
		var out [16]float64
		klSumsAVX2(&a[0], &b[0], n4, ia, ib, clamp, pmin, qmin, skip, exp4K, &out)
		zp, sp, zq, sq = klSumsGo(a[n4:], b[n4:], ia, ib, clamp, pmin, qmin, skip)
		return sum4(out[0:4]) + zp, sum4(out[4:8]) + sp, sum4(out[8:12]) + zq, sum4(out[12:16]) + sq
	}
	return klSumsGo(a, b, ia, ib, clamp, pmin, qmin, skip)
}

func minMax(a []float64, lo, hi float64) (float64, float64) {
	n := len(a) &^ 15
	if Active >= AVX512 && n > 0 {
		var out [16]float64
		minMaxAVX512(&a[0], n, lo, hi, &out)
		for l := range 8 {
			lo, hi = min(lo, out[l]), max(hi, out[8+l])
		}
		return minMaxGo(a[n:], lo, hi)
	}
	if n8 := len(a) &^ 7; Active >= AVX2 && n8 > 0 {
		var out [8]float64
		minMaxAVX2(&a[0], n8, lo, hi, &out)
		for l := range 4 {
			lo, hi = min(lo, out[l]), max(hi, out[4+l])
		}
		return minMaxGo(a[n8:], lo, hi)
	}
	return minMaxGo(a, lo, hi)
}

func rankKL(seq []float64, other []int32, skip, r0 int32, scale, inv, clamp, tmin, lz, cp, clp float64) (a, b float64) {
	return rankKLGo(seq, other, skip, r0, scale, inv, clamp, tmin, lz, cp, clp)
}

func buckets(cb []uint16, d []float64, lo, scale, last float64) {
	n := len(d) &^ 7
	if Active >= AVX512 && n > 0 {
		bucketsAVX512(&cb[0], &d[0], n, lo, scale, last)
		bucketsGo(cb[n:], d[n:], lo, scale, last)
		return
	}
	bucketsGo(cb, d, lo, scale, last)
}

func fineBuckets(sb []uint32, ks []float64, lo, sc, base float64, last uint32) {
	n := len(ks) &^ 7
	if Active >= AVX512 && n > 0 {
		fineBucketsAVX512(&sb[0], &ks[0], n, lo, sc, base, last)
		fineBucketsGo(sb[n:], ks[n:], lo, sc, base, last)
		return
	}
	fineBucketsGo(sb, ks, lo, sc, base, last)
}

func kernelLines() []string {
	i8, vec := "portable Go (the float32 product below is used instead)", "portable Go"
	switch {
	case Active >= AVX512VNNI:
		i8 = "AVX-512 VNNI assembly"
	case Active >= AVX2:
		i8 = "AVX2 assembly (vpmaddwd)"
	}
	switch {
	case Active >= AVX512:
		vec = "AVX-512 assembly"
	case Active >= AVX2:
		vec = "AVX2 assembly (exp sums, KL sums, distance rows, min/max), portable Go (square-root sums, bucket sort)"
	}
	return []string{
		"exact int8 products (k-NN, distances of pixel data): " + i8,
		"exp sums, KL sums, distance rows, min/max, bucket sort: " + vec,
		"float64/float32 products (DgemmNT, SgemmNT): " + Name,
	}
}

func dgemmNT(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	switch {
	case Active >= AVX512:
		dgemmAsm(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	case Active >= AVX2:
		dgemmAVX2(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	default:
		dgemmGonum(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// dgemmSerial: the assembly DgemmNT runs on the calling goroutine only.
func dgemmSerial() bool { return Active >= AVX2 }

func productsName() string {
	switch {
	case Active >= AVX512:
		return "AVX-512 assembly (float64), gonum (float32)"
	case Active >= AVX2:
		return "AVX2 assembly (float64), gonum (float32)"
	}
	return "gonum"
}
