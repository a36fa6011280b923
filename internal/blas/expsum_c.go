//go:build openblas && cgo

package blas

/*
#cgo CFLAGS: -O2
#cgo LDFLAGS: -lm
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

// expneg returns e^(−t) for 0 ≤ t ≤ 708: t = k·ln2 + r, |r| ≤ ln2/2, e^(−r) by its Taylor
// polynomial of degree 13 (remainder below 4e-18), times 2^(−k) built from the exponent bits.
static double expneg(double t) {
	double k = __builtin_nearbyint(t * 1.4426950408889634);
	double r = (k * 6.93147180369123816490e-01 - t) + k * 1.90821492927058770002e-10;
	double p = 1.0 / 6227020800.0;
	p = p * r + 1.0 / 479001600.0;
	p = p * r + 1.0 / 39916800.0;
	p = p * r + 1.0 / 3628800.0;
	p = p * r + 1.0 / 362880.0;
	p = p * r + 1.0 / 40320.0;
	p = p * r + 1.0 / 5040.0;
	p = p * r + 1.0 / 720.0;
	p = p * r + 1.0 / 120.0;
	p = p * r + 1.0 / 24.0;
	p = p * r + 1.0 / 6.0;
	p = p * r + 0.5;
	p = p * r + 1.0;
	p = p * r + 1.0;
	uint64_t bits = (uint64_t)(1023 - (int64_t)k) << 52;
	double scale;
	memcpy(&scale, &bits, 8);
	return p * scale;
}

// tab16[m] = 2^(−m/16), m = 0..15, for expneg8 (filled by use512 with libm's exp2).
static double tab16[16];

// expneg8 returns e^(−t) for 0 ≤ t ≤ 700 in each lane: t = (k/16)·ln2 − r with |r| ≤ ln2/32,
// e^(−t) = 2^(−⌊k/16⌋)·2^(−(k mod 16)/16)·e^r, the middle factor from a 16-entry table held in two
// registers, e^r by its Taylor polynomial of degree 7 (remainder below 2e-18 relative). Nine
// fused multiply-adds against the fifteen of a table-free degree-13 polynomial: the loop is bound
// by the one 512-bit multiply-add port.
__attribute__((target("avx512f,avx512dq")))
static inline __m512d expneg8(__m512d t, __m512d tlo, __m512d thi) {
	// k = round(16·t/ln2) lands in the low mantissa bits of kb = 16·t/ln2 + 1.5·2^52 (exact for
	// 0 ≤ t ≤ 700): no separate rounding or conversion instruction.
	const __m512d magic = _mm512_set1_pd(6755399441055744.0);
	__m512d kb = _mm512_fmadd_pd(t, _mm512_set1_pd(23.083120654223414), magic);
	__m512d k = _mm512_sub_pd(kb, magic);
	__m512d r = _mm512_fmadd_pd(k, _mm512_set1_pd(1.90821492927058770002e-10 / 16),
	                            _mm512_fmsub_pd(k, _mm512_set1_pd(6.93147180369123816490e-01 / 16), t));
	__m512d p = _mm512_set1_pd(1.0 / 5040.0);
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 720.0));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 120.0));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 24.0));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 6.0));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.5));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
	__m512i ki = _mm512_castpd_si512(kb); // k in the low bits (k < 2^51)
	__m512d f = _mm512_permutex2var_pd(tlo, ki, thi); // index k mod 16 (the low four bits)
	__m512i e = _mm512_slli_epi64(_mm512_srli_epi64(ki, 4), 52); // ⌊k/16⌋ in the exponent field (bits above 52 shift out)
	return _mm512_mul_pd(p, _mm512_castsi512_pd(_mm512_sub_epi64(_mm512_castpd_si512(f), e)));
}

static int have512 = -1;

static int use512(void) {
	if (have512 < 0) {
		__builtin_cpu_init();
		have512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
		for (int m = 0; m < 16; m++) tab16[m] = exp2(-m / 16.0);
	}
	return have512;
}

__attribute__((target("avx512f,avx512dq")))
static void exp_sums512(const double *a, long n, double inv, double clamp, double tmin, double skip, double *zo, double *so) {
	__m512d z = _mm512_setzero_pd(), s = _mm512_setzero_pd();
	__m512d vinv = _mm512_set1_pd(inv), vcl = _mm512_set1_pd(clamp), vtm = _mm512_set1_pd(tmin), vsk = _mm512_set1_pd(skip);
	__m512d tlo = _mm512_loadu_pd(tab16), thi = _mm512_loadu_pd(tab16 + 8);
	long j = 0;
	for (; j + 8 <= n; j += 8) {
		__m512d t = _mm512_sub_pd(_mm512_min_pd(_mm512_mul_pd(_mm512_loadu_pd(a + j), vinv), vcl), vtm);
		__mmask8 m = _mm512_cmp_pd_mask(t, vsk, _CMP_LE_OQ);
		__m512d w = _mm512_maskz_mov_pd(m, expneg8(t, tlo, thi)); // t ≤ clamp − tmin ≤ 450: in range
		z = _mm512_add_pd(z, w);
		s = _mm512_fmadd_pd(w, t, s);
	}
	double zz = _mm512_reduce_add_pd(z), ss = _mm512_reduce_add_pd(s);
	for (; j < n; j++) {
		double t = __builtin_fmin(a[j] * inv, clamp) - tmin;
		if (t <= skip) {
			double w = expneg(t);
			zz += w;
			ss += w * t;
		}
	}
	*zo = zz;
	*so = ss;
}

static void exp_sums(const double *a, long n, double inv, double clamp, double tmin, double skip, double *zo, double *so, int ok) {
	if (ok && use512()) {
		exp_sums512(a, n, inv, clamp, tmin, skip, zo, so);
		return;
	}
	double zz = 0, ss = 0;
	for (long j = 0; j < n; j++) {
		double t = __builtin_fmin(a[j] * inv, clamp) - tmin;
		if (t <= skip) {
			double w = expneg(t);
			zz += w;
			ss += w * t;
		}
	}
	*zo = zz;
	*so = ss;
}

// kl_scalar adds elements j..n−1 to the sums r (the loop the vector code leaves, and the fallback).
static void kl_scalar(const double *a, const double *b, long j, long n, double ia, double ib, double clamp, double pmin, double qmin, double skip, double *r) {
	for (; j < n; j++) {
		double tp = __builtin_fmin(a[j] * ia, clamp) - pmin;
		double tq = __builtin_fmin(b[j] * ib, clamp) - qmin;
		if (tp <= skip) {
			double w = expneg(tp);
			r[0] += w;
			r[1] += w * (tq - tp);
		}
		if (tq <= skip) {
			double w = expneg(tq);
			r[2] += w;
			r[3] += w * (tp - tq);
		}
	}
}

__attribute__((target("avx512f,avx512dq")))
static void kl_sums512(const double *a, const double *b, long n, double ia, double ib, double clamp, double pmin, double qmin, double skip, double *out) {
	__m512d zp = _mm512_setzero_pd(), sp = _mm512_setzero_pd(), zq = _mm512_setzero_pd(), sq = _mm512_setzero_pd();
	__m512d via = _mm512_set1_pd(ia), vib = _mm512_set1_pd(ib), vcl = _mm512_set1_pd(clamp), vpm = _mm512_set1_pd(pmin), vqm = _mm512_set1_pd(qmin), vsk = _mm512_set1_pd(skip);
	__m512d tlo = _mm512_loadu_pd(tab16), thi = _mm512_loadu_pd(tab16 + 8);
	long j = 0;
	for (; j + 8 <= n; j += 8) {
		__m512d tp = _mm512_sub_pd(_mm512_min_pd(_mm512_mul_pd(_mm512_loadu_pd(a + j), via), vcl), vpm);
		__m512d tq = _mm512_sub_pd(_mm512_min_pd(_mm512_mul_pd(_mm512_loadu_pd(b + j), vib), vcl), vqm);
		__mmask8 mp = _mm512_cmp_pd_mask(tp, vsk, _CMP_LE_OQ);
		__mmask8 mq = _mm512_cmp_pd_mask(tq, vsk, _CMP_LE_OQ);
		__m512d d = _mm512_sub_pd(tq, tp);
		if (mp) {
			__m512d w = _mm512_maskz_mov_pd(mp, expneg8(tp, tlo, thi));
			zp = _mm512_add_pd(zp, w);
			sp = _mm512_fmadd_pd(w, d, sp);
		}
		if (mq) {
			__m512d w = _mm512_maskz_mov_pd(mq, expneg8(tq, tlo, thi));
			zq = _mm512_add_pd(zq, w);
			sq = _mm512_fnmadd_pd(w, d, sq);
		}
	}
	double r[4] = {_mm512_reduce_add_pd(zp), _mm512_reduce_add_pd(sp), _mm512_reduce_add_pd(zq), _mm512_reduce_add_pd(sq)};
	kl_scalar(a, b, j, n, ia, ib, clamp, pmin, qmin, skip, r);
	memcpy(out, r, sizeof r);
}

static void kl_sums(const double *a, const double *b, long n, double ia, double ib, double clamp, double pmin, double qmin, double skip, double *out, int ok) {
	if (ok && use512()) {
		kl_sums512(a, b, n, ia, ib, clamp, pmin, qmin, skip, out);
		return;
	}
	double r[4] = {0, 0, 0, 0};
	kl_scalar(a, b, 0, n, ia, ib, clamp, pmin, qmin, skip, r);
	memcpy(out, r, sizeof r);
}

// rank_kl_scalar adds terms m..n−1 of rank_kl to r.
static void rank_kl_scalar(const double *seq, const int32_t *other, long m, long n, int32_t skip, int32_t r0, double scale, double inv, double clamp,
                           double tmin, double lz, double cp, double clp, double *r) {
	for (; m < n; m++) {
		int32_t k = other[m];
		if (k <= skip) continue;
		double o = cp, lo = clp;
		if (k <= r0) {
			double v = (double)k * scale;
			lo = -(__builtin_fmin(v * v * inv, clamp) - tmin) - lz;
			o = expneg(-lo);
		}
		double s = seq[2 * m], ls = seq[2 * m + 1];
		r[0] += o * (lo - ls);
		r[1] += s * (ls - lo);
	}
}

// rank_kl is RankKL (expsum.go), eight ranks at a time.
__attribute__((target("avx512f,avx512dq,avx512vl")))
static void rank_kl512(const double *seq, const int32_t *other, long n, int32_t skip, int32_t r0, double scale, double inv, double clamp,
                       double tmin, double lz, double cp, double clp, double *out) {
	__m512d tlo = _mm512_loadu_pd(tab16), thi = _mm512_loadu_pd(tab16 + 8);
	__m512i ie = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), io = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
	__m256i vskip = _mm256_set1_epi32(skip), vr0 = _mm256_set1_epi32(r0);
	__m512d vsc = _mm512_set1_pd(scale), vinv = _mm512_set1_pd(inv), vcl = _mm512_set1_pd(clamp), vtm = _mm512_set1_pd(tmin), vlz = _mm512_set1_pd(lz);
	__m512d vcp = _mm512_set1_pd(cp), vclp = _mm512_set1_pd(clp), zero = _mm512_setzero_pd();
	__m512d A = zero, B = zero;
	long m = 0;
	for (; m + 8 <= n; m += 8) {
		__m256i k = _mm256_loadu_si256((const __m256i *)(other + m));
		__mmask8 use = _mm256_cmpgt_epi32_mask(k, vskip), far = _mm256_cmpgt_epi32_mask(k, vr0);
		if (!use) continue;
		__m512d v = _mm512_mul_pd(_mm512_cvtepi32_pd(k), vsc);
		__m512d t = _mm512_sub_pd(_mm512_min_pd(_mm512_mul_pd(_mm512_mul_pd(v, v), vinv), vcl), vtm); // −lo − lz ≥ 0
		__m512d lo = _mm512_sub_pd(_mm512_sub_pd(zero, t), vlz);
		__m512d o = expneg8(_mm512_sub_pd(zero, lo), tlo, thi);
		lo = _mm512_mask_mov_pd(lo, far, vclp);
		o = _mm512_mask_mov_pd(o, far, vcp);
		__m512d p0 = _mm512_loadu_pd(seq + 2 * m), p1 = _mm512_loadu_pd(seq + 2 * m + 8);
		__m512d s = _mm512_permutex2var_pd(p0, ie, p1), ls = _mm512_permutex2var_pd(p0, io, p1);
		__m512d d = _mm512_sub_pd(lo, ls);
		A = _mm512_mask3_fmadd_pd(o, d, A, use);
		B = _mm512_mask3_fnmadd_pd(s, d, B, use);
	}
	double r[2] = {_mm512_reduce_add_pd(A), _mm512_reduce_add_pd(B)};
	rank_kl_scalar(seq, other, m, n, skip, r0, scale, inv, clamp, tmin, lz, cp, clp, r);
	out[0] = r[0];
	out[1] = r[1];
}

static void rank_kl(const double *seq, const int32_t *other, long n, int32_t skip, int32_t r0, double scale, double inv, double clamp,
                    double tmin, double lz, double cp, double clp, double *out, int ok) {
	if (ok && use512() && __builtin_cpu_supports("avx512vl")) {
		rank_kl512(seq, other, n, skip, r0, scale, inv, clamp, tmin, lz, cp, clp, out);
		return;
	}
	double r[2] = {0, 0};
	rank_kl_scalar(seq, other, 0, n, skip, r0, scale, inv, clamp, tmin, lz, cp, clp, r);
	out[0] = r[0];
	out[1] = r[1];
}

__attribute__((target("avx512f")))
static void min_max512(const double *a, long n, double *lo, double *hi) {
	__m512d l0 = _mm512_set1_pd(*lo), h0 = _mm512_set1_pd(*hi), l1 = l0, h1 = h0;
	long j = 0;
	for (; j + 16 <= n; j += 16) {
		__m512d v0 = _mm512_loadu_pd(a + j), v1 = _mm512_loadu_pd(a + j + 8);
		l0 = _mm512_min_pd(l0, v0);
		h0 = _mm512_max_pd(h0, v0);
		l1 = _mm512_min_pd(l1, v1);
		h1 = _mm512_max_pd(h1, v1);
	}
	double l = _mm512_reduce_min_pd(_mm512_min_pd(l0, l1)), h = _mm512_reduce_max_pd(_mm512_max_pd(h0, h1));
	for (; j < n; j++) {
		l = a[j] < l ? a[j] : l;
		h = a[j] > h ? a[j] : h;
	}
	*lo = l;
	*hi = h;
}

// min_max folds a[0..n) into *lo and *hi (NaN-free input).
static void min_max(const double *a, long n, double *lo, double *hi, int ok) {
	if (ok && use512()) {
		min_max512(a, n, lo, hi);
		return;
	}
	double l = *lo, h = *hi;
	for (long j = 0; j < n; j++) {
		l = a[j] < l ? a[j] : l;
		h = a[j] > h ? a[j] : h;
	}
	*lo = l;
	*hi = h;
}
*/
import "C"

