package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"mime"
	"net"
	"net/http"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"

	mrand "math/rand/v2"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/pe"
)

//go:embed static
var assets embed.FS

// Config holds the settings of a Handler. The zero value of each field means its documented
// default; Data is required.
type Config struct {
	// Data is the data set on view (n×H features, optional labels and row names). Required.
	Data *dataset.Set
	// Embedding, when not nil, is a fixed n×2 or n×3 view of Data made by another method
	// (lowdim embed -o): the page shows it read-only — no control points, no projection — and
	// colours and measures it like any other view; three columns are drawn in 3-D.
	Embedding *mat.Dense
	// EmbeddingName names Embedding's view on the page (a file name, say); "" means "embedding".
	EmbeddingName string
	// Views are more fixed n×2 or n×3 views of Data (other methods' embeddings), shown beside the main
	// one — the session's projection, or Embedding — with the selection and the hovered record
	// linked across all of them.
	Views []View
	// Image, when not zero, is the width and height of the picture each row holds (row-major
	// grey levels: MNIST 28×28, the digits 8×8): hovering a record shows it. Its product must
	// be the number of features.
	Image [2]int
	// Words says that rows are word counts (bag of words, the features named by their terms):
	// hovering a record shows its most frequent words rather than its first features.
	Words bool
	// Title names the view on the page; "" means Data.Name.
	Title string
	// Interactive are the settings of every session's projection (linproj.Interactive); its Dim
	// must be 0 or 2 (the page draws two dimensions). Its Method is where each session starts.
	Interactive linproj.Interactive
	// Sample bounds the rows the quality measures are computed on: above it they use a seeded
	// random subsample of that many rows (the page says so). 0 means 3000.
	Sample int
	// Neighbors is k of the quality measures (k_eff of the smoothed ones). 0 means 20.
	Neighbors int
	// Seed picks the quality subsample.
	Seed uint64
	// MaxSessions bounds the sessions alive at once (each holds O(n·m) of its own beside the
	// normalised data they share);
	// 0 means 8. A new session beyond it is refused with 503 until an idle one expires.
	MaxSessions int
	// MaxClientSessions bounds the sessions of one client (one remote IP address), so that one
	// client cannot take every session; 0 means 4 (at most MaxSessions). A new session beyond
	// it is refused with 429.
	MaxClientSessions int
	// MaxControls bounds the control points of one session: a new one costs O(m²H + m³) and
	// the next view O(n·m²) at m control points, so that without a bound one request could
	// hold a core for seconds (the 500th pin on the digits took 1.19 s; the 100th on 100,000
	// rows takes 6.6 s on the loaded 2-core machine). 0 means √(2·10⁸/n) — n·m² ≤ 2·10⁸, a
	// fraction of a second — between 10 and 100: 100 on the digits, 44 on 100,000 rows. A pin
	// beyond it is refused with 409.
	MaxControls int
	// IdleTimeout ends a session nobody has used for this long; 0 means 30 minutes.
	IdleTimeout time.Duration
	// MaxBody is the largest request body accepted, in bytes; 0 means 64 KiB.
	MaxBody int64
	// Workers bounds the goroutines of the quality measures; 0 means runtime.NumCPU().
	Workers int
	// Token, when not empty, must come with every API request, as the header X-Lowdim-Token or
	// the query parameter token (401 otherwise). The page reads it from its own address
	// (…/?token=…) and sends it on; lowdim serve sets one when it listens beyond loopback.
	Token string
	// ReadHeaderTimeout bounds the time to read a request's headers and BodyTimeout the time
	// to read its body (408 beyond), so that a client sending a byte now and then (slow loris)
	// cannot hold a connection; WriteTimeout bounds a whole answer (a quality computation
	// included) and ConnIdleTimeout an idle kept-alive connection. 0 means 10 s, 10 s, 2
	// minutes and 2 minutes. Server applies them; BodyTimeout is enforced by the handler.
	ReadHeaderTimeout, BodyTimeout, WriteTimeout, ConnIdleTimeout time.Duration
	// Live, when its Variant is set, starts a live fit as each page opens (lowdim serve -method
	// nerv|tnerv|tsne|pe), as the page's Start button would.
	Live LiveStart
	// PE holds the settings of a live Parametric Embedding fit of Data.Posteriors (η_r, η_φ,
	// priors, Normalize, Seed — 0 means Seed above —, restarts…); its Dim, Workers and Progress
	// are the handler's.
	// Without Data.Posteriors the page cannot run PE and says why.
	PE pe.Embedder
	// Hosts are host names the server answers to besides localhost and IP addresses. Requests
	// naming any other host are refused (421), which defeats DNS rebinding: a web page whose
	// name is made to resolve to 127.0.0.1 cannot read the data through the reader's browser.
	Hosts []string
}

