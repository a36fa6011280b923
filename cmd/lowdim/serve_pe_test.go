package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// postLive posts a live action and returns the answer's state.
func postLive(t *testing.T, url, session, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/api/sessions/"+session+"/live", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st map[string]any
	json.NewDecoder(resp.Body).Decode(&st)
	return resp.StatusCode, st
}

// lowdim serve -method pe -posteriors FILE starts a live PE fit of the file's posteriors as the
// page opens; with INPUT the posteriors belong to its rows. The fit advances in rounds and its
// J falls.
func TestServePEPosteriors(t *testing.T) {
	dir := t.TempDir()
	post := posteriorFile(t, dir, 90)
	var input strings.Builder
	input.WriteString("f1,f2,label\n")
	for i := range 90 {
		fmt.Fprintf(&input, "%d,%d,%s\n", i%3, i%7, []string{"a", "b", "c"}[i%3])
	}
	in := filepath.Join(dir, "in.csv")
	writeFile(t, in, input.String())
	for _, args := range [][]string{{"-method", "pe", "-posteriors", post}, {"-method", "pe", "-posteriors", post, in}} {
		url, stop := startServe(t, args...)
		var d struct {
			N         int    `json:"n"`
			H         int    `json:"h"`
			NoPE      string `json:"live_pe_unavailable"`
			LiveStart *struct {
				Variant string `json:"variant"`
			} `json:"live_start"`
		}
		if code := getJSON(t, "GET", url+"/api/data", &d); code != 200 || d.N != 90 || d.NoPE != "" || d.LiveStart == nil || d.LiveStart.Variant != "pe" {
			t.Errorf("%v: GET /api/data: %d %+v", args, code, d)
		}
		if want := map[bool]int{true: 3, false: 2}[len(args) == 4]; d.H != want {
			t.Errorf("%v: %d features on view, want %d", args, d.H, want)
		}
		var sess struct{ ID string }
		getJSON(t, "POST", url+"/api/sessions", &sess)
		if code, st := postLive(t, url, sess.ID, `{"action": "start", "variant": "pe"}`); code != 200 || st["variant"] != "pe" {
			t.Fatalf("%v: start: %d %v", args, code, st)
		}
		var st struct {
			State   string
			History []struct{ Cost float64 }
		}
		for deadline := time.Now().Add(30 * time.Second); st.State != "converged" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			getJSON(t, "GET", url+"/api/sessions/"+sess.ID+"/live", &st)
		}
		if h := st.History; st.State != "converged" || len(h) < 3 || !(h[len(h)-1].Cost < h[0].Cost) {
			t.Errorf("%v: live PE: %s after %d rounds, %+v", args, st.State, len(h), h)
		}
		stop()
	}
}

// Without -posteriors, -method pe makes posteriors from the labels (softnn by default); the
// other methods offer PE with -posteriors, and otherwise leave it out and the page is told why.
func TestServePEClassifier(t *testing.T) {
	url, stop := startServe(t, "-method", "pe")
	var d struct {
		NoPE string `json:"live_pe_unavailable"`
	}
	if code := getJSON(t, "GET", url+"/api/data", &d); code != 200 || d.NoPE != "" {
		t.Errorf("-method pe on the digits: %d %+v", code, d)
	}
	stop()
	// -posteriors with another method: the page offers PE, and starts nothing by itself.
	url, stop = startServe(t, "-posteriors", posteriorFile(t, t.TempDir(), 30))
	var d2 struct {
		NoPE      string `json:"live_pe_unavailable"`
		LiveStart any    `json:"live_start"`
	}
	if code := getJSON(t, "GET", url+"/api/data", &d2); code != 200 || d2.NoPE != "" || d2.LiveStart != nil {
		t.Errorf("-method mle -posteriors: %d %+v", code, d2)
	}
	stop()
	url, stop = startServe(t)
	defer stop()
	if code := getJSON(t, "GET", url+"/api/data", &d); code != 200 || !strings.Contains(d.NoPE, "-method pe") {
		t.Errorf("-method mle: %d %+v", code, d)
	}
}

// Bad posteriors stop lowdim serve with exit 2 and the file's line and column; so do flags
// that make no sense with PE.
func TestServePEErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	writeFile(t, bad, "a,b,c\n0.2,0.3,0.5\n0.2,0.9,0.5\n")
	short := posteriorFile(t, dir, 10)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"serve", "-method", "pe", "-posteriors", bad}, bad + ":3:"},
		{[]string{"serve", "-method", "pe", "-posteriors", short}, "has 10 rows but"},
		{[]string{"serve", "-method", "pe", "-posteriors", bad, "-classifier", "nb"}, "give one source of posteriors"},
		{[]string{"serve", "-method", "pe", "-classifier", "lda"}, "its objects are words"},
		{[]string{"serve", "-method", "pe", "-classifier", "svm"}, "-classifier: expected one of"},
		{[]string{"serve", "-method", "mle", "-classifier", "nb"}, "only -method pe takes it"},
		{[]string{"serve", "-method", "pe", "-posteriors", "-", "-"}, "only one of them can read standard input"},
	} {
		args := c.args
		if c.says == "has 10 rows but" {
			args = append(args, "@digits")
		}
		_, stderr, status := runCLI(t, "", args...)
		if status != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, status, stderr, c.says)
		}
	}
}
