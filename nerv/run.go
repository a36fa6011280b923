package nerv

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
)

// Run is a t-SNE or t-NeRV fit on the approximate path that advances a given number of
// iterations at a time, each Step continuing exactly where the last one stopped: the layout, the
// optimiser's momentum and gains, and the iteration count — so that early exaggeration runs once,
// in the first ExaggerationIterations iterations of the Run, and never again. An interactive
// view (lowdim serve's live fit) shows the layout between steps and changes λ between them.
//
// A Run starts as t-SNE (λ = 1), as Fit does for t-NeRV too: the clusters form under early
// exaggeration first. SetLambda changes λ from the next iteration on, with a fresh optimiser
// state, as Fit does between its t-SNE and t-NeRV phases, so that
//
//	r := e.Begin(…); r.Step(E + I); r.SetLambda(λ); r.Step(I)
//
// computes the very layout Fit computes for t-NeRV with λ (E exaggerated iterations, I =
// Iterations), bit for bit, and for t-SNE the first Step alone, in any number of Steps (see
// TestRunEqualsFit). The input probabilities (k-NN graph, σ_i) are computed once, by Begin.
//
// A Run of Gaussian NeRV (Variant Gaussian, 2-D, from the rows) runs Fit's two phases: the t-SNE
// layout of the same graph by gradient descent (Steps count its iterations, exaggeration first),
// then NeRV's cost on the grid path (approx_grid.go) by conjugate gradients, a Step of k running
// ⌈k/10⌉ CG iterations (each about ten gradient-descent iterations' work) with the CG restarted
// each Step; SetLambda sets NeRV's λ without touching the t-SNE phase. Restarting CG every Step
// loses its conjugacy, so this phase does not compute Fit's layout bit for bit, only its cost.
//
// A Run is not safe for concurrent use.
type Run struct {
	e       Embedder
	n, dim  int
	workers int
	x       *mat.Dense // the rows the graph was searched in (for t-NeRV's augmentation), or nil
	sp      *sparseP   // the joint input probabilities, with their logarithms
	a       *approx    // the evaluator at the current λ
	calls   int        // evaluations since λ last changed (t-NeRV augments every augmentEvery)
	gd      *gdState
	y       []float64
	lambda  float64
	iters   int // iterations in all
	res     Result
	gauss   *gaussRun // Gaussian NeRV, or nil
}

// gaussRun is what a Run of Gaussian NeRV keeps besides the t-SNE phase's state.
type gaussRun struct {
	g      *gridNeRV
	tsne   int  // iterations of the t-SNE phase
	inNeRV bool // the t-SNE phase is over
}

// Begin prepares a Run of e on d: the k-NN graph, the input probabilities and
// the starting layout (Start, or as Fit starts), with no iteration done. The Run is on the
// approximate path whatever n and Path say (it is the path that can continue). A t-SNE or
// t-NeRV Run has λ = 1 until SetLambda (e.Lambda is not used); a Gaussian NeRV Run starts with
// e.Lambda for its NeRV phase.
func (e Embedder) Begin(ctx context.Context, d *dataset.Set) (*Run, error) {
	who := e.name()
	if e.Variant == Gaussian {
		return e.beginGauss(ctx, d, who)
	}
	e.Lambda = Lambda(1)
	st, err := e.resolve(d, who)
	if err != nil {
		return nil, err
	}
	in, err := e.prepareApprox(ctx, d, who, st.n, st.k, st.dim, true, st.workers)
	if err != nil {
		return nil, err
	}
	y, err := e.approxStart(ctx, in.x, in.start, st.n, st.dim, in.mean, true)
	if err != nil {
		return nil, err
	}
	r := &Run{e: e, n: st.n, dim: st.dim, workers: st.workers, x: in.x, sp: in.sp, y: y, lambda: 1,
		res: Result{Sigma2: in.sp.sigma2, Storage: e.storage(in.sp, in.graphK)}}
	r.a = newApprox(r.sp, r.dim, 1, true, e.theta(), r.workers)
	r.gd = newGD(len(y), e.schedule(r.n, e.ExaggerationIterations))
	r.gd.workers = r.workers
	return r, nil
}

// beginGauss is Begin for Gaussian NeRV: the conditional P for NeRV's cost and the joint one for
// the t-SNE phase, from one k-NN graph.
func (e Embedder) beginGauss(ctx context.Context, d *dataset.Set, who string) (*Run, error) {
	st, err := e.resolve(d, who)
	if err != nil {
		return nil, err
	}
	lam := st.lam
	if st.dim != 2 || d == nil || d.X == nil || e.Graph != nil || e.Distances != nil {
		return nil, dataset.Invalidf("%s: a continuable NeRV fit needs the data rows and a 2-D output (its grid path)", who)
	}
	in, err := e.prepareApprox(ctx, d, who, st.n, st.k, st.dim, true, st.workers)
	if err != nil {
		return nil, err
	}
	tsp, err := newSparseP(ctx, in.g, in.mean, st.k, e.Calibration, true, false, in.rowSq, st.workers)
	if err != nil {
		return nil, err
	}
	y, err := e.approxStart(ctx, in.x, in.start, st.n, st.dim, in.mean, true)
	if err != nil {
		return nil, err
	}
	gn, err := newGridNeRV(ctx, in.x, in.sp, lam, !e.RawScale, DefaultGridPCs, DefaultGridLevels, st.workers)
	if err != nil {
		return nil, err
	}
	r := &Run{e: e, n: st.n, dim: st.dim, workers: st.workers, y: y, lambda: lam,
		res: Result{Sigma2: in.sp.sigma2, Storage: fmt.Sprintf("k-NN graph (k = %d), FFT grid in %d bandwidth levels", in.graphK, len(gn.lb))}}
	r.a = newApprox(tsp, r.dim, 1, true, e.theta(), r.workers)
	r.gd = newGD(len(y), e.schedule(r.n, e.ExaggerationIterations))
	r.gd.workers = r.workers
	r.gauss = &gaussRun{g: gn, tsne: r.gd.s.exagIters + r.gd.s.iters}
	return r, nil
}