// LiveStart is the live fit a page starts as it opens: Variant nerv, tnerv, tsne (t-NeRV with
// λ = 1) or pe (Parametric Embedding of Data.Posteriors), Lambda its λ in 0..1 (nil means
// nerv.DefaultLambda; tsne and pe ignore it). NeRV takes at most LiveMax records, t-NeRV,
// t-SNE and PE at most LiveMaxFast.
type LiveStart struct {
	Variant string
	Lambda  *float64
}

// Handler serves the page and its JSON API (see the package documentation). It is safe for
// concurrent use. Close ends every session.
type Handler struct {
	cfg    Config
	n      int
	mux    *http.ServeMux
	labels []byte // n little-endian int32: class index, −1 unknown
	sample []int  // quality rows (nil: all)
	xs     *mat.Dense
	ls     []int    // labels of the sample rows (nil without labels)
	fixed  []byte   // the read-only view's positions as float32 (nil when interactive)
	views  [][]byte // Config.Views' positions as float32
	dims   []int    // coordinates per record of view 0, then of Config.Views: 2 or 3

	hover atomic.Pointer[hoverIndex] // of a large data set, once built (hoverindex.go); nil before

	cop *http.CrossOriginProtection

	ctx    context.Context // cancelled by Close: stops quality computations and the reaper
	cancel context.CancelFunc
	qsem   chan struct{} // one quality computation at a time
	csem   chan struct{} // projections computed at once: GOMAXPROCS

	// prep is the normalised data every interactive session shares (linproj.Prepared), made
	// by the first session under prepMu; a failed or cancelled attempt leaves it nil.
	prepMu sync.Mutex
	prep   *linproj.Prepared

	mu       sync.Mutex
	sessions map[string]*session
	now      func() time.Time
}

// session is one page's state. Its mutex mu guards every field below it; id and client never
// change; last is guarded by Handler.mu and pending by pmu.
type session struct {
	id     string
	client string // the remote IP address that created it
	last   time.Time

	pmu     sync.Mutex
	pending []*move // moves not applied yet, at most one per record, in order of arrival

	mu      sync.Mutex
	lin     *linproj.Session // nil in a read-only view
	y       *mat.Dense       // n×2 positions buffer, the view at revision yRev
	yRev    int
	buf     []byte // float32 positions of revision bRev: the answer of every change
	bRev    int
	finite  bool      // every position in buf is finite as a float32
	u       []float64 // uncertainty buffer
	rev     int       // bumped on every change of the view
	basis   int       // bumped on every change but a move: the factors of the view (GET …/basis) change
	bound   viewBound // for the move check without positions (factors.go)
	coef    []float64 // scratch for the coefficients
	live    *liveFit  // the session's live NeRV fit, if any
	sel     []int32   // the selected records, increasing (nil: none)
	selView int       // the view the selection was drawn in
	// cancelQuality stops the quality computation under way, if any: a newer one replaces it.
	cancelQuality context.CancelFunc
}

