package deepnet

import (
	"math/rand/v2"
	"testing"

	"github.com/lowdim/lowdim/dataset"
)

// digitsUnit returns the first n scikit-learn digits scaled to [0, 1] (their pixels are 0…16).
func digitsUnit(n int) []float64 {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	d := dataset.Digits().Subset(idx)
	v := make([]float64, 0, n*64)
	for i := range n {
		for _, x := range d.X.RawRowView(i) {
			v = append(v, x/16)
		}
	}
	return v
}

// meanRecon is the mean squared error of the mean-field reconstruction σ(a + W·h(v)) of the
// rows v, h(v) the hidden means: no sampling, so it measures the weights alone.
func meanRecon(g *Gemm, r *rbm, v []float64, rows int) float64 {
	h := make([]float64, rows*r.out)
	rec := make([]float64, rows*r.in)
	r.hidden(g, h, v, rows)
	g.NT(rows, r.in, r.out, 1, h, r.out, r.wt, r.out, 0, rec, r.in)
	var e float64
	for i := range rows {
		row := rec[i*r.in : (i+1)*r.in]
		for j := range row {
			row[j] += r.a[j]
		}
		Sigmoids(row)
		for j, x := range row {
			e += (x - v[i*r.in+j]) * (x - v[i*r.in+j])
		}
	}
	return e / float64(rows*r.in)
}

// TestRBMReconstruction: CD-1 steps lower the reconstruction error of 500 digits, for binary
// hidden units (64–100, learning rate 0.1) and for the linear units of the top layer (64–2,
// 0.001 as in Hinton and Salakhutdinov's code; a 2-unit code reconstructs far less). The bounds
// are what 20 epochs reached here (seed 1, 2), with margin: binary 0.198 → 0.015 (so < 0.25 of
// the start), linear 0.180 → 0.095 (< 0.7).
func TestRBMReconstruction(t *testing.T) {
	const n = 500
	v := digitsUnit(n)
	g := NewGemm(2)
	defer g.Close()
	for _, c := range []struct {
		out    int
		linear bool
		lr     float64
		ratio  float64
	}{{100, false, rbmRate, 0.25}, {2, true, rbmRateLinear, 0.7}} {
		rng := rand.New(rand.NewPCG(1, 2))
		r := newRBM(64, c.out, c.linear, rng)
		before := meanRecon(g, r, v, n)
		var first, last float64
		for ep := range 20 {
			mom := rbmMomentum0
			if ep >= rbmSlowEpochs {
				mom = rbmMomentum1
			}
			var rec float64
			for b := range n / rbmBatch {
				copy(r.v0, v[b*rbmBatch*64:(b+1)*rbmBatch*64])
				rec += r.cd1(g, rbmBatch, c.lr, mom, rng)
			}
			if ep == 0 {
				first = rec
			}
			last = rec
		}
		after := meanRecon(g, r, v, n)
		t.Logf("64–%d (linear %v): mean-field error %.4f → %.4f; CD-1 sampled error %.1f → %.1f", c.out, c.linear, before, after, first, last)
		if !(after < c.ratio*before) || !(last < first) {
			t.Errorf("64–%d: reconstruction error %.4f → %.4f (want below %.2f×), sampled %.1f → %.1f", c.out, before, after, c.ratio, first, last)
		}
	}
}
