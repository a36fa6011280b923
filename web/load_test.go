package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lowdim/lowdim/dataset"
)

// loadConfig is one load run: sessions pages, each moving a control point rate times a second
// for dur, with at most inflight moves of a page under way at once (beyond it a pointer
// position is not sent: the next one carries the drag on, as the page does with 1).
type loadConfig struct {
	sessions, inflight int
	rate               float64
	dur                time.Duration
	// coef: each move is answered with its coefficients (POST …/move?answer=coef), and the
	// client rebuilds the n positions from the factors it fetched once (GET …/basis), as the
	// page does; otherwise every answer carries the n×2 float32 positions.
	coef bool
	// rebuild (coef runs): the clients rebuild the positions from each answer in this process.
	// Without it an answer counts as shown when it arrives, and the rebuild (a page's own work,
	// O(n·D·m) in its browser) is timed separately: loadResult.rebuild.
	rebuild bool
}

// loadResult is what a load run measured.
type loadResult struct {
	moves     int           // pointer positions generated
	requests  int           // moves sent
	errors    int           // answers other than 200 with n×2 float32, and failed requests
	coalesced int           // answers 204: the server dropped the move for a newer one
	p50, p99  time.Duration // latency of a move answered with a view, send to its last byte
	lagP99    time.Duration // of every pointer position: until an answer showing it or a newer one
	peakRSS   int64         // bytes, of this process (server and clients), from VmHWM
	cpu       time.Duration // user+system time of this process (server and clients) during the run
	load      string        // /proc/loadavg at the end: how much of the machine others took
	rebuild   time.Duration // coef runs: the median time of one client's rebuild, timed after the run
	firstErr  string
}

// loadSession is one page of a load run: its moves and the answers so far.
type loadSession struct {
	prefix string
	// The factors of the view (coef runs): base n×2, ax n×m, and the basis they belong to;
	// pos is where the client rebuilds the positions.
	basis    string
	base, ax []float64
	m        int
	pmu      sync.Mutex
	pos      []float32
	mu       sync.Mutex
	born     []time.Time // generation time of pointer position j
	caught   int         // every position ≤ caught is shown by an answer received
	lags     []time.Duration
}

