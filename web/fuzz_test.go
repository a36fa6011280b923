package web

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"testing"
)

// checkAnswer fails unless rec is one of the answers a body may get: positions (200) that are
// n×2 finite float32, or a JSON error naming the fault with one of the statuses allowed.
func checkAnswer(t *testing.T, path, body string, code int, ctype string, b []byte, n int, allowed ...int) {
	t.Helper()
	if code == http.StatusOK || code == http.StatusCreated {
		if ctype == "application/json" {
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil || len(v) == 0 {
				t.Fatalf("%s %q: %d with body %q", path, body, code, b)
			}
			return
		}
		if len(b) != 8*n {
			t.Fatalf("%s %q: %d with %d bytes, want %d", path, body, code, len(b), 8*n)
		}
		for k := 0; k < 2*n; k++ {
			if v := math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])); math.IsInf(float64(v), 0) || v != v {
				t.Fatalf("%s %q: position %d is %v", path, body, k, v)
			}
		}
		return
	}
	for _, a := range allowed {
		if code == a {
			var e struct{ Error string }
			if err := json.Unmarshal(b, &e); err != nil || e.Error == "" {
				t.Fatalf("%s %q: %d without a JSON error: %q", path, body, code, b)
			}
			return
		}
	}
	t.Fatalf("%s %q: status %d %q", path, body, code, b)
}

// FuzzControlBody sends arbitrary bodies to control, move and remove (which by op). A body is
// answered with positions that are all finite, or refused 400 (bad body), 409 (the pin cap)
// or 413 (too large), with a JSON error; an accepted control or move had a finite position
// within ±MaxCoord and an integral record in range. Never a 500, a panic or a hang.
//
//	go test -run X -fuzz FuzzControlBody -fuzztime 3m -parallel 1 ./web
func FuzzControlBody(f *testing.F) {
	for _, b := range []string{
		`{"record": 3, "pos": [0.5, -1]}`, `{"record": 3, "pos": [1e39, 0]}`, `{"record": 1e39, "pos": [1, 2]}`,
		`{"record": 3, "pos": [1e400, 2]}`, `{"record": 2.5, "pos": [1, 2]}`, `{"record": "3", "pos": ["1", 2]}`,
		`{"record": 3}`, `{"record": -1, "pos": [1, 2]}`, `{"record": 3, "pos": [1, 2, 3]}`, `{"pos": [1, 2]}`,
		`{"record": 3, "pos": [1,`, `{"record": 3, "pos": [1, 2]} {}`, `{"record": 3, "where": [1, 2]}`, ``,
		`{"record": 0e5, "pos": [-0, 1E+2]}`, `{"record": 3, "pos": null}`, `{"record": null}`, `[1, 2]`,
	} {
		for op := byte(0); op < 3; op++ {
			f.Add(op, b)
		}
	}
	const n = 40
	h, err := New(Config{Data: synthetic(n, 4, 2, 21), Neighbors: 3, MaxControls: 5, MaxBody: 4096})
	if err != nil {
		f.Fatal(err)
	}
	defer h.Close()
	s := newSession(f, h)
	calls := 0
	f.Fuzz(func(t *testing.T, op byte, body string) {
		if calls++; calls%50 == 0 {
			postJSON(t, h, s+"/reset", "{}")
		}
		path := s + []string{"/control", "/move", "/remove"}[op%3]
		rec := postJSON(t, h, path, body)
		checkAnswer(t, path, body, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes(), n,
			http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge)
		if rec.Code == http.StatusOK && op%3 != 2 {
			var c struct {
				Record float64
				Pos    []float64
			}
			if err := json.Unmarshal([]byte(body), &c); err != nil || len(c.Pos) != 2 || c.Record != math.Trunc(c.Record) || c.Record < 0 || c.Record >= n ||
				math.Abs(c.Pos[0]) > MaxCoord || math.Abs(c.Pos[1]) > MaxCoord {
				t.Fatalf("%s accepted %q (%v)", path, body, err)
			}
		}
	})
}

