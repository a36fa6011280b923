package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// The reliability group replays the attacks and accidents of issue 18, item 4: each test is
// one way the page could be driven by someone other than its own tab, or the server held,
// filled or made to answer nonsense.

// errorOf returns the "error" of a JSON error answer ("" when there is none).
func errorOf(rec *httptest.ResponseRecorder) string {
	var e struct{ Error string }
	json.Unmarshal(rec.Body.Bytes(), &e)
	return e.Error
}

// request sends one request with the given headers (name, value pairs) to h.
func request(t testing.TB, h http.Handler, method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = "127.0.0.1:7878"
	for k := 0; k+1 < len(hdr); k += 2 {
		req.Header.Set(hdr[k], hdr[k+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Another site's page cannot open sessions: a cross-origin text/plain POST (a "simple" request,
// sent without a CORS preflight) is refused, and so is one that says JSON; the page's own
// origin, and clients that are no browser, are served.
func TestReliabilityCrossOrigin(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(60, 4, 2, 11), Neighbors: 5})
	for _, c := range []struct {
		name   string
		hdr    []string
		status int
		says   string
	}{
		{"cross-origin text/plain", []string{"Origin", "https://evil.example", "Content-Type", "text/plain"}, 403, "cross-origin request refused"},
		{"cross-origin JSON", []string{"Origin", "https://evil.example", "Content-Type", "application/json"}, 403, "cross-origin"},
		{"cross-site fetch metadata", []string{"Sec-Fetch-Site", "cross-site", "Content-Type", "application/json"}, 403, "cross-origin"},
		{"another port of the same host", []string{"Origin", "http://127.0.0.1:9999", "Content-Type", "application/json"}, 403, "cross-origin"},
		{"opaque origin (sandboxed frame, file:)", []string{"Origin", "null", "Content-Type", "text/plain"}, 403, "cross-origin"},
		{"no browser, text/plain", []string{"Content-Type", "text/plain"}, 415, "application/json"},
		{"no browser, no type", nil, 415, "application/json"},
	} {
		rec := request(t, h, "POST", "/api/sessions", "{}", c.hdr...)
		if rec.Code != c.status || !strings.Contains(errorOf(rec), c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, rec.Code, rec.Body, c.status, c.says)
		}
	}
	if n := h.Sessions(); n != 0 {
		t.Fatalf("%d sessions after refused requests", n)
	}
	for _, hdr := range [][]string{
		{"Origin", "http://127.0.0.1:7878", "Sec-Fetch-Site", "same-origin", "Content-Type", "application/json"},
		{"Content-Type", "application/json; charset=utf-8"},
	} {
		if rec := request(t, h, "POST", "/api/sessions", "", hdr...); rec.Code != http.StatusCreated {
			t.Errorf("headers %q: %d %s", hdr, rec.Code, rec.Body)
		}
	}
	// A session's changes are refused cross-origin too, and a GET from anywhere is only a read.
	s := newSession(t, h)
	if rec := request(t, h, "POST", s+"/reset", "{}", "Origin", "https://evil.example", "Content-Type", "text/plain"); rec.Code != 403 {
		t.Errorf("cross-origin reset: %d", rec.Code)
	}
	if rec := request(t, h, "DELETE", s, "", "Origin", "https://evil.example"); rec.Code != 403 || h.lookup(strings.TrimPrefix(s, "/api/sessions/")) == nil {
		t.Errorf("cross-origin DELETE: %d", rec.Code)
	}
}

// slowServer serves h on a loopback port with its Config's timeouts, as lowdim serve does.
func slowServer(t *testing.T, h *Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config = h.Server()
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// closedWithin reads conn until the server closes it, and fails when it is still open after
// limit (far beyond the timeouts under test: the bound only keeps a failing test from hanging).
// It returns what the server sent.
func closedWithin(t *testing.T, conn net.Conn, limit time.Duration) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(limit))
	got, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection is still open after %v (got %q)", limit, got)
	}
	return string(got)
}

