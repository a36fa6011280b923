package pe

import (
	"context"
	"errors"

	"gonum.org/v1/gonum/mat"
)

// Run is a PE fit that advances a given number of L-BFGS iterations on Φ at a time, each Step
// continuing exactly where the last one stopped, so that an interactive view (lowdim serve's
// live fit) can show the layout between steps.
//
// PE's natural round is one L-BFGS iteration on the class points Φ: it solves every object for
// the trial Φ of its line search (one sweep or a few) and ends at an accepted Φ of lower
// F(Φ) = min_R J(R, Φ). Fit's L-BFGS is one gonum optimize.Minimize call whose memory spans
// all its iterations, so rather than restarting the optimiser per step (which would change the
// result), a Run executes Fit's own code in a goroutine that parks after every iteration until
// the next Step lets it go on. The arithmetic is Fit's: stepping a Run to its end in pieces of
// any size gives the Model Fit returns, bit for bit — the warm-up sample, every restart and the
// final fit included, in Fit's order (see TestRunEqualsFit). Steps therefore walk through the
// stages Fit walks through (Stage names them: "pe warm-up (start 2 of 5)", "pe"); J jumps up
// when a new start begins and the kept start is the one of lowest J.
//
// Between steps Result solves all n objects for the current Φ (on its own copy of the objects,
// so that the fit is not disturbed): in the warm-up the fit itself holds only the sample.
//
// A Run is not safe for concurrent use. Close releases its goroutine; a Run whose Begin context
// ends is closed too.
type Run struct {
	pl     *plan
	ctx    context.Context // the fit's: Begin's, cancelled by Close
	cancel context.CancelFunc
	resume chan struct{}  // lets the fit's goroutine run one more iteration
	parked chan parkEvent // the goroutine reports an iteration done, or the end of the fit
	busy   bool           // an iteration is under way (a Step's context ended while it ran)
	done   bool
	model  *Model
	err    error
	iters  int
	stage  string
	phi    []float64 // Φ after the last iteration (K×D)

	view    *sweeper  // solves all n objects for phi, from its own previous solution
	viewAt  int       // iters at which view was last solved, −1 never
	viewRes *Model    // what Result answers at viewAt
	viewR   []float64 // view's objects (n×D)
}

type parkEvent struct {
	stage string
	phi   []float64 // the fitter's; read only while the goroutine is parked
	end   bool
	model *Model
	err   error
}

// Begin checks e and p as FitPosteriors does, draws the starts, and returns a Run that has done
// no iteration yet. ctx bounds the whole fit: when it ends the Run fails with its error.
func (e Embedder) Begin(ctx context.Context, p mat.Matrix) (*Run, error) {
	pl, err := e.prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Run{pl: pl, ctx: ctx, cancel: cancel, resume: make(chan struct{}), parked: make(chan parkEvent),
		phi: append([]float64(nil), pl.phi...), viewAt: -1, stage: "pe"}
	go r.loop()
	return r, nil
}

// loop is the fit's goroutine: Fit's code, parked after every L-BFGS iteration.
func (r *Run) loop() {
	send := func(ev parkEvent) bool {
		select {
		case r.parked <- ev:
			return true
		case <-r.ctx.Done():
			return false
		}
	}
	wait := func() error {
		select {
		case <-r.resume:
			return nil
		case <-r.ctx.Done():
			return r.ctx.Err()
		}
	}
	if wait() != nil {
		return
	}
	m, err := r.pl.fit(r.ctx, func(stage string, phi []float64) error {
		if !send(parkEvent{stage: stage, phi: phi}) {
			return r.ctx.Err()
		}
		return wait()
	})
	send(parkEvent{end: true, model: m, err: err})
}