// fetchBasis fetches the session's factors (GET …/basis).
func (s *loadSession) fetchBasis(client *http.Client, url string, n int) error {
	resp, err := client.Get(url + s.prefix + "/basis")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	m, _ := strconv.Atoi(resp.Header.Get("X-Lowdim-Controls"))
	nb := 0
	if resp.Header.Get("X-Lowdim-Base") == "1" {
		nb = 2 * n
	}
	if resp.StatusCode != 200 || len(b) != 8*(nb+n*m) {
		return fmt.Errorf("basis: status %d, %d bytes for n %d, m %d", resp.StatusCode, len(b), n, m)
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	s.basis, s.base, s.ax, s.m, s.pos = resp.Header.Get("X-Lowdim-Basis"), v[:nb], v[nb:], m, make([]float32, 2*n)
	return nil
}

// rebuild redraws the session's positions from a move's coefficients, as the page does:
// u_i = base_i + C ax_i, in Embedding's order, rounded to float32.
func (s *loadSession) rebuild(a coefJSON) bool {
	m := s.m
	s.pmu.Lock()
	defer s.pmu.Unlock()
	c0, c1 := a.Coef[:m], a.Coef[m:]
	for i := range len(s.pos) / 2 {
		var v0, v1 float64
		if len(s.base) > 0 {
			v0, v1 = s.base[2*i], s.base[2*i+1]
		}
		for k, x := range s.ax[i*m : (i+1)*m] {
			v0 += c0[k] * x
			v1 += c1[k] * x
		}
		s.pos[2*i], s.pos[2*i+1] = float32(v0), float32(v1)
	}
	return true
}

// check reports whether a move's coefficients apply to the session's factors.
func (s *loadSession) check(a coefJSON) bool {
	return strconv.Itoa(a.Basis) == s.basis && a.Controls == s.m && a.Dim == 2 && len(a.Coef) == 2*s.m
}

// answered records that an answer showing position j (or a newer one) arrived at t.
func (s *loadSession) answered(j int, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ; s.caught < j; s.caught++ {
		s.lags = append(s.lags, t.Sub(s.born[s.caught+1]))
	}
}

// runLoad serves h over loopback HTTP (with h.Server()'s timeouts) and drives it: each session
// pins records 1, 2 and 3, then moves record 2 round a circle. A move's answer is taken to
// show that move or a newer one (the server applies a session's moves in order and answers a
// coalesced move with the newer view), so the lag measured is an upper bound.
func runLoad(tb testing.TB, h *Handler, n int, cfg loadConfig) loadResult {
	srv := httptest.NewUnstartedServer(h)
	srv.Config = h.Server()
	srv.Start()
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.sessions * cfg.inflight, DisableCompression: true,
		ReadBufferSize: 64 << 10}}
	// Answers are read in 256 kB pieces (io.Discard would take 8 kB a system call).
	bufs := sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}
	drain := func(r io.Reader) int64 {
		bp := bufs.Get().(*[]byte)
		defer bufs.Put(bp)
		buf := *bp
		total := int64(0)
		for {
			k, err := r.Read(buf)
			total += int64(k)
			if err != nil {
				return total
			}
		}
	}
	defer client.CloseIdleConnections()
	post := func(path, body string) (*http.Response, error) {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return client.Do(req)
	}
	// Start the sessions, two at a time (a session on 100,000 rows takes a core for 0.35 s).
	ss := make([]*loadSession, cfg.sessions)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	var startErr error
	var startMu sync.Mutex
	for k := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			err := func() error {
				resp, err := post("/api/sessions", "{}")
				if err != nil {
					return err
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				id, ok := bytes.CutPrefix(b, []byte(`{"id":"`))
				if resp.StatusCode != http.StatusCreated || !ok {
					return fmt.Errorf("session %d: %d %s", k, resp.StatusCode, b)
				}
				ss[k] = &loadSession{prefix: "/api/sessions/" + string(id[:32])}
				for r := 1; r <= 3; r++ {
					resp, err := post(ss[k].prefix+"/control", fmt.Sprintf(`{"record": %d, "pos": [%d, 1]}`, r, r))
					if err != nil {
						return err
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						return fmt.Errorf("pin %d: %d", r, resp.StatusCode)
					}
				}
				if cfg.coef {
					return ss[k].fetchBasis(client, srv.URL, n)
				}
				return nil
			}()
			if err != nil {
				startMu.Lock()
				startErr = err
				startMu.Unlock()
			}
		}()
	}
	wg.Wait()
	if startErr != nil {
		tb.Fatal(startErr)
	}

	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset VmHWM (Linux), if allowed
	var (
		resMu sync.Mutex
		res   loadResult
		lat   []time.Duration
	)
	send := func(s *loadSession, j int, pos [2]float64) {
		t0 := time.Now()
		path := s.prefix + "/move"
		if cfg.coef {
			path += "?answer=coef"
		}
		resp, err := post(path, fmt.Sprintf(`{"record": 2, "pos": [%.6f, %.6f]}`, pos[0], pos[1]))
		ok, coalesced, msg := false, false, ""
		if err == nil {
			coalesced = resp.StatusCode == http.StatusNoContent && resp.Header.Get("X-Lowdim-Coalesced") == "true"
			if cfg.coef && resp.StatusCode == 200 {
				var a coefJSON
				err := json.NewDecoder(resp.Body).Decode(&a)
				ok = err == nil && s.check(a) && (!cfg.rebuild || s.rebuild(a))
				msg = fmt.Sprintf("status 200, coefficients %+v (%v) for basis %s", a, err, s.basis)
				drain(resp.Body)
			} else {
				nb := drain(resp.Body)
				ok = resp.StatusCode == 200 && nb == int64(8*n) || coalesced
				msg = fmt.Sprintf("status %d, %d bytes", resp.StatusCode, nb)
			}
			resp.Body.Close()
		} else {
			msg = err.Error()
		}
		t1 := time.Now()
		if ok && !coalesced { // a coalesced move is shown by the newer move's answer
			s.answered(j, t1)
		}
		resMu.Lock()
		defer resMu.Unlock()
		res.requests++
		if !coalesced { // latency of the answers that carry a view (a 204 is quicker)
			lat = append(lat, t1.Sub(t0))
		}
		if !ok {
			res.errors++
			if res.firstErr == "" {
				res.firstErr = msg
			}
		}
		if coalesced {
			res.coalesced++
		}
	}
	cpu0 := cpuTime()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.dur)
	defer cancel()
	var moves sync.WaitGroup
	for k, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Duration(float64(time.Second) / cfg.rate))
			defer tick.Stop()
			slots := make(chan struct{}, cfg.inflight)
			s.born = append(s.born, time.Time{}) // position 0: the pins
			sent := 0
			var last [2]float64
			for j := 1; ; j++ {
				select {
				case <-ctx.Done():
					// Carry the last position on if it was not sent, so that every position is shown.
					if sent < j-1 {
						slots <- struct{}{}
						moves.Add(1)
						go func() { defer moves.Done(); send(s, j-1, last); <-slots }()
					}
					return
				case <-tick.C:
				}
				phi := float64(j)*0.1 + float64(k)
				last = [2]float64{2 + math.Cos(phi), 1 + math.Sin(phi)}
				s.mu.Lock()
				s.born = append(s.born, time.Now())
				s.mu.Unlock()
				select {
				case slots <- struct{}{}:
					sent = j
					moves.Add(1)
					go func(j int, pos [2]float64) { defer moves.Done(); send(s, j, pos); <-slots }(j, last)
				default: // inflight moves under way: this position is carried on by the next
				}
			}
		}()
	}
	wg.Wait()
	moves.Wait()

	var lags []time.Duration
	for _, s := range ss {
		s.mu.Lock()
		res.moves += len(s.born) - 1
		lags = append(lags, s.lags...)
		s.mu.Unlock()
	}
	slices.Sort(lat)
	slices.Sort(lags)
	q := func(v []time.Duration, p float64) time.Duration {
		if len(v) == 0 {
			return 0
		}
		return v[min(len(v)-1, int(p*float64(len(v))))]
	}
	res.p50, res.p99, res.lagP99 = q(lat, 0.5), q(lat, 0.99), q(lags, 0.99)
	res.peakRSS = peakRSS()
	res.cpu = cpuTime() - cpu0
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		res.load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	if cfg.coef {
		var rb []time.Duration
		for _, s := range ss {
			t0 := time.Now()
			s.rebuild(coefJSON{Coef: make([]float64, 2*s.m)})
			rb = append(rb, time.Since(t0))
		}
		slices.Sort(rb)
		res.rebuild = q(rb, 0.5)
	}
	return res
}

