package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// discard is a ResponseWriter that keeps nothing: the benchmarks time the server alone.
type discard struct {
	h      http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(status int)      { d.status = status }
func (d *discard) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

// BenchmarkMove times the server's answer to one drag step: POST …/move of a control point
// (3 control points, MLE) through the handler, including the n×2 float32 positions it writes.
// The data are seeded synthetic blobs of 50 features.
func BenchmarkMove(b *testing.B) {
	for _, n := range []int{1797, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			h := newHandler(b, Config{Data: synthetic(n, 50, 10, 1)})
			s := newSession(b, h)
			for k, r := range []int{1, 2, 3} {
				if rec := postJSON(b, h, s+"/control", fmt.Sprintf(`{"record": %d, "pos": [%d, 1]}`, r, k)); rec.Code != 200 {
					b.Fatal(rec.Body)
				}
			}
			bodies := []string{`{"record": 2, "pos": [3.5, -1.25]}`, `{"record": 2, "pos": [3.75, -1.5]}`}
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("POST", s+"/move", strings.NewReader(bodies[i%2]))
				req.Host = "127.0.0.1"
				req.Header.Set("Content-Type", "application/json")
				w.n, w.status = 0, 0
				h.ServeHTTP(w, req)
				if w.status != 0 && w.status != 200 || w.n != 8*n {
					b.Fatalf("status %d, %d bytes", w.status, w.n)
				}
			}
		})
	}
}

// BenchmarkSessionStart times POST /api/sessions after the first: a page's session on the
// shared normalised data (linproj.Prepared), its PCA view and answer.
func BenchmarkSessionStart(b *testing.B) {
	h := newHandler(b, Config{Data: synthetic(100000, 50, 10, 1), MaxSessions: 1})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := newSession(b, h)
		b.StopTimer()
		call(b, h, "DELETE", s, "application/json", "")
		b.StartTimer()
	}
}

// BenchmarkPinAtCap times the most expensive pin the server accepts: the last control point
// Config.MaxControls' default allows (100 on the digits, 44 on 100,000 rows) through the
// handler, answer included — then its removal, so that each iteration pins it again. Issue 18
// measured the 500th pin, uncapped, at 1.19 s on the digits.
func BenchmarkPinAtCap(b *testing.B) {
	for _, c := range []struct {
		name string
		d    *dataset.Set
	}{{"digits", dataset.Digits()}, {"n=100000", synthetic(100000, 50, 10, 1)}} {
		b.Run(c.name, func(b *testing.B) {
			h := newHandler(b, Config{Data: c.d})
			s := newSession(b, h)
			// The pins before, at once (one by one through the API costs Σ O(n·m²)).
			m := h.cfg.MaxControls - 1
			recs, pos := make([]int, m), mat.NewDense(m, 2, nil)
			for r := range recs {
				recs[r] = r
				pos.Set(r, 0, float64(r%7))
				pos.Set(r, 1, float64(r%5))
			}
			if err := h.lookup(strings.TrimPrefix(s, "/api/sessions/")).lin.SetControls(recs, pos); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if rec := postJSON(b, h, s+"/control", `{"record": 500, "pos": [1, 1]}`); rec.Code != 200 {
					b.Fatal(rec.Body)
				}
				b.StopTimer()
				postJSON(b, h, s+"/remove", `{"record": 500}`)
				b.StartTimer()
			}
		})
	}
}
