package blas

import "math"

// ExpSums returns z = Σ_j e^(−t_j) and s = Σ_j t_j·e^(−t_j) over the j with t_j ≤ skip, where
// t_j = min(a_j·inv, clamp) − tmin: the two sums of a row entropy (H = ln z + s/z) with
// dredviz's clamped exponents. tmin must not exceed any t_j + tmin, so that no weight exceeds 1.
// On AVX-512 CPUs it runs vectorised in either build (results then agree with the Go loop to a
// few units in the last place, not bit for bit; the plain build's lanes are added in a fixed tree).
func ExpSums(a []float64, inv, clamp, tmin, skip float64) (z, s float64) {
	if len(a) == 0 {
		return 0, 0
	}
	return expSums(a, inv, clamp, tmin, skip)
}

// KLSums returns, with tp_j = min(a_j·ia, clamp) − pmin and tq_j = min(b_j·ib, clamp) − qmin,
// zp = Σ e^(−tp_j), sp = Σ e^(−tp_j)(tq_j − tp_j) over the j with tp_j ≤ skip, and zq, sq the
// same with p and q swapped: the sums of KL(p‖q) = sp/zp + ln zq − ln zp and of KL(q‖p).
// The two scales let a caller pass raw rows whose own rescaling is folded into ia and ib.
func KLSums(a, b []float64, ia, ib, clamp, pmin, qmin, skip float64) (zp, sp, zq, sq float64) {
	if len(a) == 0 {
		return 0, 0, 0, 0
	}
	b = b[:len(a)]
	return klSums(a, b, ia, ib, clamp, pmin, qmin, skip)
}

// MinMax returns min(lo, min a) and max(hi, max a) for a free of NaNs (vectorised on AVX-512 in
// either build): pass +Inf and −Inf to start a fold.
func MinMax(a []float64, lo, hi float64) (float64, float64) {
	if len(a) == 0 {
		return lo, hi
	}
	return minMax(a, lo, hi)
}

// RankKL returns a = Σ o_m·(lo_m − ls_m) and b = Σ s_m·(ls_m − lo_m) over the m with
// other[m] > skip: the two KL terms between a rank distribution read in order, (s_m, ls_m) =
// (seq[2m], seq[2m+1]) (a probability and its logarithm), and the same distribution at the ranks
// other[m], computed as lo = −(min((other·scale)²·inv, clamp) − tmin) − lz and o = e^lo for a rank
// up to r0, (cp, clp) beyond. The computed side replaces random reads of a table of n entries.
// With -tags openblas and cgo it runs vectorised (the sums then agree with the Go loop to
// rounding, not bit for bit); the plain build's quality passes do not call it (they read a table).
func RankKL(seq []float64, other []int32, skip, r0 int32, scale, inv, clamp, tmin, lz, cp, clp float64) (a, b float64) {
	if len(other) == 0 {
		return 0, 0
	}
	seq = seq[:2*len(other)]
	return rankKL(seq, other, skip, r0, scale, inv, clamp, tmin, lz, cp, clp)
}

func expSumsGo(a []float64, inv, clamp, tmin, skip float64) (z, s float64) {
	for _, v := range a {
		d := math.Min(v*inv, clamp) - tmin
		if d > skip {
			continue
		}
		w := math.Exp(-d)
		z += w
		s += w * d
	}
	return z, s
}

func klSumsGo(a, b []float64, ia, ib, clamp, pmin, qmin, skip float64) (zp, sp, zq, sq float64) {
	for j, v := range a {
		tp := math.Min(v*ia, clamp) - pmin
		tq := math.Min(b[j]*ib, clamp) - qmin
		if tp <= skip {
			w := math.Exp(-tp)
			zp += w
			sp += w * (tq - tp)
		}
		if tq <= skip {
			w := math.Exp(-tq)
			zq += w
			sq += w * (tp - tq)
		}
	}
	return zp, sp, zq, sq
}

func minMaxGo(a []float64, lo, hi float64) (float64, float64) {
	for _, v := range a {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

func rankKLGo(seq []float64, other []int32, skip, r0 int32, scale, inv, clamp, tmin, lz, cp, clp float64) (a, b float64) {
	for m, r := range other {
		if r <= skip {
			continue
		}
		o, lo := cp, clp
		if r <= r0 {
			v := float64(r) * scale
			lo = -(math.Min(v*v*inv, clamp) - tmin) - lz
			o = math.Exp(lo)
		}
		s, ls := seq[2*m], seq[2*m+1]
		a += o * (lo - ls)
		b += s * (ls - lo)
	}
	return a, b
}