// cpuTime returns the user and system time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS returns the peak resident set of this process (VmHWM), or 0 where /proc has none.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkLoad drives the server over loopback HTTP as 100 pages, each moving a control point
// 60 times a second, on the digits (1797×64) and on 100,000 seeded synthetic rows of 50
// features, and reports requests, errors, the p50 and p99 latency of a move, the p99 lag of the
// view behind the newest pointer position, and the peak RSS (of this process: server and
// clients; the sessions share one normalised copy of the data, linproj.Prepared). Each page keeps
// up to LOWDIM_LOAD_INFLIGHT moves under way (default 4: a client that does not wait for its
// answers, which is what makes the server coalesce); LOWDIM_LOAD_SECONDS sets the duration
// (default 10). Clients and server share the machine's cores.
//
//	go test -run X -bench Load -benchtime 1x ./web
func BenchmarkLoad(b *testing.B) {
	cfg := loadConfig{sessions: 100, rate: 60, inflight: 4, dur: 10 * time.Second}
	if v, err := strconv.Atoi(os.Getenv("LOWDIM_LOAD_INFLIGHT")); err == nil && v > 0 {
		cfg.inflight = v
	}
	if v, err := strconv.ParseFloat(os.Getenv("LOWDIM_LOAD_SECONDS"), 64); err == nil && v > 0 {
		cfg.dur = time.Duration(v * float64(time.Second))
	}
	for _, c := range []struct {
		name string
		data func() *dataset.Set
	}{
		{"digits", dataset.Digits},
		{"n=100000", func() *dataset.Set { return synthetic(100000, 50, 10, 1) }},
	} {
		for _, form := range []string{"positions", "coef+rebuild", "coef"} {
			b.Run(c.name+"/"+form, func(b *testing.B) {
				d := c.data()
				cfg := cfg
				cfg.coef = form != "positions"
				cfg.rebuild = form == "coef+rebuild"
				h := newHandler(b, Config{Data: d, MaxSessions: cfg.sessions, MaxClientSessions: cfg.sessions})
				for i := 0; i < b.N; i++ {
					r := runLoad(b, h, d.Len(), cfg)
					b.Logf("%s, answers as %s: %d sessions × %g moves/s × %v, %d in flight: %d moves, %d requests, %d errors (%s), %d coalesced; latency p50 %v p99 %v; lag p99 %v; peak RSS %d MB; CPU %.0f µs per request (server and clients); one client's rebuild %v; load average %s",
						c.name, form, cfg.sessions, cfg.rate, cfg.dur, cfg.inflight, r.moves, r.requests, r.errors, r.firstErr, r.coalesced,
						r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.lagP99.Round(10*time.Microsecond), r.peakRSS>>20,
						float64(r.cpu.Microseconds())/float64(max(r.requests, 1)), r.rebuild.Round(time.Microsecond), r.load)
					b.ReportMetric(float64(r.requests), "requests")
					b.ReportMetric(float64(r.errors), "errors")
					b.ReportMetric(float64(r.p50.Microseconds())/1e3, "p50-ms")
					b.ReportMetric(float64(r.p99.Microseconds())/1e3, "p99-ms")
					b.ReportMetric(float64(r.lagP99.Microseconds())/1e3, "lag-p99-ms")
					b.ReportMetric(float64(r.peakRSS>>20), "peak-RSS-MB")
					b.ReportMetric(float64(r.cpu.Microseconds())/float64(max(r.requests, 1)), "cpu-µs/request")
					// Sessions stay for the next iteration; fresh ones would be refused at the cap.
					h.mu.Lock()
					clear(h.sessions)
					h.mu.Unlock()
				}
			})
		}
	}
}
