//go:build openblas && cgo

package blas

/*
#cgo CFLAGS: -O2
#include <immintrin.h>
#include <stdint.h>
#include <math.h>

#define MR 8
#define NR 32
// KC: groups of 4 k-indices per pass over a B panel; KC·NR·4 = 32 KiB stays in a 48 KiB L1.
#define KC 256
#ifndef NC
#define NC 256
#endif

static int have_vnni = -1;

static int use_vnni(void) {
	if (have_vnni < 0) {
		__builtin_cpu_init();
		have_vnni = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
	}
	return have_vnni;
}

// tile: the MR×NR block at ap (packed A, MR rows × kc groups) times bp (packed B panel, kc
// groups × NR columns). first: start from 0 (else add to c); corr: subtract corr[r] at the end
// (NULL on all but the last k pass). Only rows < rows and the lanes of m0/m1 are stored.
__attribute__((target("avx512f,avx512bw,avx512vnni")))
static void tile(const int8_t *ap, const uint8_t *bp, long kc, int32_t *c, long ldc,
                 int rows, __mmask16 m0, __mmask16 m1, int first, const int32_t *corr) {
	// The whole k loop in assembly, accumulators in zmm16–zmm31 (row r: zmm16+2r, zmm17+2r):
	// written with the intrinsic (_mm512_dpbusd_epi32), GCC 12 copies every accumulator between
	// registers in each iteration, which halved the speed. Per group of 4 k-indices: load B's
	// 2×16 columns (u8) into zmm0/zmm1, then for each of the MR rows vpdpbusd with A's 4 bytes
	// (s8) broadcast from memory: acc[l] += Σ_{t<4} u8(b)[4l+t]·s8(a)[t] in every lane l.
	int32_t out[MR * NR] __attribute__((aligned(64)));
	__asm__ volatile(
		"vpxord %%zmm16, %%zmm16, %%zmm16\n\t"
		"vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
		"vpxord %%zmm18, %%zmm18, %%zmm18\n\t"
		"vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
		"vpxord %%zmm20, %%zmm20, %%zmm20\n\t"
		"vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
		"vpxord %%zmm22, %%zmm22, %%zmm22\n\t"
		"vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
		"vpxord %%zmm24, %%zmm24, %%zmm24\n\t"
		"vpxord %%zmm25, %%zmm25, %%zmm25\n\t"
		"vpxord %%zmm26, %%zmm26, %%zmm26\n\t"
		"vpxord %%zmm27, %%zmm27, %%zmm27\n\t"
		"vpxord %%zmm28, %%zmm28, %%zmm28\n\t"
		"vpxord %%zmm29, %%zmm29, %%zmm29\n\t"
		"vpxord %%zmm30, %%zmm30, %%zmm30\n\t"
		"vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
		"testq %[kc], %[kc]\n\t"
		"jz 2f\n\t"
		"1:\n\t"
		"vmovdqu64 (%[bp]), %%zmm0\n\t"
		"vmovdqu64 64(%[bp]), %%zmm1\n\t"
		"vpdpbusd 0(%[ap])%{1to16%}, %%zmm0, %%zmm16\n\t"
		"vpdpbusd 0(%[ap])%{1to16%}, %%zmm1, %%zmm17\n\t"
		"vpdpbusd 4(%[ap])%{1to16%}, %%zmm0, %%zmm18\n\t"
		"vpdpbusd 4(%[ap])%{1to16%}, %%zmm1, %%zmm19\n\t"
		"vpdpbusd 8(%[ap])%{1to16%}, %%zmm0, %%zmm20\n\t"
		"vpdpbusd 8(%[ap])%{1to16%}, %%zmm1, %%zmm21\n\t"
		"vpdpbusd 12(%[ap])%{1to16%}, %%zmm0, %%zmm22\n\t"
		"vpdpbusd 12(%[ap])%{1to16%}, %%zmm1, %%zmm23\n\t"
		"vpdpbusd 16(%[ap])%{1to16%}, %%zmm0, %%zmm24\n\t"
		"vpdpbusd 16(%[ap])%{1to16%}, %%zmm1, %%zmm25\n\t"
		"vpdpbusd 20(%[ap])%{1to16%}, %%zmm0, %%zmm26\n\t"
		"vpdpbusd 20(%[ap])%{1to16%}, %%zmm1, %%zmm27\n\t"
		"vpdpbusd 24(%[ap])%{1to16%}, %%zmm0, %%zmm28\n\t"
		"vpdpbusd 24(%[ap])%{1to16%}, %%zmm1, %%zmm29\n\t"
		"vpdpbusd 28(%[ap])%{1to16%}, %%zmm0, %%zmm30\n\t"
		"vpdpbusd 28(%[ap])%{1to16%}, %%zmm1, %%zmm31\n\t"
		"addq $32, %[ap]\n\t"
		"subq $-128, %[bp]\n\t"
		"decq %[kc]\n\t"
		"jnz 1b\n\t"
		"2:\n\t"
		"vmovdqu64 %%zmm16, 0(%[out])\n\t"
		"vmovdqu64 %%zmm17, 64(%[out])\n\t"
		"vmovdqu64 %%zmm18, 128(%[out])\n\t"
		"vmovdqu64 %%zmm19, 192(%[out])\n\t"
		"vmovdqu64 %%zmm20, 256(%[out])\n\t"
		"vmovdqu64 %%zmm21, 320(%[out])\n\t"
		"vmovdqu64 %%zmm22, 384(%[out])\n\t"
		"vmovdqu64 %%zmm23, 448(%[out])\n\t"
		"vmovdqu64 %%zmm24, 512(%[out])\n\t"
		"vmovdqu64 %%zmm25, 576(%[out])\n\t"
		"vmovdqu64 %%zmm26, 640(%[out])\n\t"
		"vmovdqu64 %%zmm27, 704(%[out])\n\t"
		"vmovdqu64 %%zmm28, 768(%[out])\n\t"
		"vmovdqu64 %%zmm29, 832(%[out])\n\t"
		"vmovdqu64 %%zmm30, 896(%[out])\n\t"
		"vmovdqu64 %%zmm31, 960(%[out])\n\t"
		: [ap] "+r"(ap), [bp] "+r"(bp), [kc] "+r"(kc)
		: [out] "r"(out)
		: "cc", "memory", "xmm0", "xmm1", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22",
		  "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");
	// Store one row (v0, v1) of the tile; rows beyond `rows` are padding.
#define STORE_ROW(r, v0, v1)                                                                  \
	if (r < rows) {                                                                       \
		int32_t *cr = c + (r) * ldc;                                                  \
		__m512i w0 = v0, w1 = v1;                                                     \
		if (!first) {                                                                 \
			w0 = _mm512_add_epi32(w0, _mm512_maskz_loadu_epi32(m0, cr));          \
			w1 = _mm512_add_epi32(w1, _mm512_maskz_loadu_epi32(m1, cr + 16));     \
		}                                                                             \
		if (corr) {                                                                   \
			__m512i k = _mm512_set1_epi32(corr[r]);                               \
			w0 = _mm512_sub_epi32(w0, k);                                         \
			w1 = _mm512_sub_epi32(w1, k);                                         \
		}                                                                             \
		_mm512_mask_storeu_epi32(cr, m0, w0);                                         \
		_mm512_mask_storeu_epi32(cr + 16, m1, w1);                                    \
	}
	STORE_ROW(0, _mm512_load_si512(out + 0 * NR), _mm512_load_si512(out + 0 * NR + 16))
	STORE_ROW(1, _mm512_load_si512(out + 1 * NR), _mm512_load_si512(out + 1 * NR + 16))
	STORE_ROW(2, _mm512_load_si512(out + 2 * NR), _mm512_load_si512(out + 2 * NR + 16))
	STORE_ROW(3, _mm512_load_si512(out + 3 * NR), _mm512_load_si512(out + 3 * NR + 16))
	STORE_ROW(4, _mm512_load_si512(out + 4 * NR), _mm512_load_si512(out + 4 * NR + 16))
	STORE_ROW(5, _mm512_load_si512(out + 5 * NR), _mm512_load_si512(out + 5 * NR + 16))
	STORE_ROW(6, _mm512_load_si512(out + 6 * NR), _mm512_load_si512(out + 6 * NR + 16))
	STORE_ROW(7, _mm512_load_si512(out + 7 * NR), _mm512_load_si512(out + 7 * NR + 16))
#undef STORE_ROW
}

// i8_nt: C[i][j − j0] for rows 0 ≤ i < m of packed A and columns j0 ≤ j < j1 of packed B, both
// with kg groups of 4. Loops: k passes of KC groups; chunks of NC columns of B (NC·KC·4 bytes,
// kept in L2); per panel of MR rows of A (in L1) every NR-column panel of the chunk, so that C
// is written MR rows at a time along the rows.
__attribute__((target("avx512f,avx512bw,avx512vnni")))
static void i8_nt(const int8_t *ap, const int32_t *corr, long m, const uint8_t *bpk, long kg,
                  long j0, long j1, int32_t *c, long ldc) {
	for (long k0 = 0; k0 < kg; k0 += KC) {
		long kc = kg - k0 < KC ? kg - k0 : KC;
		int first = k0 == 0, last = k0 + kc >= kg;
		for (long q0 = j0 / NR; q0 * NR < j1; q0 += NC / NR) {
			for (long i = 0; i < m; i += MR) {
				int rows = m - i < MR ? (int)(m - i) : MR;
				const int8_t *a = ap + (i / MR * kg + k0) * MR * 4;
				for (long q = q0; q < q0 + NC / NR && q * NR < j1; q++) {
					long p0 = q * NR;
					// Lanes p0 + l with j0 ≤ p0 + l < j1.
					uint32_t lanes = 0xffffffffu;
					if (p0 < j0) lanes &= 0xffffffffu << (j0 - p0);
					if (p0 + NR > j1) lanes &= 0xffffffffu >> (p0 + NR - j1);
					// c + (p0 − j0) may point before c for the first panel; its masked-out lanes
					// are never touched (AVX-512 masked loads and stores suppress faults).
					tile(a, bpk + (q * kg + k0) * NR * 4, kc, c + i * ldc + (p0 - j0), ldc, rows,
					     (__mmask16)(lanes & 0xffff), (__mmask16)(lanes >> 16), first, last ? corr + i : NULL);
				}
			}
		}
	}
}

__attribute__((target("avx512f")))
static void dist2_row512(double *dst, double si, const double *sq, const int32_t *dot, long n) {
	__m512d vs = _mm512_set1_pd(si), m2 = _mm512_set1_pd(-2.0);
	long j = 0;
	for (; j + 8 <= n; j += 8) {
		__m512d d = _mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(dot + j)));
		_mm512_storeu_pd(dst + j, _mm512_fmadd_pd(m2, d, _mm512_add_pd(vs, _mm512_loadu_pd(sq + j))));
	}
	for (; j < n; j++) dst[j] = si + sq[j] - 2 * (double)dot[j];
}

static void dist2_row(double *dst, double si, const double *sq, const int32_t *dot, long n, int ok) {
	if (ok && use_vnni()) {
		dist2_row512(dst, si, sq, dot, n);
		return;
	}
	for (long j = 0; j < n; j++) dst[j] = si + sq[j] - 2 * (double)dot[j];
}

// sqrt8 returns √d in each lane where d ≥ 2⁻¹⁰⁰⁰, else 0 (d ≥ 0): r ≈ 1/√d from vrsqrt14pd
// (relative error below 2⁻¹⁴), one Newton step on r (2⁻²⁷), y = d·r and one Newton step on y:
// within one unit in the last place of the correctly rounded root (0.7% of MNIST's distances
// differ from it by one unit), at under half the cost of vsqrtpd.
__attribute__((target("avx512f")))
static inline __m512d sqrt8(__m512d d) {
	__mmask8 k = _mm512_cmp_pd_mask(d, _mm512_set1_pd(0x1p-1000), _CMP_GE_OQ);
	__m512d r = _mm512_rsqrt14_pd(d);
	__m512d h = _mm512_mul_pd(d, _mm512_set1_pd(0.5));
	r = _mm512_mul_pd(r, _mm512_fnmadd_pd(h, _mm512_mul_pd(r, r), _mm512_set1_pd(1.5)));
	__m512d y = _mm512_mul_pd(d, r);
	y = _mm512_fmadd_pd(_mm512_mul_pd(r, _mm512_set1_pd(0.5)), _mm512_fnmadd_pd(y, y, d), y);
	return _mm512_maskz_mov_pd(k, y);
}

// sqrt_sum512: 16 partial sums (two vectors, element j into lane j mod 16), the tail into lane
// (j mod 16) too, then the lanes added in a fixed tree.
__attribute__((target("avx512f,avx512vl")))
static double sqrt_sum512(double si, const double *sq, const int32_t *dot, long n) {
	__m512d vs = _mm512_set1_pd(si), m2 = _mm512_set1_pd(-2.0), z = _mm512_setzero_pd();
	__m512d s0 = z, s1 = z;
	long j = 0;
	for (; j + 16 <= n; j += 16) {
		__m512d d0 = _mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(dot + j)));
		__m512d d1 = _mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(dot + j + 8)));
		d0 = _mm512_fmadd_pd(m2, d0, _mm512_add_pd(vs, _mm512_loadu_pd(sq + j)));
		d1 = _mm512_fmadd_pd(m2, d1, _mm512_add_pd(vs, _mm512_loadu_pd(sq + j + 8)));
		s0 = _mm512_add_pd(s0, sqrt8(_mm512_max_pd(d0, z)));
		s1 = _mm512_add_pd(s1, sqrt8(_mm512_max_pd(d1, z)));
	}
	if (j < n) {
		long r = n - j;
		__mmask8 k0 = r >= 8 ? 0xff : (__mmask8)((1u << r) - 1);
		__mmask8 k1 = r > 8 ? (__mmask8)((1u << (r - 8)) - 1) : 0;
		__m512d d0 = _mm512_cvtepi32_pd(_mm256_maskz_loadu_epi32(k0, dot + j));
		__m512d d1 = _mm512_cvtepi32_pd(_mm256_maskz_loadu_epi32(k1, dot + j + 8));
		d0 = _mm512_fmadd_pd(m2, d0, _mm512_add_pd(vs, _mm512_maskz_loadu_pd(k0, sq + j)));
		d1 = _mm512_fmadd_pd(m2, d1, _mm512_add_pd(vs, _mm512_maskz_loadu_pd(k1, sq + j + 8)));
		s0 = _mm512_mask_add_pd(s0, k0, s0, sqrt8(_mm512_max_pd(d0, z)));
		s1 = _mm512_mask_add_pd(s1, k1, s1, sqrt8(_mm512_max_pd(d1, z)));
	}
	return _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

// sqrt_sum2d512: Σ_j √((xs_j − a)² + (ys_j − b)²) in 16 interleaved partial sums (as
// sqrt_sum512), the roots by sqrt8.
__attribute__((target("avx512f,avx512vl")))
static double sqrt_sum2d512(double a, double b, const double *xs, const double *ys, long n) {
	__m512d va = _mm512_set1_pd(a), vb = _mm512_set1_pd(b), z = _mm512_setzero_pd();
	__m512d s0 = z, s1 = z;
	long j = 0;
	for (; j + 16 <= n; j += 16) {
		__m512d t0 = _mm512_sub_pd(_mm512_loadu_pd(xs + j), va), u0 = _mm512_sub_pd(_mm512_loadu_pd(ys + j), vb);
		__m512d t1 = _mm512_sub_pd(_mm512_loadu_pd(xs + j + 8), va), u1 = _mm512_sub_pd(_mm512_loadu_pd(ys + j + 8), vb);
		s0 = _mm512_add_pd(s0, sqrt8(_mm512_fmadd_pd(t0, t0, _mm512_mul_pd(u0, u0))));
		s1 = _mm512_add_pd(s1, sqrt8(_mm512_fmadd_pd(t1, t1, _mm512_mul_pd(u1, u1))));
	}
	if (j < n) {
		long r = n - j;
		__mmask8 k0 = r >= 8 ? 0xff : (__mmask8)((1u << r) - 1);
		__mmask8 k1 = r > 8 ? (__mmask8)((1u << (r - 8)) - 1) : 0;
		__m512d t0 = _mm512_sub_pd(_mm512_maskz_loadu_pd(k0, xs + j), va), u0 = _mm512_sub_pd(_mm512_maskz_loadu_pd(k0, ys + j), vb);
		__m512d t1 = _mm512_sub_pd(_mm512_maskz_loadu_pd(k1, xs + j + 8), va), u1 = _mm512_sub_pd(_mm512_maskz_loadu_pd(k1, ys + j + 8), vb);
		s0 = _mm512_mask_add_pd(s0, k0, s0, sqrt8(_mm512_fmadd_pd(t0, t0, _mm512_mul_pd(u0, u0))));
		s1 = _mm512_mask_add_pd(s1, k1, s1, sqrt8(_mm512_fmadd_pd(t1, t1, _mm512_mul_pd(u1, u1))));
	}
	return _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

static double sqrt_sum2d(double a, double b, const double *xs, const double *ys, long n, int ok) {
	if (ok && use_vnni()) return sqrt_sum2d512(a, b, xs, ys, n);
	double s0 = 0, s1 = 0;
	long j = 0;
	for (; j + 1 < n; j += 2) {
		double t = xs[j] - a, u = ys[j] - b, v = xs[j + 1] - a, w = ys[j + 1] - b;
		s0 += sqrt(t * t + u * u);
		s1 += sqrt(v * v + w * w);
	}
	if (j < n) {
		double t = xs[j] - a, u = ys[j] - b;
		s0 += sqrt(t * t + u * u);
	}
	return s0 + s1;
}

static double sqrt_sum(double si, const double *sq, const int32_t *dot, long n, int ok) {
	if (ok && use_vnni()) return sqrt_sum512(si, sq, dot, n);
	double a = 0, b = 0;
	long j = 0;
	for (; j + 1 < n; j += 2) {
		a += sqrt(fmax(si + sq[j] - 2 * (double)dot[j], 0));
		b += sqrt(fmax(si + sq[j + 1] - 2 * (double)dot[j + 1], 0));
	}
	if (j < n) a += sqrt(fmax(si + sq[j] - 2 * (double)dot[j], 0));
	return a + b;
}
*/
import "C"