// A slow-loris client — headers, or a body, a byte at a time — is cut off by the timeouts
// (short ones here: 200 ms) instead of holding its connection for ever.
func TestReliabilitySlowLoris(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(60, 4, 2, 12), Neighbors: 5,
		ReadHeaderTimeout: 200 * time.Millisecond, BodyTimeout: 200 * time.Millisecond})
	addr := slowServer(t, h)
	drip := func(conn net.Conn, stop chan struct{}) {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}
	t.Run("headers", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ")
		stop := make(chan struct{})
		defer close(stop)
		go drip(conn, stop)
		closedWithin(t, conn, 20*time.Second)
	})
	t.Run("body", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
		stop := make(chan struct{})
		defer close(stop)
		go drip(conn, stop)
		got := closedWithin(t, conn, 20*time.Second)
		if !strings.HasPrefix(got, "HTTP/1.1 408") || !strings.Contains(got, "did not arrive within 200ms") {
			t.Errorf("answer to a slow body: %q", got)
		}
		if n := h.Sessions(); n != 0 {
			t.Errorf("%d sessions", n)
		}
	})
	// A client that is merely slow to send its next request after an answer is not cut off
	// by the body deadline of the one before.
	t.Run("keep-alive", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		for k := 0; k < 2; k++ {
			fmt.Fprintf(conn, "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("request %d: %v", k, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("request %d: %d", k, resp.StatusCode)
			}
			time.Sleep(300 * time.Millisecond) // beyond the body deadline, within the idle timeout
		}
	})
}

// The control points of a session are capped: on the digits, the 101st pin and every one after
// it up to pin number 500 are refused with 409 and a message the page shows, and the view keeps
// its 100 control points. (Issue 18 measured pin 500 at 1.19 s without a cap.)
func TestReliabilityPinCap(t *testing.T) {
	d := dataset.Digits()
	h := newHandler(t, Config{Data: d})
	s := newSession(t, h)
	for r := 0; r < 500; r++ {
		rec := postJSON(t, h, s+"/control", fmt.Sprintf(`{"record": %d, "pos": [%d, %d]}`, r, r%7, r%5))
		switch {
		case r < 100 && rec.Code != http.StatusOK:
			t.Fatalf("pin %d: %d %s", r+1, rec.Code, rec.Body)
		case r >= 100 && (rec.Code != http.StatusConflict || !strings.Contains(errorOf(rec), "too many control points: 100 at most")):
			t.Fatalf("pin %d: %d %s", r+1, rec.Code, rec.Body)
		}
	}
	var c controlsJSON
	json.Unmarshal(call(t, h, "GET", s+"/controls", "", "").Body.Bytes(), &c)
	if len(c.Records) != 100 {
		t.Errorf("%d control points after the refused pins", len(c.Records))
	}
	// Moving one of them is still a move, not a new pin.
	if rec := postJSON(t, h, s+"/control", `{"record": 3, "pos": [1, 1]}`); rec.Code != http.StatusOK {
		t.Errorf("moving a control point at the cap: %d %s", rec.Code, rec.Body)
	}
}

