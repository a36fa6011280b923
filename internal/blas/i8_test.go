package blas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// i8Naive is C = A·Bᵀ by a plain int64 triple loop.
func i8Naive(m, n, k int, a []int8, lda int, b []int8, ldb int) []int64 {
	c := make([]int64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s int64
			for l := 0; l < k; l++ {
				s += int64(a[i*lda+l]) * int64(b[j*ldb+l])
			}
			c[i*n+j] = s
		}
	}
	return c
}

// i8Rand fills s with random int8 values, one in four of them an extreme (−128 or 127).
func i8Rand(rng *rand.Rand, s []int8) {
	for i := range s {
		switch rng.IntN(8) {
		case 0:
			s[i] = -128
		case 1:
			s[i] = 127
		default:
			s[i] = int8(rng.IntN(256) - 128)
		}
	}
}

// TestI8GemmNT compares I8GemmNT (on each dispatch level: the VNNI kernel, AVX2's vpmaddwd
// kernel, the Go loop) with the plain int64 loop: odd m, n, k, k not a multiple of 4, 16 or 64, more than one k pass of the kernel
// (k > 1024), strides and C padding, all-extreme operands (the largest products in magnitude).
func TestI8GemmNT(t *testing.T) { eachLevel(t, testI8GemmNT) }

func testI8GemmNT(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][3]int{{1, 1, 1}, {1, 1, 3}, {3, 5, 7}, {7, 33, 5}, {9, 31, 17}, {8, 32, 64},
		{17, 65, 130}, {37, 300, 717}, {5, 70, 1031}, {13, 45, 2049}} {
		m, n, k := sz[0], sz[1], sz[2]
		lda, ldb, ldc := k+3, k+1, n+5
		a := make([]int8, (m-1)*lda+k)
		b := make([]int8, (n-1)*ldb+k)
		i8Rand(rng, a)
		i8Rand(rng, b)
		for _, ext := range []string{"random", "-128·-128", "-128·127"} {
			switch ext {
			case "-128·-128":
				for i := range a {
					a[i] = -128
				}
				for i := range b {
					b[i] = -128
				}
			case "-128·127":
				for i := range b {
					b[i] = 127
				}
			}
			want := i8Naive(m, n, k, a, lda, b, ldb)
			c := make([]int32, (m-1)*ldc+n)
			for i := range c {
				c[i] = -7 // padding sentinel
			}
			I8GemmNT(m, n, k, a, lda, b, ldb, c, ldc)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if int64(c[i*ldc+j]) != want[i*n+j] {
						t.Fatalf("%v %v %s: C[%d,%d] = %d, want %d", Active, sz, ext, i, j, c[i*ldc+j], want[i*n+j])
					}
				}
				for j := n; j < ldc && i*ldc+j < len(c); j++ {
					if c[i*ldc+j] != -7 {
						t.Fatalf("%v %s: padding C[%d,%d] changed", sz, ext, i, j)
					}
				}
			}
		}
	}
}

// TestI8NTColumnRange: products over a column range j0..j1 that starts and ends inside kernel
// panels, with A packed from rows of the packed B (PackRows) and directly (Pack) — the way
// package neighbors uses them — agree with the plain loop and leave C around the range alone.
func TestI8NTColumnRange(t *testing.T) { eachLevel(t, testI8NTColumnRange) }

func testI8NTColumnRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, k = 203, 93
	x := make([]int8, n*k)
	i8Rand(rng, x)
	pb := PackI8B(x, n, k, k)
	want := i8Naive(n, n, k, x, k, x, k)
	var pa, pd I8A
	for _, r := range [][2]int{{0, 1}, {0, 64}, {5, 19}, {37, 203}, {190, 203}} {
		for _, cols := range [][2]int{{0, 203}, {1, 2}, {3, 35}, {31, 33}, {33, 200}, {64, 96}, {202, 203}, {50, 50}} {
			r0, r1, j0, j1 := r[0], r[1], cols[0], cols[1]
			pa.PackRows(pb, r0, r1)
			pd.Pack(x[r0*k:], r1-r0, k, k)
			for _, p := range []*I8A{&pa, &pd} {
				w := j1 - j0
				ldc := w + 2
				c := make([]int32, (r1-r0)*ldc+2)
				for i := range c {
					c[i] = math.MinInt32
				}
				I8NT(c[1:], ldc, p, pb, j0, j1)
				for i := 0; i < r1-r0; i++ {
					for j := j0; j < j1; j++ {
						if g := c[1+i*ldc+j-j0]; int64(g) != want[(r0+i)*n+j] {
							t.Fatalf("rows %v cols %v: C[%d,%d] = %d, want %d", r, cols, r0+i, j, g, want[(r0+i)*n+j])
						}
					}
				}
				touched := 0
				for i := range c {
					if c[i] != math.MinInt32 {
						touched++
					}
				}
				if touched != (r1-r0)*w {
					t.Fatalf("rows %v cols %v: %d entries written, want %d", r, cols, touched, (r1-r0)*w)
				}
			}
		}
	}
}

// TestI8NTLevelSwitch: an A packed at one dispatch level and multiplied at another (Pack widens
// A for the AVX2 kernel only at that level; I8NT widens it on first use otherwise) gives the same
// exact products.
func TestI8NTLevelSwitch(t *testing.T) {
	saved := Active
	defer func() { Active = saved }()
	rng := rand.New(rand.NewPCG(13, 14))
	const m, n, k = 13, 45, 600
	a, b := make([]int8, m*k), make([]int8, n*k)
	i8Rand(rng, a)
	i8Rand(rng, b)
	want := i8Naive(m, n, k, a, k, b, k)
	pb := PackI8B(b, n, k, k)
	for pack := Generic; pack <= Detected; pack++ {
		for mul := Generic; mul <= Detected; mul++ {
			var pa I8A
			Active = pack
			pa.Pack(a, m, k, k)
			Active = mul
			c := make([]int32, m*n)
			I8NT(c, n, &pa, pb, 0, n)
			for i, v := range c {
				if int64(v) != want[i] {
					t.Fatalf("packed at %v, multiplied at %v: C[%d] = %d, want %d", pack, mul, i, v, want[i])
				}
			}
		}
	}
}