import "unsafe"

// I8Native reports whether I8NT runs the AVX-512 VNNI kernel (false: the portable Go loop): the
// CPU has it and the dispatch level (Active, lowered by LOWDIM_CPU) allows it. The C kernels
// below follow Active as the assembly ones do, so that LOWDIM_CPU=avx2 runs here what an AVX2
// machine would: no AVX-512 C paths (and OpenBLAS's Haswell kernels, openblas.go).
var I8Native = Active >= AVX512VNNI && C.use_vnni() != 0

func wideA() bool { return false }

func i8nt(c []int32, ldc int, a *I8A, b *I8B, j0, j1 int) {
	if !I8Native || Active < AVX512VNNI {
		i8ntGo(c, ldc, a, b, j0, j1)
		return
	}
	C.i8_nt((*C.int8_t)(unsafe.Pointer(&a.p[0])), (*C.int32_t)(unsafe.Pointer(&a.corr[0])), C.long(a.m),
		(*C.uint8_t)(unsafe.Pointer(&b.p[0])), C.long(b.kg), C.long(j0), C.long(j1),
		(*C.int32_t)(unsafe.Pointer(&c[0])), C.long(ldc))
}

func dist2Row(dst []float64, si float64, sq []float64, dot []int32) {
	C.dist2_row((*C.double)(unsafe.Pointer(&dst[0])), C.double(si), (*C.double)(unsafe.Pointer(&sq[0])),
		(*C.int32_t)(unsafe.Pointer(&dot[0])), C.long(len(dst)), cbool(Active >= AVX512))
}

