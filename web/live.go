package web

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/nerv"
)

// LiveMax is the most records a live fit takes on the exact path of package nerv (O(n²) a step);
// above it t-NeRV and t-SNE take the approximate path (k-NN graph, Barnes–Hut; nerv.Run, which
// continues exactly where it stopped, early exaggeration once) up to LiveMaxFast records, and
// Gaussian NeRV its grid path (a nerv.Run: t-SNE's iterations first, then NeRV's conjugate
// gradients on the FFT grid) up to LiveMaxNeRV.
const LiveMax = nerv.ApproxMin

// LiveMaxNeRV is the most records a live Gaussian NeRV fit takes: at MNIST's 70,000 one of its
// NeRV rounds (a CG iteration, about two evaluations on the grid) takes a second or two on two
// cores, and it grows linearly.
var LiveMaxNeRV = 200_000

// LiveMaxFast is the most records a live t-NeRV or t-SNE fit takes: each of its iterations
// costs O(n log n) (about 0.1 s at MNIST's 70,000 on two cores), a million takes seconds.
const LiveMaxFast = 1_000_000

// liveChunk is the number of CG iterations between two positions the page is shown (exact
// path); liveIters the number of gradient-descent iterations on the approximate path.
const (
	liveChunk = 5
	liveIters = 10
)

// liveStep is one chunk of a live fit: its λ and the cost terms at its end.
type liveStep struct {
	Round      int     `json:"round"`
	Iterations int     `json:"iterations"` // in all, at the round's end
	Lambda     float64 `json:"lambda"`
	Cost       float64 `json:"cost"`
	Precision  float64 `json:"precision"`       // mean KL(q_i‖p_i) (NeRV), joint KL(q‖p) (t-NeRV)
	Recall     float64 `json:"recall"`          // mean KL(p_i‖q_i), joint KL(p‖q)
	KL         float64 `json:"kl,omitempty"`    // PE: mean KL(p_i‖q_i) of posteriors and map (Cost is J)
	Stage      string  `json:"stage,omitempty"` // PE: the part of the fit the round ended in
	Seconds    float64 `json:"seconds"`
}

// liveFit is a NeRV (or t-NeRV) fit running for one session, in chunks of liveChunk CG
// iterations, each continuing from the positions the last one ended at (nerv.Embedder.Start,
// no annealing after the first), so that the page sees the layout as it forms and λ can
// change between chunks. Its fields are guarded by mu.
type liveFit struct {
	mu       sync.Mutex
	state    string // running, paused, converged (stopped by itself; λ or resume restarts), stopped, failed
	variant  nerv.Variant
	lambda   float64
	y        *mat.Dense
	buf      []byte // y as float32; replaced, never rewritten (answers may still be writing it)
	round    int
	hist     []liveStep
	progress [2]int    // CG iterations done and planned in the chunk under way
	busy     bool      // a chunk is being computed (one under way when paused still ends)
	fast     bool      // on the approximate path (nerv.Run)
	pe       bool      // a Parametric Embedding of the posteriors (pe.Run; no λ)
	classes  []float64 // PE: the class points Φ (K×2) of the latest round
	stage    string    // what the chunk under way computes: knn, nerv
	iters    int       // iterations in all
	exag     bool      // the next iteration is one of early exaggeration (λ = 1 until it ends)
	err      string
	cancel   context.CancelFunc
	wake     chan struct{}
}

// liveJSON answers the live requests.
type liveJSON struct {
	State    string     `json:"state"`
	Variant  string     `json:"variant"`
	Lambda   float64    `json:"lambda"`
	Round    int        `json:"round"`
	Progress [2]int     `json:"progress"`
	Busy     bool       `json:"busy"` // a round is being computed
	History  []liveStep `json:"history"`
	Error    string     `json:"error,omitempty"`
	View     int        `json:"view"` // the live fit's view index (after Config.Views)
	MaxN     int        `json:"max_n"`
	MaxFast  int        `json:"max_n_fast"`
	Path     string     `json:"path"`              // exact, or approximate (t-NeRV, t-SNE above MaxN)
	Stage    string     `json:"stage"`             // what the round under way computes: knn (the graph), nerv
	Iters    int        `json:"iterations"`        // in all
	Exag     bool       `json:"exaggerating"`      // early exaggeration under way: λ applies after it
	Classes  []float64  `json:"classes,omitempty"` // PE: the class points Φ of the latest round, K×2 row-major
}

