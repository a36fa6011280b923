package blas

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDgemmNT compares DgemmNT with a plain triple loop on random blocks, including strided ones.
func TestDgemmNT(t *testing.T) { eachLevel(t, testDgemmNT) }

func testDgemmNT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{1, 1, 1}, {3, 5, 7}, {32, 100, 50}, {17, 9, 784}, {100, 530, 300}, {300, 1100, 100}, {25, 40, 128}, {25, 40, 129}} {
		m, n, k := sz[0], sz[1], sz[2]
		lda, ldb, ldc := k+2, k+1, n+3
		a := make([]float64, (m-1)*lda+k)
		b := make([]float64, (n-1)*ldb+k)
		c := make([]float64, (m-1)*ldc+n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		for i := range c {
			c[i] = rng.NormFloat64()
		}
		want := append([]float64(nil), c...)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for l := 0; l < k; l++ {
					s += a[i*lda+l] * b[j*ldb+l]
				}
				want[i*ldc+j] = 2*s + 0.5*want[i*ldc+j]
			}
		}
		DgemmNT(m, n, k, 2, a, lda, b, ldb, 0.5, c, ldc)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				g, w := c[i*ldc+j], want[i*ldc+j]
				// 1e-12 relative: k ≤ 784 products of unit normals, far above double rounding.
				if d := g - w; d > 1e-12*(1+abs(w)) || -d > 1e-12*(1+abs(w)) {
					t.Fatalf("%s %v: C[%d,%d] = %v, want %v", Name, sz, i, j, g, w)
				}
			}
			for j := n; j < ldc && i*ldc+j < len(c); j++ { // padding untouched
				if c[i*ldc+j] != want[i*ldc+j] {
					t.Fatalf("%s %v: padding C[%d,%d] changed", Name, sz, i, j)
				}
			}
		}
	}
}

// TestDgemmNTRowsIndependent: a row of C is the same bits whether computed alone, in a block of
// rows or in the whole product, and beta = 0 never reads C (NaNs there do not leak in): the
// contracts that keep outputs independent of how callers split products over workers.
func TestDgemmNTRowsIndependent(t *testing.T) { eachLevel(t, testDgemmNTRowsIndependent) }

