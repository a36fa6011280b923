//go:build !openblas || !cgo

package blas

import "math"

func expSums(a []float64, inv, clamp, tmin, skip float64) (z, s float64) {
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

func klSums(a, b []float64, ia, ib, clamp, pmin, qmin, skip float64) (zp, sp, zq, sq float64) {
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

func minMax(a []float64, lo, hi float64) (float64, float64) {
	for _, v := range a {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

func rankKL(seq []float64, other []int32, skip, r0 int32, scale, inv, clamp, tmin, lz, cp, clp float64) (a, b float64) {
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
