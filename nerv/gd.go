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
	n := len(y) / dim
	grad := make([]float64, len(y))
	upd := make([]float64, len(y))
	gains := make([]float64, len(y))
	for k := range gains {
		gains[k] = 1
	}
	total := s.exagIters + s.iters
	for it := range total {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, it, err
		}
		exag, mom := 1.0, momentumLate
		if it < s.exagIters {
			exag, mom = s.exag, momentumEarly
		}
		cost, prec, rec = eval(y, grad, exag)
		for k, g := range grad {
			if (g > 0) != (upd[k] > 0) {
				gains[k] += 0.2
			} else {
				gains[k] = math.Max(gains[k]*0.8, minGain)
			}
			upd[k] = mom*upd[k] - s.lr*gains[k]*g
			y[k] += upd[k]
		}
		// Keep the layout centred: the cost does not depend on a translation, and far-off
		// coordinates would only cost precision.
		for d := range dim {
			var m float64
			for i := range n {
				m += y[i*dim+d]
			}
			m /= float64(n)
			for i := range n {
				y[i*dim+d] -= m
			}
		}
		progress.Report("nerv", it+1, total)
	}
	return cost, prec, rec, total, nil
}