func testDgemmNTRowsIndependent(t *testing.T) {
	if strings.HasPrefix(Name, "openblas") {
		// Its kernels for edge rows sum in another order: a single row differs in the last bits.
		t.Skip("OpenBLAS does not promise it (callers split products in blocks fixed by n alone)")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const m, n, k = 40, 70, 600
	a, b := make([]float64, m*k), make([]float64, n*k)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	nan := 0.0
	nan /= nan
	whole := make([]float64, m*n)
	for i := range whole {
		whole[i] = nan
	}
	DgemmNT(m, n, k, 1, a, k, b, k, 0, whole, n)
	for _, blk := range []int{1, 5, 13} {
		part := make([]float64, m*n)
		for lo := 0; lo < m; lo += blk {
			hi := min(lo+blk, m)
			DgemmNT(hi-lo, n, k, 1, a[lo*k:], k, b, k, 0, part[lo*n:], n)
		}
		for i := range whole {
			if part[i] != whole[i] || whole[i] != whole[i] {
				t.Fatalf("blocks of %d rows: C[%d] = %v, whole product %v", blk, i, part[i], whole[i])
			}
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// BenchmarkDgemmNT times a 256×n block against n rows of 784 columns (MNIST's shape), and of 50
// (its PCA-50 reduction, the exact k-NN benchmark's shape), and reports GFLOP/s.
func BenchmarkDgemmNT(b *testing.B) {
	for _, k := range []int{784, 50} {
		for _, m := range []int{32, 256} {
			const n = 4096
			b.Run(fmt.Sprintf("%s/m=%d/n=%d/k=%d", Name, m, n, k), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				x := make([]float64, n*k)
				for i := range x {
					x[i] = float64(rng.IntN(256))
				}
				c := make([]float64, m*n)
				b.ResetTimer()
				for b.Loop() {
					DgemmNT(m, n, k, 1, x, k, x, k, 0, c, n)
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestSgemmNTExactIntegers: on small integers whose partial sums stay below 2²⁴ the single
// precision product is exact, which is what package neighbors relies on. The entries lie in
// [−128, 127] and k = 717 (MNIST's varying columns), so |partial sums| ≤ 717·128² < 2²⁴.
func TestSgemmNTExactIntegers(t *testing.T) { eachLevel(t, testSgemmNTExactIntegers) }

func testSgemmNTExactIntegers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const m, n, k = 37, 300, 717
	a := make([]float32, m*k)
	b := make([]float32, n*k)
	for i := range a {
		a[i] = float32(rng.IntN(256) - 128)
	}
	for i := range b {
		b[i] = float32(rng.IntN(256) - 128)
	}
	c := make([]float32, m*n)
	SgemmNT(m, n, k, -2, a, k, b, k, 0, c, n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s int64
			for l := 0; l < k; l++ {
				s += int64(a[i*k+l]) * int64(b[j*k+l])
			}
			if float64(c[i*n+j]) != float64(-2*s) {
				t.Fatalf("%s: C[%d,%d] = %v, want %d", Name, i, j, c[i*n+j], -2*s)
			}
		}
	}
}

// BenchmarkSgemmNT is BenchmarkDgemmNT in single precision.
func BenchmarkSgemmNT(b *testing.B) {
	const n, m, k = 4096, 256, 784
	b.Run(fmt.Sprintf("%s/m=%d/n=%d", Name, m, n), func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 2))
		x := make([]float32, n*k)
		for i := range x {
			x[i] = float32(rng.IntN(256))
		}
		c := make([]float32, m*n)
		b.ResetTimer()
		for b.Loop() {
			SgemmNT(m, n, k, 1, x, k, x, k, 0, c, n)
		}
		b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

// TestTranspose: element (i, j) of a 37×70 matrix (neither side a multiple of the 32-row tile)
// lands at (j, i), and transposing back gives the matrix again.
func TestTranspose(t *testing.T) {
	const r, c = 37, 70
	a := make([]float64, r*c)
	for i := range a {
		a[i] = float64(i)
	}
	at, back := make([]float64, r*c), make([]float64, r*c)
	Transpose(at, a, r, c)
	for i := range r {
		for j := range c {
			if at[j*r+i] != a[i*c+j] {
				t.Fatalf("(%d, %d): %g, want %g", j, i, at[j*r+i], a[i*c+j])
			}
		}
	}
	Transpose(back, at, c, r)
	for i := range a {
		if back[i] != a[i] {
			t.Fatalf("twice transposed: element %d is %g, want %g", i, back[i], a[i])
		}
	}
}

// TestTransposeCols: spans that split a tile (0–13, 13–45, 45–70) write exactly their rows of
// dst, and together the whole transpose; rows outside a span keep their marker.
func TestTransposeCols(t *testing.T) {
	const r, c = 37, 70
	a := make([]float64, r*c)
	for i := range a {
		a[i] = float64(i)
	}
	want := make([]float64, r*c)
	Transpose(want, a, r, c)
	got := make([]float64, r*c)
	for i := range got {
		got[i] = -1
	}
	done := make([]bool, c)
	for _, s := range [][2]int{{13, 45}, {0, 13}, {45, 70}} {
		TransposeCols(got, a, r, c, s[0], s[1])
		for j := s[0]; j < s[1]; j++ {
			done[j] = true
		}
		for j := range c {
			for i := range r {
				if v := got[j*r+i]; done[j] && v != want[j*r+i] {
					t.Fatalf("after span %v: (%d, %d) is %g, want %g", s, j, i, v, want[j*r+i])
				} else if !done[j] && v != -1 {
					t.Fatalf("span %v wrote row %d outside it", s, j)
				}
			}
		}
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("element %d is %g, want %g", i, got[i], want[i])
		}
	}
}