// liveBody is the body of POST …/live.
type liveBody struct {
	Action  string   `json:"action"` // start, pause, resume, stop, lambda
	Lambda  *float64 `json:"lambda"`
	Variant string   `json:"variant"` // nerv (default), tnerv, tsne (tnerv with λ = 1) or pe
}

func (lf *liveFit) status(view int) liveJSON {
	out := liveJSON{State: lf.state, Lambda: lf.lambda, Round: lf.round, Progress: lf.progress, Busy: lf.busy,
		History: append([]liveStep{}, lf.hist...), Error: lf.err, View: view, MaxN: LiveMax, MaxFast: LiveMaxFast, Variant: "nerv",
		Path: "exact", Stage: lf.stage, Iters: lf.iters, Exag: lf.exag}
	if lf.fast {
		out.Path = "approximate"
	}
	if lf.variant == nerv.StudentT {
		out.Variant = "tnerv"
	}
	if lf.pe {
		out.Variant, out.Path, out.Classes = "pe", "pe", lf.classes
	}
	return out
}

func (lf *liveFit) poke() {
	select {
	case lf.wake <- struct{}{}:
	default:
	}
}

func (h *Handler) postLive(w http.ResponseWriter, r *http.Request, s *session) error {
	var b liveBody
	if err := h.decode(w, r, &b); err != nil {
		return err
	}
	lam := nerv.DefaultLambda
	if b.Lambda != nil {
		if lam = *b.Lambda; !(lam >= 0 && lam <= 1) {
			return errorf(http.StatusBadRequest, `"lambda": expected a number in 0..1, found %g`, lam)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lf := s.live
	switch b.Action {
	case "start":
		variant, err := h.liveVariant(b.Variant)
		if err != nil {
			return err
		}
		if b.Variant == "tsne" {
			lam = 1
		}
		if lf != nil {
			lf.cancel()
		}
		ctx, cancel := context.WithCancel(h.ctx)
		lf = &liveFit{state: "running", variant: variant, lambda: lam, cancel: cancel, wake: make(chan struct{}, 1),
			fast: b.Variant != "pe" && h.n > LiveMax, pe: b.Variant == "pe"}
		lf.exag = lf.fast && !lf.pe
		s.live = lf
		if lf.pe {
			lf.lambda = 0
			go h.runLivePE(ctx, lf)
		} else {
			go h.runLive(ctx, lf)
		}
	case "pause", "resume", "stop", "lambda":
		if lf == nil {
			return errorf(http.StatusConflict, "no live fit: start one first")
		}
		lf.mu.Lock()
		switch {
		case lf.state == "stopped" || lf.state == "failed":
			lf.mu.Unlock()
			return errorf(http.StatusConflict, "the live fit has %s: start a new one", lf.state)
		case b.Action == "pause" && lf.state == "running":
			lf.state = "paused"
		case b.Action == "lambda" && lf.pe:
			lf.mu.Unlock()
			return errorf(http.StatusConflict, "PE has no λ: it embeds the class posteriors, with no precision–recall trade-off")
		case b.Action == "resume" && lf.pe && lf.state == "converged":
			// PE's fit has ended (a Run does not continue past its end): nothing to resume.
		case b.Action == "resume" || b.Action == "lambda":
			if b.Action == "lambda" {
				if b.Lambda == nil {
					lf.mu.Unlock()
					return errorf(http.StatusBadRequest, `missing "lambda"`)
				}
				lf.lambda = lam
			}
			if b.Action == "resume" || lf.state == "converged" {
				lf.state = "running"
			}
		case b.Action == "stop":
			lf.state = "stopped"
			lf.cancel()
		}
		lf.mu.Unlock()
		lf.poke()
	default:
		return errorf(http.StatusBadRequest, `"action": expected start, pause, resume, stop or lambda, found %q`, b.Action)
	}
	lf.mu.Lock()
	out := lf.status(len(h.views) + 1)
	lf.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
	return nil
}

// liveVariant returns the variant named v (nerv, tnerv or tsne), or why it cannot run live here.
func (h *Handler) liveVariant(v string) (nerv.Variant, error) {
	switch v {
	case "", "nerv":
		if h.n > LiveMaxNeRV {
			return 0, errorf(http.StatusConflict, "a live NeRV fit takes at most %d records (on its grid path each round costs O(n)); this data set has %d: choose t-NeRV or t-SNE, which take up to %d", LiveMaxNeRV, h.n, LiveMaxFast)
		}
		if h.n > LiveMax && h.cfg.Data.X == nil {
			return 0, errorf(http.StatusConflict, "a live NeRV fit of more than %d records runs on its grid path, which needs the data rows", LiveMax)
		}
		return nerv.Gaussian, nil
	case "tnerv", "tsne":
		if h.n > LiveMaxFast {
			return 0, errorf(http.StatusConflict, "a live t-NeRV or t-SNE fit takes at most %d records; this data set has %d: fit it with lowdim embed and show it with -embedding", LiveMaxFast, h.n)
		}
		return nerv.StudentT, nil
	case "pe":
		if err := h.livePE(); err != nil {
			return 0, err
		}
		return 0, nil
	}
	return 0, errorf(http.StatusBadRequest, `"variant": expected "nerv", "tnerv", "tsne" or "pe", found %q`, v)
}

func (h *Handler) getLive(w http.ResponseWriter, r *http.Request, s *session) error {
	s.mu.Lock()
	lf := s.live
	s.mu.Unlock()
	if lf == nil {
		writeJSON(w, http.StatusOK, liveJSON{State: "none", View: len(h.views) + 1, MaxN: LiveMax, MaxFast: LiveMaxFast, History: []liveStep{}})
		return nil
	}
	lf.mu.Lock()
	out := lf.status(len(h.views) + 1)
	lf.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getLivePositions answers the live fit's latest positions (n×2 float32) with X-Lowdim-Round.
func (h *Handler) getLivePositions(w http.ResponseWriter, r *http.Request, s *session) error {
	s.mu.Lock()
	lf := s.live
	s.mu.Unlock()
	if lf == nil {
		return errorf(http.StatusNotFound, "no live fit")
	}
	lf.mu.Lock()
	buf, round := lf.buf, lf.round
	lf.mu.Unlock()
	if buf == nil {
		return errorf(http.StatusNotFound, "the live fit has no positions yet (its first round anneals)")
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Lowdim-Round", strconv.Itoa(round))
	w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
	w.Write(buf)
	return nil
}

// livePositions returns the live fit's float32 positions, nil when there are none.
func (s *session) livePositions() []byte {
	if s.live == nil {
		return nil
	}
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	return s.live.buf
}

// runLive runs lf until it is stopped, fails or ctx ends: a chunk of iterations at the current
// λ from the current positions, again and again; paused or converged (the cost changed by less
// than 1e-6 of itself over a chunk) it waits to be woken. On the exact path each chunk is a
// nerv fit of liveChunk CG iterations from the last positions (annealing σ_i in the first only);
// on the approximate path one nerv.Run, begun once (the k-NN graph, P), steps liveIters
// iterations at a time, so that early exaggeration runs once, in its first iterations (at λ =
// 1: λ applies once it is over), and λ changes continue from the current layout. Gaussian NeRV's
// Run takes t-SNE's iterations first, then one CG iteration on the grid a round (nerv.Run).
func (h *Handler) runLive(ctx context.Context, lf *liveFit) {
	first := true
	var run *nerv.Run
	progress := func(stage string, done, total int) {
		lf.mu.Lock()
		lf.stage, lf.progress = stage, [2]int{done, total}
		lf.mu.Unlock()
	}
	for {
		lf.mu.Lock()
		if !lf.waitRunning(ctx) {
			return
		}
		lam := lf.lambda
		e := nerv.Embedder{Variant: lf.variant, Lambda: nerv.Lambda(lam), Start: lf.y, Seed: h.cfg.Seed,
			Path: nerv.PathExact, Workers: h.cfg.Workers, Iterations: liveChunk, Progress: progress}
		lf.busy = true
		lf.mu.Unlock()
		if !first {
			e.AnnealRounds = -1 // continue: σ_i at their calibrated values
		}
		start := time.Now()
		var res *nerv.Result
		var err error
		switch {
		case !lf.fast:
			var m lowdim.Model
			if m, err = e.Fit(ctx, h.cfg.Data); err == nil {
				res = m.(*nerv.Result)
			}
		default:
			if run == nil {
				e := nerv.Embedder{Variant: lf.variant, Lambda: nerv.Lambda(lam), Seed: h.cfg.Seed, Workers: h.cfg.Workers, Progress: progress}
				run, err = e.Begin(ctx, h.cfg.Data)
			}
			if err == nil && !run.Exaggerating() {
				err = run.SetLambda(lam)
			}
			if err == nil {
				err = run.Step(ctx, liveIters)
			}
			if err == nil {
				res = run.Result()
				lam = run.Lambda()
			}
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
		if run != nil {
			lf.iters, lf.exag = run.Iterations(), run.Exaggerating()
		} else {
			lf.iters += res.Iterations
		}
		step := liveStep{Round: lf.round + 1, Iterations: lf.iters, Lambda: lam, Cost: res.Cost, Precision: res.Precision, Recall: res.Recall, Seconds: time.Since(start).Seconds()}
		if !first && len(lf.hist) > 0 {
			if last := lf.hist[len(lf.hist)-1]; last.Lambda == lam && math.Abs(last.Cost-res.Cost) <= 1e-6*math.Abs(res.Cost) && lf.state == "running" {
				lf.state = "converged"
			}
		}
		lf.y, lf.buf, lf.round = res.Y, buf, lf.round+1
		lf.hist = append(lf.hist, step)
		lf.mu.Unlock()
		first = false
	}
}

// endRound ends a live round under lf.mu, which the caller holds: a failed step (unless the fit
// was cancelled) or a layout beyond float32's range ends the fit and releases lf.mu; otherwise it
// returns the layout y as float32s, lf.mu still held.
func (lf *liveFit) endRound(ctx context.Context, err error, y *mat.Dense) ([]byte, bool) {
	lf.busy = false
	if err != nil {
		if ctx.Err() == nil {
			lf.state, lf.err = "failed", err.Error()
		}
		lf.mu.Unlock()
		return nil, false
	}
	buf, finite := appendFloat32s(nil, y)
	if !finite {
		lf.state, lf.err = "failed", fmt.Sprintf("the layout left float32's range (%g)", maxAbs(y))
		lf.mu.Unlock()
		return nil, false
	}
	return buf, true
}

// waitRunning waits under lf.mu, which the caller holds, while the fit is paused or converged; it
// returns true, lf.mu held, once the fit runs, and false, lf.mu released, once it is stopped or
// ctx ends.
func (lf *liveFit) waitRunning(ctx context.Context) bool {
	for lf.state == "paused" || lf.state == "converged" {
		lf.mu.Unlock()
		select {
		case <-ctx.Done():
			return false
		case <-lf.wake:
		}
		lf.mu.Lock()
	}
	if lf.state != "running" {
		lf.mu.Unlock()
		return false
	}
	return true
}
