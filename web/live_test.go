package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/nerv"
)

// waitLive polls the live fit until ok says so, or fails after a minute.
func waitLive(t *testing.T, h http.Handler, s string, ok func(liveJSON) bool) liveJSON {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var st liveJSON
		if err := json.Unmarshal(call(t, h, "GET", s+"/live", "", "").Body.Bytes(), &st); err != nil {
			t.Fatal(err)
		}
		if ok(st) {
			return st
		}
		if st.State == "failed" || time.Now().After(deadline) {
			t.Fatalf("live fit: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A live fit runs in rounds, pauses, takes a new λ from where it is and stops; positions are
// served as they come; its view takes part in selections.
func TestLive(t *testing.T) {
	d := dataset.Digits().Subset(seq(300))
	h := newHandler(t, Config{Data: d})
	s := newSession(t, h)
	if rec := call(t, h, "GET", s+"/live/positions", "", ""); rec.Code != http.StatusNotFound {
		t.Errorf("positions before a fit: %d", rec.Code)
	}
	if rec := postJSON(t, h, s+"/live", `{"action": "start", "lambda": 1.5}`); rec.Code != http.StatusBadRequest {
		t.Errorf("λ 1.5: %d", rec.Code)
	}
	if rec := postJSON(t, h, s+"/live", `{"action": "start", "lambda": 0.1}`); rec.Code != http.StatusOK {
		t.Fatalf("start: %d %s", rec.Code, rec.Body)
	}
	st := waitLive(t, h, s, func(st liveJSON) bool { return st.Round >= 2 })
	y := float32s(t, call(t, h, "GET", s+"/live/positions", "", ""), 2)
	if r, _ := y.Dims(); r != 300 {
		t.Fatalf("%d live positions", r)
	}
	postJSON(t, h, s+"/live", `{"action": "pause"}`)
	// The round under way when paused still ends; then nothing more.
	st = waitLive(t, h, s, func(st liveJSON) bool { return st.State == "paused" && !st.Busy })
	paused := st.Round
	time.Sleep(300 * time.Millisecond)
	if r := waitLive(t, h, s, func(liveJSON) bool { return true }).Round; r != paused {
		t.Errorf("paused at round %d, now %d", paused, r)
	}
	before := st.History[len(st.History)-1]
	postJSON(t, h, s+"/live", `{"action": "lambda", "lambda": 0.9}`)
	postJSON(t, h, s+"/live", `{"action": "resume"}`)
	st = waitLive(t, h, s, func(st liveJSON) bool { return st.Round >= paused+3 })
	after := st.History[len(st.History)-1]
	if after.Lambda != 0.9 || before.Lambda != 0.1 {
		t.Errorf("λ before %v, after %v", before.Lambda, after.Lambda)
	}
	// More weight on recall lowers the recall divergence (NeRV's trade-off, paper §3).
	if !(after.Recall < before.Recall) || !(after.Precision > before.Precision) {
		t.Errorf("λ 0.1 → 0.9: recall %v → %v, precision %v → %v", before.Recall, after.Recall, before.Precision, after.Precision)
	}
	if rec := postJSON(t, h, s+"/select", `{"view": 1, "polygon": [[-1e9, -1e9], [1e9, -1e9], [0, 1e9]]}`); rec.Code != http.StatusOK || rec.Header().Get("X-Lowdim-Selected") != "300" {
		t.Errorf("select in the live view: %d %s", rec.Code, rec.Header().Get("X-Lowdim-Selected"))
	}
	postJSON(t, h, s+"/live", `{"action": "stop"}`)
	waitLive(t, h, s, func(st liveJSON) bool { return st.State == "stopped" })
	if rec := postJSON(t, h, s+"/live", `{"action": "resume"}`); rec.Code != http.StatusConflict {
		t.Errorf("resume after stop: %d", rec.Code)
	}
}

// Above LiveMax records t-NeRV runs on the approximate path: early exaggeration once, ten
// iterations a round, λ taken once it is over, continuing from the current layout; tsne is t-NeRV
// at λ = 1. Gaussian NeRV runs on its grid path: t-SNE's iterations, then NeRV's.
func TestLiveFast(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(LiveMax+1, 5, 4, 1), Sample: 200})
	s := newSession(t, h)
	if rec := postJSON(t, h, s+"/live", `{"action": "start", "lambda": 0.2}`); rec.Code != http.StatusOK {
		t.Fatalf("a live NeRV fit of %d records: %d %s", LiveMax+1, rec.Code, rec.Body)
	}
	st := waitLive(t, h, s, func(st liveJSON) bool { return st.Round >= 1 })
	if st.Path != "approximate" || st.History[0].Iterations != liveIters {
		t.Errorf("NeRV live at %d records: path %q, %d iterations in the first round", LiveMax+1, st.Path, st.History[0].Iterations)
	}
	if !testing.Short() && !raceEnabled { // .ci/run runs it without the race detector
		// past t-SNE's 750 iterations NeRV's rounds lower NeRV's cost at λ = 0.2
		tsne := (nerv.DefaultExagIterations + nerv.DefaultApproxIterations) / liveIters
		st = waitLive(t, h, s, func(st liveJSON) bool { return st.Round >= tsne+3 })
		a, b := st.History[tsne], st.History[len(st.History)-1]
		if a.Lambda != 0.2 || !(b.Cost < a.Cost) {
			t.Errorf("NeRV's rounds: λ %v, cost %g then %g", a.Lambda, a.Cost, b.Cost)
		}
	}
	postJSON(t, h, s+"/live", `{"action": "stop"}`)
	if rec := postJSON(t, h, s+"/live", `{"action": "start", "variant": "tsne"}`); rec.Code != http.StatusOK {
		t.Fatalf("start t-SNE: %d %s", rec.Code, rec.Body)
	}
	st = waitLive(t, h, s, func(st liveJSON) bool { return st.Round >= 2 })
	if st.Path != "approximate" || st.Lambda != 1 || !st.Exag || st.History[1].Iterations != 2*liveIters {
		t.Errorf("t-SNE live: path %q, λ %v, exaggerating %v, %d iterations after 2 rounds", st.Path, st.Lambda, st.Exag, st.History[1].Iterations)
	}
	if testing.Short() {
		return
	}
	// t-NeRV at λ = 0.3: λ applies once early exaggeration (250 iterations) is over.
	if rec := postJSON(t, h, s+"/live", `{"action": "start", "variant": "tnerv", "lambda": 0.3}`); rec.Code != http.StatusOK {
		t.Fatalf("start t-NeRV: %d %s", rec.Code, rec.Body)
	}
	st = waitLive(t, h, s, func(st liveJSON) bool { return st.Round >= 1 && !st.Exag })
	postJSON(t, h, s+"/live", `{"action": "pause"}`)
	st = waitLive(t, h, s, func(st liveJSON) bool { return st.State == "paused" && !st.Busy })
	exag := st.History[nerv.DefaultExagIterations/liveIters-1]
	last := st.History[len(st.History)-1]
	if exag.Lambda != 1 || last.Lambda != 0.3 || last.Iterations != liveIters*len(st.History) {
		t.Errorf("λ %v during exaggeration, %v after; %d iterations in %d rounds", exag.Lambda, last.Lambda, last.Iterations, len(st.History))
	}
	postJSON(t, h, s+"/live", `{"action": "stop"}`)
}

func TestLiveTooLarge(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(LiveMax+1, 3, 2, 1)})
	old := LiveMaxNeRV
	LiveMaxNeRV = LiveMax
	defer func() { LiveMaxNeRV = old }()
	if _, err := New(Config{Data: synthetic(LiveMax+1, 3, 2, 1), Live: LiveStart{Variant: "nerv"}}); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("Config.Live NeRV at %d records, above LiveMaxNeRV: %v", LiveMax+1, err)
	}
	if _, err := New(Config{Data: synthetic(10, 3, 2, 1), Live: LiveStart{Variant: "pca"}}); err == nil {
		t.Error("Config.Live pca")
	}
	s := newSession(t, h)
	if rec := postJSON(t, h, s+"/live", `{"action": "start", "variant": "sne"}`); rec.Code != http.StatusBadRequest {
		t.Errorf("variant sne: %d %s", rec.Code, rec.Body)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
