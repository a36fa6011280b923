//go:build openblas && cgo

package quality

/*
#cgo CFLAGS: -O2 -std=c11
// -std=c11: in ISO mode GCC does not fuse a multiply and an add (fp-contract off), so every
// kernel here rounds as its Go twin does.
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

static int have512 = -1;

// quality_allow512 is 0 when the dispatch level (blas.Active, set from Go at start) is below
// AVX-512: LOWDIM_CPU=avx2 then runs the scalar loops, as an AVX2 machine would.
int quality_allow512 = 1;

static int use512(void) {
	if (have512 < 0) {
		__builtin_cpu_init();
		have512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
	}
	return quality_allow512 && have512;
}

// ord_count_from is the scalar loop of ord_count from point j on (the vector loop's tail and
// the fallback).
static void ord_count_from(const double *d, long j, long n, double lo, double scale, double last, uint16_t *cb, int32_t *cnt) {
	for (; j < n; j++) {
		double t = d[j] - lo;
		t = t > 0 ? t : 0;
		t = t * scale;
		t = t < last ? t : last;
		uint16_t c = (uint16_t)(int32_t)t;
		cb[j] = c;
		cnt[c + 1]++;
	}
}

// ord_count is rowOrder.count: cb[j] = (uint16)min(max(d[j] − lo, 0)·scale, last), cnt[cb[j]+1]++
// (cnt cleared by the caller). The bucket of eight points at a time is computed in vector lanes,
// with the same operations in the same order as the Go loop, so the buckets are the same.
__attribute__((target("avx512f,avx512vl")))
static void ord_count512(const double *d, long n, double lo, double scale, double last, uint16_t *cb, int32_t *cnt) {
	__m512d vlo = _mm512_set1_pd(lo), vsc = _mm512_set1_pd(scale), vla = _mm512_set1_pd(last), z = _mm512_setzero_pd();
	int32_t c8[8];
	long j = 0;
	for (; j + 8 <= n; j += 8) {
		__m512d t = _mm512_max_pd(_mm512_sub_pd(_mm512_loadu_pd(d + j), vlo), z);
		t = _mm512_min_pd(_mm512_mul_pd(t, vsc), vla);
		__m256i c = _mm512_cvttpd_epi32(t);
		_mm_storeu_si128((__m128i *)(cb + j), _mm256_cvtepi32_epi16(c));
		_mm256_storeu_si256((__m256i *)c8, c);
		cnt[c8[0] + 1]++;
		cnt[c8[1] + 1]++;
		cnt[c8[2] + 1]++;
		cnt[c8[3] + 1]++;
		cnt[c8[4] + 1]++;
		cnt[c8[5] + 1]++;
		cnt[c8[6] + 1]++;
		cnt[c8[7] + 1]++;
	}
	ord_count_from(d, j, n, lo, scale, last, cb, cnt);
}

static void ord_count(const double *d, long n, double lo, double scale, double last, uint16_t *cb, int32_t *cnt) {
	if (use512()) {
		ord_count512(d, n, lo, scale, last, cb, cnt);
		return;
	}
	ord_count_from(d, 0, n, lo, scale, last, cb, cnt);
}

// insertion is the Go insertion: a stable sort of ids by ks.
static void insertion(int32_t *ids, double *ks, long m) {
	for (long p = 1; p < m; p++) {
		double v = ks[p];
		if (ks[p - 1] <= v) continue;
		int32_t j = ids[p];
		long q = p;
		for (; q > 0 && ks[q - 1] > v; q--) {
			ids[q] = ids[q - 1];
			ks[q] = ks[q - 1];
		}
		ids[q] = j;
		ks[q] = v;
	}
}

// fine_from is the scalar loop of fine_buckets from point t on.
static void fine_from(const double *ks, long t, long m, double lo, double sc, double base, uint32_t last, uint32_t *sb) {
	for (; t < m; t++) {
		double x = ks[t] - lo;
		x = x > 0 ? x : 0;
		x = x * sc - base;
		x = x > 0 ? x : 0;
		uint32_t f = (uint32_t)x;
		sb[t] = f < last ? f : last;
	}
}

// fine_buckets sets sb[t] = min((uint32)max(max(ks[t] − lo, 0)·sc − base, 0), last) for t < m,
// as rowOrder.fine does, eight lanes at a time.
__attribute__((target("avx512f,avx512vl")))
static void fine_buckets512(const double *ks, long m, double lo, double sc, double base, uint32_t last, uint32_t *sb) {
	__m512d vlo = _mm512_set1_pd(lo), vsc = _mm512_set1_pd(sc), vba = _mm512_set1_pd(base), z = _mm512_setzero_pd();
	__m256i vla = _mm256_set1_epi32((int)last);
	long t = 0;
	for (; t + 8 <= m; t += 8) {
		__m512d x = _mm512_max_pd(_mm512_sub_pd(_mm512_loadu_pd(ks + t), vlo), z);
		x = _mm512_max_pd(_mm512_sub_pd(_mm512_mul_pd(x, vsc), vba), z);
		__m256i f = _mm256_min_epu32(_mm512_cvttpd_epu32(x), vla);
		_mm256_storeu_si256((__m256i *)(sb + t), f);
	}
	fine_from(ks, t, m, lo, sc, base, last, sb);
}

static void fine_buckets(const double *ks, long m, double lo, double sc, double base, uint32_t last, uint32_t *sb) {
	if (use512()) {
		fine_buckets512(ks, m, lo, sc, base, last, sb);
		return;
	}
	fine_from(ks, 0, m, lo, sc, base, last, sb);
}

// ord_place is rowOrder.place: every point moves into coarse bucket order; each coarse bucket up
// to cut is sorted (insertion, or a counting sort on fine buckets then insertion) and its points
// ranked. A bucket with more than 48 points in one fine bucket is left counting-sorted, unranked,
// and listed in big for the caller to sort; the count of those is returned.
static int ord_place(const double *d, long n, const uint16_t *cb, const int32_t *cnt, int32_t *pos, int nb,
                     int32_t *ord, int32_t *rank, int cut, double lo, double scale,
                     double *keys, int32_t *sub, uint32_t *sb, int32_t *tmpI, double *tmpK, int32_t *big) {
	memcpy(pos, cnt, (size_t)(nb + 1) * sizeof(int32_t));
	for (long j = 0; j < n; j++) {
		int32_t p = pos[cb[j]]++;
		ord[p] = (int32_t)j;
		rank[j] = 0x7fffffff;
	}
	int nbig = 0;
	for (int c = 0; c <= cut; c++) {
		int32_t b = cnt[c], e = cnt[c + 1];
		long m = e - b;
		int32_t *ids = ord + b;
		for (long q = 0; q < m; q++) keys[q] = d[ids[q]];
		if (m <= 16) {
			insertion(ids, keys, m);
		} else {
			long nf = 1;
			while (nf < m) nf <<= 1;
			memset(sub, 0, (size_t)nf * sizeof(int32_t));
			fine_buckets(keys, m, lo, scale * (double)nf, (double)((long)c * nf), (uint32_t)(nf - 1), sb);
			for (long t = 0; t < m; t++) sub[sb[t]]++;
			int32_t most = 0, sum = 0;
			for (long f = 0; f < nf; f++) {
				int32_t k = sub[f];
				most = k > most ? k : most;
				sub[f] = sum;
				sum += k;
			}
			for (long t = 0; t < m; t++) {
				int32_t p = sub[sb[t]]++;
				tmpI[p] = ids[t];
				tmpK[p] = keys[t];
			}
			if (most > 48) {
				memcpy(ids, tmpI, (size_t)m * sizeof(int32_t));
				big[nbig++] = c;
				continue;
			}
			insertion(tmpI, tmpK, m);
			memcpy(ids, tmpI, (size_t)m * sizeof(int32_t));
		}
		for (long p = 0; p < m; p++) rank[ids[p]] = b + (int32_t)p + 1;
	}
	return nbig;
}

// out_row2_from is the scalar loop of out_row2 from point j on.
static void out_row2_from(const double *y, long j, long n, double a, double b, double *row) {
	for (; j < n; j++) {
		double t = y[2 * j] - a, u = y[2 * j + 1] - b;
		row[j] = t * t + u * u;
	}
}

// out_row2 is outRow for D = 2: row[j] = (y[2j] − a)² + (y[2j+1] − b)², in the Go loop's order of
// operations (no fused multiply-add), eight points at a time.
__attribute__((target("avx512f")))
static void out_row2_512(const double *y, long n, double a, double b, double *row) {
	__m512d va = _mm512_set1_pd(a), vb = _mm512_set1_pd(b);
	__m512i ie = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), io = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
	long j = 0;
	for (; j + 8 <= n; j += 8) {
		__m512d lo = _mm512_loadu_pd(y + 2 * j), hi = _mm512_loadu_pd(y + 2 * j + 8);
		__m512d t = _mm512_sub_pd(_mm512_permutex2var_pd(lo, ie, hi), va);
		__m512d u = _mm512_sub_pd(_mm512_permutex2var_pd(lo, io, hi), vb);
		_mm512_storeu_pd(row + j, _mm512_add_pd(_mm512_mul_pd(t, t), _mm512_mul_pd(u, u)));
	}
	out_row2_from(y, j, n, a, b, row);
}

static void out_row2(const double *y, long n, double a, double b, double *row) {
	if (use512()) {
		out_row2_512(y, n, a, b, row);
		return;
	}
	out_row2_from(y, 0, n, a, b, row);
}

// gather sets out[a] = r[idx[a]] for a < m: a pass of independent loads.
static void gather(const int32_t *r, const int32_t *idx, int32_t m, int32_t *out) {
	for (int32_t a = 0; a < m; a++) out[a] = r[idx[a]];
}
*/
import "C"

