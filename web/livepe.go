package web

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/pe"
)

// livePEPace is the shortest time between two rounds of a live PE fit shown to the page. A PE
// iteration on Φ costs one sweep or a few, O(nK) each: milliseconds at the digits' size, so that
// unpaced the fit (a few hundred iterations over its five starts) would end before the page,
// polling four times a second, saw it form. A variable so that tests can run faster.
var livePEPace = 60 * time.Millisecond

// livePE returns why a live PE fit cannot run on this server, or nil.
func (h *Handler) livePE() error {
	p := h.cfg.Data.Posteriors
	if p == nil {
		return errorf(http.StatusConflict, "PE embeds class posteriors, and this server has none: start it with lowdim serve -method pe (-posteriors FILE, or the labels through -classifier)")
	}
	if h.n > LiveMaxFast {
		return errorf(http.StatusConflict, "a live PE fit takes at most %d records; this data set has %d: fit it with lowdim embed -method pe and show it with -embedding", LiveMaxFast, h.n)
	}
	return nil
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// runLivePE runs a live PE fit until it ends, is stopped, fails or ctx ends: one pe.Run, a round
// of one L-BFGS iteration on Φ at a time (every object solved for the new Φ), so that the page
// sees Fit's own iterations — its warm-up and restarts included — and, at the end, the very
// layout lowdim embed -method pe computes with the same settings and seed. The starting layout
// is round 1, each further start's is its first round. Paused, it waits to be woken; at the
// fit's end it is "converged" for good.
func (h *Handler) runLivePE(ctx context.Context, lf *liveFit) {
	progress := func(stage string, done, total int) {
		lf.mu.Lock()
		lf.stage, lf.progress = stage, [2]int{done, total}
		lf.mu.Unlock()
	}
	e := h.cfg.PE
	e.Dim, e.Workers, e.Progress = 2, h.cfg.Workers, progress
	if e.Seed == 0 {
		e.Seed = h.cfg.Seed
	}
	lf.mu.Lock()
	lf.busy = true
	lf.mu.Unlock()
	start := time.Now()
	run, err := e.Begin(ctx, h.cfg.Data.Posteriors)
	if err == nil {
		defer run.Close()
		// gonum reports each start's starting point as its first iteration: round 1 shows it.
		err = run.Step(ctx, 1)
	}
	for {
		var res *pe.Model
		if err == nil {
			res, err = run.Result()
		}
		var y *mat.Dense
		if err == nil {
			y = res.Y
		}
		lf.mu.Lock()
		buf, ok := lf.endRound(ctx, err, y)
		if !ok {
			return
		}
		lf.iters = run.Iterations()
		stage := run.Stage()
		if run.Done() && res.Starts > 1 {
			stage = fmt.Sprintf("pe (the lowest J of %d starts)", res.Starts)
		}
		lf.hist = append(lf.hist, liveStep{Round: lf.round + 1, Iterations: lf.iters, Cost: res.Cost, KL: res.KL, Stage: stage,
			Seconds: time.Since(start).Seconds()})
		lf.y, lf.buf, lf.round = res.Y, buf, lf.round+1
		lf.classes = append([]float64(nil), res.Phi.RawMatrix().Data...)
		if run.Done() && lf.state == "running" {
			lf.state = "converged"
		}
		if !lf.waitRunning(ctx) {
			return
		}
		lf.busy = true
		lf.mu.Unlock()
		if wait := livePEPace - time.Since(start); wait > 0 {
			select {
			case <-ctx.Done():
				lf.mu.Lock()
				lf.busy = false // stopped between rounds: none is under way
				lf.mu.Unlock()
				return
			case <-time.After(wait):
			}
		}
		start = time.Now()
		err = run.Step(ctx, 1)
	}
}