// FuzzSessionBodies sends arbitrary bodies to the requests that take no numbers — a new
// session, method and reset (which by op): each is answered as documented or refused 400 or
// 413 with a JSON error; a new session is refused 503 only at the session cap.
//
//	go test -run X -fuzz FuzzSessionBodies -fuzztime 3m -parallel 1 ./web
func FuzzSessionBodies(f *testing.F) {
	for _, b := range []string{``, `{}`, ` {} `, `{"method": "lsp"}`, `{"method": "mle"}`, `{"method": "pca"}`,
		`{"method": 1}`, `{"x": 1}`, `{} {}`, `null`, `[]`, `{"method": "lsp", "method": "mle"}`, "\ufeff{}"} {
		for op := byte(0); op < 3; op++ {
			f.Add(op, b)
		}
	}
	const n = 40
	h, err := New(Config{Data: synthetic(n, 4, 2, 22), Neighbors: 3, MaxSessions: 2, MaxClientSessions: 2, MaxBody: 4096})
	if err != nil {
		f.Fatal(err)
	}
	defer h.Close()
	s := newSession(f, h)
	f.Fuzz(func(t *testing.T, op byte, body string) {
		path := []string{"/api/sessions", s + "/method", s + "/reset"}[op%3]
		rec := postJSON(t, h, path, body)
		checkAnswer(t, path, body, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes(), n,
			http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable, http.StatusTooManyRequests)
		if rec.Code == http.StatusCreated { // keep one session beside s: end the new one
			var sj sessionJSON
			json.Unmarshal(rec.Body.Bytes(), &sj)
			call(t, h, "DELETE", "/api/sessions/"+sj.ID, "application/json", "")
		}
	})
}

// FuzzSelectBody sends arbitrary bodies to select: each is answered with the records inside
// the polygon — increasing, in range, as many as X-Lowdim-Selected says, each inside by the
// even–odd rule — or refused 400 or 413 with a JSON error. Never a 500, a panic or a hang.
//
//	go test -run X -fuzz FuzzSelectBody -fuzztime 3m -parallel 1 ./web
func FuzzSelectBody(f *testing.F) {
	for _, b := range []string{
		`{"view": 0, "polygon": [[-1, -1], [1, -1], [0, 1]]}`, `{"view": 1, "polygon": [[0, 0], [5, 0], [5, 5], [0, 5]]}`,
		`{"view": 0, "polygon": []}`, `{"view": 2, "polygon": [[0, 0], [1, 0], [1, 1]]}`, `{"view": -1, "polygon": []}`,
		`{"view": 0, "polygon": [[0, 0], [1, 1]]}`, `{"view": 0, "polygon": [[0, 0], [1], [1, 1]]}`,
		`{"view": 0, "polygon": [[1e308, 0], [-1e308, 1e308], [0, -1e308]]}`, `{"view": 0, "polygon": [[1e999, 0], [0, 0], [1, 1]]}`,
		`{"view": 0, "polygon": null}`, `{"view": "0"}`, `{}`, ``, `{"view": 0, "polygon": [[0, 0], [0, 0], [0, 0]]}`,
	} {
		f.Add(b)
	}
	const n = 60
	d := synthetic(n, 4, 2, 23)
	h, err := New(Config{Data: d, Neighbors: 3, MaxBody: 4096, Embedding: twoColumns(d.X), Views: []View{{Name: "v", Y: twoColumns(d.X)}}})
	if err != nil {
		f.Fatal(err)
	}
	defer h.Close()
	s := newSession(f, h)
	f.Fuzz(func(t *testing.T, body string) {
		rec := postJSON(t, h, s+"/select", body)
		if rec.Code != http.StatusOK {
			checkAnswer(t, "select", body, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes(), n,
				http.StatusBadRequest, http.StatusRequestEntityTooLarge)
			return
		}
		var b selectJSON
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			t.Fatalf("select accepted %q (%v)", body, err)
		}
		rows := rec.Body.Bytes()
		if len(rows)%4 != 0 || rec.Header().Get("X-Lowdim-Selected") != strconv.Itoa(len(rows)/4) {
			t.Fatalf("select %q: %d bytes, X-Lowdim-Selected %q", body, len(rows), rec.Header().Get("X-Lowdim-Selected"))
		}
		xs, ys := make([]float64, len(b.Polygon)), make([]float64, len(b.Polygon))
		for k, p := range b.Polygon {
			xs[k], ys[k] = p[0], p[1]
		}
		prev := int32(-1)
		for k := 0; k < len(rows); k += 4 {
			i := int32(binary.LittleEndian.Uint32(rows[k:]))
			if i <= prev || i >= n {
				t.Fatalf("select %q: row %d after %d", body, i, prev)
			}
			x, y := float64(float32(d.X.At(int(i), 0))), float64(float32(d.X.At(int(i), 1)))
			if !inPolygon(xs, ys, x, y) {
				t.Fatalf("select %q: row %d at (%v, %v) is outside", body, i, x, y)
			}
			prev = i
		}
	})
}