// stepGauss is Step for Gaussian NeRV.
func (r *Run) stepGauss(ctx context.Context, iters int) error {
	gr := r.gauss
	if !gr.inNeRV {
		start := r.gd.it
		to := min(start+iters, gr.tsne)
		var report lowdim.Progress
		if progress := r.e.Progress; progress != nil {
			report = func(stage string, done, _ int) { progress(stage, done-start, to-start) }
		}
		_, _, _, err := r.gd.run(ctx, r.y, r.dim, to, to, r.a.eval, report)
		r.iters += r.gd.it - start
		if r.gd.it >= gr.tsne {
			gr.inNeRV = true
		}
		return err
	}
	k := (iters + 9) / 10
	var res Result
	opt := &optimizer{ev: gaussCost(gr.g.eval), ctx: ctx, res: &res, progress: r.e.Progress, total: k}
	// gonum counts the starting point as a major iteration: k + 1 of them take k steps.
	err := opt.minimize(r.y, k+1, 0)
	if err == nil {
		r.iters += k
	}
	return err
}

// Step runs iters more iterations (Progress receives ("nerv", done, iters) after each). When
// ctx ends it stops between two iterations and returns ctx's error; the Run stays valid and
// continues from there.
func (r *Run) Step(ctx context.Context, iters int) error {
	if r.gauss != nil {
		return r.stepGauss(ctx, iters)
	}
	eval := r.a.eval
	var augErr error
	// t-NeRV's precision term sees the layout's own neighbours too (sparseP.augment), as in Fit.
	if aug := r.e.augmenter(ctx, r.sp, r.x, r.dim, true, r.workers); aug != nil && r.lambda < 1 {
		eval = func(y, g []float64, exag float64) (float64, float64, float64) {
			if r.calls%augmentEvery == 0 && augErr == nil {
				var sp *sparseP
				if sp, augErr = aug(y); augErr == nil {
					r.a.sp = sp
				}
			}
			r.calls++
			return r.a.eval(y, g, exag)
		}
	}
	start := r.gd.it
	var report lowdim.Progress
	if progress := r.e.Progress; progress != nil {
		report = func(stage string, done, _ int) { progress(stage, done-start, iters) }
	}
	_, _, _, err := r.gd.run(ctx, r.y, r.dim, start+iters, start+iters, eval, report)
	r.iters += r.gd.it - start
	if err == nil {
		err = augErr
	}
	return err
}

// SetLambda sets λ ∈ [0, 1] for the iterations to come, from the current layout. A change
// restarts the optimiser's momentum and gains with no exaggeration (as Fit's t-NeRV phase
// starts); setting the current λ changes nothing.
func (r *Run) SetLambda(lam float64) error {
	if !(lam >= 0 && lam <= 1) {
		return dataset.Invalidf("%s: λ = %g is outside [0, 1]", r.e.name(), lam)
	}
	if lam == r.lambda {
		return nil
	}
	r.lambda = lam
	if r.gauss != nil {
		r.gauss.g.lam = lam // from the next NeRV iteration; the t-SNE phase is λ-free
		return nil
	}
	r.a = newApprox(r.sp, r.dim, lam, true, r.e.theta(), r.workers)
	r.calls = 0
	r.gd = newGD(len(r.y), r.e.schedule(r.n, -1))
	r.gd.workers = r.workers
	return nil
}

// Lambda returns the current λ.
func (r *Run) Lambda() float64 { return r.lambda }

// Iterations returns the iterations run in all.
func (r *Run) Iterations() int { return r.iters }

// InNeRV reports whether a Run of Gaussian NeRV is past its t-SNE phase (false for t-SNE and
// t-NeRV).
func (r *Run) InNeRV() bool { return r.gauss != nil && r.gauss.inNeRV }

// Exaggerating reports whether the next iteration is one of early exaggeration.
func (r *Run) Exaggerating() bool { return r.gd.it < r.gd.s.exagIters }

// Result returns the current layout (a copy) with its cost, precision and recall at the current
// λ, as Fit reports them; it costs one evaluation.
func (r *Run) Result() *Result {
	res := r.res
	if r.gauss != nil && r.gauss.inNeRV {
		res.Cost, res.Precision, res.Recall = r.gauss.g.eval(r.y, make([]float64, len(r.y)), 1)
	} else {
		r.a.allTerms = true
		res.Cost, res.Precision, res.Recall = r.a.eval(r.y, make([]float64, len(r.y)), 1)
		r.a.allTerms = false
	}
	res.Y = mat.NewDense(r.n, r.dim, append([]float64(nil), r.y...))
	res.Iterations = r.iters
	return &res
}