// Every number of a request is checked by field: coordinates beyond ±MaxCoord (±1e39 among them,
// beyond float32), numbers beyond float64 and non-integral or huge records are refused with 400
// naming the field, and change nothing.
func TestReliabilityNumbers(t *testing.T) {
	d := synthetic(200, 5, 3, 13)
	h := newHandler(t, Config{Data: d})
	s := newSession(t, h)
	if rec := postJSON(t, h, s+"/control", `{"record": 3, "pos": [0.5, -1]}`); rec.Code != 200 {
		t.Fatal(rec.Body)
	}
	before := call(t, h, "GET", s+"/positions", "", "").Body.Bytes()
	for _, c := range []struct{ path, body, says string }{
		{"/control", `{"record": 4, "pos": [1e39, 0]}`, `"pos"[0]: expected a finite number within ±1e+12, found 1e39`},
		{"/control", `{"record": 4, "pos": [0, -1e39]}`, `"pos"[1]: expected a finite number within ±1e+12, found -1e39`},
		{"/move", `{"record": 3, "pos": [1e39, -1e39]}`, `"pos"[0]`},
		{"/move", `{"record": 3, "pos": [2, 1e400]}`, `"pos"[1]: expected a finite number`},
		{"/move", `{"record": 3, "pos": [1e12, 1.0000001e12]}`, `"pos"[1]`},
		{"/move", `{"record": 3, "pos": ["1", 2]}`, `"pos"[0]: expected a number, found "1"`},
		{"/move", `{"record": 3, "pos": [null, 2]}`, `"pos"[0]: expected a number, found null`},
		{"/move", `{"record": 3, "pos": [NaN, 2]}`, `bad JSON`},
		{"/control", `{"record": 1e39, "pos": [1, 2]}`, `"record": expected an integer in range 0..199, found 1e39`},
		{"/control", `{"record": 2.5, "pos": [1, 2]}`, `"record": expected an integer`},
		{"/remove", `{"record": 1e400}`, `"record": expected a finite number`},
		{"/remove", `{"record": "3"}`, `"record": expected a number`},
		{"/remove", `{"record": -0.5}`, `"record": expected an integer`},
	} {
		rec := postJSON(t, h, s+c.path, c.body)
		if rec.Code != http.StatusBadRequest || !strings.Contains(errorOf(rec), c.says) {
			t.Errorf("%s %s: %d %s, want 400 saying %q", c.path, c.body, rec.Code, rec.Body, c.says)
		}
	}
	if after := call(t, h, "GET", s+"/positions", "", "").Body.Bytes(); !bytes.Equal(before, after) {
		t.Error("refused requests changed the view")
	}
	// The largest coordinates allowed are served, as finite float32, and the move took effect
	// (MLE places a control point near its placement, not on it: within 1% here).
	y := float32s(t, postJSON(t, h, s+"/move", `{"record": 3, "pos": [1e12, -1e12]}`), 2)
	for _, v := range y.RawMatrix().Data {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Fatalf("the view holds %v", v)
		}
	}
	if math.Abs(y.At(3, 0)-1e12) > 1e10 || math.Abs(y.At(3, 1)+1e12) > 1e10 {
		t.Errorf("record 3 at %v, placed at (1e12, -1e12)", y.RawRowView(3))
	}
}

