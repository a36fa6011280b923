package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/quality"
)

// The browser tests drive Debian's chromium (headless, --disable-gpu: software rendering) with
// playwright-core from web/e2e/node_modules (npm ci --prefix web/e2e). Without them they skip,
// unless LOWDIM_BROWSER_TESTS=require (as .ci/run sets), when they fail. Screenshots and the
// exported files go to $LOWDIM_ARTIFACTS/<test> when it is set, else to a temporary directory
// named in the log.

// browserTools returns the node binary and the chromium path, or skips.
func browserTools(t testing.TB) (node, chromium string) {
	t.Helper()
	skip := func(msg string) {
		if os.Getenv("LOWDIM_BROWSER_TESTS") == "require" {
			t.Fatal(msg + " (LOWDIM_BROWSER_TESTS=require)")
		}
		t.Skip(msg)
	}
	chromium = os.Getenv("LOWDIM_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		skip("browser tests need Debian's chromium at " + chromium + " (apt-get install chromium)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("browser tests need node (apt-get install nodejs npm)")
	}
	if _, err := os.Stat(filepath.Join("e2e", "node_modules", "playwright-core", "package.json")); err != nil {
		skip("browser tests need playwright-core: run npm ci --prefix web/e2e")
	}
	return node, chromium
}

// artifacts returns the directory for this test's screenshots and downloads.
func artifacts(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if root := os.Getenv("LOWDIM_ARTIFACTS"); root != "" {
		abs, err := filepath.Abs(filepath.Join(root, t.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dir = abs
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("browser artifacts in %s", dir)
	return dir
}

// runNode runs an e2e script against url and returns the JSON after its "RESULT " line.
func runNode(t testing.TB, node, chromium, script, url, out string, timeout time.Duration) []byte {
	t.Helper()
	return runNodeEnv(t, node, chromium, script, url, out, timeout)
}

// runNodeEnv is runNode with more environment variables (NAME=value) for the script.
func runNodeEnv(t testing.TB, node, chromium, script, url, out string, timeout time.Duration, env ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = "e2e"
	cmd.Env = append(append(os.Environ(), "LOWDIM_URL="+url, "LOWDIM_ARTIFACTS="+out, "LOWDIM_CHROMIUM="+chromium), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("node %s did not finish in %v:\n%s", script, timeout, buf.String())
	}
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, buf.String())
	}
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		if res, ok := strings.CutPrefix(sc.Text(), "RESULT "); ok {
			return []byte(res)
		}
	}
	t.Fatalf("node %s printed no RESULT line:\n%s", script, buf.String())
	return nil
}

// In a real browser: pin a point, drag it, and check that the page, the API, the export and
// linproj itself agree (the script checks the page against the API; this test checks the
// exported embedding against a projection computed here from the same control point).
func TestBrowserDrag(t *testing.T) {
	node, chromium := browserTools(t)
	d := dataset.Digits()
	h := newHandler(t, Config{Data: d})
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := artifacts(t)
	res := runNode(t, node, chromium, "drag.mjs", srv.URL+"/", out, 3*time.Minute)
	var r struct {
		Record int
		Pos    []float64
		N      int
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Pos) != 2 || r.N != d.Len() {
		t.Fatalf("result %s: %v", res, err)
	}
	emb, err := dataset.Load(filepath.Join(out, "embedding.csv"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := reference(t, d.X, linproj.MLE, []int{r.Record}, [][]float64{r.Pos})
	if !mat.EqualApprox(emb.X, want, 1e-9) {
		t.Errorf("the exported embedding is not linproj's MLE with record %d at %v", r.Record, r.Pos)
	}
	prior := reference(t, d.X, linproj.MLE, nil, nil)
	if mat.EqualApprox(emb.X, prior, 1e-6) {
		t.Error("the drag left the projection at its prior")
	}
	if _, err := os.Stat(filepath.Join(out, "serve-drag.png")); err != nil {
		t.Error("no screenshot:", err)
	}
}

// BenchmarkBrowserDrag measures, in headless chromium with software rendering (--disable-gpu),
// the frames per second (requestAnimationFrame callbacks), redraws and projection updates per
// second while a point is dragged in circles for 5 s; one iteration is one such drag. The data
// are seeded synthetic blobs (50 features, 10 classes), generated here.
//
//	go test -run X -bench BrowserDrag -benchtime 1x -count 5 ./web
func BenchmarkBrowserDrag(b *testing.B) {
	node, chromium := browserTools(b)
	for _, n := range []int{1797, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			h := newHandler(b, Config{Data: synthetic(n, 50, 10, 1)})
			srv := httptest.NewServer(h)
			defer srv.Close()
			out := artifacts(b)
			var fps, draws, updates float64
			for i := 0; i < b.N; i++ {
				var r struct {
					FPS     float64 `json:"fps"`
					Draws   float64 `json:"draws_per_s"`
					Updates float64 `json:"updates_per_s"`
					Moves   float64 `json:"pointer_moves_per_s"`
					Load    float64 `json:"load"`
				}
				res := runNode(b, node, chromium, "fps.mjs", srv.URL+"/", out, 5*time.Minute)
				if err := json.Unmarshal(res, &r); err != nil {
					b.Fatal(err)
				}
				b.Logf("n=%d: %s", n, res)
				fps += r.FPS
				draws += r.Draws
				updates += r.Updates
			}
			b.ReportMetric(fps/float64(b.N), "frames/s")
			b.ReportMetric(draws/float64(b.N), "draws/s")
			b.ReportMetric(updates/float64(b.N), "updates/s")
		})
	}
}

