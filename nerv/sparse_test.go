package nerv

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/neighbors"
)

// TestSymmetriseAgainstDense: the joint P built by merging each row with the transpose equals
// (p_j|i + p_i|j)/(2n) formed from the dense n×n conditional matrix, over exactly the union of the
// graph and its transpose, p to 1e-15 relative, log p to 1e-12, and the floor log ε the smallest log p; on a
// 7-NN graph of 300 points in three blobs of different widths, where many pairs are one-sided,
// for 1 and 3 workers.
func TestSymmetriseAgainstDense(t *testing.T) {
	const n, k = 300, 7
	rng := rand.New(rand.NewPCG(5, 6))
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		for d := range 3 {
			x.Set(i, d, float64(i%3)*5+rng.NormFloat64()*float64(1+i%3))
		}
	}
	g, err := neighbors.KNN(context.Background(), x, k, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cp, clp := make([]float64, n*k), make([]float64, n*k)
	dense := make([]float64, n*n)
	for i := range n {
		idx, _ := g.Row(i)
		for m, j := range idx {
			cp[i*k+m] = 0.01 + rng.Float64()
			clp[i*k+m] = math.Log(cp[i*k+m])
			dense[i*n+int(j)] = cp[i*k+m]
		}
	}
	oneSided := 0
	for i := range n {
		for j := range n {
			if (dense[i*n+j] == 0) != (dense[j*n+i] == 0) {
				oneSided++
			}
		}
	}
	if oneSided == 0 {
		t.Fatal("the test graph has no one-sided pairs")
	}
	for _, workers := range []int{1, 3} {
		sp := &sparseP{n: n, k: k}
		sp.symmetrise(g, cp, clp, workers)
		entries, minLog := 0, math.Inf(1)
		for i := range n {
			last := int32(-1)
			for m := sp.ptr[i]; m < sp.ptr[i+1]; m++ {
				j := sp.idx[m]
				if j <= last {
					t.Fatalf("workers %d: row %d not sorted by column at %d", workers, i, m)
				}
				last = j
				want := (dense[i*n+int(j)] + dense[int(j)*n+i]) / (2 * n)
				if want == 0 || math.Abs(sp.p[m]-want) > 1e-15*want {
					t.Fatalf("workers %d: p_%d,%d = %g, want %g", workers, i, j, sp.p[m], want)
				}
				if math.Abs(sp.lp[m]-math.Log(want)) > 1e-12 {
					t.Fatalf("workers %d: log p_%d,%d = %g, want %g", workers, i, j, sp.lp[m], math.Log(want))
				}
				minLog = math.Min(minLog, sp.lp[m])
				entries++
			}
		}
		union := 0
		for i := range n {
			for j := range n {
				if dense[i*n+j] != 0 || dense[j*n+i] != 0 {
					union++
				}
			}
		}
		if entries != union || sp.entries != union {
			t.Fatalf("workers %d: %d entries (recorded %d), the union has %d", workers, entries, sp.entries, union)
		}
		if sp.logEps[0] != minLog {
			t.Fatalf("workers %d: log ε %g, smallest log p %g", workers, sp.logEps[0], minLog)
		}
	}
}
