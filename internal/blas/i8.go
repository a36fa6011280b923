package blas

import (
	"encoding/binary"
	"math"
)

// Exact int8 products.
//
// I8NT computes C = A·Bᵀ exactly in int32 for int8 matrices A (m×k) and B (n×k). On a CPU with
// AVX-512 VNNI it runs a micro-kernel built on vpdpbusd (unsigned×signed bytes summed four at a
// time into int32 lanes, 64 multiply-adds per instruction): Go assembly in the plain build, C
// under -tags openblas. On AVX2 (plain build) a 4×8 tile widens both to int16 (vpmovzxbw for B;
// A once, when packed) and vpmaddwd adds pairs of products into int32 lanes: each product
// |a·u| ≤ 128·255 < 2¹⁵ and each pair sum < 2¹⁷, so nothing saturates or rounds and the int32
// sums are the VNNI kernel's. Elsewhere a portable Go loop gives the same integers, much more
// slowly (I8Native says which). vpdpbusd multiplies an unsigned byte by a signed one, so B is stored
// with 128 added (u = b + 128 ∈ [0, 255]) and the kernel subtracts 128·Σ_l a_il afterwards:
// Σ_l a_il·b_jl = Σ_l a_il·u_jl − 128·Σ_l a_il. Every step is integer arithmetic modulo 2³², so
// the result is exact whenever |Σ_l a_il·b_jl| < 2³¹, which holds for any int8 data when
// k ≤ 2¹⁷ (I8MaxK; MNIST's 717 varying pixels are far below).
//
// Both operands are packed first: B once (package neighbors packs the whole data set and reuses it
// for every row block) into panels of i8NR columns, k padded to a multiple of 4 and the 4 bytes of
// one column for one group of 4 k-indices adjacent (the layout vpdpbusd reads); A, per block of
// rows, into panels of i8MR rows with the same grouping, so that one 32-bit broadcast feeds 4
// multiply-adds into each of the i8NR columns.

// I8MaxK is the largest k for which I8NT is exact on any int8 data: k·128² ≤ 2³¹.
const I8MaxK = 1 << 17

// Micro-kernel shape: i8MR rows of A by i8NR columns of B (i8MR·i8NR/16 int32 accumulators).
const (
	i8MR = 8
	i8NR = 32
)

// I8B is an n×k int8 matrix packed as the right operand of I8NT. The zero value is empty; use
// NewI8B or PackI8B.
type I8B struct {
	n, k, kg int
	p        []uint8 // ⌈n/i8NR⌉ panels of kg·i8NR·4 bytes; value + 128, padding 128 (i.e. 0)
}

// NewI8B returns an n×k matrix of zeros packed for I8NT; SetRow fills it. It panics when n or k
// is negative or k > I8MaxK (a programming error, like a BLAS dimension mismatch).
func NewI8B(n, k int) *I8B {
	if n < 0 || k < 0 || k > I8MaxK {
		panic("blas: NewI8B: bad dimensions")
	}
	kg := (k + 3) / 4
	np := (n + i8NR - 1) / i8NR
	p := make([]uint8, np*kg*i8NR*4)
	for i := range p {
		p[i] = 128
	}
	return &I8B{n: n, k: k, kg: kg, p: p}
}

// PackI8B packs the n×k row-major matrix b (row stride ldb) for I8NT.
func PackI8B(b []int8, n, k, ldb int) *I8B {
	if n > 0 && (ldb < max(1, k) || len(b) < (n-1)*ldb+k) {
		panic("blas: PackI8B: slice too short for the stated dimensions")
	}
	d := NewI8B(n, k)
	for j := 0; j < n; j++ {
		d.SetRow(j, b[j*ldb:j*ldb+k])
	}
	return d
}

// Dims returns n and k.
func (b *I8B) Dims() (n, k int) { return b.n, b.k }

// SetRow sets row j of b to row (len(row) = k).
func (b *I8B) SetRow(j int, row []int8) {
	if j < 0 || j >= b.n || len(row) != b.k {
		panic("blas: I8B.SetRow: row out of range or of the wrong length")
	}
	panel := b.p[(j/i8NR)*b.kg*i8NR*4:]
	lane := (j % i8NR) * 4
	for l, v := range row {
		panel[(l/4)*i8NR*4+lane+l%4] = uint8(int(v) + 128)
	}
}

// I8A is an m×k int8 matrix packed as the left operand of I8NT. The zero value is ready for Pack
// or PackRows, which reuse its storage.
type I8A struct {
	m, k, kg int
	p        []uint8 // ⌈m/i8MR⌉ panels of kg·i8MR·4 bytes (int8 bit patterns), padding 0
	corr     []int32 // 128·Σ_l a_il, padded to whole panels with 0
	// w: the AVX2 kernel's copy of p widened to int16, in panels of 4 rows (per group of 4
	// k-indices 4 rows × 4 values); wok says it matches p (made by Pack and PackRows at the
	// AVX2 level, else on first use).
	w   []int16
	wok bool
}

