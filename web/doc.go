// Package web serves lowdim's interactive page (lowdim serve): an http.Handler with a JSON API
// and the page's assets embedded in the binary (plain ES modules, no library, no build step; no
// CDN, works offline). Points are drawn with WebGL2 by hand-written shaders (static/render.js
// says why no library), with canvas 2D where WebGL2 is missing or runs in software (cheaper
// there at any n; see Measured) or with ?renderer=2d (?renderer=webgl2 forces WebGL2); control
// points, rings, neighbour lines and the lasso are drawn on a 2-D canvas laid over it. A view
// being panned or zoomed shows its last full frame moved (a texture: O(pixels) a frame) and
// redraws every point once the motion stops — from 200,000 points on, and below that once full
// redraws in motion have taken more than 40 ms a frame; on a GPU small maps redraw every frame.
//
// The page shows a linear projection of a data set — linproj's Most Likely Embedding (PCA until
// a point is moved) or LSP — and lets the analyst pin records as control points and drag them;
// the projection follows while dragging. It colours the points by class, by MLE uncertainty
// (xᵀΨ_post x) or by each point's share of the smoothed precision or recall loss
// (quality.PointLosses), shows the quality measures of the current view (recomputed when a drag
// ends, not per frame; above Config.Sample rows on a seeded random subsample, which the page
// says), suggests the next control point, resets, and exports the view. With Config.Embedding
// it shows another method's embedding read-only, coloured and measured the same way.
//
// It is also an explorer. Config.Views are more fixed maps shown beside the main one, with the
// hovered record and the selection linked across all of them. A lasso or a box drawn in any
// view selects the records inside it — the page at once, and the server (POST …/select, the same
// even–odd test on the same float32 positions) for the table of the selected rows (class
// counts, chosen columns) and its CSV. Hovering a record shows it (a picture with Config.Image,
// its most frequent words with Config.Words, else its first feature values) and its k nearest
// neighbours in the input space, found by the server: lines to them, orange where the view did
// not keep one among its own k nearest (a recall error), magenta rings on the view's k nearest
// that are no input neighbours (precision errors); the points can be coloured by their own
// trustworthiness and continuity (their means are T(k) and C(k)). "NeRV live" fits NeRV,
// t-NeRV or t-SNE for the session in rounds, each continuing from the last positions, so that
// the page shows the layout as it forms, pauses, resumes and stops it, and changes λ between
// rounds, plotting both cost terms: up to LiveMax records on the exact path (a few CG iterations
// a round), and t-NeRV and t-SNE above it, up to LiveMaxFast, on the approximate one (a
// nerv.Run: the k-NN graph and P computed once, ten gradient-descent iterations a round, early
// exaggeration once at the start, at λ = 1, then the slider's λ). Gaussian NeRV above LiveMax,
// up to LiveMaxNeRV, runs on its grid path: a nerv.Run of t-SNE's iterations, ten a round, then
// one conjugate-gradient iteration of NeRV's cost on the FFT grid a round at the slider's λ. PE (Parametric Embedding
// of Data.Posteriors, settings in Config.PE) runs live too, up to LiveMaxFast records: a pe.Run,
// one L-BFGS iteration on the class points a round (every object solved for them), through
// Fit's own warm-up and restarts to the very layout lowdim embed -method pe computes; it has no
// λ (the page disables the slider and says so), plots J and the mean KL(p_i‖q_i) per round and
// draws the class points. Without posteriors the page does not offer it and says why. Config.Live
// starts a fit as each page opens (lowdim serve -method nerv|tnerv|tsne|pe).
//
// An embedding of three columns (Config.Embedding or a View) is drawn in 3-D: a perspective
// camera orbits it (drag), zooms (wheel) and resets (Fit view), in the WebGL2 shader and, with
// the same projection, in the canvas-2D renderer (a depth buffer in JavaScript). Hover takes the
// nearest point drawn under the pointer (depth-aware), the lasso and box select on the projected
// positions, and the page sends the server the camera it drew with — the 3×4 matrix P of
// (u, v, w) = P·(x, y, z, 1), the point at pixel (u/w, v/w) — so that the server projects its
// own float32 positions with the same arithmetic and selects the same rows (the request stays 12
// numbers whatever n; the n projected positions would be 8 MB at a million). A view's own
// neighbours of a record, and the quality measures, are those of the 3-D embedding (its
// neighbours in space, not on one projection); 2-D and 3-D views are linked side by side.
//
// # API
//
// The server answers only requests whose Host is an IP address, localhost or one of
// Config.Hosts (421 otherwise), so that a site made to resolve to 127.0.0.1 (DNS rebinding)
// cannot read the data through a browser. Only the page's own tab can change anything: a
// request that changes state (any method but GET, HEAD and OPTIONS) must come from the page's
// origin — Origin and Sec-Fetch-Site, which browsers send, name it or are absent (a client that
// is no browser); 403 otherwise, even for the "simple" cross-origin requests (a text/plain POST)
// that browsers send without asking — and must be of Content-Type application/json (415),
// which from another origin would need a CORS preflight that is never granted. With
// Config.Token (lowdim serve sets one beyond loopback) every /api/ request must carry it, as
// X-Lowdim-Token or ?token= (401); the page reads it from its own address.
//
// Every session is one page (one tab): its id comes from POST /api/sessions and lives only in
// the page, so that two tabs never share state. Sessions expire after Config.IdleTimeout unused
// (a timer reaps them) and are capped at Config.MaxSessions (503 beyond, with Retry-After) and
// at Config.MaxClientSessions per client address (429); control points are capped at
// Config.MaxControls per session (409). Bodies are at most Config.MaxBody bytes (413), one
// object without unknown fields (400), and must arrive within Config.BodyTimeout (408);
// Handler.Server applies the header, write and idle timeouts. Every number is checked by field
// (400 naming it, with the text found): a record is an integer 0..n−1, a coordinate a finite
// number within ±MaxCoord; a change that would still carry a record beyond float32 (the
// answer's type) is undone and refused. Errors are {"error": "…"}: 400 bad input (also moving
// a record that is no control point), 401 no token, 403 another origin, 404 unknown session or
// record, 405 wrong method, 408 slow body, 409 the pin cap or a change asked of a read-only
// view, 413, 415, 421 unknown host, 429 too many pages from one client, 503 too many sessions
// or shutting down; a JSON answer is encoded before its status is sent, so it is never a 200
// with an empty body. Positions are binary: n×d little-endian float32, row-major (d = 2, or 3
// for a 3-D view: GET /api/data lists each view's d in dims)
// (Float32Array in the page), with headers X-Lowdim-Method, X-Lowdim-Controls and
// X-Lowdim-Revision. Every n-long answer is binary likewise (labels, uncertainty, selections):
// a million positions are 8 MB, read straight into a Float32Array and handed to WebGL.
//
//	GET    /                                 the page; /static/… its scripts and style
//	GET    /api/data                         {title, n, h, features, classes, labelled, read_only,
//	                                          method, quality_rows, quality_sampled, neighbors, max_body,
//	                                          max_controls, max_coord, views (names, the main one
//	                                          first), dims (their coordinates: 2 or 3), image ([w, h]
//	                                          or absent), words, has_names, live_max, live_max_fast,
//	                                          live_start ({variant, lambda} or absent),
//	                                          live_pe_unavailable (why PE cannot run live, or absent)}
//	GET    /api/labels                       n little-endian int32 class indices (−1 unknown)
//	GET    /api/records/{i}[?top=m]          {record, class, name, features, values (≤ 1024, or a
//	                                          whole picture), truncated, top (m ≤ 100 features of the
//	                                          largest values: [{feature, value}])}
//	GET    /api/views/{v}/positions          view v ≥ 1 of Config.Views: n×d float32
//	POST   /api/sessions                     {} or no body → 201 {id, method, read_only}
//	DELETE /api/sessions/{id}                204
//	GET    /api/sessions/{id}/positions      positions
//	POST   /api/sessions/{id}/control        {"record": i, "pos": [x, y]} → positions (pin, or move a pinned one)
//	POST   /api/sessions/{id}/move           {"record": i, "pos": [x, y]} → positions (a pinned record only),
//	                                         or 204 with X-Lowdim-Coalesced: true when a newer move of
//	                                         the record replaced it before it was applied;
//	                                         ?answer=coef → {revision, basis, method, controls, dim,
//	                                         coef}: C (D×m) of u_i = base_i + C·ax_i (the page's form)
//	GET    /api/sessions/{id}/basis          the factors of the view: base (n×D, when X-Lowdim-Base
//	                                         is 1) then ax (n×m), little-endian float64;
//	                                         X-Lowdim-Basis names them (bumped by every change but a move)
//	POST   /api/sessions/{id}/remove         {"record": i} → positions
//	POST   /api/sessions/{id}/method         {"method": "mle" | "lsp"} → positions (control points kept)
//	POST   /api/sessions/{id}/reset          {} or no body → positions (no control points)
//	GET    /api/sessions/{id}/controls       {method, records, pos}
//	GET    /api/sessions/{id}/suggest        {record} (−1: every record is pinned)
//	GET    /api/sessions/{id}/uncertainty    n little-endian float32
//	GET    /api/sessions/{id}/quality        lowdim eval -json's keys, plus revision, sampled, rows
//	                                         (the sample's records), precision and recall (per row),
//	                                         trustworthiness_points and continuity_points (per row)
//	                                         and seconds; a newer request of the session cancels it
//	POST   /api/sessions/{id}/select         {"view": v, "polygon": [[x, y], …]} (3..4096 vertices in
//	                                         view v's coordinates — in a 3-D view its screen pixels,
//	                                         with "camera": the 12 numbers of P — or none to clear) → the records
//	                                         inside, increasing, as int32; X-Lowdim-Selected: count
//	GET    /api/sessions/{id}/selection      ?columns=i,j,…&limit=m → {view, count, classes
//	                                         [{class, count}], columns, rows [{record, class, name, values}]}
//	GET    /api/sessions/{id}/selection.csv  ?columns=i,j,… | all → record,name,label,<columns>
//	GET    /api/sessions/{id}/neighbors/{i}  ?k= → {record, k, input, distances (input space, exact),
//	                                         views (each view's k nearest of i, the main one first)}
//	POST   /api/sessions/{id}/live           {"action": "start" | "pause" | "resume" | "stop" | "lambda",
//	                                         "lambda": λ, "variant": "nerv" | "tnerv" | "tsne" | "pe"} → the
//	                                         status below (409 beyond LiveMax records for nerv, LiveMaxFast
//	                                         for the others, pe without posteriors, λ for pe, or with no fit
//	                                         to act on)
//	GET    /api/sessions/{id}/live           {state, variant, lambda, round, progress, stage, busy, path
//	                                         (exact | approximate | pe), iterations, exaggerating, history
//	                                         [{round, iterations, lambda, cost, precision, recall, kl and
//	                                         stage (pe), seconds}], view, classes (pe: Φ, K×2 row-major)}
//	GET    /api/sessions/{id}/live/positions the live fit's latest round: n×2 float32, X-Lowdim-Round
//	GET    /api/sessions/{id}/embedding.csv  the view as lowdim embed -o writes it (x,y,label)
//	GET    /api/sessions/{id}/projection.csv header row,<features>; rows mean, scale, x, y:
//	                                         (x, y) = P·((v − mean) ∘ scale) for a data row v
//	GET    /api/sessions/{id}/model.lowdim   the projection as a modelio file (kind linproj)
//
// While dragging, the page sends at most one move at a time and coalesces the pointer positions
// that arrive meanwhile into the next (pointer events are sampled once per animation frame).
// The server coalesces too, for clients that do not wait: moves of a session that arrive while
// it is busy wait, and a newer move of the same record replaces a waiting one (the newest
// wins: the one replaced is answered 204, the newer with the view). So under overload a view
// lags its pointer by about one computation of that session, not by a queue. The page asks for
// each move's answer as coefficients (factors.go): the view is linear in the control points'
// positions, so it fetches the factors once per selection and rebuilds the n positions from
// D·m numbers per move, bit for bit the float32 positions the server would send.
//
// # Measured
//
// On the 2-core development machine shared with other jobs (load average 9–12 during the browser
// runs), so every figure is inflated and noisy; synthetic seeded blobs of 50 features:
//
//   - Server time per move (BenchmarkMove: the handler from request to the n×2 float32 answer,
//     3 control points, MLE; medians of 3, load average 15): 0.05 ms at n = 1797, 2.8 ms at
//     n = 100,000.
//   - The dearest pin the default cap allows (BenchmarkPinAtCap; load average 19–23): the 100th
//     on the digits 0.05–0.11 s, the 44th on 100,000 rows 1.2 s (the 100th there took 6.6 s).
//   - Load (BenchmarkLoad, loopback HTTP, 100 sessions each moving a point 60 times a second
//     for 10 s, clients in the same process; nice 10 under a load average of 10–21 from other
//     jobs, so the process got a third to a half of one core; no error in any run): with up to
//     4 moves in flight per session, the digits p50/p99 latency 88–96/172–304 ms, p99 lag
//     behind the newest move 191–317 ms, peak RSS 310–350 MB; n = 100,000, p50/p99
//     1.1–1.6/2.2–6.1 s, p99 lag 3.0–6.8 s, peak RSS 4.9–5.1 GB (100 normalised copies of the
//     data). With one in
//     flight, as the page keeps: the digits 13/52 ms, lag 79 ms; n = 100,000, 0.48/1.3 s, lag
//     2.1 s. Server and clients spend 0.11–0.15 ms of CPU per move on the digits and 1.7–2.0 ms
//     on 100,000 rows (an 800 kB answer), so the 2 cores alone would carry the 6,000 moves a
//     second of the digits and about 1,100 views a second at n = 100,000 (11 per session).
//   - Quiet machine (load average 1.1–1.7; 2026-11-26, sessions sharing the normalised data;
//     three runs, 0 errors in each), BenchmarkLoad side by side: n = 100,000 — …/coef (the
//     page's form) p50/p99 2.2–2.5/6.2–8.7 ms, lag p99 9.3–12.2 ms; …/coef+rebuild (100
//     clients' rebuilds in this process as well) lag p99 276–284 ms; …/positions lag p99
//     558–573 ms; one client's rebuild 0.7–1.1 ms; peak RSS 1.1 GB (positions) to 2.1 GB.
//     The digits: lag p99 8.7 ms (coef), 10.4 ms (positions).
//   - The same benchmark with moves answered as coefficients (BenchmarkLoad's …/coef, as the
//     page asks; 2026-11-25, no nice, load average 1.8–2.1 from other jobs; three runs, all
//     with 0 errors), side by side with …/positions in the same runs: n = 100,000, p50/p99
//     3.6/9.5–11.9 ms, p99 lag 38–213 ms (positions: 0.44–0.57/0.70–0.88 s, lag 0.88–1.14
//     s); the digits p99 12–28 ms, lag 12–30 ms. The clients' rebuild (a page's own work in
//     its own browser, O(n·D·m)) is left out of that lag and timed apart: 1–6 ms per answer at
//     n = 100,000 with 100 sessions' factors in memory. With the 100 clients rebuilding every
//     answer in this process too (…/coef+rebuild: the work of 100 browsers on the server's
//     2 cores), n = 100,000 lag p99 400–417 ms. In Chromium (BenchmarkBrowserDrag, n = 100,000,
//     three interleaved runs against the page before, load average about 2): 32.8–47.8
//     projection updates/s (median 38.4) against 25.0–37.2 (31.8), 59–60 frames/s both.
//   - A new session at n = 100,000: the first one normalises the data and computes the
//     covariance and the PCA prior (0.35 s); every later one shares them (linproj.Prepared)
//     and starts in O(H). The load benchmark's peak RSS at n = 100,000 fell from 5.0–5.1 GB
//     (100 normalised copies) to 0.9–1.0 GB with positions answers, 1.6–1.8 GB with
//     coefficients (the clients' factors included).
//     Note: the lag figures above were measured with one copy per session.
//   - In headless chromium (Debian 156, --disable-gpu: software rendering), dragging a point
//     with one pointer event per animation frame for 5 s (BenchmarkBrowserDrag, medians of 5):
//     n = 1797, 51 frames/s (range 50–58) and 35 projection updates/s (17–55); n = 100,000,
//     47 frames/s (38–55) and 16 projection updates/s (12–26). Every frame redraws (the ring
//     under the pointer follows it); an update is a server round trip carrying 800 kB of
//     positions at n = 100,000, and the page keeps one in flight.
//   - The same benchmark, this page (canvas 2D, as it draws on software GL; the overlay on its
//     own canvas) against the one before it (b507b6b), interleaved, two rounds each, nice 5
//     under a load average of 26–32: n = 1797, 48–49 frames/s and 37–40 updates/s against
//     52–55 and 44–46; n = 100,000, 46–58 frames/s and 22–40 updates/s against 27–50 and 9–19
//     (the points are redrawn only when they change, not every frame). With WebGL2 on
//     SwiftShader instead, n = 1797 gave 23–60 frames/s and 9–53 updates/s (four rounds, load
//     25–34) and n = 100,000 17–25 and 6–10.
//   - Rendering at scale on the quiet machine (load average 0.4 at the start; 2026-11-26;
//     `go test -run X -bench BrowserScale -benchtime 1x -count 3 ./web`, medians of 3; software
//     GL): first full frame, canvas 2D 2-D 0.19 s at n = 100,000 and 0.28 s at 1,000,000, 3-D
//     0.18 and 0.32 s; WebGL2 2-D 0.28 and 0.73 s, 3-D 0.32 and 0.75 s. Pan (2-D) and orbit
//     (3-D) frames with canvas 2D: 16.7 ms at both sizes (p95 16.8); with WebGL2 2-D pans at
//     16.7 ms (the last full frame moved), 3-D orbits at 50 ms (100k) and 383 ms (1M), each
//     orbit frame a full redraw. One full redraw: canvas 2D 1.2/6.7 ms (2-D), 3.0/18 ms (3-D);
//     WebGL2 40/375 ms. The figures below were taken under load.
//   - Rendering at scale (BenchmarkBrowserScale, scale.mjs; headless chromium 148, whose WebGL2
//     runs on SwiftShader, ANGLE's software Vulkan: these are CPU figures; n seeded synthetic
//     points as a fixed embedding; 1100×760 window; nice 5 under a load average of 32–36 from
//     other jobs on the 2 cores, so inflated several times; medians of 3). First full frame,
//     from the page's request to a pixel read back after the first draw: WebGL2 0.53 s at n =
//     100,000 and 1.40 s at 1,000,000, canvas 2D 0.37 s and 0.63 s (0.47–0.92). One full redraw:
//     WebGL2 61 ms and 0.57 s, canvas 2D 14 ms and 0.15 s (0.06–0.17). Panning (the median
//     interval between animation frames while the background is dragged, one pointer event a
//     frame, 3 s) with the last full frame moved: 16.7 ms — one frame at 60 Hz — for both
//     renderers at both sizes (one WebGL2 run 33 ms; p95 83–117 ms with WebGL2, 17–33 ms with
//     canvas 2D); redrawing every point each frame instead: WebGL2 100 ms and 0.57 s, canvas 2D
//     16.7 ms and 0.15 s. On software GL the page therefore draws with canvas 2D; WebGL2 is for
//     a real GPU, where a full redraw of a million points fits in a frame.
//   - 3-D (BenchmarkBrowserScale/dim=3, scale.mjs: the synthetic points' first three features,
//     orbited by one pointer event a frame for 3 s; every frame redraws every point; headless
//     chromium, SwiftShader for WebGL2; nice 5 under a load average of 12–17 from other jobs;
//     medians of 3). First full frame: canvas 2D 0.55 s at n = 100,000 and 0.72 s at 1,000,000,
//     WebGL2 0.76 s and 1.52 s. One full redraw: canvas 2D 9.5 ms and 24 ms (JavaScript projects
//     and depth-tests the points into one ImageData), WebGL2 100 ms and 0.69 s. Frame interval
//     while orbiting: canvas 2D 16.7 ms (one frame at 60 Hz; p95 50–117 ms) at 100,000 and 33 ms
//     (17–50; p95 33–217 ms) at 1,000,000, WebGL2 100 ms and 0.70 s. As in 2-D, software GL gets
//     canvas 2D; on a GPU the shader's O(n) a frame is what a real card does in well under a frame.
//   - A hover's exact input neighbours (GET …/neighbors/{i}?k=10, loopback, the 60,000 MNIST
//     training digits, medians of 15 requests, 3 rounds interleaved with the scan before it, load
//     average 11): 0.014–0.027 s through the hover index (hoverindex.go: a 32-direction lower bound
//     ranks the rows, exact distances only for the few it cannot rule out; built in the background
//     as the server starts) against 0.15–0.18 s scanning every row.
//   - Quality of one view on the 3000-row sample (every measure plus the per-point losses,
//     2 workers): about 5 s; on the 1797 digits 3–4 s.
package web