// A placement within ±MaxCoord that would still carry records beyond float32 (two control
// records 1e-27 apart in feature space stretched 1e12 apart: a magnification of 1e39) is
// undone and refused; the view is the one before, never ±Inf.
func TestReliabilityFloat32Overflow(t *testing.T) {
	// Symmetric rows, so that centring leaves them as they are: a = ±(ε,0,0), b = ±(0,ε,0),
	// c = ±(1,1,0), and rows with the third feature only.
	const eps = 1e-27
	rows := [][]float64{{eps, 0, 0}, {-eps, 0, 0}, {0, eps, 0}, {0, -eps, 0}, {1, 1, 0}, {-1, -1, 0}}
	for k := 1; k <= 4; k++ {
		rows = append(rows, []float64{0, 0, float64(k)}, []float64{0, 0, -float64(k)})
	}
	x := mat.NewDense(len(rows), 3, nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	h := newHandler(t, Config{Data: &dataset.Set{Name: "tiny", X: x}, Neighbors: 2,
		Interactive: linproj.Interactive{Method: linproj.LSP}})
	s := newSession(t, h)
	if rec := postJSON(t, h, s+"/control", `{"record": 0, "pos": [1, 0]}`); rec.Code != 200 {
		t.Fatal(rec.Body)
	}
	if rec := postJSON(t, h, s+"/control", `{"record": 2, "pos": [0, 1]}`); rec.Code != 200 {
		t.Fatal(rec.Body)
	}
	before := call(t, h, "GET", s+"/positions", "", "").Body.Bytes()
	rec := postJSON(t, h, s+"/move", `{"record": 0, "pos": [1e12, 0]}`)
	if rec.Code != http.StatusBadRequest || !strings.Contains(errorOf(rec), "beyond the float32 range") {
		t.Fatalf("a placement magnified beyond float32: %d %s", rec.Code, rec.Body)
	}
	y := float32s(t, call(t, h, "GET", s+"/positions", "", ""), 2)
	for _, v := range y.RawMatrix().Data {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Fatalf("the view holds %v", v)
		}
	}
	if after := call(t, h, "GET", s+"/positions", "", "").Body.Bytes(); !bytes.Equal(before, after) {
		t.Error("the refused move was not undone")
	}
	var c controlsJSON
	json.Unmarshal(call(t, h, "GET", s+"/controls", "", "").Body.Bytes(), &c)
	if len(c.Records) != 2 || c.Pos[0] != [2]float64{1, 0} {
		t.Errorf("controls after the refused move: %+v", c)
	}
	// A fixed embedding beyond float32 is refused when the server starts, not shown as ±Inf.
	emb := mat.NewDense(len(rows), 2, nil)
	emb.Set(3, 1, -1e39)
	if _, err := New(Config{Data: &dataset.Set{Name: "tiny", X: x}, Neighbors: 2, Embedding: emb}); err == nil || !strings.Contains(err.Error(), "holds 1e+39") {
		t.Errorf("an embedding holding -1e39: %v", err)
	}
}

// The quality answer is never a 200 with an empty body, even for a degenerate view (LSP with no
// control points puts every record at the origin).
func TestReliabilityQualityNeverEmpty(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(80, 4, 2, 14), Neighbors: 5})
	s := newSession(t, h)
	for _, body := range []string{`{"method": "lsp"}`} {
		postJSON(t, h, s+"/method", body)
	}
	rec := call(t, h, "GET", s+"/quality", "", "")
	var v map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil || len(v) == 0 {
		t.Fatalf("quality of a degenerate view: %d %q (%v)", rec.Code, rec.Body, err)
	}
	t.Logf("quality of a degenerate view: %d %.300s", rec.Code, rec.Body)
	if rec.Code == http.StatusOK && v["error"] != nil || rec.Code != http.StatusOK && v["error"] == nil {
		t.Errorf("quality: %d %s", rec.Code, rec.Body)
	}
	// writeJSON itself: a value JSON cannot carry is a 500 that says so.
	w := httptest.NewRecorder()
	writeJSON(w, http.StatusOK, map[string]float64{"x": math.NaN()})
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "cannot be written as JSON") {
		t.Errorf("NaN answer: %d %q", w.Code, w.Body)
	}
}

// Idle sessions are reaped by a timer, without a new session (or any request) to trigger it.
func TestReliabilityReaper(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(60, 4, 2, 15), Neighbors: 5, IdleTimeout: 50 * time.Millisecond})
	newSession(t, h)
	newSession(t, h)
	live := func() int { h.mu.Lock(); defer h.mu.Unlock(); return len(h.sessions) }
	if live() != 2 {
		t.Fatal("sessions not started")
	}
	for start := time.Now(); live() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("%d idle sessions still held 20 s after a 50 ms idle timeout", live())
		}
	}
}

