//go:build !(openblas && cgo)

#include "textflag.h"

// Hand-written AVX-512 kernels of the plain build; the Go wrappers and their contracts are in
// asm_amd64.go. Every function here takes whole vectors only (the wrappers do the tails) and
// ends with VZEROUPPER.

// func i8TileVNNI(ap, bp *uint8, kc int, c *int32, off, ldc, rows int, lanes uint32, corr *int32, first int)
//
// One 8×32 tile of I8NT: accumulators Z16–Z31 (row r in Z(16+2r), Z(17+2r)); per group of 4
// k-indices B's 2×16 columns (u8) go to Z0/Z1 and each of A's 8 rows is broadcast (4 bytes, s8)
// into vpdpbusd. Then row r of C at c + off + r·ldc gets, in the lanes of lanes, acc − corr[r],
// plus its old value unless first.
TEXT ·i8TileVNNI(SB), NOSPLIT, $0-80
	MOVQ ap+0(FP), SI
	MOVQ bp+8(FP), DI
	MOVQ kc+16(FP), CX
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29
	VPXORD Z30, Z30, Z30
	VPXORD Z31, Z31, Z31
	TESTQ CX, CX
	JZ    store

kloop:
	VMOVDQU64 (DI), Z0
	VMOVDQU64 64(DI), Z1
	VPDPBUSD.BCST 0(SI), Z0, Z16
	VPDPBUSD.BCST 0(SI), Z1, Z17
	VPDPBUSD.BCST 4(SI), Z0, Z18
	VPDPBUSD.BCST 4(SI), Z1, Z19
	VPDPBUSD.BCST 8(SI), Z0, Z20
	VPDPBUSD.BCST 8(SI), Z1, Z21
	VPDPBUSD.BCST 12(SI), Z0, Z22
	VPDPBUSD.BCST 12(SI), Z1, Z23
	VPDPBUSD.BCST 16(SI), Z0, Z24
	VPDPBUSD.BCST 16(SI), Z1, Z25
	VPDPBUSD.BCST 20(SI), Z0, Z26
	VPDPBUSD.BCST 20(SI), Z1, Z27
	VPDPBUSD.BCST 24(SI), Z0, Z28
	VPDPBUSD.BCST 24(SI), Z1, Z29
	VPDPBUSD.BCST 28(SI), Z0, Z30
	VPDPBUSD.BCST 28(SI), Z1, Z31
	ADDQ $32, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  kloop

store:
	MOVQ  c+24(FP), DX
	MOVQ  off+32(FP), AX
	LEAQ  (DX)(AX*4), DX
	MOVQ  ldc+40(FP), R8
	SHLQ  $2, R8
	MOVQ  rows+48(FP), R9
	MOVL  lanes+56(FP), AX
	KMOVW AX, K1
	SHRL  $16, AX
	KMOVW AX, K2
	MOVQ  corr+64(FP), R11
	// K3, K4: the lanes whose old value is added (none on the first k pass).
	KXORW K3, K3, K3
	KXORW K4, K4, K4
	MOVQ  first+72(FP), AX
	TESTQ AX, AX
	JNZ   rows
	KMOVW K1, K3
	KMOVW K2, K4

rows:
#define STOREROW(r, A, B) \
	VPBROADCASTD (4*r)(R11), Z4; \
	VMOVDQU32.Z  (DX), K3, Z2; \
	VMOVDQU32.Z  64(DX), K4, Z3; \
	VPADDD       Z2, A, A; \
	VPADDD       Z3, B, B; \
	VPSUBD       Z4, A, A; \
	VPSUBD       Z4, B, B; \
	VMOVDQU32    A, K1, (DX); \
	VMOVDQU32    B, K2, 64(DX); \
	ADDQ         R8, DX

	STOREROW(0, Z16, Z17)
	CMPQ R9, $1
	JLE  done
	STOREROW(1, Z18, Z19)
	CMPQ R9, $2
	JLE  done
	STOREROW(2, Z20, Z21)
	CMPQ R9, $3
	JLE  done
	STOREROW(3, Z22, Z23)
	CMPQ R9, $4
	JLE  done
	STOREROW(4, Z24, Z25)
	CMPQ R9, $5
	JLE  done
	STOREROW(5, Z26, Z27)
	CMPQ R9, $6
	JLE  done
	STOREROW(6, Z28, Z29)
	CMPQ R9, $7
	JLE  done
	STOREROW(7, Z30, Z31)

done:
	VZEROUPPER
	RET

