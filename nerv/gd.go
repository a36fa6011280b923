package nerv

import (
	"context"
	"math"

	"github.com/lowdim/lowdim"
)

// gdSchedule is the optimiser of the approximate Student-t path: gradient descent with momentum
// and per-coordinate gains (Jacobs' delta-bar-delta, as in van der Maaten's t-SNE and every
// Barnes–Hut/FFT implementation since), early exaggeration of the attraction, and the learning rate
// n/α (Belkina et al. 2019, openTSNE's and scikit-learn's 'auto'), which makes the number of
// iterations needed nearly independent of n.
type gdSchedule struct {
	iters     int     // iterations after early exaggeration
	exagIters int     // iterations with exaggeration
	exag      float64 // α
	lr        float64
}

// Momentum during and after early exaggeration, and the gains' bounds: the values of every
// t-SNE implementation since van der Maaten's.
const (
	momentumEarly = 0.5
	momentumLate  = 0.8
	minGain       = 0.01
)

// runGD optimises y in place; eval returns the cost and writes the gradient at y with the
// attraction scaled by its third argument. The cost returned is the one before the last step.
func runGD(ctx context.Context, y []float64, dim int, s gdSchedule, eval func(y, g []float64, exag float64) (float64, float64, float64), progress lowdim.Progress) (cost, prec, rec float64, iters int, err error) {
	g := newGD(len(y), s)
	total := s.exagIters + s.iters
	cost, prec, rec, err = g.run(ctx, y, dim, total, total, eval, progress)
	return cost, prec, rec, g.it, err
}

// gdState is the optimiser between two iterations: the schedule, the last update (momentum),
// the per-coordinate gains and the number of iterations done, which decides whether the next
// one is exaggerated. Continuing from it is the same as never having stopped.
type gdState struct {
	s                gdSchedule
	grad, upd, gains []float64
	it               int
	workers          int       // goroutines of the step; 0 means 1
	sums             []float64 // per block of rows, the coordinate sums
}

// gdBlock is the number of rows in a block of the step.
const gdBlock = 4096

func newGD(size int, s gdSchedule) *gdState {
	g := &gdState{s: s, grad: make([]float64, size), upd: make([]float64, size), gains: make([]float64, size)}
	for k := range g.gains {
		g.gains[k] = 1
	}
	return g
}

// run advances y by iterations until g.it = to, reporting ("nerv", g.it, total) after each.
func (g *gdState) run(ctx context.Context, y []float64, dim, to, total int, eval func(y, g []float64, exag float64) (float64, float64, float64), progress lowdim.Progress) (cost, prec, rec float64, err error) {
	n := len(y) / dim
	s, grad, upd, gains := g.s, g.grad, g.upd, g.gains
	for ; g.it < to; g.it++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, err
		}
		exag, mom := 1.0, momentumLate
		if g.it < s.exagIters {
			exag, mom = s.exag, momentumEarly
		}
		cost, prec, rec = eval(y, grad, exag)
		// The step, in fixed blocks of rows on the workers (it is memory-bound and, at 10⁶ rows,
		// 5–8 % of an iteration if done on one core), with each block's coordinate sums kept for
		// the centring below, added in block order: the same bytes for any number of workers.
		nblk := (n + gdBlock - 1) / gdBlock
		if cap(g.sums) < nblk*dim {
			g.sums = make([]float64, nblk*dim)
		}
		sums := g.sums[:nblk*dim]
		g.blocks(nblk, func(b int) {
			lo, hi := b*gdBlock*dim, min((b+1)*gdBlock, n)*dim
			bs := sums[b*dim : (b+1)*dim]
			clear(bs)
			for k := lo; k < hi; k++ {
				gk := grad[k]
				if (gk > 0) != (upd[k] > 0) {
					gains[k] += 0.2
				} else {
					gains[k] = math.Max(gains[k]*0.8, minGain)
				}
				upd[k] = mom*upd[k] - s.lr*gains[k]*gk
				y[k] += upd[k]
				bs[(k-lo)%dim] += y[k]
			}
		})
		// Keep the layout centred: the cost does not depend on a translation, and far-off
		// coordinates would only cost precision.
		var mean [3]float64
		for b := range nblk {
			for d := range dim {
				mean[d] += sums[b*dim+d]
			}
		}
		for d := range dim {
			mean[d] /= float64(n)
		}
		g.blocks(nblk, func(b int) {
			for k := b * gdBlock * dim; k < min((b+1)*gdBlock, n)*dim; k++ {
				y[k] -= mean[k%dim]
			}
		})
		progress.Report("nerv", g.it+1, total)
	}
	return cost, prec, rec, nil
}

// blocks calls fn(b) for b = 0..m−1 on g.workers goroutines (at least one).
func (g *gdState) blocks(m int, fn func(b int)) {
	runTasks(make([]*fftWork, max(g.workers, 1)), m, func(_ *fftWork, b int) { fn(b) })
}
