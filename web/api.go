package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/neighbors"
	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/quality"
)

// apiError is an error answered with its own status.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) error {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

// errReadOnly is answered when a fixed embedding is asked to change.
var errReadOnly = errorf(http.StatusConflict, "this view is a fixed embedding (-embedding): it has no control points or projection")

// fail answers err as {"error": "…"} with a status that says whose fault it was.
func fail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var ae *apiError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		status = ae.status
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "60")
		}
	case errors.As(err, &mbe):
		status = http.StatusRequestEntityTooLarge
		err = fmt.Errorf("request body larger than %d bytes", mbe.Limit)
	case errors.Is(err, dataset.ErrInvalid):
		status = http.StatusBadRequest
	case errors.Is(err, errTooManySessions):
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "60")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		status = http.StatusServiceUnavailable
		err = errors.New("cancelled: the server is shutting down, the session ended or a newer request replaced this one")
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// writeJSON answers v as JSON with status. It encodes before it answers, so that a value JSON
// cannot carry (NaN, say) is a 500 that says so, never a 200 with an empty body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(map[string]string{"error": "the answer cannot be written as JSON: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// decode reads one JSON object of at most MaxBody bytes into v; unknown fields are errors.
// For an *emptyJSON, no body at all is accepted too. (admit has checked the Content-Type and
// started the body's deadline; decode ends the deadline once the body is read.)
func (h *Handler) decode(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mbe):
			return err
		case errors.As(err, &ne) && ne.Timeout():
			return errorf(http.StatusRequestTimeout, "the request body did not arrive within %v", h.cfg.BodyTimeout)
		}
		return errorf(http.StatusBadRequest, "reading the body: %v", err)
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	if _, ok := v.(*emptyJSON); ok && len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errorf(http.StatusBadRequest, "empty body: expected a JSON object")
		}
		return errorf(http.StatusBadRequest, "bad JSON body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errorf(http.StatusBadRequest, "bad JSON body: expected one object, found more after it")
	}
	return nil
}

// dataJSON describes the data set and the page's settings (GET /api/data).
type dataJSON struct {
	Title     string         `json:"title"`
	N         int            `json:"n"`
	H         int            `json:"h"`
	Features  []string       `json:"features"`
	Classes   []string       `json:"classes"`
	Labelled  bool           `json:"labelled"`
	ReadOnly  bool           `json:"read_only"`
	Method    string         `json:"method"`
	Sample    int            `json:"quality_rows"`
	Sampled   bool           `json:"quality_sampled"`
	Neighbors int            `json:"neighbors"`
	MaxBody   int64          `json:"max_body"`
	MaxCtrl   int            `json:"max_controls"`
	MaxCoord  float64        `json:"max_coord"`
	Views     []string       `json:"views"`                // the views' names, the main one first
	Dims      []int          `json:"dims"`                 // the views' coordinates per record (2 or 3), likewise
	Image     []int          `json:"image,omitempty"`      // width and height of a row's picture
	Words     bool           `json:"words"`                // rows are word counts
	Names     bool           `json:"has_names"`            // rows have names
	LiveMax   int            `json:"live_max"`             // the most records a live fit takes on the exact path
	LiveFast  int            `json:"live_max_fast"`        // a live t-NeRV or t-SNE fit
	LiveNeRV  int            `json:"live_max_nerv"`        // and a live Gaussian NeRV fit
	LiveStart *liveStartJSON `json:"live_start,omitempty"` // the live fit each page starts with
	// NoPE says why the page cannot run a live PE fit ("" when it can).
	NoPE string `json:"live_pe_unavailable,omitempty"`
}

// liveStartJSON is Config.Live for the page.
type liveStartJSON struct {
	Variant string  `json:"variant"`
	Lambda  float64 `json:"lambda"`
}

