package web

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/quality"
)

// call sends one request to h and returns the recorded answer.
func call(t testing.TB, h http.Handler, method, path, contentType, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = "127.0.0.1:7878" // httptest's example.com is a name the server does not answer to
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func postJSON(t testing.TB, h http.Handler, path, body string) *httptest.ResponseRecorder {
	return call(t, h, "POST", path, "application/json", body)
}

// newSession creates a session and returns its API prefix.
func newSession(t testing.TB, h http.Handler) string {
	t.Helper()
	rec := postJSON(t, h, "/api/sessions", "")
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/sessions: %d %s", rec.Code, rec.Body)
	}
	var s sessionJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil || len(s.ID) != 32 {
		t.Fatalf("session answer %q: %v", rec.Body, err)
	}
	return "/api/sessions/" + s.ID
}

// float32s decodes an n×cols little-endian float32 answer.
func float32s(t testing.TB, rec *httptest.ResponseRecorder, cols int) *mat.Dense {
	t.Helper()
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("expected binary positions, got %d %s: %.200s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	b := rec.Body.Bytes()
	if len(b)%(4*cols) != 0 {
		t.Fatalf("%d bytes is not a whole number of %d-float rows", len(b), cols)
	}
	y := mat.NewDense(len(b)/(4*cols), cols, nil)
	for k := range y.RawMatrix().Data {
		y.RawMatrix().Data[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
	}
	return y
}

// reference is the embedding linproj gives for the same control points: what the API must show.
func reference(t testing.TB, x *mat.Dense, method linproj.Method, records []int, pos [][]float64) *mat.Dense {
	t.Helper()
	s, err := linproj.Interactive{Method: method}.Start(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range records {
		if err := s.SetControl(r, pos[k]); err != nil {
			t.Fatal(err)
		}
	}
	y := mat.NewDense(x.RawMatrix().Rows, 2, nil)
	s.Embedding(y)
	return y
}

// closeF32 reports whether a (decoded float32) equals b to float32 rounding.
func closeF32(a, b *mat.Dense) (bool, float64) {
	worst := 0.0
	scale := mat.Norm(b, math.Inf(1))
	for i, v := range a.RawMatrix().Data {
		worst = math.Max(worst, math.Abs(v-b.RawMatrix().Data[i]))
	}
	return worst <= 1e-6*math.Max(scale, 1), worst
}

func newHandler(t testing.TB, cfg Config) *Handler {
	t.Helper()
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// Every bad request gets a 4xx status and a JSON error that says what was expected.
func TestAPIErrors(t *testing.T) {
	d := synthetic(200, 5, 3, 1)
	h := newHandler(t, Config{Data: d, MaxBody: 1024})
	s := newSession(t, h)
	if rec := postJSON(t, h, s+"/control", `{"record": 3, "pos": [0.5, -1]}`); rec.Code != 200 {
		t.Fatalf("a good control point: %d %s", rec.Code, rec.Body)
	}
	ro := newHandler(t, Config{Data: d, Embedding: mat.NewDense(200, 2, nil)})
	rs := newSession(t, ro)
	big := `{"record": 1, "pos": [1, 2], "pad": "` + strings.Repeat("x", 2000) + `"}`
	for _, c := range []struct {
		name                    string
		h                       http.Handler
		method, path, ctype, in string
		status                  int
		says                    string
	}{
		{"bad JSON", h, "POST", s + "/control", "application/json", `{"record": 3, "pos": [1,`, 400, "bad JSON"},
		{"empty body", h, "POST", s + "/move", "application/json", ``, 400, "empty body"},
		{"two objects", h, "POST", s + "/move", "application/json", `{"record": 3, "pos": [1, 2]} {}`, 400, "one object"},
		{"unknown field", h, "POST", s + "/control", "application/json", `{"record": 3, "where": [1, 2]}`, 400, "unknown field"},
		{"missing record", h, "POST", s + "/control", "application/json", `{"pos": [1, 2]}`, 400, `missing "record"`},
		{"not JSON", h, "POST", s + "/control", "text/plain", `{"record": 3, "pos": [1, 2]}`, 415, "application/json"},
		{"oversize body", h, "POST", s + "/control", "application/json", big, 413, "larger than 1024 bytes"},
		{"unknown session", h, "POST", "/api/sessions/0123/control", "application/json", `{"record": 3, "pos": [1, 2]}`, 404, "no session"},
		{"record out of range", h, "POST", s + "/control", "application/json", `{"record": 200, "pos": [1, 2]}`, 400, "out of range 0..199"},
		{"negative record", h, "POST", s + "/move", "application/json", `{"record": -1, "pos": [1, 2]}`, 400, "out of range"},
		{"wrong dimension", h, "POST", s + "/control", "application/json", `{"record": 4, "pos": [1, 2, 3]}`, 400, "3 coordinates: expected 2"},
		{"move of no control", h, "POST", s + "/move", "application/json", `{"record": 4, "pos": [1, 2]}`, 400, "not a control point"},
		{"remove with pos", h, "POST", s + "/remove", "application/json", `{"record": 3, "pos": [1, 2]}`, 400, "only a record"},
		{"unknown method", h, "POST", s + "/method", "application/json", `{"method": "pca"}`, 400, `expected "mle" or "lsp"`},
		{"GET a change", h, "GET", s + "/control", "", "", 405, ""},
		{"record not a number", h, "GET", "/api/records/x", "", "", 400, "expected an integer"},
		{"no such record", h, "GET", "/api/records/200", "", "", 404, "expected 0..199"},
		{"read-only control", ro, "POST", rs + "/control", "application/json", `{"record": 3, "pos": [1, 2]}`, 409, "fixed embedding"},
		{"read-only uncertainty", ro, "GET", rs + "/uncertainty", "", "", 409, "fixed embedding"},
	} {
		rec := call(t, c.h, c.method, c.path, c.ctype, c.in)
		if rec.Code != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, rec.Code, c.status, rec.Body)
			continue
		}
		if c.says == "" {
			continue
		}
		var e struct{ Error string }
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || !strings.Contains(e.Error, c.says) {
			t.Errorf("%s: answer %q (%v), want a JSON error containing %q", c.name, rec.Body, err, c.says)
		}
	}
	// The failed requests changed nothing: one control point, where it was put.
	var c controlsJSON
	if err := json.Unmarshal(call(t, h, "GET", s+"/controls", "", "").Body.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Records) != 1 || c.Records[0] != 3 || c.Pos[0] != [2]float64{0.5, -1} {
		t.Errorf("controls after the bad requests: %+v", c)
	}
}

// The positions the API answers are linproj's for the same control points; two sessions (two
// tabs) do not see each other's changes.
func TestSessionsIndependent(t *testing.T) {
	d := synthetic(300, 6, 3, 2)
	h := newHandler(t, Config{Data: d})
	a, b := newSession(t, h), newSession(t, h)
	before := float32s(t, call(t, h, "GET", b+"/positions", "", ""), 2)
	postJSON(t, h, a+"/control", `{"record": 10, "pos": [1, 1]}`)
	postJSON(t, h, a+"/control", `{"record": 20, "pos": [-2, 0.5]}`)
	rec := postJSON(t, h, a+"/move", `{"record": 10, "pos": [3, -1]}`)
	got := float32s(t, rec, 2)
	want := reference(t, d.X, linproj.MLE, []int{10, 20}, [][]float64{{3, -1}, {-2, 0.5}})
	if ok, worst := closeF32(got, want); !ok {
		t.Errorf("session A's positions differ from linproj's by up to %g", worst)
	}
	if rec.Header().Get("X-Lowdim-Controls") != "2" || rec.Header().Get("X-Lowdim-Method") != "mle" {
		t.Errorf("headers %v", rec.Header())
	}
	after := float32s(t, call(t, h, "GET", b+"/positions", "", ""), 2)
	if !mat.Equal(before, after) {
		t.Error("session B's positions changed when A moved a point")
	}
	if ok, _ := closeF32(before, reference(t, d.X, linproj.MLE, nil, nil)); !ok {
		t.Error("a new session does not show MLE's prior (PCA)")
	}
	// Switching A to LSP keeps its control points; B stays MLE with none.
	got = float32s(t, postJSON(t, h, a+"/method", `{"method": "lsp"}`), 2)
	if ok, worst := closeF32(got, reference(t, d.X, linproj.LSP, []int{10, 20}, [][]float64{{3, -1}, {-2, 0.5}})); !ok {
		t.Errorf("LSP positions differ from linproj's by up to %g", worst)
	}
	var cb controlsJSON
	json.Unmarshal(call(t, h, "GET", b+"/controls", "", "").Body.Bytes(), &cb)
	if cb.Method != "mle" || len(cb.Records) != 0 {
		t.Errorf("session B: %+v", cb)
	}
	// Remove, reset, suggest.
	got = float32s(t, postJSON(t, h, a+"/remove", `{"record": 20}`), 2)
	if ok, _ := closeF32(got, reference(t, d.X, linproj.LSP, []int{10}, [][]float64{{3, -1}})); !ok {
		t.Error("positions after remove differ from linproj's")
	}
	var sg map[string]int
	json.Unmarshal(call(t, h, "GET", a+"/suggest", "", "").Body.Bytes(), &sg)
	ref, _ := linproj.Interactive{Method: linproj.LSP}.Start(context.Background(), d.X)
	ref.SetControl(10, []float64{3, -1})
	if sg["record"] != ref.Suggest() || sg["record"] == 10 {
		t.Errorf("suggest %v, linproj says %d", sg, ref.Suggest())
	}
	u := float32s(t, call(t, h, "GET", a+"/uncertainty", "", ""), 1)
	ru := make([]float64, 300)
	ref.Uncertainty(ru)
	if ok, worst := closeF32(u, mat.NewDense(300, 1, ru)); !ok {
		t.Errorf("uncertainty differs from linproj's by up to %g", worst)
	}
	got = float32s(t, postJSON(t, h, a+"/reset", ""), 2)
	if ok, _ := closeF32(got, mat.NewDense(300, 2, nil)); !ok {
		t.Error("LSP after reset does not map every record to the origin")
	}
	if rec := call(t, h, "DELETE", a, "application/json", ""); rec.Code != http.StatusNoContent {
		t.Errorf("DELETE: %d", rec.Code)
	}
	if rec := call(t, h, "GET", a+"/positions", "", ""); rec.Code != http.StatusNotFound {
		t.Errorf("a deleted session answers %d", rec.Code)
	}
}

// Sessions are capped, and idle ones expire.
func TestSessionLimits(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(50, 4, 2, 3), MaxSessions: 2, IdleTimeout: time.Minute})
	clock := time.Unix(1e9, 0)
	h.now = func() time.Time { return clock }
	a := newSession(t, h)
	newSession(t, h)
	rec := postJSON(t, h, "/api/sessions", "")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "too many sessions") || rec.Header().Get("Retry-After") == "" {
		t.Errorf("third session: %d %s", rec.Code, rec.Body)
	}
	clock = clock.Add(50 * time.Second)
	call(t, h, "GET", a+"/positions", "", "") // a is used, the other is not
	clock = clock.Add(30 * time.Second)
	if n := h.Sessions(); n != 1 {
		t.Errorf("%d sessions after the idle one expired, want 1", n)
	}
	newSession(t, h)
	if rec := call(t, h, "GET", a+"/positions", "", ""); rec.Code != 200 {
		t.Errorf("the used session: %d", rec.Code)
	}
}