// New checks cfg and returns a Handler.
func New(cfg Config) (*Handler, error) {
	d := cfg.Data
	if d == nil || d.Len() == 0 {
		return nil, dataset.Invalidf("web: no data")
	}
	n := d.Len()
	if cfg.Interactive.Dim != 0 && cfg.Interactive.Dim != 2 {
		return nil, dataset.Invalidf("web: the page shows 2 dimensions, Interactive.Dim is %d", cfg.Interactive.Dim)
	}
	cfg.Interactive.Dim = 2
	if cfg.Sample == 0 {
		cfg.Sample = 3000
	}
	if cfg.Neighbors == 0 {
		cfg.Neighbors = 20
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = 8
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 30 * time.Minute
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = 64 << 10
	}
	if cfg.MaxClientSessions == 0 {
		cfg.MaxClientSessions = min(4, cfg.MaxSessions)
	}
	if cfg.MaxControls == 0 {
		cfg.MaxControls = min(max(int(math.Sqrt(2e8/float64(n))), 10), 100)
	}
	for _, d := range []*time.Duration{&cfg.ReadHeaderTimeout, &cfg.BodyTimeout} {
		if *d == 0 {
			*d = 10 * time.Second
		}
	}
	for _, d := range []*time.Duration{&cfg.WriteTimeout, &cfg.ConnIdleTimeout} {
		if *d == 0 {
			*d = 2 * time.Minute
		}
	}
	switch {
	case cfg.Sample < 0 || cfg.Neighbors < 0 || cfg.MaxSessions < 0 || cfg.IdleTimeout < 0 || cfg.MaxBody < 0 || cfg.Workers < 0 ||
		cfg.MaxClientSessions < 0 || cfg.MaxControls < 0 || cfg.ReadHeaderTimeout < 0 || cfg.BodyTimeout < 0 || cfg.WriteTimeout < 0 || cfg.ConnIdleTimeout < 0:
		return nil, dataset.Invalidf("web: negative setting in %+v", cfg)
	case cfg.Title == "":
		cfg.Title = d.Name
	}
	h := &Handler{cfg: cfg, n: n, sessions: map[string]*session{}, now: time.Now, qsem: make(chan struct{}, 1), csem: make(chan struct{}, runtime.GOMAXPROCS(0)),
		cop: http.NewCrossOriginProtection()}
	h.dims = []int{2}
	if cfg.Embedding != nil {
		r, c := cfg.Embedding.Dims()
		if r != n || c != 2 && c != 3 {
			return nil, dataset.Invalidf("web: the embedding is %d×%d, expected %d×2 or %d×3 (one 2-D or 3-D row per data row)", r, c, n, n)
		}
		h.dims[0] = c
		var finite bool
		if h.fixed, finite = appendFloat32s(nil, cfg.Embedding); !finite {
			return nil, dataset.Invalidf("web: the embedding holds %g: expected finite numbers within float32's ±3.4e38 (the page's type)", maxAbs(cfg.Embedding))
		}
	}
	for k, v := range cfg.Views {
		if v.Y == nil {
			return nil, dataset.Invalidf("web: view %d (%s) has no positions", k+1, v.Name)
		}
		r, c := v.Y.Dims()
		if r != n || c != 2 && c != 3 {
			return nil, dataset.Invalidf("web: view %d (%s) is %d×%d, expected %d×2 or %d×3 (one 2-D or 3-D row per data row)", k+1, v.Name, r, c, n, n)
		}
		h.dims = append(h.dims, c)
		b, finite := appendFloat32s(nil, v.Y)
		if !finite {
			return nil, dataset.Invalidf("web: view %d (%s) holds %g: expected finite numbers within float32's ±3.4e38", k+1, v.Name, maxAbs(v.Y))
		}
		h.views = append(h.views, b)
	}
	if p := d.Posteriors; p != nil {
		if r, _ := p.Dims(); r != n {
			return nil, dataset.Invalidf("web: %d rows of posteriors for %d records", r, n)
		}
		// Refused here rather than when a page starts the fit: the error names the entry.
		if _, err := pe.Check(p, cfg.PE.Normalize); err != nil {
			return nil, fmt.Errorf("web: posteriors: %w", err)
		}
	}
	if v := cfg.Live.Variant; v != "" {
		if _, err := h.liveVariant(v); err != nil {
			return nil, dataset.Invalidf("web: live fit: %v", err)
		}
		if l := cfg.Live.Lambda; l != nil && !(*l >= 0 && *l <= 1) {
			return nil, dataset.Invalidf("web: live fit: λ = %g is outside 0..1", *l)
		}
	}
	if hd := d.Dim(); n >= hoverIndexMin && hd > 2*hoverIndexDims {
		// Seconds at MNIST's size: in the background, hovers scanning the rows meanwhile.
		go func() { h.hover.Store(newHoverIndex(d.X, hoverIndexDims)) }()
	}
	if w, ht := cfg.Image[0], cfg.Image[1]; (w != 0 || ht != 0) && (w <= 0 || ht <= 0 || w*ht != d.Dim()) {
		return nil, dataset.Invalidf("web: an image of %d×%d pixels for rows of %d features: expected width × height = %d", w, ht, d.Dim(), d.Dim())
	}
	h.labels = make([]byte, 4*n)
	for i := 0; i < n; i++ {
		l := int32(-1)
		if d.Labels != nil {
			l = int32(d.Labels[i])
		}
		putInt32(h.labels[4*i:], l)
	}
	// The quality rows: all, or a seeded subsample (sorted, so that it reads as a set of records).
	if n > cfg.Sample {
		r := mrand.New(mrand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
		h.sample = r.Perm(n)[:cfg.Sample]
		sort.Ints(h.sample)
		h.xs = mat.NewDense(len(h.sample), d.Dim(), nil)
		for k, i := range h.sample {
			h.xs.SetRow(k, d.X.RawRowView(i))
		}
	} else {
		h.xs = d.X
	}
	if d.Labels != nil {
		h.ls = make([]int, 0, h.quality())
		for k := 0; k < h.quality(); k++ {
			h.ls = append(h.ls, d.Labels[h.row(k)])
		}
	}
	if h.quality() <= cfg.Neighbors+1 {
		return nil, dataset.Invalidf("web: %d rows for %d quality neighbours: expected more than k+1", h.quality(), cfg.Neighbors)
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.routes()
	go h.reap(min(max(cfg.IdleTimeout/4, 10*time.Millisecond), time.Minute))
	return h, nil
}

// reap ends the sessions idle longer than IdleTimeout every period, until Close: an abandoned
// page's memory (its O(n·m) columns and buffers) is returned even when no new page comes.
func (h *Handler) reap(period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-t.C:
			h.mu.Lock()
			h.expireLocked()
			h.mu.Unlock()
		}
	}
}

