package nerv

import (
	"sync"
	"sync/atomic"
)

// approx evaluates the cost and gradient on the approximate path: sparse input probabilities
// (sparseP) and far-field sums from a space-partitioning tree (spTree). Every per-row result is
// written to its own slot and global sums are added in row order, so the output does not depend
// on the number of workers.
type approx struct {
	n, dim  int
	lambda  float64
	student bool
	theta   float64
	// allTerms computes both divergences even where the gradient needs only one (t-SNE's
	// precision term costs a logarithm per interaction): set for the final, reported evaluation.
	allTerms bool
	sp       *sparseP
	tree     *spTree
	workers  []*approxWorker

	// per-row scratch: scalars and dim-vectors
	rz, rl, r1, r2, r3, r4 []float64
	rv, rm                 []float64

	// NeRV (Gaussian) only
	g *gaussState
}

type approxWorker struct {
	stack []int32
}

// chunk is the number of rows a worker takes at a time.
const chunk = 64

func newApprox(sp *sparseP, dim int, lambda float64, student bool, theta float64, workers int) *approx {
	n := sp.n
	a := &approx{n: n, dim: dim, lambda: lambda, student: student, theta: theta, sp: sp, tree: newSPTree(dim, n, theta)}
	a.rz, a.rl = make([]float64, n), make([]float64, n)
	a.r1, a.r2, a.r3, a.r4 = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	a.rv, a.rm = make([]float64, n*dim), make([]float64, n*dim)
	for range max(workers, 1) {
		a.workers = append(a.workers, &approxWorker{})
	}
	return a
}

// parallel calls fn(w, i) for every row i, rows taken in chunks by the workers.
func (a *approx) parallel(fn func(w *approxWorker, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, w := range a.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= a.n {
					return
				}
				for i := lo; i < min(lo+chunk, a.n); i++ {
					fn(w, i)
				}
			}
		}()
	}
	wg.Wait()
}

// eval returns the cost, its precision and recall terms, and writes the gradient; exag scales
// the attractive (recall) term of the gradient during early exaggeration.
func (a *approx) eval(y, grad []float64, exag float64) (cost, prec, rec float64) {
	if a.student {
		return a.studentEval(y, grad, exag)
	}
	return a.gaussEval(y, grad, exag)
}

// evalWith returns b's eval as a function value (for benchmarks that optimise with one evaluator
// and time another).
func (*approx) evalWith(b *approx) func(y, g []float64, exag float64) (float64, float64, float64) {
	return b.eval
}