// Dims returns m and k.
func (a *I8A) Dims() (m, k int) { return a.m, a.k }

func (a *I8A) reset(m, k int) {
	if m < 0 || k < 0 || k > I8MaxK {
		panic("blas: I8A: bad dimensions")
	}
	a.m, a.k, a.kg = m, k, (k+3)/4
	np := (m + i8MR - 1) / i8MR
	size := np * a.kg * i8MR * 4
	if cap(a.p) < size {
		a.p = make([]uint8, size)
	}
	a.p = a.p[:size]
	clear(a.p)
	if cap(a.corr) < np*i8MR {
		a.corr = make([]int32, np*i8MR)
	}
	a.corr = a.corr[:np*i8MR]
	clear(a.corr)
	a.wok = false
}

// widen sets a.w from a.p: panel t of 4 rows (half t mod 2 of A's panel t/2), group g, row r,
// value l at w[(t·kg + g)·16 + 4r + l].
func (a *I8A) widen() {
	kg := a.kg
	nt := 2 * len(a.p) / (kg * i8MR * 4)
	if kg == 0 {
		nt = 0
	}
	size := nt * kg * 16
	if cap(a.w) < size {
		a.w = make([]int16, size)
	}
	a.w = a.w[:size]
	for t := range nt {
		for g := range kg {
			src := a.p[(t/2*kg+g)*i8MR*4+(t%2)*16:][:16]
			dst := a.w[(t*kg+g)*16:][:16]
			for q, v := range src {
				dst[q] = int16(int8(v))
			}
		}
	}
	a.wok = true
}

// Pack packs the m×k row-major matrix src (row stride lda) into a.
func (a *I8A) Pack(src []int8, m, k, lda int) {
	if m > 0 && (lda < max(1, k) || len(src) < (m-1)*lda+k) {
		panic("blas: I8A.Pack: slice too short for the stated dimensions")
	}
	a.reset(m, k)
	for i := 0; i < m; i++ {
		panel := a.p[(i/i8MR)*a.kg*i8MR*4:]
		lane := (i % i8MR) * 4
		var s int32
		for l, v := range src[i*lda : i*lda+k] {
			panel[(l/4)*i8MR*4+lane+l%4] = uint8(v)
			s += int32(v)
		}
		a.corr[i] = 128 * s
	}
	if wideA() {
		a.widen()
	}
}

// PackRows packs rows r0 ≤ j < r1 of the matrix held by b into a (the rows of a data set against
// the whole of it, without a second copy of the data).
func (a *I8A) PackRows(b *I8B, r0, r1 int) {
	if r0 < 0 || r1 > b.n || r0 > r1 {
		panic("blas: I8A.PackRows: rows out of range")
	}
	a.reset(r1-r0, b.k)
	for i := 0; i < r1-r0; i++ {
		j := r0 + i
		src := b.p[(j/i8NR)*b.kg*i8NR*4+(j%i8NR)*4:]
		dst := a.p[(i/i8MR)*a.kg*i8MR*4+(i%i8MR)*4:]
		// Four bytes at a time: u − 128 is u XOR 0x80 as a signed byte, and Σ(u − 128) over the
		// row is Σu − 128·4·kg (padding is stored as 128).
		var su uint32
		for g := 0; g < a.kg; g++ {
			w := binary.LittleEndian.Uint32(src[g*i8NR*4:])
			binary.LittleEndian.PutUint32(dst[g*i8MR*4:], w^0x80808080)
			h := w&0x00ff00ff + w>>8&0x00ff00ff
			su += h&0xffff + h>>16
		}
		a.corr[i] = 128 * (int32(su) - 128*4*int32(a.kg))
	}
	if wideA() {
		a.widen()
	}
}

// I8NT sets c[i·ldc + j − j0] = Σ_l A_il·B_jl for every row i of a and every column j0 ≤ j < j1
// of b (rows of the unpacked B), exactly (see I8MaxK). a and b must have the same k.
func I8NT(c []int32, ldc int, a *I8A, b *I8B, j0, j1 int) {
	if a.k != b.k {
		panic("blas: I8NT: A and B differ in k")
	}
	if j0 < 0 || j1 > b.n || j0 > j1 {
		panic("blas: I8NT: columns out of range")
	}
	m, w := a.m, j1-j0
	if m == 0 || w == 0 {
		return
	}
	if ldc < w || len(c) < (m-1)*ldc+w {
		panic("blas: I8NT: c too short for the stated dimensions")
	}
	if a.k == 0 {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+w])
		}
		return
	}
	i8nt(c, ldc, a, b, j0, j1)
}

