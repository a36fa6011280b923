package quality

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"lowdim/affinity"
)

// smoothed computes the mean smoothed precision and recall losses given the mean input and output
// distances (over the n(n−1) ordered pairs).
func smoothed(ctx context.Context, x, y *mat.Dense, k int, meanX, meanY float64, opt Options) (prec, rec float64, err error) {
	n, _ := y.Dims()
	nw := opt.workers()
	type acc struct {
		prec, rec float64
		a, b      []float64
	}
	accs := make([]acc, nw)
	for w := range accs {
		accs[w].a = make([]float64, 0, n)
		accs[w].b = make([]float64, 0, n)
	}
	sx, sy := 1/(meanX*meanX), 1/(meanY*meanY)
	if meanX == 0 {
		sx = 1
	}
	if meanY == 0 {
		sy = 1
	}
	err = bothRows(ctx, x, y, opt, "smoothed", func(w, i int, dx, dy []float64) error {
		ac := &accs[w]
		p, r := smoothedRow(ac.a[:0], ac.b[:0], i, dx, dy, sx, sy, k)
		ac.prec += p
		ac.rec += r
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	for _, ac := range accs {
		prec += ac.prec
		rec += ac.rec
	}
	return prec / float64(n), rec / float64(n), nil
}

// smoothedRow returns KL(q_i‖p_i) and KL(p_i‖q_i) for row i given its squared input and output
// distances and the squared rescaling factors sx, sy. a and b are scratch buffers.
func smoothedRow(a, b []float64, i int, dx, dy []float64, sx, sy float64, k int) (prec, rec float64) {
	for j := range dx {
		if j != i {
			a = append(a, dx[j]*sx)
			b = append(b, dy[j]*sy)
		}
	}
	inv := 1 / affinity.Sigma2(a, float64(k), affinity.Dredviz)
	// Exponents t = min(d²/σ², 450); the row minimum is subtracted before exp (the normalisation
	// cancels it), so that nothing underflows.
	minP, minQ := math.Inf(1), math.Inf(1)
	for j := range a {
		minP = math.Min(minP, a[j])
		minQ = math.Min(minQ, b[j])
	}
	minP, minQ = math.Min(minP*inv, affinity.MaxExp), math.Min(minQ*inv, affinity.MaxExp)
	var zp, zq, sp, sq float64
	for j := range a {
		tp := math.Min(a[j]*inv, affinity.MaxExp) - minP
		tq := math.Min(b[j]*inv, affinity.MaxExp) - minQ
		if tp <= affinity.SkipExp {
			w := math.Exp(-tp)
			zp += w
			sp += w * (tq - tp)
		}
		if tq <= affinity.SkipExp {
			w := math.Exp(-tq)
			zq += w
			sq += w * (tp - tq)
		}
	}
	lzp, lzq := math.Log(zp), math.Log(zq)
	// log p_j = −tp_j − log Zp (shifted exponents), so KL(p‖q) = Σ p_j (tq_j − tp_j) + log Zq − log Zp.
	rec = sp/zp + lzq - lzp
	prec = sq/zq + lzp - lzq
	return prec, rec
}