import (
	"unsafe"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/internal/blas"
)

func init() {
	if blas.Active < blas.AVX512 {
		C.quality_allow512 = 0
	}
}

// count assigns every point of d its coarse bucket and counts the buckets (in C, the bucket
// arithmetic eight lanes at a time; the same buckets as the Go loop of the pure-Go build).
func (s *rowOrder) count(d []float64) {
	cb, cnt := s.cb[:len(d)], s.cnt[:2*s.nc+2]
	clear(cnt)
	if len(d) == 0 {
		return
	}
	C.ord_count((*C.double)(unsafe.Pointer(&d[0])), C.long(len(d)), C.double(s.lo), C.double(s.scale), C.double(float64(2*s.nc-1)),
		(*C.uint16_t)(unsafe.Pointer(&cb[0])), (*C.int32_t)(unsafe.Pointer(&cnt[0])))
}

// place moves every point into coarse bucket order and ranks the buckets up to cut (in C; see the
// Go twin in sort_go.go).
func (s *rowOrder) place(d []float64, cut int) {
	n := len(d)
	nb := 2 * s.nc
	cnt := s.cnt[:nb+2]
	big := 0
	for c := 0; c <= cut; c++ {
		big = max(big, int(cnt[c+1]-cnt[c]))
	}
	s.grow(big)
	nf := 1
	for nf < big {
		nf <<= 1
	}
	if cap(s.sub) < nf {
		s.sub = make([]int32, 2*nf)
	}
	if cap(s.bigs) < cut+1 {
		s.bigs = make([]int32, 2*(cut+1))
	}
	bigs := s.bigs[:cut+1]
	nbig := int(C.ord_place((*C.double)(unsafe.Pointer(&d[0])), C.long(n), (*C.uint16_t)(unsafe.Pointer(&s.cb[0])),
		(*C.int32_t)(unsafe.Pointer(&cnt[0])), (*C.int32_t)(unsafe.Pointer(&s.pos[0])), C.int(nb),
		(*C.int32_t)(unsafe.Pointer(&s.ord[0])), (*C.int32_t)(unsafe.Pointer(&s.rank[0])), C.int(cut),
		C.double(s.lo), C.double(s.scale), (*C.double)(unsafe.Pointer(&s.keys[0])), (*C.int32_t)(unsafe.Pointer(&s.sub[0])),
		(*C.uint32_t)(unsafe.Pointer(&s.sb[0])), (*C.int32_t)(unsafe.Pointer(&s.tmpI[0])), (*C.double)(unsafe.Pointer(&s.tmpK[0])),
		(*C.int32_t)(unsafe.Pointer(&bigs[0]))))
	s.bigs = bigs[:nbig]
	s.sortBig(d)
}