import "unsafe"

func expSums(a []float64, inv, clamp, tmin, skip float64) (z, s float64) {
	var zo, so C.double
	C.exp_sums((*C.double)(unsafe.Pointer(&a[0])), C.long(len(a)), C.double(inv), C.double(clamp), C.double(tmin), C.double(skip), &zo, &so, cbool(Active >= AVX512))
	return float64(zo), float64(so)
}

func klSums(a, b []float64, ia, ib, clamp, pmin, qmin, skip float64) (zp, sp, zq, sq float64) {
	var out [4]C.double
	C.kl_sums((*C.double)(unsafe.Pointer(&a[0])), (*C.double)(unsafe.Pointer(&b[0])), C.long(len(a)), C.double(ia), C.double(ib), C.double(clamp),
		C.double(pmin), C.double(qmin), C.double(skip), &out[0], cbool(Active >= AVX512))
	return float64(out[0]), float64(out[1]), float64(out[2]), float64(out[3])
}

func minMax(a []float64, lo, hi float64) (float64, float64) {
	l, h := C.double(lo), C.double(hi)
	C.min_max((*C.double)(unsafe.Pointer(&a[0])), C.long(len(a)), &l, &h, cbool(Active >= AVX512))
	return float64(l), float64(h)
}

func rankKL(seq []float64, other []int32, skip, r0 int32, scale, inv, clamp, tmin, lz, cp, clp float64) (a, b float64) {
	var out [2]C.double
	C.rank_kl((*C.double)(unsafe.Pointer(&seq[0])), (*C.int32_t)(unsafe.Pointer(&other[0])), C.long(len(other)), C.int32_t(skip), C.int32_t(r0),
		C.double(scale), C.double(inv), C.double(clamp), C.double(tmin), C.double(lz), C.double(cp), C.double(clp), &out[0], cbool(Active >= AVX512))
	return float64(out[0]), float64(out[1])
}
