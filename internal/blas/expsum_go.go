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