// The quality answer on a sampled view: the Report of quality.Evaluate on the same rows, and
// per-row losses that sum to n times its smoothed losses.
func TestQuality(t *testing.T) {
	d := synthetic(700, 8, 4, 4)
	h := newHandler(t, Config{Data: d, Sample: 250, Neighbors: 10, Seed: 9})
	s := newSession(t, h)
	postJSON(t, h, s+"/control", `{"record": 5, "pos": [4, 4]}`)
	rec := call(t, h, "GET", s+"/quality", "", "")
	var q qualityJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &q); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s %v", rec.Code, rec.Body, err)
	}
	if !q.Sampled || q.N != 250 || len(q.Rows) != 250 || len(q.Precision) != 250 || q.Revision != 1 {
		t.Fatalf("sampled=%v n=%d rows=%d precision=%d revision=%d", q.Sampled, q.N, len(q.Rows), len(q.Precision), q.Revision)
	}
	y := reference(t, d.X, linproj.MLE, []int{5}, [][]float64{{4, 4}})
	sub := d.Subset(q.Rows)
	ys := mat.NewDense(250, 2, nil)
	for k, i := range q.Rows {
		ys.SetRow(k, y.RawRowView(i))
		if k > 0 && i <= q.Rows[k-1] {
			t.Fatal("sample rows are not increasing")
		}
	}
	r, err := quality.Evaluate(context.Background(), sub.X, ys, sub.Labels, quality.Options{Neighbors: 10})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(q.Trustworthiness-r.Trustworthiness[9]) > 1e-12 || math.Abs(q.SmoothedRecallLoss-r.SmoothedRecallLoss) > 1e-9 || q.KNNError == nil || *q.KNNError != *r.KNNError {
		t.Errorf("quality %+v; Evaluate T(10)=%g recall %g kNN %g", q, r.Trustworthiness[9], r.SmoothedRecallLoss, *r.KNNError)
	}
	var sp float64
	for _, v := range q.Precision {
		sp += v
	}
	if math.Abs(sp-250*q.SmoothedPrecisionLoss) > 1e-9*sp {
		t.Errorf("per-row precision losses sum to %g, 250 × mean = %g", sp, 250*q.SmoothedPrecisionLoss)
	}
	// The same seed gives the same sample.
	h2 := newHandler(t, Config{Data: d, Sample: 250, Neighbors: 10, Seed: 9})
	if !equalInts(h2.sample, q.Rows) {
		t.Error("the same seed gave another sample")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Exports: the embedding CSV is lowdim embed -o's format at full precision; the projection CSV
// and the model file reproduce it from the data.
func TestExports(t *testing.T) {
	d := synthetic(120, 5, 3, 5)
	d.FeatureNames = []string{"a", "b", "c", "d", "e"}
	h := newHandler(t, Config{Data: d, Interactive: linproj.Interactive{Normalize: linproj.NormalizeZScore}})
	s := newSession(t, h)
	postJSON(t, h, s+"/control", `{"record": 7, "pos": [2, -3]}`)
	rec := call(t, h, "GET", s+"/embedding.csv", "", "")
	if !strings.Contains(rec.Header().Get("Content-Disposition"), `filename="synthetic120-embedding.csv"`) {
		t.Errorf("Content-Disposition %q", rec.Header().Get("Content-Disposition"))
	}
	emb, err := dataset.Read(rec.Body, "embedding.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := linproj.Interactive{Normalize: linproj.NormalizeZScore}.Start(context.Background(), d.X)
	ref.SetControl(7, []float64{2, -3})
	want := mat.NewDense(120, 2, nil)
	ref.Embedding(want)
	if !mat.EqualApprox(emb.X, want, 1e-12) || emb.ClassNames[emb.Labels[0]] != d.ClassNames[d.Labels[0]] {
		t.Error("the exported embedding is not the session's")
	}
	rows, err := csv.NewReader(call(t, h, "GET", s+"/projection.csv", "", "").Body).ReadAll()
	if err != nil || len(rows) != 5 || strings.Join(rows[0], ",") != "row,a,b,c,d,e" {
		t.Fatalf("projection CSV %v %v", rows, err)
	}
	num := func(r int) []float64 {
		v := make([]float64, 5)
		for j := range v {
			v[j], _ = strconv.ParseFloat(rows[r][j+1], 64)
		}
		return v
	}
	mean, scale, px, py := num(1), num(2), num(3), num(4)
	for _, i := range []int{0, 7, 119} {
		var x, y float64
		for j, v := range d.X.RawRowView(i) {
			z := (v - mean[j]) * scale[j]
			x += px[j] * z
			y += py[j] * z
		}
		if math.Abs(x-want.At(i, 0)) > 1e-9 || math.Abs(y-want.At(i, 1)) > 1e-9 {
			t.Errorf("row %d by the projection CSV: (%g, %g), embedding (%g, %g)", i, x, y, want.At(i, 0), want.At(i, 1))
		}
	}
	m, err := modelio.Decode(call(t, h, "GET", s+"/model.lowdim", "", "").Body, "model.lowdim")
	if err != nil {
		t.Fatal(err)
	}
	lm, ok := m.(*linproj.LinearModel)
	if !ok {
		t.Fatalf("model file holds %T", m)
	}
	var got mat.Dense
	if err := lm.Transform(&got, d.X); err != nil || !mat.EqualApprox(&got, want, 1e-9) {
		t.Errorf("the model file's transform differs from the embedding (%v)", err)
	}
}

// A read-only view shows the given embedding and measures it.
func TestReadOnlyView(t *testing.T) {
	d := synthetic(100, 4, 2, 6)
	emb := mat.NewDense(100, 2, nil)
	for i := 0; i < 100; i++ {
		emb.Set(i, 0, d.X.At(i, 0))
		emb.Set(i, 1, d.X.At(i, 1))
	}
	h := newHandler(t, Config{Data: d, Embedding: emb, Neighbors: 5})
	s := newSession(t, h)
	if ok, _ := closeF32(float32s(t, call(t, h, "GET", s+"/positions", "", ""), 2), emb); !ok {
		t.Error("positions are not the embedding")
	}
	var q qualityJSON
	json.Unmarshal(call(t, h, "GET", s+"/quality", "", "").Body.Bytes(), &q)
	want, _ := quality.Evaluate(context.Background(), d.X, emb, d.Labels, quality.Options{Neighbors: 5})
	if q.N != 100 || q.Sampled || q.Continuity != want.Continuity[4] {
		t.Errorf("quality of the fixed view: %+v, want C(5) = %g", q, want.Continuity[4])
	}
	if _, err := New(Config{Data: d, Embedding: mat.NewDense(99, 2, nil)}); err == nil {
		t.Error("an embedding of 99 rows for 100 was accepted")
	}
}

// Close stops a quality computation under way: its request is answered 503 at once.
func TestCloseStopsQuality(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(100, 4, 2, 7), Neighbors: 5})
	s := newSession(t, h)
	h.qsem <- struct{}{} // another computation holds the slot: this one waits
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- call(t, h, "GET", s+"/quality", "", "") }()
	time.Sleep(20 * time.Millisecond)
	h.Close()
	select {
	case rec := <-done:
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "cancelled") {
			t.Errorf("quality after Close: %d %s", rec.Code, rec.Body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("quality request still waiting 5 s after Close")
	}
	if rec := postJSON(t, h, "/api/sessions", ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("a session after Close: %d", rec.Code)
	}
}