// func dist2RowAVX512(dst *float64, si float64, sq *float64, dot *int32, n int)
//
// dst[j] = (si + sq[j]) − 2·dot[j] for n (a positive multiple of 8) entries: 2·dot is exact, so
// this rounds as the Go loop does.
TEXT ·dist2RowAVX512(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	VBROADCASTSD si+8(FP), Z0
	MOVQ         sq+16(FP), SI
	MOVQ         dot+24(FP), DX
	MOVQ         n+32(FP), CX

d2loop:
	VCVTDQ2PD (DX), Z1
	VADDPD    (SI), Z0, Z2
	VADDPD    Z1, Z1, Z1
	VSUBPD    Z1, Z2, Z2
	VMOVUPD   Z2, (DI)
	ADDQ      $32, DX
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $8, CX
	JNZ       d2loop
	VZEROUPPER
	RET

// SQRT8(D, OUT): OUT = √D in each lane where D ≥ 2⁻¹⁰⁰⁰, else 0, for D ≥ 0: r ≈ 1/√D from
// vrsqrt14pd (relative error below 2⁻¹⁴), a Newton step on r (2⁻²⁷), y = D·r and a Newton step on
// y: within one unit in the last place of the correctly rounded root, at under half the cost of
// vsqrtpd. Needs Z8 = 2⁻¹⁰⁰⁰, Z9 = 0.5, Z10 = 1.5; uses K1, Z2–Z7.
#define SQRT8(D, OUT) \
	VCMPPD       $29, Z8, D, K1; \
	VRSQRT14PD   D, Z2; \
	VMULPD       Z9, D, Z3; \
	VMULPD       Z2, Z2, Z4; \
	VFNMADD213PD Z10, Z3, Z4; \
	VMULPD       Z4, Z2, Z2; \
	VMULPD       Z2, D, Z5; \
	VMULPD       Z9, Z2, Z6; \
	VMOVAPD      D, Z7; \
	VFNMADD231PD Z5, Z5, Z7; \
	VFMADD231PD  Z7, Z6, Z5; \
	VMOVAPD.Z    Z5, K1, OUT

// func sqrtSumAVX512(si float64, sq *float64, dot *int32, n int, k *[3]float64, out *[8]float64)
//
// out[l] = Σ √max(si + sq[j] − 2·dot[j], 0) over j ≡ l (mod 8), j < n (a positive multiple of 8).
TEXT ·sqrtSumAVX512(SB), NOSPLIT, $0-48
	VBROADCASTSD si+0(FP), Z0
	MOVQ         sq+8(FP), SI
	MOVQ         dot+16(FP), DX
	MOVQ         n+24(FP), CX
	MOVQ         k+32(FP), AX
	VBROADCASTSD 0(AX), Z8
	VBROADCASTSD 8(AX), Z9
	VBROADCASTSD 16(AX), Z10
	VPXORQ       Z11, Z11, Z11
	VPXORQ       Z12, Z12, Z12

ssloop:
	VCVTDQ2PD (DX), Z1
	VADDPD    (SI), Z0, Z13
	VADDPD    Z1, Z1, Z1
	VSUBPD    Z1, Z13, Z13
	VMAXPD    Z11, Z13, Z13
	SQRT8(Z13, Z14)
	VADDPD    Z14, Z12, Z12
	ADDQ      $32, DX
	ADDQ      $64, SI
	SUBQ      $8, CX
	JNZ       ssloop
	MOVQ      out+40(FP), DI
	VMOVUPD   Z12, (DI)
	VZEROUPPER
	RET

// func sqrtSum2DAVX512(a, b float64, xs, ys *float64, n int, k *[3]float64, out *[8]float64)
//
// out[l] = Σ √((xs[j] − a)² + (ys[j] − b)²) over j ≡ l (mod 8), the square formed as
// fma(t, t, u·u); n a positive multiple of 8.
TEXT ·sqrtSum2DAVX512(SB), NOSPLIT, $0-56
	VBROADCASTSD a+0(FP), Z0
	VBROADCASTSD b+8(FP), Z1
	MOVQ         xs+16(FP), SI
	MOVQ         ys+24(FP), DX
	MOVQ         n+32(FP), CX
	MOVQ         k+40(FP), AX
	VBROADCASTSD 0(AX), Z8
	VBROADCASTSD 8(AX), Z9
	VBROADCASTSD 16(AX), Z10
	VPXORQ       Z12, Z12, Z12

s2loop:
	VMOVUPD     (SI), Z13
	VSUBPD      Z0, Z13, Z13
	VMOVUPD     (DX), Z15
	VSUBPD      Z1, Z15, Z15
	VMULPD      Z15, Z15, Z15
	VFMADD231PD Z13, Z13, Z15
	SQRT8(Z15, Z14)
	VADDPD      Z14, Z12, Z12
	ADDQ        $64, SI
	ADDQ        $64, DX
	SUBQ        $8, CX
	JNZ         s2loop
	MOVQ        out+48(FP), DI
	VMOVUPD     Z12, (DI)
	VZEROUPPER
	RET

// LOADEXP loads the constants of EXPNEG from the expConsts at AX into Z4–Z16.
#define LOADEXP \
	VMOVUPD      0(AX), Z4; \
	VMOVUPD      64(AX), Z5; \
	VBROADCASTSD 128(AX), Z6; \
	VBROADCASTSD 136(AX), Z7; \
	VBROADCASTSD 144(AX), Z8; \
	VBROADCASTSD 152(AX), Z9; \
	VBROADCASTSD 160(AX), Z10; \
	VBROADCASTSD 168(AX), Z11; \
	VBROADCASTSD 176(AX), Z12; \
	VBROADCASTSD 184(AX), Z13; \
	VBROADCASTSD 192(AX), Z14; \
	VBROADCASTSD 200(AX), Z15; \
	VBROADCASTSD 208(AX), Z16

// EXPNEG(T, OUT): OUT = e^(−T) for 0 ≤ T ≤ 700 in each lane. T = (k/16)·ln2 − r with
// |r| ≤ ln2/32; e^(−T) = 2^(−⌊k/16⌋)·2^(−(k mod 16)/16)·e^r, the middle factor from the 16-entry
// table in Z4/Z5 (vpermi2pd on k's low four bits), e^r by its Taylor polynomial of degree 7
// (remainder below 2e-18 relative). k = round(16·T/ln2) lands in the low mantissa bits of
// 16·T/ln2 + 1.5·2⁵² (Z6), so no rounding or conversion instruction is needed. Uses Z22–Z27.
#define EXPNEG(T, OUT) \
	VMOVAPD      Z6, Z22; \
	VFMADD231PD  Z7, T, Z22; \
	VSUBPD       Z6, Z22, Z23; \
	VMOVAPD      T, Z24; \
	VFMSUB231PD  Z8, Z23, Z24; \
	VFMADD231PD  Z9, Z23, Z24; \
	VMOVAPD      Z10, Z25; \
	VFMADD213PD  Z11, Z24, Z25; \
	VFMADD213PD  Z12, Z24, Z25; \
	VFMADD213PD  Z13, Z24, Z25; \
	VFMADD213PD  Z14, Z24, Z25; \
	VFMADD213PD  Z15, Z24, Z25; \
	VFMADD213PD  Z16, Z24, Z25; \
	VFMADD213PD  Z16, Z24, Z25; \
	VMOVAPD      Z22, Z26; \
	VPERMI2PD    Z5, Z4, Z26; \
	VPSRLQ       $4, Z22, Z27; \
	VPSLLQ       $52, Z27, Z27; \
	VPSUBQ       Z27, Z26, Z26; \
	VMULPD       Z26, Z25, OUT

// func expSumsAVX512(a *float64, n int, inv, clamp, tmin, skip float64, k *expConsts, out *[16]float64)
//
// ExpSums over n (a positive multiple of 8) entries: out[0:8] the lanes of z, out[8:16] of s.
TEXT ·expSumsAVX512(SB), NOSPLIT, $0-64
	MOVQ         a+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD inv+16(FP), Z0
	VBROADCASTSD clamp+24(FP), Z1
	VBROADCASTSD tmin+32(FP), Z2
	VBROADCASTSD skip+40(FP), Z3
	MOVQ         k+48(FP), AX
	LOADEXP
	VPXORQ       Z18, Z18, Z18
	VPXORQ       Z19, Z19, Z19

esloop:
	VMULPD      (SI), Z0, Z20
	VMINPD      Z1, Z20, Z20
	VSUBPD      Z2, Z20, Z20
	VCMPPD      $18, Z3, Z20, K1
	EXPNEG(Z20, Z21)
	VMOVAPD.Z   Z21, K1, Z21
	VADDPD      Z21, Z18, Z18
	VFMADD231PD Z20, Z21, Z19
	ADDQ        $64, SI
	SUBQ        $8, CX
	JNZ         esloop
	MOVQ        out+56(FP), DI
	VMOVUPD     Z18, (DI)
	VMOVUPD     Z19, 64(DI)
	VZEROUPPER
	RET

// func klSumsAVX512(a, b *float64, n int, ia, ib, clamp, pmin, qmin, skip float64, k *expConsts, out *[32]float64)
//
// KLSums over n (a positive multiple of 8) entries: the lanes of zp, sp, zq, sq in out[0:8],
// [8:16], [16:24], [24:32]. A group of 8 with no tp (tq) within skip skips that exponential.
TEXT ·klSumsAVX512(SB), NOSPLIT, $0-88
	MOVQ         a+0(FP), SI
	MOVQ         b+8(FP), DI
	MOVQ         n+16(FP), CX
	VBROADCASTSD ia+24(FP), Z0
	VBROADCASTSD ib+32(FP), Z1
	VBROADCASTSD clamp+40(FP), Z2
	VBROADCASTSD pmin+48(FP), Z17
	VBROADCASTSD qmin+56(FP), Z18
	VBROADCASTSD skip+64(FP), Z3
	MOVQ         k+72(FP), AX
	LOADEXP
	VPXORQ       Z28, Z28, Z28
	VPXORQ       Z29, Z29, Z29
	VPXORQ       Z30, Z30, Z30
	VPXORQ       Z31, Z31, Z31

klloop:
	VMULPD   (SI), Z0, Z19
	VMINPD   Z2, Z19, Z19
	VSUBPD   Z17, Z19, Z19
	VMULPD   (DI), Z1, Z20
	VMINPD   Z2, Z20, Z20
	VSUBPD   Z18, Z20, Z20
	VCMPPD   $18, Z3, Z19, K1
	VCMPPD   $18, Z3, Z20, K2
	VSUBPD   Z19, Z20, Z21
	KORTESTW K1, K1
	JZ       klnop
	EXPNEG(Z19, Z25)
	VMOVAPD.Z   Z25, K1, Z25
	VADDPD      Z25, Z28, Z28
	VFMADD231PD Z21, Z25, Z29

klnop:
	KORTESTW K2, K2
	JZ       klnoq
	EXPNEG(Z20, Z25)
	VMOVAPD.Z    Z25, K2, Z25
	VADDPD       Z25, Z30, Z30
	VFNMADD231PD Z21, Z25, Z31

klnoq:
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $8, CX
	JNZ     klloop
	MOVQ    out+80(FP), DX
	VMOVUPD Z28, (DX)
	VMOVUPD Z29, 64(DX)
	VMOVUPD Z30, 128(DX)
	VMOVUPD Z31, 192(DX)
	VZEROUPPER
	RET

// func minMaxAVX512(a *float64, n int, lo, hi float64, out *[16]float64)
//
// The lanes of min(lo, a…) in out[0:8] and of max(hi, a…) in out[8:16], for n a positive
// multiple of 16 and a free of NaNs.
TEXT ·minMaxAVX512(SB), NOSPLIT, $0-40
	MOVQ         a+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD lo+16(FP), Z0
	VBROADCASTSD hi+24(FP), Z1
	VMOVAPD      Z0, Z2
	VMOVAPD      Z1, Z3

mmloop:
	VMOVUPD (SI), Z4
	VMOVUPD 64(SI), Z5
	VMINPD  Z4, Z0, Z0
	VMAXPD  Z4, Z1, Z1
	VMINPD  Z5, Z2, Z2
	VMAXPD  Z5, Z3, Z3
	ADDQ    $128, SI
	SUBQ    $16, CX
	JNZ     mmloop
	VMINPD  Z2, Z0, Z0
	VMAXPD  Z3, Z1, Z1
	MOVQ    out+32(FP), DI
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VZEROUPPER
	RET

// func bucketsAVX512(cb *uint16, d *float64, n int, lo, scale, last float64)
//
// cb[j] = uint16(min(max(d[j] − lo, 0)·scale, last)) for n a positive multiple of 8, in the Go
// loop's order of operations (no fused multiply-add), so the same buckets.
TEXT ·bucketsAVX512(SB), NOSPLIT, $0-48
	MOVQ         cb+0(FP), DI
	MOVQ         d+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD lo+24(FP), Z0
	VBROADCASTSD scale+32(FP), Z1
	VBROADCASTSD last+40(FP), Z2
	VPXORQ       Z3, Z3, Z3

bkloop:
	VMOVUPD    (SI), Z4
	VSUBPD     Z0, Z4, Z4
	VMAXPD     Z3, Z4, Z4
	VMULPD     Z1, Z4, Z4
	VMINPD     Z2, Z4, Z4
	VCVTTPD2DQ Z4, Y5
	VPMOVDW    Y5, X6
	VMOVDQU    X6, (DI)
	ADDQ       $64, SI
	ADDQ       $16, DI
	SUBQ       $8, CX
	JNZ        bkloop
	VZEROUPPER
	RET

// func fineBucketsAVX512(sb *uint32, ks *float64, n int, lo, sc, base float64, last uint32)
//
// sb[t] = min(uint32(max(max(ks[t] − lo, 0)·sc − base, 0)), last) for n a positive multiple of 8.
TEXT ·fineBucketsAVX512(SB), NOSPLIT, $0-52
	MOVQ         sb+0(FP), DI
	MOVQ         ks+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD lo+24(FP), Z0
	VBROADCASTSD sc+32(FP), Z1
	VBROADCASTSD base+40(FP), Z2
	MOVL         last+48(FP), AX
	VPBROADCASTD AX, Y6
	VPXORQ       Z3, Z3, Z3

fbloop:
	VMOVUPD     (SI), Z4
	VSUBPD      Z0, Z4, Z4
	VMAXPD      Z3, Z4, Z4
	VMULPD      Z1, Z4, Z4
	VSUBPD      Z2, Z4, Z4
	VMAXPD      Z3, Z4, Z4
	VCVTTPD2UDQ Z4, Y5
	VPMINUD     Y6, Y5, Y5
	VMOVDQU     Y5, (DI)
	ADDQ        $64, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JNZ         fbloop
	VZEROUPPER
	RET

// func dotTileAVX512(a0, a1, a2, a3, b0, b1, b2, b3 *float64, k int, out *[16]float64)
//
// out[4r + c] = Σ_l ar[l]·bc[l] over l < k (k ≥ 1): the 4×4 tile of DgemmNT from rows of A and B
// read in place (no packing). Accumulator (r, c) is Z(16 + 4r + c), eight partial sums over
// l ≡ lane (mod 8) in increasing l (the last partial vector by masked loads), then its lanes are
// added in a fixed tree: ((0+4) + (2+6)) + ((1+5) + (3+7)).
TEXT ·dotTileAVX512(SB), NOSPLIT, $0-80
	MOVQ a0+0(FP), AX
	MOVQ a1+8(FP), BX
	MOVQ a2+16(FP), CX
	MOVQ a3+24(FP), DX
	MOVQ b0+32(FP), SI
	MOVQ b1+40(FP), DI
	MOVQ b2+48(FP), R8
	MOVQ b3+56(FP), R9
	MOVQ k+64(FP), R11
	MOVQ out+72(FP), R12
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z24, Z24, Z24
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VPXORQ Z28, Z28, Z28
	VPXORQ Z29, Z29, Z29
	VPXORQ Z30, Z30, Z30
	VPXORQ Z31, Z31, Z31
	XORQ R10, R10
	MOVQ R11, R13
	ANDQ $-8, R13
	SHLQ $3, R13
	JZ   dttail

dtloop:
	VMOVUPD (AX)(R10*1), Z0
	VMOVUPD (BX)(R10*1), Z1
	VMOVUPD (CX)(R10*1), Z2
	VMOVUPD (DX)(R10*1), Z3
	VMOVUPD (SI)(R10*1), Z4
	VMOVUPD (DI)(R10*1), Z5
	VMOVUPD (R8)(R10*1), Z6
	VMOVUPD (R9)(R10*1), Z7
	VFMADD231PD Z4, Z0, Z16
	VFMADD231PD Z5, Z0, Z17
	VFMADD231PD Z6, Z0, Z18
	VFMADD231PD Z7, Z0, Z19
	VFMADD231PD Z4, Z1, Z20
	VFMADD231PD Z5, Z1, Z21
	VFMADD231PD Z6, Z1, Z22
	VFMADD231PD Z7, Z1, Z23
	VFMADD231PD Z4, Z2, Z24
	VFMADD231PD Z5, Z2, Z25
	VFMADD231PD Z6, Z2, Z26
	VFMADD231PD Z7, Z2, Z27
	VFMADD231PD Z4, Z3, Z28
	VFMADD231PD Z5, Z3, Z29
	VFMADD231PD Z6, Z3, Z30
	VFMADD231PD Z7, Z3, Z31
	ADDQ $64, R10
	CMPQ R10, R13
	JLT  dtloop

dttail:
	ANDQ  $7, R11
	JZ    dtreduce
	MOVQ  $1, AX
	MOVQ  R11, CX
	SHLQ  CX, AX
	DECQ  AX
	KMOVB AX, K1
	MOVQ  a0+0(FP), AX
	MOVQ  a2+16(FP), CX
	VMOVUPD.Z (AX)(R10*1), K1, Z0
	VMOVUPD.Z (BX)(R10*1), K1, Z1
	VMOVUPD.Z (CX)(R10*1), K1, Z2
	VMOVUPD.Z (DX)(R10*1), K1, Z3
	VMOVUPD.Z (SI)(R10*1), K1, Z4
	VMOVUPD.Z (DI)(R10*1), K1, Z5
	VMOVUPD.Z (R8)(R10*1), K1, Z6
	VMOVUPD.Z (R9)(R10*1), K1, Z7
	VFMADD231PD Z4, Z0, Z16
	VFMADD231PD Z5, Z0, Z17
	VFMADD231PD Z6, Z0, Z18
	VFMADD231PD Z7, Z0, Z19
	VFMADD231PD Z4, Z1, Z20
	VFMADD231PD Z5, Z1, Z21
	VFMADD231PD Z6, Z1, Z22
	VFMADD231PD Z7, Z1, Z23
	VFMADD231PD Z4, Z2, Z24
	VFMADD231PD Z5, Z2, Z25
	VFMADD231PD Z6, Z2, Z26
	VFMADD231PD Z7, Z2, Z27
	VFMADD231PD Z4, Z3, Z28
	VFMADD231PD Z5, Z3, Z29
	VFMADD231PD Z6, Z3, Z30
	VFMADD231PD Z7, Z3, Z31

dtreduce:
	VEXTRACTF64X4 $1, Z16, Y8
	VADDPD Y8, Y16, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 0(R12)
	VEXTRACTF64X4 $1, Z17, Y8
	VADDPD Y8, Y17, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 8(R12)
	VEXTRACTF64X4 $1, Z18, Y8
	VADDPD Y8, Y18, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 16(R12)
	VEXTRACTF64X4 $1, Z19, Y8
	VADDPD Y8, Y19, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 24(R12)
	VEXTRACTF64X4 $1, Z20, Y8
	VADDPD Y8, Y20, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 32(R12)
	VEXTRACTF64X4 $1, Z21, Y8
	VADDPD Y8, Y21, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 40(R12)
	VEXTRACTF64X4 $1, Z22, Y8
	VADDPD Y8, Y22, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 48(R12)
	VEXTRACTF64X4 $1, Z23, Y8
	VADDPD Y8, Y23, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 56(R12)
	VEXTRACTF64X4 $1, Z24, Y8
	VADDPD Y8, Y24, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 64(R12)
	VEXTRACTF64X4 $1, Z25, Y8
	VADDPD Y8, Y25, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 72(R12)
	VEXTRACTF64X4 $1, Z26, Y8
	VADDPD Y8, Y26, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 80(R12)
	VEXTRACTF64X4 $1, Z27, Y8
	VADDPD Y8, Y27, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 88(R12)
	VEXTRACTF64X4 $1, Z28, Y8
	VADDPD Y8, Y28, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 96(R12)
	VEXTRACTF64X4 $1, Z29, Y8
	VADDPD Y8, Y29, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 104(R12)
	VEXTRACTF64X4 $1, Z30, Y8
	VADDPD Y8, Y30, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 112(R12)
	VEXTRACTF64X4 $1, Z31, Y8
	VADDPD Y8, Y31, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VPERMILPD $1, X8, X9
	VADDSD X9, X8, X8
	MOVSD X8, 120(R12)
	VZEROUPPER
	RET

// func dgemmKernelAVX512(kc int, a, b, c *float64, ldc int, alpha, beta float64, readC int)
//
// The 12×16 tile of DgemmNT on packed panels (the short-k path): acc[r][0:16] = Σ_l a[12l + r]·
// b[16l : 16l + 16] over l < kc, one fused multiply-add chain per element in l order, then row r
// of C at c + r·ldc set to alpha·acc + beta·C (C not read unless readC). Accumulators Z8–Z31
// (row r in Z(8+2r), Z(9+2r)), B's 16 values in Z0/Z1, each of A's 12 broadcast once (Z2–Z7).
TEXT ·dgemmKernelAVX512(SB), NOSPLIT, $0-64
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z24, Z24, Z24
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VPXORQ Z28, Z28, Z28
	VPXORQ Z29, Z29, Z29
	VPXORQ Z30, Z30, Z30
	VPXORQ Z31, Z31, Z31
	TESTQ CX, CX
	JZ    dstore

dkloop:
	VMOVUPD (DI), Z0
	VMOVUPD 64(DI), Z1
	VBROADCASTSD 0(SI), Z2
	VFMADD231PD Z2, Z0, Z8
	VFMADD231PD Z2, Z1, Z9
	VBROADCASTSD 8(SI), Z3
	VFMADD231PD Z3, Z0, Z10
	VFMADD231PD Z3, Z1, Z11
	VBROADCASTSD 16(SI), Z4
	VFMADD231PD Z4, Z0, Z12
	VFMADD231PD Z4, Z1, Z13
	VBROADCASTSD 24(SI), Z5
	VFMADD231PD Z5, Z0, Z14
	VFMADD231PD Z5, Z1, Z15
	VBROADCASTSD 32(SI), Z6
	VFMADD231PD Z6, Z0, Z16
	VFMADD231PD Z6, Z1, Z17
	VBROADCASTSD 40(SI), Z7
	VFMADD231PD Z7, Z0, Z18
	VFMADD231PD Z7, Z1, Z19
	VBROADCASTSD 48(SI), Z2
	VFMADD231PD Z2, Z0, Z20
	VFMADD231PD Z2, Z1, Z21
	VBROADCASTSD 56(SI), Z3
	VFMADD231PD Z3, Z0, Z22
	VFMADD231PD Z3, Z1, Z23
	VBROADCASTSD 64(SI), Z4
	VFMADD231PD Z4, Z0, Z24
	VFMADD231PD Z4, Z1, Z25
	VBROADCASTSD 72(SI), Z5
	VFMADD231PD Z5, Z0, Z26
	VFMADD231PD Z5, Z1, Z27
	VBROADCASTSD 80(SI), Z6
	VFMADD231PD Z6, Z0, Z28
	VFMADD231PD Z6, Z1, Z29
	VBROADCASTSD 88(SI), Z7
	VFMADD231PD Z7, Z0, Z30
	VFMADD231PD Z7, Z1, Z31
	ADDQ $96, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  dkloop

dstore:
	MOVQ         c+24(FP), DX
	MOVQ         ldc+32(FP), R8
	SHLQ         $3, R8
	VBROADCASTSD alpha+40(FP), Z2
	VBROADCASTSD beta+48(FP), Z3
	MOVQ         readC+56(FP), AX
	TESTQ        AX, AX
	JNZ          dread
	VMULPD Z2, Z8, Z8
	VMULPD Z2, Z9, Z9
	VMOVUPD Z8, (DX)
	VMOVUPD Z9, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z10, Z10
	VMULPD Z2, Z11, Z11
	VMOVUPD Z10, (DX)
	VMOVUPD Z11, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z12, Z12
	VMULPD Z2, Z13, Z13
	VMOVUPD Z12, (DX)
	VMOVUPD Z13, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z14, Z14
	VMULPD Z2, Z15, Z15
	VMOVUPD Z14, (DX)
	VMOVUPD Z15, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z16, Z16
	VMULPD Z2, Z17, Z17
	VMOVUPD Z16, (DX)
	VMOVUPD Z17, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z18, Z18
	VMULPD Z2, Z19, Z19
	VMOVUPD Z18, (DX)
	VMOVUPD Z19, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z20, Z20
	VMULPD Z2, Z21, Z21
	VMOVUPD Z20, (DX)
	VMOVUPD Z21, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z22, Z22
	VMULPD Z2, Z23, Z23
	VMOVUPD Z22, (DX)
	VMOVUPD Z23, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z24, Z24
	VMULPD Z2, Z25, Z25
	VMOVUPD Z24, (DX)
	VMOVUPD Z25, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z26, Z26
	VMULPD Z2, Z27, Z27
	VMOVUPD Z26, (DX)
	VMOVUPD Z27, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z28, Z28
	VMULPD Z2, Z29, Z29
	VMOVUPD Z28, (DX)
	VMOVUPD Z29, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z30, Z30
	VMULPD Z2, Z31, Z31
	VMOVUPD Z30, (DX)
	VMOVUPD Z31, 64(DX)
	ADDQ R8, DX
	VZEROUPPER
	RET

dread:
	VMULPD Z2, Z8, Z8
	VMULPD Z2, Z9, Z9
	VFMADD231PD (DX), Z3, Z8
	VFMADD231PD 64(DX), Z3, Z9
	VMOVUPD Z8, (DX)
	VMOVUPD Z9, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z10, Z10
	VMULPD Z2, Z11, Z11
	VFMADD231PD (DX), Z3, Z10
	VFMADD231PD 64(DX), Z3, Z11
	VMOVUPD Z10, (DX)
	VMOVUPD Z11, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z12, Z12
	VMULPD Z2, Z13, Z13
	VFMADD231PD (DX), Z3, Z12
	VFMADD231PD 64(DX), Z3, Z13
	VMOVUPD Z12, (DX)
	VMOVUPD Z13, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z14, Z14
	VMULPD Z2, Z15, Z15
	VFMADD231PD (DX), Z3, Z14
	VFMADD231PD 64(DX), Z3, Z15
	VMOVUPD Z14, (DX)
	VMOVUPD Z15, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z16, Z16
	VMULPD Z2, Z17, Z17
	VFMADD231PD (DX), Z3, Z16
	VFMADD231PD 64(DX), Z3, Z17
	VMOVUPD Z16, (DX)
	VMOVUPD Z17, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z18, Z18
	VMULPD Z2, Z19, Z19
	VFMADD231PD (DX), Z3, Z18
	VFMADD231PD 64(DX), Z3, Z19
	VMOVUPD Z18, (DX)
	VMOVUPD Z19, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z20, Z20
	VMULPD Z2, Z21, Z21
	VFMADD231PD (DX), Z3, Z20
	VFMADD231PD 64(DX), Z3, Z21
	VMOVUPD Z20, (DX)
	VMOVUPD Z21, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z22, Z22
	VMULPD Z2, Z23, Z23
	VFMADD231PD (DX), Z3, Z22
	VFMADD231PD 64(DX), Z3, Z23
	VMOVUPD Z22, (DX)
	VMOVUPD Z23, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z24, Z24
	VMULPD Z2, Z25, Z25
	VFMADD231PD (DX), Z3, Z24
	VFMADD231PD 64(DX), Z3, Z25
	VMOVUPD Z24, (DX)
	VMOVUPD Z25, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z26, Z26
	VMULPD Z2, Z27, Z27
	VFMADD231PD (DX), Z3, Z26
	VFMADD231PD 64(DX), Z3, Z27
	VMOVUPD Z26, (DX)
	VMOVUPD Z27, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z28, Z28
	VMULPD Z2, Z29, Z29
	VFMADD231PD (DX), Z3, Z28
	VFMADD231PD 64(DX), Z3, Z29
	VMOVUPD Z28, (DX)
	VMOVUPD Z29, 64(DX)
	ADDQ R8, DX
	VMULPD Z2, Z30, Z30
	VMULPD Z2, Z31, Z31
	VFMADD231PD (DX), Z3, Z30
	VFMADD231PD 64(DX), Z3, Z31
	VMOVUPD Z30, (DX)
	VMOVUPD Z31, 64(DX)
	ADDQ R8, DX
	VZEROUPPER
	RET

// func packPanelAVX512(dst, x *float64, kc int, idx *[16]int64, w int)
//
// Packs a panel of w = 12 or 16 whole rows of x (row r at byte offset idx[r] from x) over kc
// columns: dst[w·l + r] = row r's l-th value, by two gathers per column (8 rows, then the other
// 4 or 8).
TEXT ·packPanelAVX512(SB), NOSPLIT, $0-40
	MOVQ      dst+0(FP), DI
	MOVQ      x+8(FP), SI
	MOVQ      kc+16(FP), CX
	MOVQ      idx+24(FP), AX
	VMOVDQU64 (AX), Z0
	VMOVDQU64 64(AX), Z1
	MOVQ      w+32(FP), DX
	CMPQ      DX, $12
	JEQ       pp12

pp16:
	KXNORB     K1, K1, K1
	KXNORB     K2, K2, K2
	VGATHERQPD (SI)(Z0*1), K1, Z2
	VGATHERQPD (SI)(Z1*1), K2, Z3
	VMOVUPD    Z2, (DI)
	VMOVUPD    Z3, 64(DI)
	ADDQ       $8, SI
	ADDQ       $128, DI
	DECQ       CX
	JNZ        pp16
	VZEROUPPER
	RET

pp12:
	KXNORB     K1, K1, K1
	KXNORB     K2, K2, K2
	VGATHERQPD (SI)(Z0*1), K1, Z2
	VGATHERQPD (SI)(Y1*1), K2, Y3
	VMOVUPD    Z2, (DI)
	VMOVUPD    Y3, 64(DI)
	ADDQ       $8, SI
	ADDQ       $96, DI
	DECQ       CX
	JNZ        pp12
	VZEROUPPER
	RET

// AVX2 + FMA kernels (16 vector registers, no masks, no embedded broadcast: constants come
// from memory as whole 4-lane vectors).

// EXPNEG4(T, OUT): OUT = e^(−T) for 0 ≤ T ≤ 700 in each of 4 lanes, table-free (AVX2 has no
// two-source permute for the 16-entry table EXPNEG uses): k = round(T·log₂e) from the low
// mantissa bits of T·log₂e + 1.5·2⁵², r = (k·ln2hi − T) + k·ln2lo (|r| ≤ ln2/2), e^r by its
// Taylor polynomial of degree 13 (remainder below 4e-18), times 2^(−k) made in the exponent field.
// Constants from the exp4Consts at AX; uses Y13–Y15.
#define EXPNEG4(T, OUT) \
	VMOVUPD     0(AX), Y13; \
	VFMADD231PD 32(AX), T, Y13; \
	VSUBPD      0(AX), Y13, Y14; \
	VMOVAPD     T, Y15; \
	VFMSUB231PD 64(AX), Y14, Y15; \
	VFMADD231PD 96(AX), Y14, Y15; \
	VMOVUPD     160(AX), OUT; \
	VFMADD213PD 192(AX), Y15, OUT; \
	VFMADD213PD 224(AX), Y15, OUT; \
	VFMADD213PD 256(AX), Y15, OUT; \
	VFMADD213PD 288(AX), Y15, OUT; \
	VFMADD213PD 320(AX), Y15, OUT; \
	VFMADD213PD 352(AX), Y15, OUT; \
	VFMADD213PD 384(AX), Y15, OUT; \
	VFMADD213PD 416(AX), Y15, OUT; \
	VFMADD213PD 448(AX), Y15, OUT; \
	VFMADD213PD 480(AX), Y15, OUT; \
	VFMADD213PD 512(AX), Y15, OUT; \
	VFMADD213PD 544(AX), Y15, OUT; \
	VFMADD213PD 576(AX), Y15, OUT; \
	VPSLLQ      $52, Y13, Y13; \
	VMOVUPD     128(AX), Y14; \
	VPSUBQ      Y13, Y14, Y14; \
	VMULPD      Y14, OUT, OUT

// func expSumsAVX2(a *float64, n int, inv, clamp, tmin, skip float64, k *exp4Consts, out *[8]float64)
//
// ExpSums over n (a positive multiple of 4) entries: out[0:4] the lanes of z, out[4:8] of s.
TEXT ·expSumsAVX2(SB), NOSPLIT, $0-64
	MOVQ         a+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD inv+16(FP), Y0
	VBROADCASTSD clamp+24(FP), Y1
	VBROADCASTSD tmin+32(FP), Y2
	VBROADCASTSD skip+40(FP), Y3
	MOVQ         k+48(FP), AX
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9

es4loop:
	VMULPD      (SI), Y0, Y10
	VMINPD      Y1, Y10, Y10
	VSUBPD      Y2, Y10, Y10
	VCMPPD      $18, Y3, Y10, Y11
	EXPNEG4(Y10, Y12)
	VANDPD      Y11, Y12, Y12
	VADDPD      Y12, Y8, Y8
	VFMADD231PD Y10, Y12, Y9
	ADDQ        $32, SI
	SUBQ        $4, CX
	JNZ         es4loop
	MOVQ        out+56(FP), DI
	VMOVUPD     Y8, (DI)
	VMOVUPD     Y9, 32(DI)
	VZEROUPPER
	RET

// func klSumsAVX2(a, b *float64, n int, ia, ib, clamp, pmin, qmin, skip float64, k *exp4Consts, out *[16]float64)
//
// KLSums over n (a positive multiple of 4) entries: the lanes of zp, sp, zq, sq in out[0:4],
// [4:8], [8:12], [12:16]. A group of 4 with no tp (tq) within skip skips that exponential.
TEXT ·klSumsAVX2(SB), NOSPLIT, $0-88
	MOVQ         a+0(FP), SI
	MOVQ         b+8(FP), DI
	MOVQ         n+16(FP), CX
	VBROADCASTSD ia+24(FP), Y0
	VBROADCASTSD ib+32(FP), Y1
	VBROADCASTSD clamp+40(FP), Y2
	VBROADCASTSD pmin+48(FP), Y3
	VBROADCASTSD qmin+56(FP), Y4
	VBROADCASTSD skip+64(FP), Y5
	MOVQ         k+72(FP), AX
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9

kl4loop:
	VMULPD    (SI), Y0, Y10
	VMINPD    Y2, Y10, Y10
	VSUBPD    Y3, Y10, Y10
	VCMPPD    $18, Y5, Y10, Y11
	VMOVMSKPD Y11, DX
	TESTQ     DX, DX
	JZ        kl4nop
	EXPNEG4(Y10, Y12)
	VANDPD    Y11, Y12, Y12
	VADDPD    Y12, Y6, Y6
	// sp += w·(tq − tp): tq is computed again below; here (tq − tp) from b directly.
	VMULPD      (DI), Y1, Y13
	VMINPD      Y2, Y13, Y13
	VSUBPD      Y4, Y13, Y13
	VSUBPD      Y10, Y13, Y13
	VFMADD231PD Y13, Y12, Y7

kl4nop:
	VMULPD    (DI), Y1, Y11
	VMINPD    Y2, Y11, Y11
	VSUBPD    Y4, Y11, Y11
	VCMPPD    $18, Y5, Y11, Y10
	VMOVMSKPD Y10, DX
	TESTQ     DX, DX
	JZ        kl4noq
	EXPNEG4(Y11, Y12)
	VANDPD    Y10, Y12, Y12
	VADDPD    Y12, Y8, Y8
	VMULPD    (SI), Y0, Y13
	VMINPD    Y2, Y13, Y13
	VSUBPD    Y3, Y13, Y13
	VSUBPD    Y11, Y13, Y13
	VFMADD231PD Y13, Y12, Y9

kl4noq:
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX
	JNZ     kl4loop
	MOVQ    out+80(FP), DX
	VMOVUPD Y6, (DX)
	VMOVUPD Y7, 32(DX)
	VMOVUPD Y8, 64(DX)
	VMOVUPD Y9, 96(DX)
	VZEROUPPER
	RET

// func minMaxAVX2(a *float64, n int, lo, hi float64, out *[8]float64)
//
// The lanes of min(lo, a…) in out[0:4] and of max(hi, a…) in out[4:8], n a positive multiple
// of 8, a free of NaNs.
TEXT ·minMaxAVX2(SB), NOSPLIT, $0-40
	MOVQ         a+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD lo+16(FP), Y0
	VBROADCASTSD hi+24(FP), Y1
	VMOVAPD      Y0, Y2
	VMOVAPD      Y1, Y3

mm4loop:
	VMOVUPD (SI), Y4
	VMOVUPD 32(SI), Y5
	VMINPD  Y4, Y0, Y0
	VMAXPD  Y4, Y1, Y1
	VMINPD  Y5, Y2, Y2
	VMAXPD  Y5, Y3, Y3
	ADDQ    $64, SI
	SUBQ    $8, CX
	JNZ     mm4loop
	VMINPD  Y2, Y0, Y0
	VMAXPD  Y3, Y1, Y1
	MOVQ    out+32(FP), DI
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VZEROUPPER
	RET

// func dist2RowAVX2(dst *float64, si float64, sq *float64, dot *int32, n int)
//
// Dist2Row for n a positive multiple of 4 (as dist2RowAVX512).
TEXT ·dist2RowAVX2(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	VBROADCASTSD si+8(FP), Y0
	MOVQ         sq+16(FP), SI
	MOVQ         dot+24(FP), DX
	MOVQ         n+32(FP), CX

d24loop:
	VCVTDQ2PD (DX), Y1
	VADDPD    (SI), Y0, Y2
	VADDPD    Y1, Y1, Y1
	VSUBPD    Y1, Y2, Y2
	VMOVUPD   Y2, (DI)
	ADDQ      $16, DX
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $4, CX
	JNZ       d24loop
	VZEROUPPER
	RET

// func i8TileAVX2(ap *int16, bp *uint8, kc int, c *int32, ldc int, corr *int32, first int)
//
// One 4×8 tile of I8NT on AVX2: A's 4 rows widened to int16 beforehand (per group of 4 k-indices
// 4 rows × 4 values, 32 bytes), B read from its packed panel (u8, 128 bytes per group; the tile's
// 8 columns are 32 of them) and zero-extended by vpmovzxbw. Per group and row, A's 4 values are
// broadcast (vpbroadcastq) against B's 4 columns × 4 values and vpmaddwd adds adjacent products
// into int32: accumulator Y(4+2r) holds columns 0–3, Y(5+2r) columns 4–7, two lanes per column
// (k ≡ 0,1 and 2,3 mod 4). At the end vphaddd and vpermq fold the pairs into columns 0…7, and
// row r of C at c + r·ldc gets acc − corr[r], plus its old value unless first. Every product
// |a·u| ≤ 128·255 < 2¹⁵ and every pair sum < 2¹⁷, so vpmaddwd is exact and the int32 sums are
// those of the VNNI kernel (modulo 2³², exact within I8MaxK).
TEXT ·i8TileAVX2(SB), NOSPLIT, $0-56
	MOVQ  ap+0(FP), SI
	MOVQ  bp+8(FP), DI
	MOVQ  kc+16(FP), CX
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	VPXOR Y10, Y10, Y10
	VPXOR Y11, Y11, Y11
	TESTQ CX, CX
	JZ    i8a2store

i8a2loop:
	VPMOVZXBW    (DI), Y0
	VPMOVZXBW    16(DI), Y1
	VPBROADCASTQ 0(SI), Y2
	VPBROADCASTQ 8(SI), Y13
	VPMADDWD     Y0, Y2, Y3
	VPMADDWD     Y1, Y2, Y12
	VPADDD       Y3, Y4, Y4
	VPADDD       Y12, Y5, Y5
	VPMADDWD     Y0, Y13, Y14
	VPMADDWD     Y1, Y13, Y15
	VPADDD       Y14, Y6, Y6
	VPADDD       Y15, Y7, Y7
	VPBROADCASTQ 16(SI), Y2
	VPBROADCASTQ 24(SI), Y13
	VPMADDWD     Y0, Y2, Y3
	VPMADDWD     Y1, Y2, Y12
	VPADDD       Y3, Y8, Y8
	VPADDD       Y12, Y9, Y9
	VPMADDWD     Y0, Y13, Y14
	VPMADDWD     Y1, Y13, Y15
	VPADDD       Y14, Y10, Y10
	VPADDD       Y15, Y11, Y11
	ADDQ         $32, SI
	ADDQ         $128, DI
	DECQ         CX
	JNZ          i8a2loop

i8a2store:
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	MOVQ corr+40(FP), R11
	// Y12: all ones to add C's old value, zeros on the first k pass (C is read either way: the
	// tile lies inside C).
	VPXOR    Y12, Y12, Y12
	MOVQ     first+48(FP), AX
	TESTQ    AX, AX
	JNZ      i8a2rows
	VPCMPEQD Y12, Y12, Y12

i8a2rows:
#define STOREROW4(r, A, B) \
	VPHADDD      B, A, A; \
	VPERMQ       $0xd8, A, A; \
	VPBROADCASTD (4*r)(R11), Y13; \
	VPSUBD       Y13, A, A; \
	VPAND        (DX), Y12, Y3; \
	VPADDD       Y3, A, A; \
	VMOVDQU      A, (DX); \
	ADDQ         R8, DX

	STOREROW4(0, Y4, Y5)
	STOREROW4(1, Y6, Y7)
	STOREROW4(2, Y8, Y9)
	STOREROW4(3, Y10, Y11)
	VZEROUPPER
	RET

// func dotTileAVX2(a0, a1, a2, a3, b0, b1, b2 *float64, k4 int, out *[12]float64)
//
// out[3r + c] = Σ_l ar[l]·bc[l] over l < k4 (k4 a positive multiple of 4): the 4×3 tile of
// DgemmNT on AVX2 from rows of A and B read in place. B's three rows go to Y0–Y2 four k-indices at
// a time, A's values are the memory operands of the fused multiply-adds (16 registers: 12
// accumulators, Y(4 + 3r + c)). Each accumulator holds four partial sums over l ≡ lane (mod 4) in
// increasing l, added at the end in the fixed tree (0+2) + (1+3).
TEXT ·dotTileAVX2(SB), NOSPLIT, $0-72
	MOVQ  a0+0(FP), R8
	MOVQ  a1+8(FP), R9
	MOVQ  a2+16(FP), R10
	MOVQ  a3+24(FP), R11
	MOVQ  b0+32(FP), R12
	MOVQ  b1+40(FP), R13
	MOVQ  b2+48(FP), R14
	MOVQ  k4+56(FP), CX
	SHLQ  $3, CX
	XORQ  AX, AX
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15

dt2loop:
	VMOVUPD     (R12)(AX*1), Y0
	VMOVUPD     (R13)(AX*1), Y1
	VMOVUPD     (R14)(AX*1), Y2
	VFMADD231PD (R8)(AX*1), Y0, Y4
	VFMADD231PD (R8)(AX*1), Y1, Y5
	VFMADD231PD (R8)(AX*1), Y2, Y6
	VFMADD231PD (R9)(AX*1), Y0, Y7
	VFMADD231PD (R9)(AX*1), Y1, Y8
	VFMADD231PD (R9)(AX*1), Y2, Y9
	VFMADD231PD (R10)(AX*1), Y0, Y10
	VFMADD231PD (R10)(AX*1), Y1, Y11
	VFMADD231PD (R10)(AX*1), Y2, Y12
	VFMADD231PD (R11)(AX*1), Y0, Y13
	VFMADD231PD (R11)(AX*1), Y1, Y14
	VFMADD231PD (R11)(AX*1), Y2, Y15
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         dt2loop

	MOVQ out+64(FP), DI

#define HSUM4(Y, X, off) \
	VEXTRACTF128 $1, Y, X0; \
	VADDPD       X0, X, X0; \
	VHADDPD      X0, X0, X0; \
	VMOVSD       X0, off(DI)

	HSUM4(Y4, X4, 0)
	HSUM4(Y5, X5, 8)
	HSUM4(Y6, X6, 16)
	HSUM4(Y7, X7, 24)
	HSUM4(Y8, X8, 32)
	HSUM4(Y9, X9, 40)
	HSUM4(Y10, X10, 48)
	HSUM4(Y11, X11, 56)
	HSUM4(Y12, X12, 64)
	HSUM4(Y13, X13, 72)
	HSUM4(Y14, X14, 80)
	HSUM4(Y15, X15, 88)
	VZEROUPPER
	RET

// func dgemmKernelAVX2(kc int, a, b, c *float64, ldc int, alpha, beta float64, readC int)
//
// The 4×12 tile of DgemmNT on packed panels (the short-k path on AVX2): acc[r][0:12] =
// Σ_l a[4l + r]·b[12l : 12l + 12] over l < kc (kc ≥ 1), one fused multiply-add chain per element
// in l order, then row r of C at c + r·ldc set to fma(beta, C, alpha·acc) (C not read unless
// readC). Accumulators Y4–Y15 (row r in Y(4+3r)…Y(6+3r)), B's 12 values in Y0–Y2, each of A's 4
// broadcast in turn into Y3.
TEXT ·dgemmKernelAVX2(SB), NOSPLIT, $0-64
	MOVQ   kc+0(FP), CX
	MOVQ   a+8(FP), SI
	MOVQ   b+16(FP), DI
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15

dk2loop:
	VMOVUPD      (DI), Y0
	VMOVUPD      32(DI), Y1
	VMOVUPD      64(DI), Y2
	VBROADCASTSD (SI), Y3
	VFMADD231PD  Y0, Y3, Y4
	VFMADD231PD  Y1, Y3, Y5
	VFMADD231PD  Y2, Y3, Y6
	VBROADCASTSD 8(SI), Y3
	VFMADD231PD  Y0, Y3, Y7
	VFMADD231PD  Y1, Y3, Y8
	VFMADD231PD  Y2, Y3, Y9
	VBROADCASTSD 16(SI), Y3
	VFMADD231PD  Y0, Y3, Y10
	VFMADD231PD  Y1, Y3, Y11
	VFMADD231PD  Y2, Y3, Y12
	VBROADCASTSD 24(SI), Y3
	VFMADD231PD  Y0, Y3, Y13
	VFMADD231PD  Y1, Y3, Y14
	VFMADD231PD  Y2, Y3, Y15
	ADDQ         $32, SI
	ADDQ         $96, DI
	DECQ         CX
	JNZ          dk2loop

	MOVQ         c+24(FP), DX
	MOVQ         ldc+32(FP), R8
	SHLQ         $3, R8
	VBROADCASTSD alpha+40(FP), Y0
	VBROADCASTSD beta+48(FP), Y1
	MOVQ         readC+56(FP), AX
	TESTQ        AX, AX
	JZ           dk2noread

#define DK2ROWC(A, B, C) \
	VMULPD      Y0, A, A; \
	VMULPD      Y0, B, B; \
	VMULPD      Y0, C, C; \
	VFMADD231PD (DX), Y1, A; \
	VFMADD231PD 32(DX), Y1, B; \
	VFMADD231PD 64(DX), Y1, C; \
	VMOVUPD     A, (DX); \
	VMOVUPD     B, 32(DX); \
	VMOVUPD     C, 64(DX); \
	ADDQ        R8, DX

	DK2ROWC(Y4, Y5, Y6)
	DK2ROWC(Y7, Y8, Y9)
	DK2ROWC(Y10, Y11, Y12)
	DK2ROWC(Y13, Y14, Y15)
	VZEROUPPER
	RET

dk2noread:
#define DK2ROW(A, B, C) \
	VMULPD  Y0, A, A; \
	VMULPD  Y0, B, B; \
	VMULPD  Y0, C, C; \
	VMOVUPD A, (DX); \
	VMOVUPD B, 32(DX); \
	VMOVUPD C, 64(DX); \
	ADDQ    R8, DX

	DK2ROW(Y4, Y5, Y6)
	DK2ROW(Y7, Y8, Y9)
	DK2ROW(Y10, Y11, Y12)
	DK2ROW(Y13, Y14, Y15)
	VZEROUPPER
	RET