// Step runs iters more L-BFGS iterations on Φ, fewer when the fit ends first (Done). When ctx
// ends Step returns its error without waiting for the iteration under way, which still
// completes: the Run stays valid and the next call continues from there.
func (r *Run) Step(ctx context.Context, iters int) error {
	for i := 0; i < iters && !r.done; i++ {
		if !r.busy {
			select {
			case r.resume <- struct{}{}:
				r.busy = true
			case <-r.ctx.Done():
				return r.fail(r.ctx.Err())
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		select {
		case ev := <-r.parked:
			r.take(ev)
		case <-r.ctx.Done():
			return r.fail(r.ctx.Err())
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return r.err
}

// settle waits for the iteration under way, if any, to end.
func (r *Run) settle() error {
	if !r.busy {
		return r.err
	}
	select {
	case ev := <-r.parked:
		r.take(ev)
		return r.err
	case <-r.ctx.Done():
		return r.fail(r.ctx.Err())
	}
}

func (r *Run) take(ev parkEvent) {
	r.busy = false
	if ev.end {
		r.done, r.model, r.err = true, ev.model, ev.err
		r.cancel()
		return
	}
	r.iters++
	r.stage = ev.stage
	copy(r.phi, ev.phi)
}

func (r *Run) fail(err error) error {
	r.done, r.busy = true, false
	if r.err == nil {
		r.err = err
	}
	r.cancel()
	return r.err
}

// Close stops the fit (if it has not ended) and releases its goroutine. A closed Run is Done;
// its Result stays what it was.
func (r *Run) Close() {
	if !r.done {
		r.fail(errors.New("pe: the run was closed"))
	}
	r.cancel()
}

// Done reports whether the fit has ended: converged, failed or closed.
func (r *Run) Done() bool { return r.done }

// Err returns why the fit failed, or nil.
func (r *Run) Err() error { return r.err }

// Iterations returns the L-BFGS iterations parked at so far, over all stages and starts. gonum
// reports each start's starting point as its first iteration (a Step that enters a new start
// ends there, Φ as the start draws it), and no iteration that meets the convergence test (a
// start's last iteration runs within the Step that follows it, uncounted).
func (r *Run) Iterations() int { return r.iters }

// Stage names the part of Fit the last iteration belonged to: "pe", or "pe warm-up", with
// "(start s of S)" when several starts are tried.
func (r *Run) Stage() string { return r.stage }

// Model returns the fitted model once the fit has ended successfully: the very Model Fit
// returns. Before that it returns nil and the reason.
func (r *Run) Model() (*Model, error) {
	if err := r.settle(); err != nil {
		return nil, err
	}
	if !r.done {
		return nil, errors.New("pe: the run has not ended")
	}
	return r.model, nil
}

// Result returns the current state as a Model: Φ after the last iteration, every object solved
// for it (Y), J and the mean KL there (with the full data's η_φ), Iterations so far. Once the fit
// has ended it is the fitted Model. Between steps it costs one sweep over the n objects (none
// when asked again before the next Step). The matrices are the caller's.
func (r *Run) Result() (*Model, error) {
	if err := r.settle(); err != nil && r.model == nil && r.viewRes == nil {
		return nil, err
	}
	if r.done && r.model != nil {
		return copyModel(r.model), nil
	}
	if r.viewAt == r.iters && r.viewRes != nil || r.done {
		if r.viewRes == nil {
			return nil, r.err
		}
		return copyModel(r.viewRes), nil
	}
	pl := r.pl
	n, k, d := pl.n, pl.k, pl.dim
	if r.view == nil {
		r.viewR = make([]float64, n*d)
		for i := range n { // as fitter.run starts: each object at its posterior mean of Φ
			for c := range k {
				w := pl.pd[i*k+c]
				for j := range d {
					r.viewR[i*d+j] += w * r.phi[c*d+j]
				}
			}
		}
		r.view = newSweeper(pl.pd, r.viewR, n, k, d, pl.logPrior, pl.etaR, rowTolerance*rowTolerance, pl.workers)
	}
	phi := append([]float64(nil), r.phi...)
	fr, _, err := r.view.sweep(r.ctx, phi, nil)
	if err != nil {
		return nil, r.fail(err)
	}
	var rr, pp float64
	for _, v := range r.viewR {
		rr += v * v
	}
	for _, v := range phi {
		pp += v * v
	}
	cost := fr + pl.etaPhi*pp
	m := &Model{Y: mat.NewDense(n, d, append([]float64(nil), r.viewR...)), Phi: mat.NewDense(k, d, phi),
		Priors: pl.priors, EtaR: pl.etaR, EtaPhi: pl.etaPhi, Cost: cost,
		KL: (cost - pl.etaR*rr - pl.etaPhi*pp + entropySum(pl.pd)) / float64(n), Iterations: r.iters}
	r.viewAt, r.viewRes = r.iters, m
	return copyModel(m), nil
}

func copyModel(m *Model) *Model {
	c := *m
	c.Y, c.Phi = mat.DenseCopyOf(m.Y), mat.DenseCopyOf(m.Phi)
	return &c
}