// Server returns an http.Server for h with the timeouts of its Config (BodyTimeout, per
// request, is the handler's own).
func (h *Handler) Server() *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: h.cfg.ReadHeaderTimeout, WriteTimeout: h.cfg.WriteTimeout,
		IdleTimeout: h.cfg.ConnIdleTimeout, MaxHeaderBytes: 64 << 10}
}

// quality returns the number of rows the quality measures use.
func (h *Handler) quality() int {
	if h.sample != nil {
		return len(h.sample)
	}
	return h.n
}

// row returns the record of the k-th quality row.
func (h *Handler) row(k int) int {
	if h.sample != nil {
		return h.sample[k]
	}
	return k
}

func (h *Handler) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(assets, "static")
	files := http.FileServerFS(static)
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, static, "index.html")
	})
	m.Handle("GET /static/", http.StripPrefix("/static/", files))
	m.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	m.HandleFunc("GET /api/data", h.getData)
	m.HandleFunc("GET /api/labels", h.getLabels)
	m.HandleFunc("GET /api/records/{record}", h.getRecord)
	m.HandleFunc("POST /api/sessions", h.createSession)
	m.HandleFunc("DELETE /api/sessions/{id}", h.deleteSession)
	m.HandleFunc("GET /api/sessions/{id}/positions", h.withSession(h.getPositions))
	m.HandleFunc("GET /api/sessions/{id}/basis", h.withSession(h.getBasis))
	m.HandleFunc("GET /api/sessions/{id}/controls", h.withSession(h.getControls))
	m.HandleFunc("POST /api/sessions/{id}/control", h.withSession(h.postControl))
	m.HandleFunc("POST /api/sessions/{id}/move", h.withSession(h.postMove))
	m.HandleFunc("POST /api/sessions/{id}/remove", h.withSession(h.postRemove))
	m.HandleFunc("POST /api/sessions/{id}/method", h.withSession(h.postMethod))
	m.HandleFunc("POST /api/sessions/{id}/reset", h.withSession(h.postReset))
	m.HandleFunc("GET /api/sessions/{id}/suggest", h.withSession(h.getSuggest))
	m.HandleFunc("GET /api/sessions/{id}/uncertainty", h.withSession(h.getUncertainty))
	m.HandleFunc("GET /api/sessions/{id}/quality", h.withSession(h.getQuality))
	m.HandleFunc("GET /api/sessions/{id}/embedding.csv", h.withSession(h.getEmbeddingCSV))
	m.HandleFunc("GET /api/sessions/{id}/projection.csv", h.withSession(h.getProjectionCSV))
	m.HandleFunc("GET /api/sessions/{id}/model.lowdim", h.withSession(h.getModel))
	m.HandleFunc("GET /api/views/{view}/positions", h.getViewPositions)
	m.HandleFunc("POST /api/sessions/{id}/select", h.withSession(h.postSelect))
	m.HandleFunc("GET /api/sessions/{id}/selection", h.withSession(h.getSelection))
	m.HandleFunc("GET /api/sessions/{id}/selection.csv", h.withSession(h.getSelectionCSV))
	m.HandleFunc("GET /api/sessions/{id}/neighbors/{record}", h.withSession(h.getNeighbors))
	m.HandleFunc("POST /api/sessions/{id}/live", h.withSession(h.postLive))
	m.HandleFunc("GET /api/sessions/{id}/live", h.withSession(h.getLive))
	m.HandleFunc("GET /api/sessions/{id}/live/positions", h.withSession(h.getLivePositions))
	h.mux = m
}