// TestI8Helpers: Dist2Row and SqrtSum against plain loops (lengths around the vector widths).
func TestI8Helpers(t *testing.T) { eachLevel(t, testI8Helpers) }

func testI8Helpers(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 7, 8, 15, 16, 17, 40, 1001} {
		sq := make([]float64, n)
		dot := make([]int32, n)
		for j := range sq {
			sq[j] = float64(rng.IntN(1 << 24))
			dot[j] = int32(rng.IntN(1<<24) - 1<<23)
		}
		si := float64(rng.IntN(1 << 24))
		row := make([]float64, n)
		Dist2Row(row, si, sq, dot)
		var want float64
		for j := range row {
			d := si + sq[j] - 2*float64(dot[j])
			if row[j] != d {
				t.Fatalf("n=%d: Dist2Row[%d] = %v, want %v", n, j, row[j], d)
			}
			want += math.Sqrt(max(d, 0))
		}
		// 1e-14 relative: sums of ≤ 1001 positive terms in different orders.
		if got := SqrtSum(si, sq, dot); math.Abs(got-want) > 1e-14*want {
			t.Fatalf("n=%d: SqrtSum = %v, want %v", n, got, want)
		}
		xs, ys := make([]float64, n), make([]float64, n)
		want = 0
		for j := range xs {
			xs[j], ys[j] = rng.NormFloat64(), rng.NormFloat64()
			if j%5 == 0 {
				xs[j], ys[j] = 0.25, -1 // the point itself: distance 0
			}
			want += math.Hypot(xs[j]-0.25, ys[j]+1)
		}
		if got := SqrtSum2D(0.25, -1, xs, ys); math.Abs(got-want) > 1e-14*want {
			t.Fatalf("n=%d: SqrtSum2D = %v, want %v", n, got, want)
		}
		if got, g := SqrtSum2D(0.25, -1, xs, ys), sqrtSum2DGo(0.25, -1, xs, ys); math.Abs(got-g) > 1e-14*g {
			t.Fatalf("n=%d: SqrtSum2D = %v, the Go loop %v", n, got, g)
		}
	}
}

// BenchmarkI8NT times the int8 product on BenchmarkSgemmNT's shape (256×784 times 784×4096)
// and on the blocks package neighbors computes for MNIST (717 varying pixels; 239 rows against
// 70,000 in Rows, 256×2048 tasks in MeanDistance), reporting GOP/s (2 operations per
// multiply-add, as GFLOP/s counts them). B is packed once outside the timing, A inside.
func BenchmarkI8NT(b *testing.B) {
	for _, sz := range [][3]int{{256, 4096, 784}, {256, 4096, 717}, {239, 70000, 717}, {256, 2048, 717}} {
		m, n, k := sz[0], sz[1], sz[2]
		b.Run(fmt.Sprintf("native=%v/m=%d/n=%d/k=%d", I8Native, m, n, k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := make([]int8, n*k)
			i8Rand(rng, x)
			pb := PackI8B(x, n, k, k)
			c := make([]int32, m*n)
			var pa I8A
			b.ResetTimer()
			for b.Loop() {
				pa.PackRows(pb, 0, m)
				I8NT(c, n, &pa, pb, 0, n)
			}
			b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GOP/s")
		})
	}
}

// BenchmarkSgemmNTMNIST is BenchmarkSgemmNT on BenchmarkI8NT's MNIST shapes (k = 717).
func BenchmarkSgemmNTMNIST(b *testing.B) {
	for _, sz := range [][3]int{{256, 4096, 717}, {239, 70000, 717}, {256, 2048, 717}} {
		m, n, k := sz[0], sz[1], sz[2]
		b.Run(fmt.Sprintf("%s/m=%d/n=%d/k=%d", Name, m, n, k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := make([]float32, n*k)
			for i := range x {
				x[i] = float32(rng.IntN(256) - 128)
			}
			c := make([]float32, m*n)
			b.ResetTimer()
			for b.Loop() {
				SgemmNT(m, n, k, 1, x, k, x, k, 0, c, n)
			}
			b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkDist2Row and BenchmarkSqrtSum time the per-row work after the int8 product on a row of
// 70,000 (MNIST's), against the plain Go loops ("go").
func BenchmarkDist2Row(b *testing.B) {
	sq, dot := helperRow(70000)
	row := make([]float64, len(sq))
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			Dist2Row(row, 123456, sq, dot)
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			dist2RowGo(row, 123456, sq, dot)
		}
	})
}

func BenchmarkSqrtSum(b *testing.B) {
	sq, dot := helperRow(70000)
	var s float64
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			s += SqrtSum(123456, sq, dot)
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			s += sqrtSumGo(123456, sq, dot)
		}
	})
	if s <= 0 {
		b.Fatal("empty sums")
	}
}

// helperRow returns squared norms and dot products of the size of MNIST's (717 pixels, 0..255).
func helperRow(n int) ([]float64, []int32) {
	rng := rand.New(rand.NewPCG(11, 12))
	sq := make([]float64, n)
	dot := make([]int32, n)
	for j := range sq {
		sq[j] = float64(rng.IntN(4_000_000) + 2_000_000)
		dot[j] = int32(rng.IntN(2_000_000) - 1_000_000)
	}
	return sq, dot
}