// outRow2 sets row[j] = ‖y_j − y_i‖² for the n 2-D points stored row-major in data (in C; the same
// operations as the Go loop of the pure-Go build, so the same bits).
func outRow2(data []float64, i int, row []float64) {
	n := len(data) / 2
	if n == 0 {
		return
	}
	C.out_row2((*C.double)(unsafe.Pointer(&data[0])), C.long(n), C.double(data[2*i]), C.double(data[2*i+1]),
		(*C.double)(unsafe.Pointer(&row[0])))
}

// rowRanked returns the rank-based KL(q‖p) and KL(p‖q) of a row (see the Go twin in native_go.go
// for the definition): the ranks in the other space of the r1 nearest points of each are gathered
// (in C), then blas.RankKL sums the terms, the rank probabilities of the sequential side read from
// the table and those of the gathered ranks computed (a vectorised exponential instead of random
// reads of a table of n entries). The sums agree with the Go twin's to rounding. tmp is scratch of
// r1 entries.
func (rb *rankBase) rowRanked(rx, ry, nx, ny, tmp []int32) (prec, rec float64) {
	r1 := rb.r1
	if r1 == 0 {
		return 0, 0
	}
	_, _, _ = nx[r1-1], ny[r1-1], tmp[r1-1]
	seq := unsafe.Slice((*float64)(unsafe.Pointer(&rb.tab[1])), 2*r1) // (p, log p) of ranks 1..r1
	C.gather((*C.int32_t)(unsafe.Pointer(&ry[0])), (*C.int32_t)(unsafe.Pointer(&nx[0])), C.int32_t(r1), (*C.int32_t)(unsafe.Pointer(&tmp[0])))
	a, b := blas.RankKL(seq, tmp[:r1], 0, int32(rb.r0), rb.scale, rb.inv, affinity.MaxExp, rb.tmin, rb.lz, rb.clamp, rb.logClamp)
	prec, rec = a, b
	C.gather((*C.int32_t)(unsafe.Pointer(&rx[0])), (*C.int32_t)(unsafe.Pointer(&ny[0])), C.int32_t(r1), (*C.int32_t)(unsafe.Pointer(&tmp[0])))
	a, b = blas.RankKL(seq, tmp[:r1], int32(r1), int32(rb.r0), rb.scale, rb.inv, affinity.MaxExp, rb.tmin, rb.lz, rb.clamp, rb.logClamp)
	return prec + b, rec + a
}