func (h *Handler) getData(w http.ResponseWriter, r *http.Request) {
	d := h.cfg.Data
	writeJSON(w, http.StatusOK, dataJSON{
		Title: h.cfg.Title, N: h.n, H: d.Dim(), Features: d.FeatureNames, Classes: d.ClassNames,
		Labelled: d.Labels != nil, ReadOnly: h.fixed != nil, Method: h.cfg.Interactive.Method.String(),
		Sample: h.quality(), Sampled: h.sample != nil, Neighbors: h.cfg.Neighbors, MaxBody: h.cfg.MaxBody,
		MaxCtrl: h.cfg.MaxControls, MaxCoord: MaxCoord, Views: h.viewNames(), Dims: h.dims, Words: h.cfg.Words, Names: d.RowNames != nil, LiveMax: LiveMax, LiveFast: LiveMaxFast, LiveNeRV: LiveMaxNeRV, LiveStart: h.liveStart(),
		Image: imageDims(h.cfg.Image), NoPE: errorText(h.livePE()),
	})
}

// liveStart returns Config.Live for the page, nil when no fit starts by itself.
func (h *Handler) liveStart() *liveStartJSON {
	l := h.cfg.Live
	if l.Variant == "" {
		return nil
	}
	out := &liveStartJSON{Variant: l.Variant, Lambda: nerv.DefaultLambda}
	switch {
	case l.Variant == "tsne":
		out.Lambda = 1
	case l.Lambda != nil:
		out.Lambda = *l.Lambda
	}
	return out
}

func imageDims(im [2]int) []int {
	if im[0] == 0 {
		return nil
	}
	return im[:]
}

// getLabels answers n little-endian int32 class indices (−1: unknown or unlabelled).
func (h *Handler) getLabels(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(h.labels)
}

// maxRecordValues bounds the feature values one record answer carries.
const maxRecordValues = 1024

// recordJSON is one record of the data (GET /api/records/{record}).
type recordJSON struct {
	Record    int       `json:"record"`
	Class     *string   `json:"class"`
	Name      string    `json:"name,omitempty"`
	Features  []string  `json:"features,omitempty"`
	Values    []float64 `json:"values"`
	Truncated bool      `json:"truncated"`
	// Top are the features of the largest positive values, largest first (?top=m): a
	// document's most frequent words.
	Top []topJSON `json:"top,omitempty"`
}

type topJSON struct {
	Feature string  `json:"feature"`
	Value   float64 `json:"value"`
}

func (h *Handler) parseRecord(s string) (int, error) {
	i, err := strconv.Atoi(s)
	if err != nil {
		return 0, errorf(http.StatusBadRequest, "record %q: expected an integer", s)
	}
	if i < 0 || i >= h.n {
		return 0, errorf(http.StatusNotFound, "no record %d: expected 0..%d", i, h.n-1)
	}
	return i, nil
}

func (h *Handler) getRecord(w http.ResponseWriter, r *http.Request) {
	i, err := h.parseRecord(r.PathValue("record"))
	if err != nil {
		fail(w, err)
		return
	}
	m := 0
	if q := r.URL.Query().Get("top"); q != "" {
		if m, err = strconv.Atoi(q); err != nil || m < 0 || m > 100 {
			fail(w, errorf(http.StatusBadRequest, "top: expected an integer 0..100, found %.40q", q))
			return
		}
	}
	d := h.cfg.Data
	row := d.X.RawRowView(i)
	limit := max(maxRecordValues, h.cfg.Image[0]*h.cfg.Image[1]) // a whole picture
	rec := recordJSON{Record: i, Values: row[:min(len(row), limit)], Truncated: len(row) > limit}
	for _, j := range topFeatures(row, m) {
		rec.Top = append(rec.Top, topJSON{h.featureName(j), row[j]})
	}
	if d.FeatureNames != nil {
		rec.Features = d.FeatureNames[:len(rec.Values)]
	}
	if d.Labels != nil && d.Labels[i] >= 0 {
		rec.Class = &d.ClassNames[d.Labels[i]]
	}
	if d.RowNames != nil {
		rec.Name = d.RowNames[i]
	}
	writeJSON(w, http.StatusOK, rec)
}

// sessionJSON answers POST /api/sessions.
type sessionJSON struct {
	ID       string `json:"id"`
	Method   string `json:"method"`
	ReadOnly bool   `json:"read_only"`
}

func (h *Handler) createSession(w http.ResponseWriter, r *http.Request) {
	if err := h.decode(w, r, &emptyJSON{}); err != nil {
		fail(w, err)
		return
	}
	client, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		client = r.RemoteAddr
	}
	s, err := h.newSession(r.Context(), client)
	if err != nil {
		fail(w, err)
		return
	}
	out := sessionJSON{ID: s.id, ReadOnly: s.lin == nil}
	if s.lin != nil {
		out.Method = s.lin.Method().String()
	}
	w.Header().Set("Location", "/api/sessions/"+s.id)
	writeJSON(w, http.StatusCreated, out)
}