// ServeHTTP serves the page, its assets and the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
	hd.Set("Referrer-Policy", "no-referrer")
	if !h.knownHost(r.Host) {
		fail(w, errorf(http.StatusMisdirectedRequest, "unexpected host %q: open the page by IP address or as localhost (lowdim serve answers to names only as its -addr names them)", r.Host))
		return
	}
	if err := h.admit(w, r); err != nil {
		fail(w, err)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// safeMethod reports whether method changes nothing on the server.
func safeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// admit checks what every request must satisfy beyond its Host: the token of the API, and for
// a request that changes state (any method but GET, HEAD and OPTIONS) that it comes from the
// page itself and carries JSON. A browser sends Origin (and Sec-Fetch-Site) with such a
// request, so another site's page is refused here (403) even for the "simple" cross-origin
// requests — a text/plain POST, for one — that need no CORS preflight; a client that is no
// browser sends neither and is let through. The Content-Type requirement (415) is the second
// lock: application/json from another origin always needs a preflight, which is never
// granted. It also starts the body's read deadline.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request) error {
	if h.cfg.Token != "" && strings.HasPrefix(r.URL.Path, "/api/") {
		tok := r.Header.Get("X-Lowdim-Token")
		if tok == "" {
			tok = r.URL.Query().Get("token")
		}
		if subtle.ConstantTimeCompare([]byte(tok), []byte(h.cfg.Token)) != 1 {
			return errorf(http.StatusUnauthorized, "this server needs the token it printed when it started: open the address it printed (…/?token=…)")
		}
	}
	if safeMethod(r.Method) {
		return nil
	}
	if err := h.cop.Check(r); err != nil {
		return errorf(http.StatusForbidden, "cross-origin request refused: Origin %q, Sec-Fetch-Site %q: expected the page of this server (%s) or no browser at all",
			r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site"), r.Host)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errorf(http.StatusUnsupportedMediaType, "expected a body of type application/json, found Content-Type %q", r.Header.Get("Content-Type"))
	}
	// The body's deadline (the headers had theirs from the server). Not every ResponseWriter
	// supports one (httptest's recorder does not): those have no slow client to cut off.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.cfg.BodyTimeout))
	return nil
}

// knownHost reports whether the Host header names this server: an IP address, localhost or
// one of Config.Hosts.
func (h *Handler) knownHost(host string) bool {
	if hp, _, err := net.SplitHostPort(host); err == nil {
		host = hp
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || net.ParseIP(strings.Trim(host, "[]")) != nil {
		return true
	}
	for _, k := range h.cfg.Hosts {
		if strings.EqualFold(k, host) {
			return true
		}
	}
	return false
}

// Close ends every session and stops the quality computations under way. Requests that arrive
// afterwards find no session.
func (h *Handler) Close() {
	h.cancel()
	h.mu.Lock()
	clear(h.sessions)
	h.mu.Unlock()
}

// Sessions returns the number of live sessions.
func (h *Handler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expireLocked()
	return len(h.sessions)
}

// expireLocked drops idle sessions; h.mu must be held.
func (h *Handler) expireLocked() {
	now := h.now()
	for id, s := range h.sessions {
		if now.Sub(s.last) > h.cfg.IdleTimeout {
			delete(h.sessions, id)
		}
	}
}

// errTooManySessions is answered with 503.
var errTooManySessions = errors.New("too many sessions")

// fullLocked returns the error that refuses a new session of client, or nil; h.mu must be held.
func (h *Handler) fullLocked(client string) error {
	h.expireLocked()
	if len(h.sessions) >= h.cfg.MaxSessions {
		return fmt.Errorf("%w: %d pages are open (close a tab, or wait until one has been unused for %v)", errTooManySessions, h.cfg.MaxSessions, h.cfg.IdleTimeout)
	}
	mine := 0
	for _, s := range h.sessions {
		if s.client == client {
			mine++
		}
	}
	if mine >= h.cfg.MaxClientSessions {
		return errorf(http.StatusTooManyRequests, "too many pages open from %s: %d at most (close another lowdim tab, or wait until one has been unused for %v)", client, h.cfg.MaxClientSessions, h.cfg.IdleTimeout)
	}
	return nil
}

// prepared returns the data's shared normalisation, making it on first use.
func (h *Handler) prepared(ctx context.Context) (*linproj.Prepared, error) {
	h.prepMu.Lock()
	defer h.prepMu.Unlock()
	if h.prep == nil {
		p, err := h.cfg.Interactive.Prepare(ctx, h.cfg.Data.X)
		if err != nil {
			return nil, err
		}
		h.prep = p
	}
	return h.prep, nil
}

// newSession starts a session of client (its IP address): a fresh projection of the data (or
// the fixed view).
func (h *Handler) newSession(ctx context.Context, client string) (*session, error) {
	h.mu.Lock()
	err := h.fullLocked(client)
	h.mu.Unlock()
	if err != nil {
		return nil, err
	}
	s := &session{client: client, y: mat.NewDense(h.n, 2, nil), yRev: -1, bRev: -1}
	if h.fixed == nil {
		p, err := h.prepared(ctx)
		if err != nil {
			return nil, err
		}
		s.lin = p.Session()
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	s.id = hex.EncodeToString(id[:])
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.fullLocked(client); err != nil { // others started meanwhile
		return nil, err
	}
	if h.ctx.Err() != nil {
		return nil, h.ctx.Err()
	}
	s.last = h.now()
	h.sessions[s.id] = s
	return s, nil
}

// lookup returns the live session id and marks it used.
func (h *Handler) lookup(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[id]
	if s == nil {
		return nil
	}
	now := h.now()
	if now.Sub(s.last) > h.cfg.IdleTimeout {
		delete(h.sessions, id)
		return nil
	}
	s.last = now
	return s
}

// end removes session id and reports whether it existed.
func (h *Handler) end(id string) bool {
	h.mu.Lock()
	s := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if s == nil {
		return false
	}
	s.mu.Lock()
	if s.cancelQuality != nil {
		s.cancelQuality()
	}
	if s.live != nil {
		s.live.cancel()
	}
	s.mu.Unlock()
	return true
}

// appendFloat32s appends the rows of y as little-endian float32 values.
// and reports whether every one is finite as a float32 (not NaN, and within ±3.4e38).
func appendFloat32s(dst []byte, y *mat.Dense) ([]byte, bool) {
	raw := y.RawMatrix()
	r, c := y.Dims()
	off := len(dst)
	dst = slices.Grow(dst, 4*r*c)[:off+4*r*c]
	out := dst[off:]
	const expMask = 0x7f800000 // all exponent bits set: ±Inf or NaN
	finite := true
	for i := 0; i < r; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			b := math.Float32bits(float32(v))
			if b&expMask == expMask {
				finite = false
			}
			binary.LittleEndian.PutUint32(out[4*(i*c+j):], b)
		}
	}
	return dst, finite
}

// maxAbs returns the largest |v| of y, NaN if y holds one.
func maxAbs(y *mat.Dense) float64 {
	m := 0.0
	for _, v := range y.RawMatrix().Data {
		if math.IsNaN(v) {
			return v
		}
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func appendFloat32(dst []byte, v float32) []byte {
	b := math.Float32bits(v)
	return append(dst, byte(b), byte(b>>8), byte(b>>16), byte(b>>24))
}

func putInt32(dst []byte, v int32) {
	u := uint32(v)
	dst[0], dst[1], dst[2], dst[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
}
