package stochnb

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAgainstDense: LogZ and Laplacian equal the n×n definitions (P row-normalised, W from P,
// L_W = diag(r + c) − W − Wᵀ) computed directly, to 1e-12.
func TestAgainstDense(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	n, d, m := 23, 3, 4
	y := mat.NewDense(n, d, nil)
	v := mat.NewDense(n, m, nil)
	for i := range n {
		for j := range d {
			y.Set(i, j, r.NormFloat64())
		}
		for j := range m {
			v.Set(i, j, r.NormFloat64())
		}
	}
	weight := func(i, k int, p float64) float64 { return p*float64((i+k)%3) - 0.1*p*p }
	logZ := make([]float64, n)
	if err := LogZ(context.Background(), y, logZ, nil); err != nil {
		t.Fatal(err)
	}
	u := mat.NewDense(n, m, nil)
	if err := Laplacian(context.Background(), y, logZ, weight, v, u); err != nil {
		t.Fatal(err)
	}
	p := mat.NewDense(n, n, nil)
	for i := range n {
		var z float64
		for k := range n {
			if k != i {
				var dd mat.VecDense
				dd.SubVec(y.RowView(i), y.RowView(k))
				p.Set(i, k, math.Exp(-mat.Dot(&dd, &dd)))
				z += p.At(i, k)
			}
		}
		if math.Abs(math.Log(z)-logZ[i]) > 1e-12 {
			t.Errorf("log Z_%d = %v, want %v", i, logZ[i], math.Log(z))
		}
		for k := range n {
			p.Set(i, k, p.At(i, k)/z)
		}
	}
	lap := mat.NewDense(n, n, nil)
	for i := range n {
		for k := range n {
			if k == i {
				continue
			}
			w := weight(i, k, p.At(i, k))
			lap.Set(i, k, lap.At(i, k)-w)
			lap.Set(k, i, lap.At(k, i)-w)
			lap.Set(i, i, lap.At(i, i)+w)
			lap.Set(k, k, lap.At(k, k)+w)
		}
	}
	var want mat.Dense
	want.Mul(lap, v)
	if !mat.EqualApprox(u, &want, 1e-12) {
		t.Errorf("L_W V differs from the dense product:\n%v\n%v", mat.Formatted(u), mat.Formatted(&want))
	}
}