// One client cannot take every session: beyond MaxClientSessions it is refused (429, with a
// message for the page) while another client is still served.
func TestReliabilityClientCap(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(60, 4, 2, 16), Neighbors: 5, MaxSessions: 8, MaxClientSessions: 2})
	from := func(addr string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/sessions", strings.NewReader("{}"))
		req.Host, req.RemoteAddr = "127.0.0.1:7878", addr
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for k, c := range []struct {
		addr   string
		status int
	}{{"10.0.0.1:1000", 201}, {"10.0.0.1:1001", 201}, {"10.0.0.1:1002", 429}, {"10.0.0.2:1000", 201}} {
		rec := from(c.addr)
		if rec.Code != c.status {
			t.Errorf("session %d from %s: %d %s", k, c.addr, rec.Code, rec.Body)
		}
		if c.status == 429 && (!strings.Contains(errorOf(rec), "too many pages open from 10.0.0.1: 2 at most") || rec.Header().Get("Retry-After") == "") {
			t.Errorf("the refusal says %q", errorOf(rec))
		}
	}
}

// With a token, the API answers only requests that carry it (header or query); the page
// itself, which holds no data, is served without.
func TestReliabilityToken(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(60, 4, 2, 17), Neighbors: 5, Token: "s3cret"})
	for _, c := range []struct {
		path   string
		hdr    []string
		status int
	}{
		{"/api/data", nil, 401}, {"/api/data?token=nope", nil, 401}, {"/api/data", []string{"X-Lowdim-Token", "s3cre"}, 401},
		{"/api/data?token=s3cret", nil, 200}, {"/api/data", []string{"X-Lowdim-Token", "s3cret"}, 200}, {"/", nil, 200},
	} {
		if rec := request(t, h, "GET", c.path, "", c.hdr...); rec.Code != c.status {
			t.Errorf("GET %s %q: %d, want %d", c.path, c.hdr, rec.Code, c.status)
		}
	}
	if rec := request(t, h, "POST", "/api/sessions", "{}", "Content-Type", "application/json"); rec.Code != 401 || !strings.Contains(errorOf(rec), "token") {
		t.Errorf("a session without the token: %d %s", rec.Code, rec.Body)
	}
}

// Moves of one session that wait while the session is busy coalesce: the newest of a record
// wins and is answered with the view, computed once; the moves it replaced are answered 204.
func TestReliabilityMovesCoalesce(t *testing.T) {
	d := synthetic(300, 6, 3, 18)
	h := newHandler(t, Config{Data: d})
	s := newSession(t, h)
	postJSON(t, h, s+"/control", `{"record": 10, "pos": [1, 1]}`)
	sess := h.lookup(strings.TrimPrefix(s, "/api/sessions/"))
	sess.mu.Lock() // the session is busy: moves queue
	rev := sess.rev
	answers := make(chan *httptest.ResponseRecorder, 3)
	for k := 1; k <= 3; k++ {
		go func() { answers <- postJSON(t, h, s+"/move", fmt.Sprintf(`{"record": 10, "pos": [%d, -%d]}`, k, k)) }()
		for waiting := false; !waiting; time.Sleep(time.Millisecond) {
			sess.pmu.Lock()
			waiting = len(sess.pending) == 1 && sess.pending[0].pos[0] == float64(k)
			sess.pmu.Unlock()
		}
	}
	sess.mu.Unlock()
	want := reference(t, d.X, linproj.MLE, []int{10}, [][]float64{{3, -3}})
	coalesced := 0
	for k := 0; k < 3; k++ {
		rec := <-answers
		if rec.Header().Get("X-Lowdim-Coalesced") == "true" {
			coalesced++
			if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
				t.Errorf("a replaced move: %d with %d bytes", rec.Code, rec.Body.Len())
			}
			continue
		}
		if ok, worst := closeF32(float32s(t, rec, 2), want); !ok {
			t.Errorf("the newest move's answer differs from the view after it by %g", worst)
		}
	}
	if coalesced != 2 {
		t.Errorf("%d answers say they were coalesced, want 2", coalesced)
	}
	sess.mu.Lock()
	if sess.rev != rev+1 {
		t.Errorf("revision %d → %d: the moves were not applied once", rev, sess.rev)
	}
	sess.mu.Unlock()
}