func (h *Handler) deleteSession(w http.ResponseWriter, r *http.Request) {
	if !h.end(r.PathValue("id")) {
		fail(w, errorf(http.StatusNotFound, "no session %q (it may have expired: reload the page)", r.PathValue("id")))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// withSession finds the request's session for fn (404 when there is none).
func (h *Handler) withSession(fn func(w http.ResponseWriter, r *http.Request, s *session) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := h.lookup(r.PathValue("id"))
		if s == nil {
			fail(w, errorf(http.StatusNotFound, "no session %q (it may have expired: reload the page)", r.PathValue("id")))
			return
		}
		if err := fn(w, r, s); err != nil {
			fail(w, err)
		}
	}
}

// renderLocked brings s.buf, the float32 answer, to the current revision and reports whether
// every position is finite as a float32. s.mu must be held.
func (h *Handler) renderLocked(s *session) bool {
	if s.bRev != s.rev {
		h.embedLocked(s)
		s.buf, s.finite = appendFloat32s(s.buf[:0], s.y)
		s.bRev = s.rev
	}
	return s.finite
}

// writePositionsLocked answers the session's current positions: n×2 little-endian float32,
// row-major, with headers that carry the method, the number of control points and the view's
// revision. s.mu must be held: the answer is written under it, so that a session has one
// answer under way at a time. Under overload every session then gets its share of the server,
// and a client with many moves in flight gets its newest view sooner instead of several at
// once, each slower (a slow reader holds only its own session, for at most WriteTimeout).
func (h *Handler) writePositionsLocked(w http.ResponseWriter, s *session) {
	hd := w.Header()
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Lowdim-Revision", strconv.Itoa(s.rev))
	body := h.fixed
	if s.lin == nil {
		hd.Set("X-Lowdim-Controls", "0")
	} else {
		h.renderLocked(s)
		body = s.buf
		hd.Set("X-Lowdim-Method", s.lin.Method().String())
		hd.Set("X-Lowdim-Controls", strconv.Itoa(numControls(s.lin)))
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body) // a failed write means the client went away: nothing to answer
}

// numControls returns the number of control points of lin.
func numControls(lin *linproj.Session) int {
	recs, _ := lin.Controls()
	return len(recs)
}

// embedLocked brings s.y to the current revision; s.mu must be held.
func (h *Handler) embedLocked(s *session) {
	if s.yRev != s.rev {
		s.lin.Embedding(s.y)
		s.yRev = s.rev
	}
}

func (h *Handler) getPositions(w http.ResponseWriter, r *http.Request, s *session) error {
	s.mu.Lock()
	if s.lin != nil {
		h.applyPendingLocked(s)
	}
	h.writePositionsLocked(w, s)
	s.mu.Unlock()
	return nil
}

// MaxCoord bounds every coordinate a request may place a control point at. Positions are
// answered as float32 (largest 3.4e38): with |pos| ≤ 1e12 a view would have to magnify a
// placement by 1e26 to leave that range, and a change that does so anyway is undone and
// refused (400) rather than answered as ±Inf.
const MaxCoord = 1e12

// controlJSON is the body of control, move and remove: a record and (not for remove) its
// place. Both are kept as the JSON text so that a bad number is refused with its field's name
// and the text found, rather than rounded, clamped or turned into ±Inf.
type controlJSON struct {
	Record json.RawMessage   `json:"record"`
	Pos    []json.RawMessage `json:"pos"`
}

// number parses the JSON text of field as a finite number within ±limit.
func number(field string, raw json.RawMessage, limit float64) (float64, error) {
	t := strings.TrimSpace(string(raw))
	v, err := strconv.ParseFloat(t, 64)
	if t == "" || t[0] != '-' && (t[0] < '0' || t[0] > '9') || (err != nil && !errors.Is(err, strconv.ErrRange)) {
		return 0, errorf(http.StatusBadRequest, "%s: expected a number, found %.40s", field, t)
	}
	if err != nil || math.IsNaN(v) || math.Abs(v) > limit {
		return 0, errorf(http.StatusBadRequest, "%s: expected a finite number within ±%g, found %.40s", field, limit, t)
	}
	return v, nil
}

// check decodes and checks a control body: a record 0..n−1 and, unless noPos, a position of 2
// finite numbers within ±MaxCoord.
func (c *controlJSON) check(n int, noPos bool) (int, []float64, error) {
	if c.Record == nil || string(c.Record) == "null" {
		return 0, nil, errorf(http.StatusBadRequest, `missing "record": expected {"record": INDEX%s}`, map[bool]string{false: `, "pos": [X, Y]`, true: ""}[noPos])
	}
	v, err := number(`"record"`, c.Record, math.MaxFloat64)
	if err != nil {
		return 0, nil, err
	}
	if v != math.Trunc(v) || v < 0 || v >= float64(n) {
		return 0, nil, errorf(http.StatusBadRequest, `"record": expected an integer in range 0..%d, found %s (out of range 0..%d)`, n-1, c.Record, n-1)
	}
	rec := int(v)
	if noPos {
		if c.Pos != nil {
			return 0, nil, errorf(http.StatusBadRequest, `unexpected "pos": remove takes only a record`)
		}
		return rec, nil, nil
	}
	if len(c.Pos) != 2 {
		return 0, nil, errorf(http.StatusBadRequest, `"pos" has %d coordinates: expected 2`, len(c.Pos))
	}
	pos := make([]float64, 2)
	for k, raw := range c.Pos {
		if pos[k], err = number(fmt.Sprintf(`"pos"[%d]`, k), raw, MaxCoord); err != nil {
			return 0, nil, err
		}
	}
	return rec, pos, nil
}

// move is a move of a control point waiting to be applied (see postMove).
type move struct {
	record     int
	pos        []float64
	superseded bool  // a newer move of the record replaced it before it was applied (s.pmu)
	err        error // the error of applying it (s.mu)
}

// applyPendingLocked applies the session's waiting moves, in order of arrival; s.mu must be held.
func (h *Handler) applyPendingLocked(s *session) {
	s.pmu.Lock()
	ms := s.pending
	s.pending = nil
	s.pmu.Unlock()
	for _, m := range ms {
		m.err = h.applyLocked(s, true, func(lin *linproj.Session) error { return lin.Move(m.record, m.pos) })
	}
}

// applyLocked applies fn to the session's projection and bumps its revision. A change that
// would place a record beyond float32's range (the answer's type) is undone and refused, so
// that the page is never sent ±Inf. s.mu must be held.
//
// A move (move true) keeps the selection, so the factors of the view (GET …/basis) stay;
// every other change starts a new basis. A move is checked by a bound on the positions, so
// that a move answered with coefficients costs O(D·m) and not O(n·D); only when the bound
// fails are the positions computed to decide.
func (h *Handler) applyLocked(s *session, move bool, fn func(lin *linproj.Session) error) error {
	recs, pos := s.lin.Controls()
	method := s.lin.Method()
	if err := fn(s.lin); err != nil {
		return err
	}
	s.rev++
	if !move {
		s.basis++
	}
	if !(move && h.boundedLocked(s)) && !h.renderLocked(s) {
		v := maxAbs(s.y)
		// Undo: the same method and control points as before (an O(m³) refactor, only here).
		s.lin.SetMethod(method)
		s.lin.SetControls(recs, pos)
		s.rev++
		s.basis++
		return errorf(http.StatusBadRequest, `"pos": this placement would put records at %g, beyond the float32 range of the view (±3.4e38): expected a placement nearer the others`, v)
	}
	return nil
}

// change decodes a body into v, then applies fn to the session's projection under its lock
// (after the moves waiting before it) and answers the new positions.
func (h *Handler) change(w http.ResponseWriter, r *http.Request, s *session, v any, fn func(lin *linproj.Session) error) error {
	if err := h.decode(w, r, v); err != nil {
		return err
	}
	if s.lin == nil { // never changes: no lock needed
		return errReadOnly
	}
	s.mu.Lock()
	h.applyPendingLocked(s)
	defer s.mu.Unlock()
	if err := h.applyLocked(s, false, fn); err != nil {
		return err
	}
	h.writePositionsLocked(w, s)
	return nil
}

func (h *Handler) postControl(w http.ResponseWriter, r *http.Request, s *session) error {
	var c controlJSON
	return h.change(w, r, s, &c, func(lin *linproj.Session) error {
		rec, pos, err := c.check(h.n, false)
		if err != nil {
			return err
		}
		if recs, _ := lin.Controls(); len(recs) >= h.cfg.MaxControls && !slices.Contains(recs, rec) {
			return errorf(http.StatusConflict, "too many control points: %d at most (unpin one with shift-click first)", h.cfg.MaxControls)
		}
		return lin.SetControl(rec, pos)
	})
}

// postMove moves a control point. Moves of one session coalesce: a move waits for the session
// while the moves before it are computed, and when a newer move of the same record arrives
// meanwhile, the waiting one is dropped (the newest wins) and answered 204 No Content with
// X-Lowdim-Coalesced: true — the newer move's answer carries the view. So a client that sends
// moves faster than the server computes them sees a view about one computation behind its
// newest move, instead of a queue that grows, and the server spends neither a computation
// nor an n×2 answer on a position already left behind.
func (h *Handler) postMove(w http.ResponseWriter, r *http.Request, s *session) error {
	coef, err := answerForm(r)
	if err != nil {
		return err
	}
	var c controlJSON
	if err := h.decode(w, r, &c); err != nil {
		return err
	}
	if s.lin == nil { // never changes: no lock needed
		return errReadOnly
	}
	rec, pos, err := c.check(h.n, false)
	if err != nil {
		return err
	}
	m := &move{record: rec, pos: pos}
	s.pmu.Lock()
	if k := slices.IndexFunc(s.pending, func(p *move) bool { return p.record == rec }); k >= 0 {
		s.pending[k].superseded = true
		s.pending[k] = m
	} else {
		s.pending = append(s.pending, m)
	}
	s.pmu.Unlock()

	// At most GOMAXPROCS projections are computed at once: under overload the sessions then
	// take turns instead of all computing slowly side by side, so each answer leaves sooner
	// and more of the moves waiting behind it coalesce (100 sessions at 60 moves/s on 100,000
	// rows: lag p99 556 → 397 ms). The answer is copied out and written after the session is
	// unlocked, so the session's next move is computed while this one's bytes are in flight.
	s.mu.Lock()
	h.csem <- struct{}{}
	h.applyPendingLocked(s)
	<-h.csem
	s.pmu.Lock()
	superseded := m.superseded
	s.pmu.Unlock()
	switch {
	case m.err != nil:
		s.mu.Unlock()
		return m.err
	case superseded:
		rev := s.rev
		s.mu.Unlock()
		w.Header().Set("X-Lowdim-Coalesced", "true")
		w.Header().Set("X-Lowdim-Revision", strconv.Itoa(rev))
		w.WriteHeader(http.StatusNoContent)
		return nil
	case coef:
		b := h.coefAnswerLocked(s)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
		return nil
	}
	buf := answerPool.Get().(*bytes.Buffer)
	buf.Reset()
	hdr := http.Header{}
	h.writePositionsLocked(headerWriter{hdr, buf}, s)
	s.mu.Unlock()
	for k, v := range hdr {
		w.Header()[k] = v
	}
	w.Write(buf.Bytes()) // a failed write means the client went away: nothing to answer
	answerPool.Put(buf)
	return nil
}

// answerPool holds the buffers postMove copies its answers into.
var answerPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// headerWriter is an http.ResponseWriter that keeps the header and body for a later copy.
type headerWriter struct {
	h   http.Header
	buf *bytes.Buffer
}

func (w headerWriter) Header() http.Header         { return w.h }
func (w headerWriter) Write(b []byte) (int, error) { return w.buf.Write(b) }
func (w headerWriter) WriteHeader(int)             {}

func (h *Handler) postRemove(w http.ResponseWriter, r *http.Request, s *session) error {
	var c controlJSON
	return h.change(w, r, s, &c, func(lin *linproj.Session) error {
		rec, _, err := c.check(h.n, true)
		if err != nil {
			return err
		}
		return lin.Remove(rec)
	})
}

// methodJSON is the body of POST …/method.
type methodJSON struct {
	Method string `json:"method"`
}

func (h *Handler) postMethod(w http.ResponseWriter, r *http.Request, s *session) error {
	var m methodJSON
	return h.change(w, r, s, &m, func(lin *linproj.Session) error {
		switch m.Method {
		case "mle":
			return lin.SetMethod(linproj.MLE)
		case "lsp":
			return lin.SetMethod(linproj.LSP)
		}
		return errorf(http.StatusBadRequest, `"method": expected "mle" or "lsp", found %q`, m.Method)
	})
}

// emptyJSON is the body of the requests that take no arguments: {} (or nothing at all).
type emptyJSON struct{}

func (h *Handler) postReset(w http.ResponseWriter, r *http.Request, s *session) error {
	return h.change(w, r, s, &emptyJSON{}, func(lin *linproj.Session) error {
		lin.Reset()
		return nil
	})
}

// controlsJSON answers GET …/controls.
type controlsJSON struct {
	Method  string       `json:"method"`
	Records []int        `json:"records"`
	Pos     [][2]float64 `json:"pos"`
}

func (h *Handler) getControls(w http.ResponseWriter, r *http.Request, s *session) error {
	s.mu.Lock()
	h.applyPendingLocked(s) // what the page shows: after its latest move
	defer s.mu.Unlock()
	if s.lin == nil {
		return errReadOnly
	}
	recs, pos := s.lin.Controls()
	out := controlsJSON{Method: s.lin.Method().String(), Records: recs, Pos: make([][2]float64, len(recs))}
	if out.Records == nil {
		out.Records = []int{}
	}
	for k := range recs {
		out.Pos[k] = [2]float64{pos.At(k, 0), pos.At(k, 1)}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) getSuggest(w http.ResponseWriter, r *http.Request, s *session) error {
	s.mu.Lock()
	h.applyPendingLocked(s) // what the page shows: after its latest move
	defer s.mu.Unlock()
	if s.lin == nil {
		return errReadOnly
	}
	writeJSON(w, http.StatusOK, map[string]int{"record": s.lin.Suggest()})
	return nil
}

// getUncertainty answers each record's posterior variance xᵀΨ_post x as n little-endian float32.
func (h *Handler) getUncertainty(w http.ResponseWriter, r *http.Request, s *session) error {
	if s.lin == nil {
		return errReadOnly
	}
	s.mu.Lock()
	h.applyPendingLocked(s)
	if s.u == nil {
		s.u = make([]float64, h.n)
	}
	s.lin.Uncertainty(s.u)
	body := make([]byte, 0, 4*h.n)
	for _, v := range s.u {
		body = appendFloat32(body, float32(v))
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body)
	return nil
}

// qualityJSON answers GET …/quality: the measures of the current view on the quality rows (all
// rows, or the seeded subsample), with each row's smoothed precision and recall loss. The keys
// of the measures are those of lowdim eval -json.
type qualityJSON struct {
	Revision        int       `json:"revision"`
	quality.Summary           // n is the number of rows measured
	Sampled         bool      `json:"sampled"`
	Rows            []int     `json:"rows,omitempty"` // the records measured, when sampled
	Precision       []float64 `json:"precision"`      // per quality row: KL(q_i‖p_i)
	Recall          []float64 `json:"recall"`         // per quality row: KL(p_i‖q_i)
	// Trust and Cont are each quality row's share of T(k) and C(k) (their means).
	Trust   []float64 `json:"trustworthiness_points"`
	Cont    []float64 `json:"continuity_points"`
	Seconds float64   `json:"seconds"`
}

func (h *Handler) getQuality(w http.ResponseWriter, r *http.Request, s *session) error {
	// Snapshot the view's quality rows, and replace any computation of this session under way.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(h.ctx, cancel)
	defer stop()
	m := h.quality()
	ys := mat.NewDense(m, h.dims[0], nil)
	s.mu.Lock()
	h.applyPendingLocked(s) // what the page shows: after its latest move
	if s.cancelQuality != nil {
		s.cancelQuality()
	}
	s.cancelQuality = cancel
	rev := s.rev
	y := h.cfg.Embedding
	if s.lin != nil {
		s.lin.Embedding(s.y)
		y = s.y
	}
	for k := 0; k < m; k++ {
		ys.SetRow(k, y.RawRowView(h.row(k)))
	}
	s.mu.Unlock()

	select {
	case h.qsem <- struct{}{}:
		defer func() { <-h.qsem }()
	case <-ctx.Done():
		return ctx.Err()
	}
	start := time.Now()
	opt := quality.Options{Neighbors: h.cfg.Neighbors, Workers: h.cfg.Workers}
	rep, err := quality.Evaluate(ctx, h.xs, ys, h.ls, opt)
	if err != nil {
		return err
	}
	prec, rec, err := quality.PointLosses(ctx, h.xs, ys, opt)
	if err != nil {
		return err
	}
	trust, cont, err := pointTrustContinuity(ctx, h.xs, ys, h.cfg.Neighbors, neighbors.Options{Workers: h.cfg.Workers})
	if err != nil {
		return err
	}
	out := qualityJSON{Revision: rev, Summary: rep.Summary(), Sampled: h.sample != nil,
		Rows: h.sample, Precision: prec, Recall: rec, Trust: trust, Cont: cont, Seconds: time.Since(start).Seconds()}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// attachment sets the headers of a download named name.
func (h *Handler) attachment(w http.ResponseWriter, name, contentType string) {
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, strings.TrimSuffix(path.Base(h.cfg.Title), path.Ext(h.cfg.Title)))
	if base == "" || base == "-" {
		base = "lowdim"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s"`, base, name))
}

// getEmbeddingCSV answers the current view as lowdim embed -o writes it: x,y and the label (or
// row name) of every record, full precision.
func (h *Handler) getEmbeddingCSV(w http.ResponseWriter, r *http.Request, s *session) error {
	s.mu.Lock()
	h.applyPendingLocked(s) // what the page shows: after its latest move
	defer s.mu.Unlock()
	y := h.cfg.Embedding
	if s.lin != nil {
		s.lin.Embedding(s.y)
		y = s.y
	}
	h.attachment(w, "embedding.csv", "text/csv; charset=utf-8")
	bw := bufio.NewWriterSize(w, 1<<16)
	if dataset.WriteEmbeddingCSV(bw, y, h.cfg.Data) == nil { // y has n rows: only writing can fail
		bw.Flush()
	}
	return nil
}

// getProjectionCSV answers the current linear map as CSV: a header "row" + the H feature names
// (f1…fH without names), then the rows mean and scale of the normalisation and x and y, the 2×H
// projection, so that (x, y) = P·((v − mean) ∘ scale) for a data row v.
func (h *Handler) getProjectionCSV(w http.ResponseWriter, r *http.Request, s *session) error {
	s.mu.Lock()
	h.applyPendingLocked(s) // what the page shows: after its latest move
	if s.lin == nil {
		s.mu.Unlock()
		return errReadOnly
	}
	lm := s.lin.Model()
	s.mu.Unlock()
	hdim := len(lm.Mean)
	names := h.cfg.Data.FeatureNames
	if names == nil {
		names = make([]string, hdim)
		for j := range names {
			names[j] = "f" + strconv.Itoa(j+1)
		}
	}
	h.attachment(w, "projection.csv", "text/csv; charset=utf-8")
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"row"}, names...))
	row := func(name string, v []float64) {
		rec := make([]string, 0, hdim+1)
		rec = append(rec, name)
		for _, x := range v {
			rec = append(rec, strconv.FormatFloat(x, 'g', -1, 64))
		}
		cw.Write(rec)
	}
	row("mean", lm.Mean)
	row("scale", lm.Scale)
	row("x", lm.Projection.RawRowView(0))
	row("y", lm.Projection.RawRowView(1))
	cw.Flush() // headers are out: a failed write cannot be answered
	return nil
}

// getModel answers the current projection as a modelio model file (kind "linproj"), which lowdim
// transform -model applies to new rows.
func (h *Handler) getModel(w http.ResponseWriter, r *http.Request, s *session) error {
	s.mu.Lock()
	h.applyPendingLocked(s) // what the page shows: after its latest move
	if s.lin == nil {
		s.mu.Unlock()
		return errReadOnly
	}
	lm := s.lin.Model()
	s.mu.Unlock()
	var buf bytes.Buffer
	if err := modelio.Encode(&buf, lm); err != nil {
		return err
	}
	h.attachment(w, "projection.lowdim", "application/octet-stream")
	w.Write(buf.Bytes())
	return nil
}
