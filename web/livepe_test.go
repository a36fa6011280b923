package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/pe"
)

// labelPosteriors gives d posteriors made from its labels: 0.6 to 0.9 on the record's class
// (by its row number), the rest shared by the other classes.
func labelPosteriors(d *dataset.Set) *dataset.Set {
	k := len(d.ClassNames)
	p := mat.NewDense(d.Len(), k, nil)
	for i, l := range d.Labels {
		own := 0.6 + 0.3*float64(i%4)/3
		for c := range k {
			p.Set(i, c, (1-own)/float64(k-1))
		}
		p.Set(i, l, own)
	}
	d.Posteriors = p
	return d
}

// A live PE fit shows its starting layout as round 1, then one L-BFGS iteration on Φ a round
// (J falls from round 1 to 2);
// it pauses, refuses λ, ends by itself ("converged", where resume changes nothing) at the
// layout lowdim embed -method pe computes (pe.Embedder.FitPosteriors, same settings and seed),
// with J lower than at the start; stop ends a fit under way.
func TestLivePE(t *testing.T) {
	defer func(p time.Duration) { livePEPace = p }(livePEPace)
	livePEPace = 20 * time.Millisecond // long enough that the fit is still running when paused
	d := labelPosteriors(dataset.Digits().Subset(seq(300)))
	h := newHandler(t, Config{Data: d, Seed: 3, Workers: 2})
	var meta dataJSON
	if err := json.Unmarshal(call(t, h, "GET", "/api/data", "", "").Body.Bytes(), &meta); err != nil || meta.NoPE != "" {
		t.Fatalf("a server with posteriors says it cannot run PE: %q %v", meta.NoPE, err)
	}
	s := newSession(t, h)
	if rec := postJSON(t, h, s+"/live", `{"action": "start", "variant": "pe"}`); rec.Code != http.StatusOK {
		t.Fatalf("start: %d %s", rec.Code, rec.Body)
	}
	st := waitLive(t, h, s, func(st liveJSON) bool { return st.Round >= 3 })
	if st.Variant != "pe" || len(st.Classes) != 2*10 || st.History[0].Iterations != 1 || st.History[2].Iterations != 3 || st.History[1].Cost >= st.History[0].Cost {
		t.Errorf("PE live: variant %q, %d class coordinates, iterations %d and %d at rounds 1 and 3, J %g then %g", st.Variant, len(st.Classes), st.History[0].Iterations, st.History[2].Iterations, st.History[0].Cost, st.History[1].Cost)
	}
	first := float32s(t, call(t, h, "GET", s+"/live/positions", "", ""), 2)
	if r, _ := first.Dims(); r != 300 {
		t.Fatalf("%d live positions", r)
	}
	if rec := postJSON(t, h, s+"/live", `{"action": "lambda", "lambda": 0.5}`); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "no λ") {
		t.Errorf("λ for PE: %d %s", rec.Code, rec.Body)
	}
	postJSON(t, h, s+"/live", `{"action": "pause"}`)
	st = waitLive(t, h, s, func(st liveJSON) bool { return st.State == "paused" && !st.Busy })
	paused := st.Round
	time.Sleep(200 * time.Millisecond)
	if r := waitLive(t, h, s, func(liveJSON) bool { return true }).Round; r != paused {
		t.Errorf("paused at round %d, now %d", paused, r)
	}
	livePEPace = 0
	postJSON(t, h, s+"/live", `{"action": "resume"}`)
	st = waitLive(t, h, s, func(st liveJSON) bool { return st.State == "converged" })
	start, end := st.History[0], st.History[len(st.History)-1]
	if end.Stage != "pe (the lowest J of 5 starts)" || !strings.HasPrefix(st.History[0].Stage, "pe (start 1 of 5)") {
		t.Errorf("stages %q … %q", st.History[0].Stage, end.Stage)
	}
	if !(end.Cost < start.Cost) || !(end.KL < start.KL) || !(end.KL > 0) {
		t.Errorf("J %g → %g, KL %g → %g over %d rounds", start.Cost, end.Cost, start.KL, end.KL, len(st.History))
	}
	got := float32s(t, call(t, h, "GET", s+"/live/positions", "", ""), 2)
	m, err := pe.Embedder{Seed: 3, Workers: 2}.FitPosteriors(context.Background(), d.Posteriors)
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(300, 2, nil)
	for i, v := range m.Y.RawMatrix().Data {
		want.RawMatrix().Data[i] = float64(float32(v))
	}
	if !mat.Equal(got, want) || end.Cost != m.Cost {
		t.Errorf("the live fit ends at J = %.17g, lowdim embed's at %.17g (max |ΔY| %g)", end.Cost, m.Cost, maxAbsDiffDense(got, want))
	}
	if rec := postJSON(t, h, s+"/live", `{"action": "resume"}`); rec.Code != http.StatusOK {
		t.Errorf("resume after the end: %d %s", rec.Code, rec.Body)
	}
	if r := waitLive(t, h, s, func(liveJSON) bool { return true }); r.State != "converged" || r.Round != st.Round {
		t.Errorf("resume after the end: %s, round %d → %d", r.State, st.Round, r.Round)
	}

	livePEPace = 20 * time.Millisecond
	postJSON(t, h, s+"/live", `{"action": "start", "variant": "pe"}`)
	waitLive(t, h, s, func(st liveJSON) bool { return st.Round >= 2 })
	postJSON(t, h, s+"/live", `{"action": "stop"}`)
	// Stopped, no round is under way (even when the stop came between two rounds).
	stopped := waitLive(t, h, s, func(st liveJSON) bool { return st.State == "stopped" && !st.Busy }).Round
	time.Sleep(100 * time.Millisecond)
	if r := waitLive(t, h, s, func(liveJSON) bool { return true }).Round; r != stopped {
		t.Errorf("stopped at round %d, now %d", stopped, r)
	}
}

func maxAbsDiffDense(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 1)
}

// Without posteriors the page is told why PE cannot run, and a start is refused; posteriors
// that are no probabilities are refused by New, naming the entry.
func TestLivePERefused(t *testing.T) {
	h := newHandler(t, Config{Data: dataset.Digits().Subset(seq(100))})
	var meta dataJSON
	if err := json.Unmarshal(call(t, h, "GET", "/api/data", "", "").Body.Bytes(), &meta); err != nil || !strings.Contains(meta.NoPE, "-method pe") {
		t.Errorf("no posteriors: the page is told %q (%v)", meta.NoPE, err)
	}
	s := newSession(t, h)
	if rec := postJSON(t, h, s+"/live", `{"action": "start", "variant": "pe"}`); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "posteriors") {
		t.Errorf("PE without posteriors: %d %s", rec.Code, rec.Body)
	}
	if _, err := New(Config{Data: dataset.Digits().Subset(seq(100)), Live: LiveStart{Variant: "pe"}}); err == nil {
		t.Error("Config.Live PE without posteriors")
	}
	d := labelPosteriors(dataset.Digits().Subset(seq(100)))
	d.Posteriors.Set(41, 3, 0.5) // row 42 now sums to more than 1
	_, err := New(Config{Data: d})
	var perr *pe.PosteriorError
	if !errors.As(err, &perr) || perr.Row != 41 || !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("a posterior row summing to more than 1: %v", err)
	}
	d.Posteriors = mat.NewDense(99, 10, nil)
	if _, err := New(Config{Data: d}); err == nil || !strings.Contains(err.Error(), "99 rows of posteriors") {
		t.Errorf("99 posterior rows for 100 records: %v", err)
	}
}
