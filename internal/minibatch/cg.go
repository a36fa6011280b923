package minibatch

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// CG takes a few iterations of nonlinear conjugate gradients on one mini-batch's cost, restarted
// for every batch: the optimiser of the HOPE paper (Min et al. 2010) and of parametric t-SNE
// (van der Maaten 2009), whose code runs 3 line searches per batch. It keeps the buffers of its
// cached evaluation between batches.
type CG struct {
	at, grad []float64 // the point of the cached evaluation and its gradient
	f        float64
	valid    bool
}

// Minimize runs iters major iterations of gonum's optimize.CG (Polak–Ribière–Polyak with
// Wolfe line searches) from x on the cost eval, which returns the cost at its first argument
// and sets its second to the gradient there; at most 6·iters evaluations are made. gonum asks
// for the cost and the gradient at the same point through separate calls, so each point is
// evaluated once and cached. On return x holds the point reached if its cost is no greater than
// the start's, and is left unchanged otherwise (a failed line search, a NaN, a cost that rose),
// so a batch never makes things worse by its own measure. Minimize returns the cost at the
// start.
//
// eval's last call need not have been at the returned x: a caller whose eval sets state from
// its argument must set it again from x.
func (c *CG) Minimize(x []float64, eval func(x, grad []float64) float64, iters int) float64 {
	if len(c.at) != len(x) {
		c.at, c.grad = make([]float64, len(x)), make([]float64, len(x))
	}
	c.valid = false
	evalAt := func(x []float64) {
		if c.valid && floats.Equal(x, c.at) {
			return
		}
		c.f = eval(x, c.grad)
		copy(c.at, x)
		c.valid = true
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { evalAt(x); return c.f },
		Grad: func(g, x []float64) { evalAt(x); copy(g, c.grad) },
	}
	evalAt(x)
	f0 := c.f
	settings := &optimize.Settings{
		MajorIterations: iters,
		FuncEvaluations: 6 * iters,
		Converger:       optimize.NeverTerminate{},
	}
	// Any error (optimize.ErrLinesearcherFailure above all) leaves the best point gonum saw in
	// res, which is taken only if it is no worse than the start.
	res, _ := optimize.Minimize(prob, x, settings, &optimize.CG{})
	if res != nil && !math.IsNaN(res.F) && res.F <= f0 {
		copy(x, res.X)
	}
	return f0
}
