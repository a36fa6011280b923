//go:build openblas && cgo

package quality

/*
#cgo CFLAGS: -O2
#include <stdint.h>
#include <string.h>
#include <immintrin.h>

// less orders (key, index) pairs.
static int lessp(double ka, int32_t ja, double kb, int32_t jb) { return ka < kb || (ka == kb && ja < jb); }

// heapsort of the pairs (k[t], o[t]) by (k, o): the rare shared bucket of more than 48 points.
static void sift(double *k, int32_t *o, long a, long m) {
	for (;;) {
		long c = 2 * a + 1;
		if (c >= m) return;
		if (c + 1 < m && lessp(k[c], o[c], k[c + 1], o[c + 1])) c++;
		if (!lessp(k[a], o[a], k[c], o[c])) return;
		double tk = k[a]; k[a] = k[c]; k[c] = tk;
		int32_t to = o[a]; o[a] = o[c]; o[c] = to;
		a = c;
	}
}

static void heapsort2(double *k, int32_t *o, long m) {
	for (long a = m / 2 - 1; a >= 0; a--) sift(k, o, a, m);
	for (long e = m - 1; e > 0; e--) {
		double tk = k[0]; k[0] = k[e]; k[e] = tk;
		int32_t to = o[0]; o[0] = o[e]; o[e] = to;
		sift(k, o, 0, e);
	}
}

static int have512 = -1;

__attribute__((target("avx512f")))
static void buckets512(const double *d, long n, double lo, double scale, double flast, uint32_t *bkt) {
	__m512d vlo = _mm512_set1_pd(lo), vs = _mm512_set1_pd(scale), vl = _mm512_set1_pd(flast), z = _mm512_setzero_pd();
	long j = 0;
	for (; j + 8 <= n; j += 8) {
		__m512d t = _mm512_min_pd(_mm512_mul_pd(_mm512_max_pd(_mm512_sub_pd(_mm512_loadu_pd(d + j), vlo), z), vs), vl);
		_mm256_storeu_si256((__m256i *)(bkt + j), _mm512_cvttpd_epu32(t));
	}
	for (; j < n; j++) {
		double t = d[j] - lo;
		t = (t > 0 ? t : 0) * scale;
		bkt[j] = (uint32_t)(t < flast ? t : flast);
	}
}

// order_row is rowOrder.orderGo (sort.go) in C; see there.
static uint32_t order_row(const double *d, long n, long i, double lo, double hi, long need,
		int32_t *cnt, uint8_t *many, long nb, uint32_t *bkt, double *keys, int32_t *ord, int32_t *rank) {
	memset(cnt, 0, (nb + 1) * sizeof(int32_t));
	double scale = hi > lo ? (double)nb / (hi - lo) : 0;
	uint32_t last = (uint32_t)(nb - 1);
	if (have512 < 0) {
		__builtin_cpu_init();
		have512 = __builtin_cpu_supports("avx512f");
	}
	if (have512) {
		buckets512(d, n, lo, scale, (double)last, bkt);
	} else {
		for (long j = 0; j < n; j++) {
			double t = d[j] - lo;
			t = (t > 0 ? t : 0) * scale;
			bkt[j] = (uint32_t)(t < (double)last ? t : (double)last);
		}
	}
	for (long j = 0; j < n; j++) cnt[bkt[j] + 1]++;
	cnt[bkt[i] + 1]--;
	bkt[i] = last + 1;
	uint32_t cut = last;
	for (long b = 1; b <= nb; b++) {
		int32_t c = cnt[b];
		many[b - 1] = c > 1;
		cnt[b] = c + cnt[b - 1];
		if (cnt[b] >= need && cut == last) cut = (uint32_t)(b - 1);
	}
	for (long j = 0; j < n; j++) {
		uint32_t b = bkt[j];
		if (b <= cut) {
			int32_t p = cnt[b];
			cnt[b] = p + 1;
			if (many[b]) {
				ord[p] = (int32_t)j;
				keys[p] = d[j];
			} else {
				rank[j] = p + 1;
			}
		}
	}
	int32_t start = 0;
	for (uint32_t b = 0; b <= cut; b++) {
		int32_t end = cnt[b];
		if (many[b]) {
			int32_t *seg = ord + start;
			double *ks = keys + start;
			long m = end - start;
			if (m <= 48) {
				for (long p = 1; p < m; p++) {
					int32_t j = seg[p];
					double v = ks[p];
					long q = p;
					for (; q > 0 && ks[q - 1] > v; q--) {
						seg[q] = seg[q - 1];
						ks[q] = ks[q - 1];
					}
					seg[q] = j;
					ks[q] = v;
				}
			} else {
				heapsort2(ks, seg, m);
			}
			for (long p = 0; p < m; p++) rank[seg[p]] = start + (int32_t)p + 1;
		}
		start = end;
	}
	return cut;
}
*/
import "C"

import "unsafe"

// order ranks the points j ≠ i of the row d, at least its need nearest ones (need ≤ len(d)−1).
// lo and hi are the smallest and largest d[j], j ≠ i. This build runs orderGo's algorithm in C
// (bucket indices eight at a time with AVX-512 when the CPU has it).
func (s *rowOrder) order(d []float64, i int, lo, hi float64, need int) {
	n := len(d)
	nb := len(s.cnt) - 1
	_, _, _, _, _ = s.bkt[n-1], s.keys[n-1], s.ord[n-1], s.rank[n-1], s.many[nb-1]
	s.cut = uint32(C.order_row((*C.double)(unsafe.Pointer(&d[0])), C.long(n), C.long(i), C.double(lo), C.double(hi), C.long(need),
		(*C.int32_t)(unsafe.Pointer(&s.cnt[0])), (*C.uint8_t)(unsafe.Pointer(&s.many[0])), C.long(nb),
		(*C.uint32_t)(unsafe.Pointer(&s.bkt[0])), (*C.double)(unsafe.Pointer(&s.keys[0])),
		(*C.int32_t)(unsafe.Pointer(&s.ord[0])), (*C.int32_t)(unsafe.Pointer(&s.rank[0]))))
}