// I8GemmNT sets C = A·Bᵀ for row-major int8 A (m×k, stride lda) and B (n×k, stride ldb) into
// row-major int32 C (m×n, stride ldc), packing both operands (for repeated products with the
// same B, pack it once with PackI8B and call I8NT).
func I8GemmNT(m, n, k int, a []int8, lda int, b []int8, ldb int, c []int32, ldc int) {
	var pa I8A
	pa.Pack(a, m, k, lda)
	I8NT(c, ldc, &pa, PackI8B(b, n, k, ldb), 0, n)
}

// i8ntGo is the portable I8NT on the packed operands.
func i8ntGo(c []int32, ldc int, a *I8A, b *I8B, j0, j1 int) {
	kg := a.kg
	for i := 0; i < a.m; i++ {
		ap := a.p[(i/i8MR)*kg*i8MR*4+(i%i8MR)*4:]
		ci := c[i*ldc:]
		for j := j0; j < j1; j++ {
			bp := b.p[(j/i8NR)*kg*i8NR*4+(j%i8NR)*4:]
			var s int32
			for g := 0; g < kg; g++ {
				x, y := ap[g*i8MR*4:g*i8MR*4+4], bp[g*i8NR*4:g*i8NR*4+4]
				s += int32(int8(x[0]))*int32(y[0]) + int32(int8(x[1]))*int32(y[1]) + int32(int8(x[2]))*int32(y[2]) + int32(int8(x[3]))*int32(y[3])
			}
			ci[j-j0] = s - a.corr[i]
		}
	}
}

// Dist2Row sets dst[j] = si + sq[j] − 2·dot[j]: a row of squared distances ‖x_i − x_j‖² from
// squared norms and exact dot products (every term an integer below 2⁵³, so the result is exact).
func Dist2Row(dst []float64, si float64, sq []float64, dot []int32) {
	if len(dst) == 0 {
		return
	}
	sq, dot = sq[:len(dst)], dot[:len(dst)]
	dist2Row(dst, si, sq, dot)
}

// SqrtSum returns Σ_j sqrt(max(si + sq[j] − 2·dot[j], 0)): the sum of the distances of one row.
// The summation order is fixed, so the result depends only on the inputs: on an AVX-512 CPU
// interleaved partial sums (16 with -tags openblas, 8 in the plain build) added in a fixed tree at
// the end, each root within one unit in the last place of the correctly rounded one (reciprocal
// square root estimate and two Newton steps; arguments below 2⁻¹⁰⁰⁰ count as 0); otherwise
// correctly rounded roots in 2 interleaved sums.
func SqrtSum(si float64, sq []float64, dot []int32) float64 {
	if len(sq) == 0 {
		return 0
	}
	dot = dot[:len(sq)]
	return sqrtSum(si, sq, dot)
}

// SqrtSum2D returns Σ_j √((xs[j] − a)² + (ys[j] − b)²): the sum of the distances from (a, b)
// to the points (xs[j], ys[j]) of a 2-D embedding. Summation order and rounding as SqrtSum's
// (on an AVX-512 CPU the squared distance is formed as fma(t, t, u·u)).
func SqrtSum2D(a, b float64, xs, ys []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	ys = ys[:len(xs)]
	return sqrtSum2D(a, b, xs, ys)
}

func sqrtSum2DGo(a, b float64, xs, ys []float64) float64 {
	var s0, s1 float64
	j := 0
	for ; j+1 < len(xs); j += 2 {
		t, u := xs[j]-a, ys[j]-b
		v, w := xs[j+1]-a, ys[j+1]-b
		s0 += math.Sqrt(t*t + u*u)
		s1 += math.Sqrt(v*v + w*w)
	}
	if j < len(xs) {
		t, u := xs[j]-a, ys[j]-b
		s0 += math.Sqrt(t*t + u*u)
	}
	return s0 + s1
}

func dist2RowGo(dst []float64, si float64, sq []float64, dot []int32) {
	for j, v := range dot {
		dst[j] = si + sq[j] - 2*float64(v)
	}
}

func sqrtSumGo(si float64, sq []float64, dot []int32) float64 {
	var a, b float64
	j := 0
	for ; j+1 < len(sq); j += 2 {
		a += math.Sqrt(max(si+sq[j]-2*float64(dot[j]), 0))
		b += math.Sqrt(max(si+sq[j+1]-2*float64(dot[j+1]), 0))
	}
	if j < len(sq) {
		a += math.Sqrt(max(si+sq[j]-2*float64(dot[j]), 0))
	}
	return a + b
}