// In a real browser: the limits as the page shows them — the token it carries, the pin cap
// (its own check and the server's), the pages-per-client cap — and another site's page that
// tries to open a session with a text/plain POST, which needs no CORS preflight, and fails.
func TestBrowserLimits(t *testing.T) {
	node, chromium := browserTools(t)
	h := newHandler(t, Config{Data: dataset.Digits(), Token: "tok3n", MaxControls: 1, MaxClientSessions: 2})
	srv := httptest.NewServer(h)
	defer srv.Close()
	// The other site: a page on another origin (another port) whose script posts to the server.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><script>
window.result = [];
(async () => {
  for (let k = 0; k < 3; k++) {
    try { await fetch(%q, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{}'}); window.result.push('sent'); }
    catch (e) { window.result.push(String(e)); }
  }
  window.done = true;
})();
</script>`, srv.URL+"/api/sessions?token=tok3n")
	}))
	defer evil.Close()
	out := artifacts(t)
	cmdURL := srv.URL + "/?token=tok3n"
	res := runNodeEnv(t, node, chromium, "limits.mjs", cmdURL, out, 3*time.Minute, "LOWDIM_EVIL="+evil.URL+"/")
	t.Logf("%s", res)
	if h.Sessions() > 2 {
		t.Errorf("%d sessions: the other site's page opened some", h.Sessions())
	}
}

// In a real browser: the explorer — two views side by side drawn by WebGL2 (and by the canvas
// 2D fallback), lasso and box selections compared with the server's rows for the same polygon,
// the selection table and its CSV, linked selection and hover, the thumbnail and the
// input-space neighbours of the hovered record, per-point trustworthiness (explore.mjs).
func TestBrowserExplore(t *testing.T) {
	node, chromium := browserTools(t)
	d := dataset.Digits()
	y := mat.NewDense(d.Len(), 2, nil) // a second view: two middle pixels, jittered by the record index
	for i := range d.Len() {
		y.Set(i, 0, d.X.At(i, 20)+float64(i%7)/8)
		y.Set(i, 1, d.X.At(i, 43)+float64(i%5)/6)
	}
	h := newHandler(t, Config{Data: d, Views: []View{{Name: "pixels 20 and 43", Y: y}}, Image: [2]int{8, 8}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := artifacts(t)
	res := runNode(t, node, chromium, "explore.mjs", srv.URL+"/", out, 4*time.Minute)
	t.Logf("%s", res)
	for _, f := range []string{"explore-views.png", "explore-lasso.png", "explore-hover.png", "explore-canvas2d.png", "selection.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// In a real browser, with WebGL2 and with canvas 2D (threed.mjs): the digits' 3-D PCA map
// beside their 2-D one — orbit, zoom and reset, a lasso compared with the server's answer for
// the camera the page sends, hover and the trustworthiness colouring. The script's measure of
// T(k) is checked against package quality on the same map.
func TestBrowser3D(t *testing.T) {
	node, chromium := browserTools(t)
	d := dataset.Digits()
	pca := func(dim int) *mat.Dense {
		m, err := linproj.PCA{Dim: dim}.Fit(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		return m.Embedding()
	}
	y3 := pca(3)
	h := newHandler(t, Config{Data: d, Embedding: y3, EmbeddingName: "pca3.csv", Views: []View{{Name: "pca2.csv", Y: pca(2)}}, Image: [2]int{8, 8}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := artifacts(t)
	res := runNode(t, node, chromium, "threed.mjs", srv.URL+"/", out, 4*time.Minute)
	t.Logf("%s", res)
	var r map[string]struct {
		Selected        int
		Hovered         int
		Trustworthiness float64
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r) != 2 {
		t.Fatalf("result %s: %v", res, err)
	}
	// The server measures the map it was given (float64), as package quality does.
	T, err := quality.Trustworthiness(context.Background(), d.X, y3, quality.Options{Neighbors: h.cfg.Neighbors})
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range r {
		if math.Abs(x.Trustworthiness-T[h.cfg.Neighbors-1]) > 1e-9 {
			t.Errorf("%s: the page shows T = %v, quality.Trustworthiness %v", name, x.Trustworthiness, T[h.cfg.Neighbors-1])
		}
	}
	for _, f := range []string{"threed-orbit-webgl2.png", "threed-lasso-2d.png", "threed-hover-2d.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// scaleResult is what scale.mjs measures.
type scaleResult struct {
	N           int     `json:"n"`
	Dim         int     `json:"dim"`
	Renderer    string  `json:"renderer"`
	FirstFrame  float64 `json:"first_frame_ms"`
	Inked       float64 `json:"inked"`
	Render      float64 `json:"render_ms"`
	FrameMedian float64 `json:"frame_ms_median"`
	FrameP95    float64 `json:"frame_ms_p95"`
	Frames      int     `json:"frames"`
	Draws       float64 `json:"draws_per_s"`
	// Redrawing every point in every frame instead.
	FullMedian float64 `json:"full_frame_ms_median"`
	FullP95    float64 `json:"full_frame_ms_p95"`
	Load       float64 `json:"load"`
}

// runScale serves n seeded synthetic records (4 features, 10 blobs) as a fixed embedding — its
// first dim (2 or 3) features — and runs scale.mjs on them. The quality sample is kept small (500 rows)
// so that its computation, which starts with the page, does not compete with the measurement.
//
// query is appended to the page's address: ?renderer=webgl2 or ?renderer=2d (on software GL
// the page picks canvas 2D by itself).
func runScale(t testing.TB, node, chromium string, n, dim int, query string) scaleResult {
	t.Helper()
	d := synthetic(n, 4, 10, 1)
	emb := mat.DenseCopyOf(d.X.Slice(0, n, 0, dim))
	h := newHandler(t, Config{Data: d, Embedding: emb, EmbeddingName: "synthetic", Sample: 500})
	srv := httptest.NewServer(h)
	defer srv.Close()
	res := runNodeEnv(t, node, chromium, "scale.mjs", srv.URL+"/", artifacts(t), 5*time.Minute, "LOWDIM_QUERY="+query)
	var r scaleResult
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatalf("%s: %v", res, err)
	}
	t.Logf("%s", res)
	return r
}

// A million points render with WebGL2 (headless chromium: SwiftShader, software GL), from a
// request of the page to its first full frame, and the page keeps drawing them while panned.
func TestBrowserMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("a million points in the browser: long (skipped under -short)")
	}
	node, chromium := browserTools(t)
	for _, renderer := range []string{"webgl2", "2d"} {
		r := runScale(t, node, chromium, 1000000, 2, "?renderer="+renderer)
		if r.N != 1000000 || r.Renderer != renderer {
			t.Errorf("n %d drawn by %q, expected 1000000 by %s", r.N, r.Renderer, renderer)
		}
		// Ten blobs of a million points cover much of the plot (0.2 is far below what they ink).
		if r.Inked < 0.2 {
			t.Errorf("%s: only %.3f of the plot inked by a million points", renderer, r.Inked)
		}
		if r.Frames < 2 || r.Draws <= 0 {
			t.Errorf("%s: panning drew %d frames (%.1f draws/s)", renderer, r.Frames, r.Draws)
		}
	}
}

// BenchmarkBrowserScale measures, in headless chromium (WebGL2 on SwiftShader: software), the
// time from the page's request to its first full frame, one full redraw, and the frame time
// while panning as the page pans (its last full frame moved, from 200,000 points on) and
// redrawing every point in every frame, at 100,000 and 1,000,000 points (scale.mjs), drawn by
// WebGL2 and by canvas 2D; one iteration is one page load and twice 3 s of panning. With dim=3
// the map is 3-D and orbited instead (every frame a full redraw; one 3 s measure).
//
//	go test -run X -bench BrowserScale -benchtime 1x -count 3 ./web
//	go test -run X -bench 'BrowserScale/dim=3' -benchtime 1x -count 3 ./web
func BenchmarkBrowserScale(b *testing.B) {
	node, chromium := browserTools(b)
	for _, c := range []struct {
		dim, n   int
		renderer string
	}{{2, 100000, "webgl2"}, {2, 100000, "2d"}, {2, 1000000, "webgl2"}, {2, 1000000, "2d"},
		{3, 100000, "webgl2"}, {3, 100000, "2d"}, {3, 1000000, "webgl2"}, {3, 1000000, "2d"}} {
		n := c.n
		b.Run(fmt.Sprintf("dim=%d/n=%d/%s", c.dim, n, c.renderer), func(b *testing.B) {
			var first, render, med, p95, full float64
			for i := 0; i < b.N; i++ {
				r := runScale(b, node, chromium, n, c.dim, "?renderer="+c.renderer)
				first += r.FirstFrame
				render += r.Render
				med += r.FrameMedian
				p95 += r.FrameP95
				full += r.FullMedian
			}
			b.ReportMetric(first/float64(b.N), "first-frame-ms")
			b.ReportMetric(render/float64(b.N), "redraw-ms")
			b.ReportMetric(med/float64(b.N), "pan-frame-ms-median")
			b.ReportMetric(p95/float64(b.N), "pan-frame-ms-p95")
			b.ReportMetric(full/float64(b.N), "pan-full-redraw-frame-ms-median")
		})
	}
}

// In a real browser: a read-only view of word counts (readonly.mjs) — hidden projection
// exports, a sign of work while the quality computes, a one-line title, top words on hover.
func TestBrowserReadOnly(t *testing.T) {
	node, chromium := browserTools(t)
	// Seeded word counts: 6000 documents of 40 words, |blob value| rounded down; the
	// embedding is two of the counts, jittered. 6000 rows: the 3000-row quality sample
	// takes seconds, long enough to be seen working.
	d := synthetic(6000, 40, 3, 2)
	raw := d.X.RawMatrix().Data
	for k, v := range raw {
		raw[k] = math.Floor(math.Abs(v))
	}
	d.FeatureNames = make([]string, 40)
	for j := range d.FeatureNames {
		d.FeatureNames[j] = "word" + strconv.Itoa(j)
	}
	y := mat.NewDense(d.Len(), 2, nil)
	for i := range d.Len() {
		y.Set(i, 0, d.X.At(i, 0)+float64(i%13)/13)
		y.Set(i, 1, d.X.At(i, 1)+float64(i%11)/11)
	}
	h := newHandler(t, Config{Data: d, Embedding: y, Words: true, Title: "/very/long/path/to/the/data/bbc.mtx.gz — /another/long/path/to/tsne.csv"})
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := artifacts(t)
	t.Logf("%s", runNode(t, node, chromium, "readonly.mjs", srv.URL+"/", out, 3*time.Minute))
}

// In a real browser: NeRV live (live.mjs) — start, follow, pause, the λ slider, stop.
func TestBrowserLive(t *testing.T) {
	node, chromium := browserTools(t)
	h := newHandler(t, Config{Data: dataset.Digits().Subset(seq(500))})
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := artifacts(t)
	t.Logf("%s", runNode(t, node, chromium, "live.mjs", srv.URL+"/", out, 4*time.Minute))
	if _, err := os.Stat(filepath.Join(out, "live.png")); err != nil {
		t.Error(err)
	}
}

// In a real browser: a live t-SNE fit of 10,000 records on the approximate path, started by the
// server's Config.Live as lowdim serve -method tsne does (livefast.mjs): progress, the cost
// falling, pause, resume, stop. A minute or more on the loaded test machine: skipped under -short.
func TestBrowserLiveFast(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10,000-record live t-SNE fit: not under -short")
	}
	node, chromium := browserTools(t)
	h := newHandler(t, Config{Data: synthetic(10000, 20, 10, 7), Sample: 500, Live: LiveStart{Variant: "tsne"}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := artifacts(t)
	t.Logf("%s", runNode(t, node, chromium, "livefast.mjs", srv.URL+"/", out, 6*time.Minute))
	if _, err := os.Stat(filepath.Join(out, "livefast.png")); err != nil {
		t.Error(err)
	}
}

// In a real browser: a live PE fit of 500 digits with posteriors made from their labels,
// started from the page (livepe.mjs): no λ, the picture changes, J falls on the cost plot,
// pause, resume to the end, stop; a server without posteriors does not offer PE and says why.
func TestBrowserLivePE(t *testing.T) {
	node, chromium := browserTools(t)
	// Rounds 20 ms apart rather than 60: the fit (about 320 iterations over its 5 starts) still
	// runs for seconds, long enough to pause it, and the test takes half the time.
	defer func(p time.Duration) { livePEPace = p }(livePEPace)
	livePEPace = 20 * time.Millisecond
	h := newHandler(t, Config{Data: labelPosteriors(dataset.Digits().Subset(seq(500)))})
	srv := httptest.NewServer(h)
	defer srv.Close()
	bare := newHandler(t, Config{Data: dataset.Digits().Subset(seq(500))})
	srvBare := httptest.NewServer(bare)
	defer srvBare.Close()
	out := artifacts(t)
	t.Logf("%s", runNodeEnv(t, node, chromium, "livepe.mjs", srv.URL+"/", out, 4*time.Minute, "LOWDIM_URL_NOPE="+srvBare.URL+"/"))
	if _, err := os.Stat(filepath.Join(out, "livepe.png")); err != nil {
		t.Error(err)
	}
}
