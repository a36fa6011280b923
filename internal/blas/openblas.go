//go:build openblas && cgo

package blas

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

// CBLAS constants (cblas.h): row-major 101, no transpose 111, transpose 112.
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                         const double *, int, double, double *, int);
typedef void (*threads_fn)(int);
typedef char *(*name_fn)(void);

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                         const float *, int, float, float *, int);

static dgemm_fn dgemm_p;
static sgemm_fn sgemm_p;
static name_fn corename_p;

// load opens OpenBLAS. Its DYNAMIC_ARCH build picks kernels from the CPU model number and falls
// back to the slow generic "Prescott" kernels on models it does not know (common on virtual
// machines); unless OPENBLAS_CORETYPE is set already, it is set for the moment of loading from
// the dispatch level (blas.Active: the CPU's features, or lower by LOWDIM_CPU, so that
// LOWDIM_CPU=avx2 gives the Haswell kernels an AVX2 machine would get). At the generic level
// OpenBLAS chooses for itself. Returns 0 on success.
static int load(int avx512, int avx2) {
	int set = 0;
	if (getenv("OPENBLAS_CORETYPE") == NULL) {
		if (avx512) {
			setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
			set = 1;
		} else if (avx2) {
			setenv("OPENBLAS_CORETYPE", "Haswell", 1);
			set = 1;
		}
	}
	void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) h = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
	if (set) unsetenv("OPENBLAS_CORETYPE");
	if (h == NULL) return 1;
	dgemm_p = (dgemm_fn)dlsym(h, "cblas_dgemm");
	sgemm_p = (sgemm_fn)dlsym(h, "cblas_sgemm");
	threads_fn th = (threads_fn)dlsym(h, "openblas_set_num_threads");
	corename_p = (name_fn)dlsym(h, "openblas_get_corename");
	if (dgemm_p == NULL || sgemm_p == NULL) return 2;
	if (th != NULL) th(1);
	return 0;
}

static const char *corename(void) { return corename_p ? corename_p() : "unknown"; }

static void dgemm_nt(int m, int n, int k, double alpha, const double *a, int lda,
                     const double *b, int ldb, double beta, double *c, int ldc) {
	dgemm_p(101, 111, 112, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void sgemm_nt(int m, int n, int k, float alpha, const float *a, int lda,
                     const float *b, int ldb, float beta, float *c, int ldc) {
	sgemm_p(101, 111, 112, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Cgo reports whether this build calls C kernels (-tags openblas with cgo).
const Cgo = true

// Name names the implementation in use: "openblas (<core>)", or "gonum (libopenblas not
// loadable)" when the shared library is missing.
var Name string

var loaded bool

// Threaded reports whether DgemmNT spreads one product over the cores itself: OpenBLAS is set to
// one thread, so only when it failed to load and gonum runs instead.
var Threaded bool

func init() {
	if C.load(cbool(Active >= AVX512), cbool(Active >= AVX2)) != 0 {
		Name = "gonum (libopenblas not loadable)"
		Threaded = true
		return
	}
	loaded = true
	Name = "openblas (" + C.GoString(C.corename()) + ")"
}

// cbool is 1 for true: how the C kernels are told what the dispatch level allows.
func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func dgemmNT(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !loaded {
		blas64.Implementation().Dgemm(blas.NoTrans, blas.Trans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	// Bounds as gonum checks them, so a wrong call fails in Go rather than corrupting memory.
	if lda < max(1, k) || ldb < max(1, k) || ldc < max(1, n) ||
		len(a) < (m-1)*lda+k || len(b) < (n-1)*ldb+k || len(c) < (m-1)*ldc+n {
		panic("blas: DgemmNT: slice too short for the stated dimensions")
	}
	C.dgemm_nt(C.int(m), C.int(n), C.int(k), C.double(alpha), (*C.double)(unsafe.Pointer(&a[0])), C.int(lda),
		(*C.double)(unsafe.Pointer(&b[0])), C.int(ldb), C.double(beta), (*C.double)(unsafe.Pointer(&c[0])), C.int(ldc))
}

func sgemmNT(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !loaded {
		blas32.Implementation().Sgemm(blas.NoTrans, blas.Trans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if lda < max(1, k) || ldb < max(1, k) || ldc < max(1, n) ||
		len(a) < (m-1)*lda+k || len(b) < (n-1)*ldb+k || len(c) < (m-1)*ldc+n {
		panic("blas: SgemmNT: slice too short for the stated dimensions")
	}
	C.sgemm_nt(C.int(m), C.int(n), C.int(k), C.float(alpha), (*C.float)(unsafe.Pointer(&a[0])), C.int(lda),
		(*C.float)(unsafe.Pointer(&b[0])), C.int(ldb), C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.int(ldc))
}