// Only requests naming an IP address, localhost or a configured host are answered (DNS rebinding).
func TestHosts(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(30, 3, 2, 8), Neighbors: 3, Hosts: []string{"lab.example"}})
	for host, want := range map[string]int{
		"127.0.0.1:7878": 200, "[::1]:7878": 200, "localhost:7878": 200, "LOCALHOST.": 200, "10.1.2.3": 200,
		"lab.example:80": 200, "evil.example:7878": http.StatusMisdirectedRequest, "127.0.0.1.nip.io": http.StatusMisdirectedRequest,
	} {
		req := httptest.NewRequest("GET", "/api/data", nil)
		req.Host = host // after NewRequest, which sets example.com
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
		}
	}
}

// The page and its assets are served from the binary, with a policy that forbids outside sources.
func TestAssets(t *testing.T) {
	h := newHandler(t, Config{Data: synthetic(30, 3, 2, 8), Neighbors: 3})
	for path, want := range map[string]string{"/": `id="views"`, "/static/app.js": "requestAnimationFrame", "/static/render.js": "webgl2", "/static/style.css": ".view canvas"} {
		rec := call(t, h, "GET", path, "", "")
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(want)) {
			t.Errorf("%s: %d, body without %q", path, rec.Code, want)
		}
		if !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("%s: CSP %q", path, rec.Header().Get("Content-Security-Policy"))
		}
	}
	for _, path := range []string{"/static/nope.js", "/nope"} {
		if rec := call(t, h, "GET", path, "", ""); rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d", path, rec.Code)
		}
	}
}