func sqrtSum2D(a, b float64, xs, ys []float64) float64 {
	return float64(C.sqrt_sum2d(C.double(a), C.double(b), (*C.double)(unsafe.Pointer(&xs[0])), (*C.double)(unsafe.Pointer(&ys[0])), C.long(len(xs)), cbool(Active >= AVX512)))
}

func sqrtSum(si float64, sq []float64, dot []int32) float64 {
	return float64(C.sqrt_sum(C.double(si), (*C.double)(unsafe.Pointer(&sq[0])), (*C.int32_t)(unsafe.Pointer(&dot[0])), C.long(len(sq)), cbool(Active >= AVX512)))
}

// The bucket kernels are vectorised in package quality's C twin (native_c.go) in this build.

func buckets(cb []uint16, d []float64, lo, scale, last float64) { bucketsGo(cb, d, lo, scale, last) }

func fineBuckets(sb []uint32, ks []float64, lo, sc, base float64, last uint32) {
	fineBucketsGo(sb, ks, lo, sc, base, last)
}

func kernelLines() []string {
	i8, vec := "portable Go (the float32 product below is used instead)", "C (cgo), scalar"
	if I8Native {
		i8 = "AVX-512 VNNI (C, cgo)"
	}
	if Active >= AVX512 {
		vec = "C (cgo), AVX-512"
	}
	return []string{
		"exact int8 products (k-NN, distances of pixel data): " + i8,
		"exp sums, KL sums, distance rows, min/max, bucket sort: " + vec,
		"float64/float32 products (DgemmNT, SgemmNT): " + Name,
	}
}
