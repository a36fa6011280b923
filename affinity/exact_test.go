package affinity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// directEntropy is the entropy in nats of p_j ∝ exp(−a_j/s2), straight from the definition.
func directEntropy(a []float64, s2 float64) float64 {
	amin := Min(a)
	var z float64
	p := make([]float64, len(a))
	for j, v := range a {
		p[j] = math.Exp(-(v - amin) / s2)
		z += p[j]
	}
	var h float64
	for _, v := range p {
		if v > 0 {
			h -= v / z * math.Log(v/z)
		}
	}
	return h
}

// The exact calibration hits the wanted entropy ln k to 1e-9 on rows of very different shapes:
// exponential spreads, a tight cluster plus far outliers, rows with many tied values, and
// distances on scales from 1e-6 to 1e6.
func TestExactHitsTargetEntropy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := map[string][]float64{}
	exp := make([]float64, 999)
	for j := range exp {
		exp[j] = rng.ExpFloat64()
	}
	rows["exponential"] = exp
	cl := make([]float64, 500)
	for j := range cl {
		if j < 450 {
			cl[j] = 1e-3 * rng.Float64()
		} else {
			cl[j] = 100 + rng.Float64()
		}
	}
	rows["cluster+outliers"] = cl
	tied := make([]float64, 300)
	for j := range tied {
		tied[j] = float64(1 + j%7)
	}
	rows["tied"] = tied
	for _, scale := range []float64{1e-6, 1e6} {
		s := make([]float64, len(exp))
		for j, v := range exp {
			s[j] = v * scale
		}
		rows[fmt.Sprintf("scaled %g", scale)] = s
	}
	for name, a := range rows {
		ks := []float64{1.5, 5, 20, 0.4 * float64(len(a))}
		if name == "tied" { // 43 values share the minimum: entropies below ln 43 are out of reach
			ks = []float64{60, 0.4 * float64(len(a))}
		}
		for _, k := range ks {
			s2 := Sigma2(a, k, Exact)
			if h := directEntropy(a, s2); math.Abs(h-math.Log(k)) > 1e-9 {
				t.Errorf("%s, k=%g: σ²=%g gives entropy %.12f nats, want ln k = %.12f", name, k, s2, h, math.Log(k))
			}
		}
	}
}

// When the wanted entropy is at or below ln m (m values tied at the minimum) no σ² reaches it, and
// the search used to run σ² down to ~1e-308 (7.9e-309 on reproduce pe's BBC distances), where
// NeRV's output kernel overflows. The calibration now aims at ln(m + ½): finite, on
// the scale of the gap to the next distance, and the same for k = m as for any k below.
func TestExactUnreachable(t *testing.T) {
	a := []float64{1, 1, 1, 1, 2, 3, 5, 8}
	for _, k := range []float64{2, 4} {
		s2 := Sigma2(a, k, Exact)
		if h := directEntropy(a, s2); math.Abs(h-math.Log(4.5)) > 1e-9 {
			t.Errorf("k = %g: entropy %g, want ln 4.5 = %g", k, h, math.Log(4.5))
		}
		// The gap to the next value is 1: σ² on its scale, not at the bottom of the range.
		if !(s2 > 0.01 && s2 < 1) {
			t.Errorf("k = %g: σ² = %g, want within (0.01, 1) of the gap 1", k, s2)
		}
	}
	// One tie short of the perplexity is reachable and is calibrated exactly.
	if s2 := Sigma2(a, 5, Exact); math.Abs(directEntropy(a, s2)-math.Log(5)) > 1e-9 {
		t.Errorf("k = 5: σ² = %g misses ln 5", s2)
	}
}

// The entropy is a decreasing function of 1/σ²: its derivative, as entropyNats reports it, agrees
// with central finite differences in ln β.
func TestEntropyNatsDerivative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := make([]float64, 200)
	for j := range a {
		a[j] = rng.ExpFloat64()
	}
	amin := Min(a)
	for _, lb := range []float64{-2, 0, 1, 3} {
		const h = 1e-5
		hp, _ := entropyNats(a, amin, math.Exp(lb+h))
		hm, _ := entropyNats(a, amin, math.Exp(lb-h))
		_, d := entropyNats(a, amin, math.Exp(lb))
		fd := (hp - hm) / (2 * h)
		if math.Abs(fd-d) > 1e-7*math.Max(1, math.Abs(d)) {
			t.Errorf("ln β=%g: derivative %g, finite difference %g", lb, d, fd)
		}
		if d > 0 {
			t.Errorf("ln β=%g: entropy increases with β (%g)", lb, d)
		}
	}
}

// benchRow is a 1000-point row of exponential squared distances.
func benchRow() []float64 {
	rng := rand.New(rand.NewPCG(5, 6))
	a := make([]float64, 1000)
	for j := range a {
		a[j] = rng.ExpFloat64()
	}
	return a
}

func BenchmarkExactSigma2(b *testing.B) {
	a := benchRow()
	for b.Loop() {
		Sigma2(a, 20, Exact)
	}
}

func BenchmarkDredvizSigma2(b *testing.B) {
	a := benchRow()
	for b.Loop() {
		Sigma2(a, 20, Dredviz)
	}
}
