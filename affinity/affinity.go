package affinity

import "math"

// MaxExp is dredviz's floor on an exponent in its measures: a weight is exp(−min(t, MaxExp)).
const MaxExp = 450

// SkipExp: a weight exp(−t) with t more than SkipExp above the row's smallest t is below 1e-26 of
// the largest weight; it is left out of sums where it cannot change a double-precision result.
const SkipExp = 60

// dblMin is C's DBL_MIN, the smallest normal double: dredviz starts its σ² search there.
const dblMin = 0x1p-1022

// MinSigma2 is dredviz's floor on a calibrated σ².
const MinSigma2 = 1e-10

// Calibration selects how σ² is found.
type Calibration int

const (
	// Exact finds the root of H(σ²) = ln k_eff to 1e-10 nats.
	Exact Calibration = iota
	// Dredviz reproduces the σ² that dredviz 1.0.2's golden-section search reaches.
	Dredviz
)

// String names the calibration as the command line does.
func (c Calibration) String() string {
	switch c {
	case Exact:
		return "exact"
	case Dredviz:
		return "dredviz"
	}
	return "unknown"
}

// Min returns the smallest value of a (+Inf when a is empty).
func Min(a []float64) float64 {
	m := math.Inf(1)
	for _, v := range a {
		m = math.Min(m, v)
	}
	return m
}

// EntropyBits returns the entropy in bits of w_j ∝ exp(−min(a_j/s2, MaxExp)); amin is min_j a_j.
func EntropyBits(a []float64, amin, s2 float64) float64 {
	inv := 1 / s2
	tmin := math.Min(amin*inv, MaxExp)
	var z, s float64
	for _, v := range a {
		d := math.Min(v*inv, MaxExp) - tmin
		if d > SkipExp {
			continue
		}
		w := math.Exp(-d)
		z += w
		s += w * d
	}
	return (math.Log(z) + s/z) / math.Ln2
}

// Sigma2 returns σ² for the row of squared distances a (the point itself excluded) such that the
// entropy of p_j ∝ exp(−a_j/σ²) is ln perplexity, found by the calibration c. perplexity must lie
// in (1, len(a)) for Exact; Dredviz follows dredviz and aims at 1 bit when perplexity < 2.
func Sigma2(a []float64, perplexity float64, c Calibration) float64 {
	if c == Dredviz {
		return dredvizSigma2(a, perplexity)
	}
	return exactSigma2(a, Min(a), math.Log(perplexity))
}

// entropyNats returns H(β) in nats of p_j ∝ exp(−β(a_j − amin)) and its derivative dH/d ln β =
// −β² Var_p(a).
func entropyNats(a []float64, amin, beta float64) (h, dh float64) {
	var z, s1, s2 float64
	for _, v := range a {
		d := beta * (v - amin)
		if d > SkipExp {
			continue
		}
		w := math.Exp(-d)
		z += w
		s1 += w * d
		s2 += w * d * d
	}
	m1, m2 := s1/z, s2/z
	return math.Log(z) + m1, -(m2 - m1*m1)
}

// exactSigma2 solves H(β) = target (nats) for β = 1/σ². H falls monotonically from ln n' (β = 0,
// n' the number of values) to ln m (β → ∞, m the number of values tied at the minimum). Newton
// steps on ln β are taken while they stay inside the bisection bracket; otherwise the bracket is
// bisected (geometrically).
//
// When m ≥ e^target (more exact duplicates than the perplexity) no finite β reaches the target,
// and chasing it drove σ² toward the bottom of the floating-point range (7.9e-309 on reproduce
// pe's BBC distances), where 1/σ² overflows: NeRV, which uses σ_i² in the output space too, then
// computed a NaN cost. The target is then raised to ln(m + ½), half an effective neighbour
// beyond the tied group: it lies strictly between ln m and ln n', so σ² is finite and on the
// scale of the gap to the next distance.
func exactSigma2(a []float64, amin, target float64) float64 {
	// Start from the scale of the distances: β = 1/(mean − min).
	var mean float64
	ties := 0
	for _, v := range a {
		mean += v - amin
		if v == amin {
			ties++
		}
	}
	mean /= float64(len(a))
	if mean <= 0 || math.IsNaN(mean) {
		return 1
	}
	if math.Log(float64(ties)) >= target {
		target = math.Log(float64(ties) + 0.5)
	}
	lb := -math.Log(mean)
	lo, hi := math.Inf(-1), math.Inf(1) // bracket on ln β: H(lo) > target > H(hi)
	for range 200 {
		h, dh := entropyNats(a, amin, math.Exp(lb))
		f := h - target
		if math.Abs(f) < 1e-10 {
			break
		}
		if f > 0 {
			lo = lb
		} else {
			hi = lb
		}
		next := lb - f/dh
		if dh >= 0 || math.IsNaN(next) || next <= lo || next >= hi {
			switch {
			case math.IsInf(hi, 1):
				next = lb + 1
			case math.IsInf(lo, -1):
				next = lb - 1
			default:
				next = (lo + hi) / 2
			}
		}
		if next == lb {
			break
		}
		lb = next
	}
	return math.Exp(-lb)
}

// dredvizTarget is dredviz's wanted row entropy in bits: log₂ k, or 1 bit when k < 2.
func dredvizTarget(k float64) float64 {
	if k < 2 {
		return 1
	}
	return math.Log2(k)
}

// dredvizSigma2 returns the σ² that the golden-section line search of dredviz 1.0.2 reaches when
// it minimises |H(σ²) − dredvizTarget(k)| for the row values a (squared distances or squared
// ranks, after the mean rescaling). See searchSigma2.
func dredvizSigma2(a []float64, k float64) float64 {
	amin := Min(a)
	target := dredvizTarget(k)
	s2 := searchSigma2(func(s2 float64) float64 {
		if s2 <= 0 {
			return math.MaxFloat64
		}
		return math.Abs(EntropyBits(a, amin, s2) - target)
	})
	return math.Max(s2, MinSigma2)
}
