package blas

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ExpSums and KLSums agree with the sums written with math.Exp to 1e-14 relative (the vectorised
// exponential is accurate to a few units in the last place), for lengths that exercise the
// 8-wide loop and its tail, and for scales where clamping and skipping both happen.
func TestExpSumsDefinition(t *testing.T) { eachLevel(t, testExpSumsDefinition) }

func testExpSumsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 7, 8, 9, 1001} {
		a, b := make([]float64, n), make([]float64, n)
		for j := range a {
			a[j] = 0.2 + 3*rng.Float64()
			b[j] = 0.1 + 5*rng.Float64()
		}
		if n > 9 { // exponents on every one of the table's 16 sub-intervals of each octave
			for j := range 64 {
				a[j] = a[0] + float64(j)/64
			}
		}
		for _, inv := range []float64{0.5, 20, 150, 1e6} {
			ib := 0.7 * inv // a different scale for b
			amin, bmin := math.Inf(1), math.Inf(1)
			for j := range a {
				amin, bmin = math.Min(amin, a[j]), math.Min(bmin, b[j])
			}
			pmin, qmin := math.Min(amin*inv, 450), math.Min(bmin*ib, 450)
			var z, s, zp, sp, zq, sq float64
			for j := range a {
				tp := math.Min(a[j]*inv, 450) - pmin
				tq := math.Min(b[j]*ib, 450) - qmin
				if tp <= 60 {
					w := math.Exp(-tp)
					z += w
					s += w * tp
					zp += w
					sp += w * (tq - tp)
				}
				if tq <= 60 {
					w := math.Exp(-tq)
					zq += w
					sq += w * (tp - tq)
				}
			}
			gz, gs := ExpSums(a, inv, 450, pmin, 60)
			gzp, gsp, gzq, gsq := KLSums(a, b, inv, ib, 450, pmin, qmin, 60)
			for _, c := range [][2]float64{{gz, z}, {gs, s}, {gzp, zp}, {gsp, sp}, {gzq, zq}, {gsq, sq}} {
				if math.Abs(c[0]-c[1]) > 1e-14*(math.Abs(c[1])+1e-300) && c[0] != c[1] {
					t.Errorf("%s n=%d inv=%g: got %.17g, want %.17g", Name, n, inv, c[0], c[1])
				}
			}
		}
	}
}

// MinMax folds like the obvious loop, for lengths around its 16-wide step.
func TestMinMax(t *testing.T) { eachLevel(t, testMinMax) }

func testMinMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 15, 16, 17, 33, 1000} {
		a := make([]float64, n)
		for j := range a {
			a[j] = rng.NormFloat64()
		}
		for _, start := range [][2]float64{{math.Inf(1), math.Inf(-1)}, {-0.5, 0.5}} {
			lo, hi := start[0], start[1]
			for _, v := range a {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if gl, gh := MinMax(a, start[0], start[1]); gl != lo || gh != hi {
				t.Errorf("n=%d start %v: MinMax = %g, %g, want %g, %g", n, start, gl, gh, lo, hi)
			}
		}
	}
}

func BenchmarkExpSums(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, 70000)
	for j := range a {
		a[j] = rng.Float64()
	}
	for b.Loop() {
		ExpSums(a, 50, 450, 0, 60)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(a)), "ns/elem")
}

func BenchmarkKLSums(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, c := make([]float64, 70000), make([]float64, 70000)
	for j := range a {
		a[j], c[j] = rng.Float64(), rng.Float64()
	}
	for b.Loop() {
		KLSums(a, c, 50, 50, 450, 0, 0, 60)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(a)), "ns/elem")
}

// RankKL agrees with its sums written with math.Exp to 1e-13 relative, for lengths around the
// 8-wide step, with skipped ranks, ranks beyond r0 (clamped) and unranked ones (MaxInt32).
func TestRankKLDefinition(t *testing.T) { eachLevel(t, testRankKLDefinition) }

func testRankKLDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, r0 = 5000, 3400
	scale := 2.0 / n
	inv, tmin := 1/0.3, (scale*scale)/0.3
	lz := 3.1
	cp, clp := math.Exp(-450+tmin-lz), -450+tmin-lz
	for _, m := range []int{1, 7, 8, 9, 1001} {
		seq, other := make([]float64, 2*m), make([]int32, m)
		for x := range other {
			ls := -20 * rng.Float64()
			seq[2*x], seq[2*x+1] = math.Exp(ls), ls
			switch rng.IntN(5) {
			case 0:
				other[x] = int32(1 + rng.IntN(40)) // skipped when ≤ 30
			case 1:
				other[x] = int32(r0 + 1 + rng.IntN(n-r0-1)) // clamped
			case 2:
				other[x] = math.MaxInt32
			default:
				other[x] = int32(1 + rng.IntN(r0))
			}
		}
		const skip = 30
		var wa, wb float64
		for x, r := range other {
			if r <= skip {
				continue
			}
			o, lo := cp, clp
			if r <= r0 {
				v := float64(r) * scale
				lo = -(math.Min(v*v*inv, 450) - tmin) - lz
				o = math.Exp(lo)
			}
			wa += o * (lo - seq[2*x+1])
			wb += seq[2*x] * (seq[2*x+1] - lo)
		}
		ga, gb := RankKL(seq, other, skip, r0, scale, inv, 450, tmin, lz, cp, clp)
		for _, c := range [][2]float64{{ga, wa}, {gb, wb}} {
			if math.Abs(c[0]-c[1]) > 1e-13*math.Abs(c[1]) {
				t.Errorf("%s m=%d: got %.17g, want %.17g", Name, m, c[0], c[1])
			}
		}
	}
}

// Buckets and FineBuckets equal their defining Go expressions on every level (lengths around the
// vector width; values below, inside and beyond the range, and exactly on bucket edges).
func TestBuckets(t *testing.T) { eachLevel(t, testBuckets) }

func testBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 7, 8, 9, 31, 1000} {
		d := make([]float64, n)
		for j := range d {
			d[j] = 10 * rng.Float64()
			if j%7 == 3 {
				d[j] = 2 + float64(j%16)/8 // on edges of the buckets below
			}
		}
		cb := make([]uint16, n)
		sb := make([]uint32, n)
		const lo, scale, last = 2.0, 8.0, 31.0
		Buckets(cb, d, lo, scale, last)
		FineBuckets(sb, d, lo, scale*4, 4*3, 63)
		for j, v := range d {
			if want := uint16(min(max(v-lo, 0)*scale, last)); cb[j] != want {
				t.Fatalf("n=%d: Buckets[%d] = %d, want %d (d = %v)", n, j, cb[j], want, v)
			}
			if want := min(uint32(max(max(v-lo, 0)*scale*4-4*3, 0)), 63); sb[j] != want {
				t.Fatalf("n=%d: FineBuckets[%d] = %d, want %d (d = %v)", n, j, sb[j], want, v)
			}
		}
	}
}
