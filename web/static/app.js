// lowdim serve: the page. Plain ES modules, no library. Points are drawn by WebGL2 (render.js;
// canvas 2D where WebGL2 is missing, or with ?renderer=2d), one canvas per view; control
// points, rings, neighbour lines and the lasso are vectors on a 2-D canvas laid over it.

import { glRenderer, canvasRenderer } from './render.js';

const $ = (id) => document.getElementById(id);

// V is one view: a map of the records (view 0 is the session's own: the projection, or the
// fixed embedding; the others are fixed ones shown beside it), with its own pan and zoom — or,
// for a 3-D embedding (dim 3), its own orbit camera (V.cam) and zoom.
function newView(index, name, dim = 2) {
  const el = document.createElement('div');
  el.className = 'view';
  const label = document.createElement('div');
  label.className = 'vname';
  label.textContent = name;
  label.title = name;
  const base = document.createElement('canvas');
  base.className = 'base';
  const ov = document.createElement('canvas');
  ov.className = 'ov';
  ov.setAttribute('aria-label', `view ${index + 1}: ${name}`);
  if (index === 0) ov.id = 'canvas'; // the main view's event surface (the browser tests use it)
  el.append(base, ov, label);
  $('views').append(el);
  let r = null;
  if (S.useGL) {
    try { r = glRenderer(base); } catch (e) { console.warn('WebGL2 renderer failed, using canvas 2D:', e); r = null; }
  }
  if (!r) r = canvasRenderer(base);
  return {
    index, name, el, base, ov, octx: ov.getContext('2d'), r, dim,
    pos: new Float32Array(0), view: { cx: 0, cy: 0, k: 1 }, k0: 1, W: 1, H: 1, dpr: 1, lastWheel: -1e9,
    cam: dim === 3 ? { ...CAM0, c: [0, 0, 0], r: 1, f: 1, f0: 1 } : null,
  };
}

// RENDERER is what the address asks for: ?renderer=2d or ?renderer=webgl2; otherwise (auto)
// WebGL2, except on software GL (SwiftShader, llvmpipe), where stamping the points into an
// ImageData costs the CPU far less than software rasterisation (headless chromium on
// SwiftShader, load ~30: a full redraw of 100,000 points 6 ms against 70, of a million 0.14 s
// against 0.93 s; the drag benchmark at 100,000 points 37 frames/s against 17). Both
// renderers move the last full frame while a view pans or zooms.
const RENDERER = (() => {
  const q = new URLSearchParams(location.search).get('renderer');
  return q === '2d' || q === 'webgl2' ? q : 'auto';
})();

// softwareGL reports whether the browser's WebGL2 runs in software, probing a throwaway canvas.
function softwareGL() {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return false;
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  const name = ext ? String(gl.getParameter(ext.UNMASKED_RENDERER_WEBGL)) : '';
  const lose = gl.getExtension('WEBGL_lose_context');
  if (lose) lose.loseContext();
  return /SwiftShader|llvmpipe|softpipe|Software/i.test(name);
}


// FAST_N: from this many records on, a view in motion (panned, or zoomed in the last 200 ms)
// shows its last full frame moved rather than redrawing every point (render.js); below it, it
// does so too once full frames in motion have been seen to take more than SLOW_MS (software
// GL: SwiftShader redraws 100,000 points in ~0.1 s on the loaded test machine, a GPU in well
// under a frame). ?fast=N sets FAST_N (the benchmarks compare).
const SLOW_MS = 40;
const FAST_N = +(new URLSearchParams(location.search).get('fast') || 200000);

// S is the page's whole state; window.lowdim exposes it to the browser tests. S.pos, S.view, S.W,
// S.H and S.dpr are those of the main view.
const S = {
  meta: null, id: null, n: 0,
  views: [],
  labels: new Int32Array(0),
  controls: new Map(),          // record → [x, y] placement
  method: 'mle', readOnly: false,
  colourBy: 'class', colours: new Uint32Array(0), order: null,
  unc: null, qual: null, qualPending: false, qualStarted: 0,
  hover: -1, suggested: -1, nb: null,
  tool: 'pan', lasso: null, selected: null, selMask: null, selPolygon: null, selView: 0, selServer: null, selCount: 0,
  drag: null, pan: null,
  pendingMove: null, moveInflight: false, chain: Promise.resolve(), busy: 0,
  dirty: true, frames: 0, draws: 0, updates: 0, rev: 0, frameTimes: [], lastFrame: 0, firstFrame: 0,
  renderer: '', ready: false, errors: [], fastN: FAST_N, motionMs: 0, fullInMotion: false,
};
for (const key of ['pos', 'view', 'W', 'H', 'dpr']) {
  Object.defineProperty(S, key, { get: () => S.views[0][key], set: (v) => { S.views[0][key] = v; } });
}

// ---- requests ---------------------------------------------------------------------------

// TOKEN is the server's token, when it has one (lowdim serve beyond loopback): it comes in the
// page's own address (…/?token=…) and goes with every request, as a header or, for the export
// links, in the query.
const TOKEN = new URLSearchParams(location.search).get('token') || '';

function api(path) { return `api/sessions/${S.id}/${path}`; }

function withToken(url) { return TOKEN ? `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(TOKEN)}` : url; }

// headers are those of every request; a request that changes something also says it is JSON
// (the server refuses anything else, which keeps other sites' pages out).
function headers(change) {
  const h = {};
  if (TOKEN) h['X-Lowdim-Token'] = TOKEN;
  if (change) h['Content-Type'] = 'application/json';
  return h;
}

async function request(url, opt = {}) {
  opt = { ...opt, headers: { ...headers(opt.method && opt.method !== 'GET'), ...(opt.headers || {}) } };
  const r = await fetch(url, opt);
  if (!r.ok) {
    let msg = `${r.status} ${r.statusText}`;
    try { msg = (await r.json()).error || msg; } catch { /* not JSON */ }
    throw new Error(msg);
  }
  return r;
}

function post(path, body) {
  return request(api(path), {
    method: 'POST',
    body: body === undefined ? '{}' : JSON.stringify(body),
  });
}

// serial runs fn after every earlier request of the session has finished: the server sees
// the page's changes in the order they were made.
function serial(fn) {
  S.busy++;
  const p = S.chain.then(fn);
  S.chain = p.catch(showError).finally(() => { S.busy--; });
  return p;
}

// changeView posts a change and installs the positions it answers.
function changeView(path, body) {
  return serial(async () => {
    const r = await post(path, body);
    setPositions(r);
    setPos(S.views[0], new Float32Array(await r.arrayBuffer()));
    S.updates++;
  });
}

// moveView posts a move and redraws from its coefficients: the view is u_i = base_i + C·ax_i,
// and a move changes only C (D×m numbers), so the page fetches the factors base and ax once
// per selection (GET …/basis) and each move's answer is about 100 bytes instead of n×D
// float32 positions (800 kB at n = 100,000). The float64 sums, in the server's order and
// rounded to float32, are the bytes GET …/positions answers.
function moveView(m) {
  return serial(async () => {
    const r = await post('move?answer=coef', m);
    if (r.status === 204) return; // coalesced: a newer move's answer carries the view
    const a = await r.json();
    S.method = a.method;
    S.rev = a.revision;
    if (!S.basis || S.basis.id !== a.basis) S.basis = await fetchBasis();
    if (S.basis.id === a.basis) {
      setPos(S.views[0], rebuild(S.basis, a.coef));
    } else { // the selection changed again meanwhile (another tab of this session): positions
      const p = await request(api('positions'));
      setPositions(p);
      setPos(S.views[0], new Float32Array(await p.arrayBuffer()));
    }
    S.updates++;
  });
}

// fetchBasis fetches the factors of the session's view: base (n×D, absent under LSP) and ax (n×m).
async function fetchBasis() {
  const r = await request(api('basis'));
  const v = new Float64Array(await r.arrayBuffer());
  const m = +r.headers.get('X-Lowdim-Controls'), dim = +r.headers.get('X-Lowdim-Dim');
  const nb = r.headers.get('X-Lowdim-Base') === '1' ? S.n * dim : 0;
  return { id: +r.headers.get('X-Lowdim-Basis'), m, dim, base: nb ? v.subarray(0, nb) : null, ax: v.subarray(nb) };
}

// rebuild returns the positions u_i = base_i + C·ax_i for the coefficients c (D×m, row-major).
function rebuild(B, c) {
  const { m, dim, base, ax } = B, n = S.n, out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    for (let d = 0; d < dim; d++) {
      let v = base ? base[i * dim + d] : 0;
      for (let k = 0; k < m; k++) v += c[d * m + k] * ax[i * m + k];
      out[i * dim + d] = v;
    }
  }
  return out;
}

function setPositions(r) {
  const m = r.headers.get('X-Lowdim-Method');
  if (m) S.method = m;
  S.rev = +r.headers.get('X-Lowdim-Revision');
}

function setPos(V, p) {
  V.pos = p;
  V.r.setPositions(p, V.dim);
  if (S.selMask) V.r.setFlags(S.selMask);
  V.stale = S.dirty = true;
}

// restyle marks every view's points for a redraw (colours or the selection changed).
function restyle() { for (const V of S.views) V.stale = true; S.dirty = true; }

function showError(e) {
  S.errors.push(String(e.message || e));
  status(String(e.message || e), true);
}

function status(msg, error = false) {
  const el = $('status');
  el.textContent = msg;
  el.classList.toggle('error', error);
}

// ---- view transform ---------------------------------------------------------------------

// A 3-D view looks at the centre c of its points from the distance D = 3r (r: their radius
// about c) after turning them by yaw (about the vertical) and pitch (about the horizontal), with
// a perspective of focal length f pixels; dragging orbits (yaw, pitch), the wheel zooms (f) and
// "Fit view" resets. CAM0 is the orientation a view starts in: turned a little, so that depth shows.
const CAM0 = { yaw: 0.5, pitch: 0.35 };

// camMatrix returns the 3×4 projection P of 3-D view V (row-major; see render.js): with R the
// rotation and q = R(p − c), the pixel is (W/2 + f q₀/w, H/2 − f q₁/w) at depth w = D − q₂.
function camMatrix(V) {
  const { yaw, pitch, c, r, f } = V.cam, D = 3 * r;
  const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
  // R = Rx(pitch)·Ry(yaw)
  const R = [[cy, 0, sy], [sp * sy, cp, -sp * cy], [-cp * sy, sp, cp * cy]];
  const dot = (a) => a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
  const w = [-R[2][0], -R[2][1], -R[2][2], dot(R[2]) + D];
  const row = (a, s, o) => [0, 1, 2].map((j) => s * a[j] + o * w[j]).concat([-s * dot(a) + o * w[3]]);
  return row(R[0], f, V.W / 2).concat(row(R[1], -f, V.H / 2), w);
}

// project returns the pixel (sx, sy) and depth w of (x, y, z) under P: the server's arithmetic
// (camera.project in web/explore.go), operation for operation, so that both select the same rows.
function project(P, x, y, z) {
  const u = P[0] * x + P[1] * y + P[2] * z + P[3];
  const v = P[4] * x + P[5] * y + P[6] * z + P[7];
  const w = P[8] * x + P[9] * y + P[10] * z + P[11];
  return [u / w, v / w, w];
}

// viewOf is what the renderer draws V with: its pan and zoom, or its camera.
function viewOf(V) {
  if (V.dim !== 3) return V.view;
  if (!V.proj || V.proj.key !== camKey(V)) {
    const r = V.cam.r;
    V.proj = { key: camKey(V), P: camMatrix(V), near: 1.5 * r, far: 4.5 * r }; // the points' depths lie in 2r..4r
  }
  return V.proj;
}
const camKey = (V) => { const c = V.cam; return `${c.yaw},${c.pitch},${c.f},${c.r},${c.c},${V.W},${V.H}`; };

// screenPos returns record i's pixel in view V (2-D or 3-D).
function screenPos(V, i) {
  const p = V.pos;
  if (V.dim === 3) return project(viewOf(V).P, p[3 * i], p[3 * i + 1], p[3 * i + 2]);
  return toScreenV(V, p[2 * i], p[2 * i + 1]);
}

function toScreenV(V, x, y) {
  const v = V.view;
  return [V.W / 2 + (x - v.cx) * v.k, V.H / 2 - (y - v.cy) * v.k];
}

function toDataV(V, sx, sy) {
  const v = V.view;
  return [v.cx + (sx - V.W / 2) / v.k, v.cy - (sy - V.H / 2) / v.k];
}

const toScreen = (x, y) => toScreenV(S.views[0], x, y);
const toData = (sx, sy) => toDataV(S.views[0], sx, sy);

function fitView(V) {
  if (V.dim === 3) return fitCam(V);
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  const p = V.pos;
  for (let i = 0; i < S.n; i++) {
    const x = p[2 * i], y = p[2 * i + 1];
    if (x < x0) x0 = x; if (x > x1) x1 = x;
    if (y < y0) y0 = y; if (y > y1) y1 = y;
  }
  if (V.index === 0) {
    for (const [x, y] of S.controls.values()) {
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
  }
  if (!(x1 >= x0)) { x0 = x1 = y0 = y1 = 0; }
  const w = Math.max(x1 - x0, 1e-12), h = Math.max(y1 - y0, 1e-12);
  let k = 0.9 * Math.min(V.W / w, V.H / h);
  if (x1 - x0 < 1e-9 && y1 - y0 < 1e-9) k = Math.min(V.W, V.H) / 2; // everything at one place
  V.view = { cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, k };
  V.k0 = k;
  S.dirty = true;
}

// fitCam centres 3-D view V on its points, at the starting orientation, all in sight.
function fitCam(V) {
  const p = V.pos, lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < S.n; i++) for (let j = 0; j < 3; j++) { const x = p[3 * i + j]; if (x < lo[j]) lo[j] = x; if (x > hi[j]) hi[j] = x; }
  const c = lo.map((l, j) => (hi[j] >= l ? (l + hi[j]) / 2 : 0));
  let r2 = 0;
  for (let i = 0; i < S.n; i++) r2 = Math.max(r2, (p[3 * i] - c[0]) ** 2 + (p[3 * i + 1] - c[1]) ** 2 + (p[3 * i + 2] - c[2]) ** 2);
  const r = Math.sqrt(r2) || 1;
  // A point r from the centre, across the line of sight at depth D = 3r, lands 0.4·min(W, H) from the middle.
  const f = 0.4 * Math.min(V.W, V.H) * 3;
  V.cam = { ...CAM0, c, r, f, f0: f };
  S.dirty = true;
}

function fit() { S.views.forEach(fitView); }

function resizeView(V) {
  const r = V.ov.getBoundingClientRect();
  V.dpr = window.devicePixelRatio || 1;
  const W = Math.max(1, Math.round(r.width * V.dpr)), H = Math.max(1, Math.round(r.height * V.dpr));
  if (W === V.base.width && H === V.base.height) return;
  const old = { W: V.W, H: V.H };
  V.base.width = V.ov.width = W; V.base.height = V.ov.height = H;
  V.W = W; V.H = H;
  if (old.W > 1) {
    const f = Math.min(W / old.W, H / old.H);
    V.view.k *= f; V.k0 *= f;
    if (V.cam) { V.cam.f *= f; V.cam.f0 *= f; }
  }
  S.dirty = true;
}

function resize() { S.views.forEach(resizeView); }

// ---- colours ----------------------------------------------------------------------------

const rgba = (r, g, b) => (255 << 24 | b << 16 | g << 8 | r) >>> 0; // RGBA bytes, little-endian
const hex = (c) => '#' + [c & 255, c >> 8 & 255, c >> 16 & 255].map((v) => v.toString(16).padStart(2, '0')).join('');
const TAB10 = [[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189],
  [140, 86, 75], [227, 119, 194], [127, 127, 127], [188, 189, 34], [23, 190, 207]];
const GREY = rgba(205, 205, 205);

function classColour(c) {
  if (c < 0) return GREY;
  if (c < TAB10.length) return rgba(...TAB10[c]);
  const h = (c * 137.508) % 360, s = 0.65, l = 0.45 + 0.1 * (c % 2); // golden-angle hues
  const f = (n) => { const k = (n + h / 30) % 12; return l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1)); };
  return rgba(Math.round(255 * f(0)), Math.round(255 * f(8)), Math.round(255 * f(4)));
}

// ramp maps t in [0,1] to a perceptually ordered colour (viridis-like, five stops).
const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
function ramp(t) {
  t = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(t)), f = t - i, a = STOPS[i], b = STOPS[i + 1];
  return rgba(...[0, 1, 2].map((j) => Math.round(a[j] + f * (b[j] - a[j]))));
}

function quantile(values, q) {
  const s = Float64Array.from(values).sort();
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0;
}

// recolour computes every point's colour and the drawing order (grey points first).
function recolour() {
  const n = S.n, col = new Uint32Array(n).fill(GREY);
  let legend = '', first = [], last = [];
  const by = S.colourBy;
  const perSample = (v, colourOf) => {
    const rows = S.qual.rows, inSample = new Uint8Array(n);
    v.forEach((x, k) => { const i = rows ? rows[k] : k; col[i] = colourOf(x); inSample[i] = 1; });
    for (let i = 0; i < n; i++) (inSample[i] ? last : first).push(i);
    return rows ? `; grey: not in the ${rows.length}-row sample` : '';
  };
  if (by === 'class') {
    for (let i = 0; i < n; i++) col[i] = classColour(S.labels[i]);
    const names = S.meta.classes || [];
    legend = S.meta.labelled
      ? names.slice(0, 30).map((c, j) => `<span><i style="background:${hex(classColour(j))}"></i>${esc(c)}</span>`).join('') + (names.length > 30 ? ' …' : '')
      : 'no labels';
  } else if (by === 'uncertainty') {
    if (S.unc) {
      const hi = quantile(S.unc, 0.99) || 1;
      for (let i = 0; i < n; i++) col[i] = ramp(S.unc[i] / hi);
      legend = rampLegend('0', fmt(hi) + ' (99th pct.)', 'posterior variance xᵀΨ<sub>post</sub>x');
    } else legend = S.readOnly ? 'no projection: a fixed embedding has no uncertainty' : 'loading…';
  } else if (!S.qual) {
    legend = 'computing the quality measures…';
  } else if (by === 'precision' || by === 'recall') {
    const v = S.qual[by], sum = v.reduce((a, b) => a + b, 0) || 1;
    const hi = quantile(v, 0.99) / sum || 1;
    const note = perSample(v, (x) => ramp(x / sum / hi));
    legend = rampLegend('0', (100 * hi).toPrecision(2) + '% (99th pct.)', `share of the ${by} loss` + note);
  } else {
    const v = S.qual[by === 'trustworthiness' ? 'trustworthiness_points' : 'continuity_points'];
    const lo = Math.min(quantile(v, 0.01), 0.999);
    const note = perSample(v, (x) => ramp((1 - x) / (1 - lo)));
    legend = rampLegend('1', fmt(lo) + ' (1st pct.)', `${by} of each point at k = ${S.qual.neighbors}: ` +
      (by === 'trustworthiness' ? 'low where its neighbours on screen are strangers (precision errors)' : 'low where its true neighbours were drawn far away (recall errors)') + note);
  }
  S.colours = col;
  S.order = first.length ? Int32Array.from(first.concat(last)) : null;
  for (const V of S.views) V.r.setColours(col, S.order);
  $('legend').innerHTML = legend;
  restyle();
}

function rampLegend(lo, hi, what) {
  const g = STOPS.map((c) => `rgb(${c})`).join(',');
  return `<div class="ramp" style="background:linear-gradient(to right,${g})"></div><span>${lo}</span><span style="margin-left:auto">${hi}</span><span>${what}</span>`;
}

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fmt = (v) => (v == null ? '—' : Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : v.toPrecision(4));

// ---- drawing ----------------------------------------------------------------------------

// pointSize is a point's diameter in device pixels: larger for few points, growing as one zooms in.
function pointSize(V) {
  const base = S.n <= 5000 ? 5 : S.n <= 30000 ? 3 : S.n <= 300000 ? 2 : 1;
  const zoom = V.dim === 3 ? V.cam.f / V.cam.f0 : V.view.k / V.k0;
  return Math.min(12, base * Math.max(1, Math.sqrt(zoom))) * V.dpr;
}

// moving reports whether view V is being panned or zoomed (a full redraw follows when it stops).
const moving = (V) => (S.pan && S.pan.V === V) || performance.now() - V.lastWheel < 200;

// drawView redraws the points of V when they changed (V.stale) or it moves — the overlay
// (rings, lines, the lasso) alone changes far more often: a hover, a drag between updates.
function drawView(V) {
  const m = moving(V), fast = V.dim !== 3 && m && (S.n >= S.fastN || S.motionMs > SLOW_MS);
  const key = V.dim === 3 ? camKey(V) : `${V.view.cx},${V.view.cy},${V.view.k},${V.W},${V.H}`;
  if (V.stale || key !== V.drawn || (V.wasFast && !fast)) {
    V.r.draw(viewOf(V), V.W, V.H, pointSize(V), fast);
    V.redraws = (V.redraws || 0) + 1;
    if (m && !fast) S.fullInMotion = true;
    V.stale = false; V.drawn = key; V.wasFast = fast;
  }
  const ctx = V.octx, p = V.pos, col = S.colours, d = V.dpr;
  ctx.clearRect(0, 0, V.W, V.H);
  const at = (i) => screenPos(V, i);
  const ring = (i, r, colour, w = 1.5) => {
    const [x, y] = at(i);
    ctx.strokeStyle = colour; ctx.lineWidth = w * d;
    ctx.beginPath(); ctx.arc(x, y, r * d, 0, 2 * Math.PI); ctx.stroke();
  };
  if (V.index === 0) {
    ctx.lineWidth = 1.5 * d;
    for (const [r, [x, y]] of S.controls) {       // placement: ring; line to where the point went
      const [sx, sy] = toScreenV(V, x, y), [px, py] = at(r);
      ctx.strokeStyle = '#000';
      ctx.beginPath(); ctx.moveTo(sx, sy); ctx.lineTo(px, py); ctx.stroke();
      ctx.beginPath(); ctx.arc(sx, sy, 7 * d, 0, 2 * Math.PI); ctx.stroke();
      ctx.fillStyle = hex(col[r]);
      ctx.beginPath(); ctx.arc(px, py, 4 * d, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    }
  }
  const nb = S.nb;
  if (nb && nb.record === S.hover && nb.views[V.index]) {
    // Input neighbours: a line to each; orange where the view does not have it among its k
    // nearest (a recall error). The view's own neighbours that are none: magenta rings.
    const [hx, hy] = at(nb.record), shown = new Set(nb.views[V.index]), near = new Set(nb.input);
    for (const j of nb.input) {
      const [x, y] = at(j), miss = !shown.has(j);
      ctx.strokeStyle = miss ? 'rgba(224,112,0,.9)' : 'rgba(0,0,0,.45)';
      ctx.lineWidth = (miss ? 1.5 : 1) * d;
      ctx.beginPath(); ctx.moveTo(hx, hy); ctx.lineTo(x, y); ctx.stroke();
      ctx.fillStyle = miss ? '#e07000' : '#000';
      ctx.beginPath(); ctx.arc(x, y, 2.5 * d, 0, 2 * Math.PI); ctx.fill();
    }
    for (const j of nb.views[V.index]) if (!near.has(j)) ring(j, 5, '#c000c0', 1.5);
  }
  const ls = S.liveState;
  if (ls && ls.classes && V.index === ls.view) drawClasses(V, ls.classes);
  for (const [i, c] of [[S.suggested, '#d00'], [S.hover, '#000']]) if (i >= 0 && (V.index === 0 || c === '#000')) ring(i, 10, c);
  if (S.lasso && S.lasso.view === V.index) {
    const pts = S.lasso.box ? boxCorners(S.lasso) : S.lasso.pts;
    ctx.strokeStyle = '#0a6'; ctx.fillStyle = 'rgba(0,170,102,.08)'; ctx.lineWidth = 1.5 * d;
    ctx.setLineDash([5 * d, 4 * d]);
    ctx.beginPath();
    pts.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath(); ctx.fill(); ctx.stroke();
    ctx.setLineDash([]);
  }
}

// drawClasses marks PE's class points Φ (K×2) on its live view: a diamond in the class's colour
// (black when the posteriors' classes are not the labels'), named.
function drawClasses(V, phi) {
  const ctx = V.octx, d = V.dpr, K = phi.length / 2, names = S.meta.classes || [];
  const same = names.length === K;
  ctx.font = `${11 * d}px system-ui`; ctx.lineWidth = 1.5 * d;
  for (let k = 0; k < K; k++) {
    const [x, y] = toScreenV(V, phi[2 * k], phi[2 * k + 1]), r = 7 * d;
    ctx.fillStyle = same ? hex(classColour(k)) : '#000'; ctx.strokeStyle = '#fff';
    ctx.beginPath(); ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y); ctx.closePath();
    ctx.fill(); ctx.stroke();
    const name = same ? names[k] : `class ${k + 1}`;
    ctx.strokeStyle = '#fff'; ctx.lineWidth = 3 * d; ctx.strokeText(name, x + r + 2 * d, y + 4 * d);
    ctx.fillStyle = '#000'; ctx.fillText(name, x + r + 2 * d, y + 4 * d); ctx.lineWidth = 1.5 * d;
  }
}

function draw() {
  S.draws++;
  for (const V of S.views) drawView(V);
  if (!S.firstFrame) { // time from the request of the page to its first full frame
    for (const V of S.views) V.r.finish();
    S.firstFrame = performance.now();
  }
}

function frame(t) {
  S.frames++;
  if (S.lastFrame) { S.frameTimes.push(t - S.lastFrame); if (S.frameTimes.length > 600) S.frameTimes.shift(); }
  // The pace of frames that redrew every point in motion (a moving average): slow ones make
  // the moving views show their last full frame instead.
  if (S.fullInMotion && S.lastFrame) S.motionMs = 0.7 * S.motionMs + 0.3 * (t - S.lastFrame);
  S.fullInMotion = false;
  S.lastFrame = t;
  pumpMove();
  if (S.dirty) { S.dirty = false; draw(); }
  requestAnimationFrame(frame);
}

// pumpMove sends the latest drag position, at most one move in flight: moves made while one is
// under way are coalesced into the next.
function pumpMove() {
  if (S.moveInflight || !S.pendingMove) return;
  const m = S.pendingMove;
  S.pendingMove = null;
  S.moveInflight = true;
  moveView(m).finally(() => { S.moveInflight = false; });
}

// ---- selection --------------------------------------------------------------------------

function boxCorners(l) {
  const [x0, y0] = l.pts[0], [x1, y1] = l.pts[l.pts.length - 1];
  return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
}

// inPolygon is the server's test (web/explore.go), operation for operation: the even–odd rule.
function inPolygon(xs, ys, x, y) {
  let inside = false;
  for (let i = 0, j = xs.length - 1; i < xs.length; j = i++) {
    if ((ys[i] > y) !== (ys[j] > y)) {
      const t = (xs[j] - xs[i]) * (y - ys[i]);
      if (x < t / (ys[j] - ys[i]) + xs[i]) inside = !inside;
    }
  }
  return inside;
}

// select selects the records inside polygon (data coordinates of view v) at once in the page,
// then sends the polygon to the server, which keeps the selection (for the table and the CSV)
// and answers its own rows; the page says so if they differ.
//
// In a 3-D view the polygon is in screen pixels and the points are tested where the camera P
// projects them (those behind the eye never): the request carries P, and the server projects
// its own positions with the same arithmetic. (Sending the n projected positions instead would
// make the request n×8 bytes; the camera is 12 numbers whatever n.)
async function select(v, polygon, P = null) {
  const V = S.views[v], p = V.pos, xs = polygon.map((q) => q[0]), ys = polygon.map((q) => q[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const rows = [], mask = new Uint8Array(S.n);
  for (let i = 0; i < S.n; i++) {
    let x, y;
    if (P) {
      let w;
      [x, y, w] = project(P, p[3 * i], p[3 * i + 1], p[3 * i + 2]);
      if (!(w > 0)) continue;
    } else { x = p[2 * i]; y = p[2 * i + 1]; }
    if (x >= x0 && x <= x1 && y >= y0 && y <= y1 && inPolygon(xs, ys, x, y)) { rows.push(i); mask[i] = 1; }
  }
  S.selected = Int32Array.from(rows); S.selMask = mask; S.selPolygon = polygon; S.selView = v;
  for (const W of S.views) W.r.setFlags(mask);
  $('clear-selection').disabled = false;
  restyle();
  $('selnote').textContent = `${rows.length} records selected in “${V.name}”…`;
  await serial(async () => {
    const r = await post('select', P ? { view: v, polygon, camera: P } : { view: v, polygon });
    S.selServer = new Int32Array(await r.arrayBuffer());
    S.selCount = +r.headers.get('X-Lowdim-Selected');
  });
  if (S.selCount !== rows.length) status(`the server selected ${S.selCount} records, the page ${rows.length}`, true);
  await showSelection();
}

function clearSelection() {
  S.selected = S.selMask = S.selPolygon = S.selServer = null; S.selCount = 0;
  for (const V of S.views) V.r.setFlags(null);
  restyle();
  $('clear-selection').disabled = true;
  $('selnote').textContent = 'Choose Lasso or Box above and draw in any view.';
  $('selclasses').innerHTML = $('seltable').innerHTML = '';
  $('export-selection').hidden = true;
  S.dirty = true;
  return serial(() => post('select', { view: 0, polygon: [] }));
}

function chosenColumns() {
  return Array.from($('columns').selectedOptions).map((o) => +o.value);
}

async function showSelection() {
  if (!S.selected) return;
  const cols = chosenColumns(), q = `columns=${cols.join(',')}`;
  const t = await (await request(api(`selection?${q}&limit=200`))).json();
  S.selTable = t;
  $('selnote').textContent = `${t.count} records selected in “${S.views[t.view].name}”` + (t.count > t.rows.length ? ` (the table shows the first ${t.rows.length}; the CSV has all)` : '') + '.';
  const names = S.meta.classes || [];
  $('selclasses').innerHTML = t.classes.map((c) => {
    const j = names.indexOf(c.class);
    return `<span><i style="background:${hex(classColour(j))}"></i>${esc(c.class)} ${c.count}</span>`;
  }).join('');
  const head = ['#', S.meta.labelled ? 'class' : null, S.meta.has_names ? 'name' : null].filter(Boolean).concat(t.columns);
  $('seltable').innerHTML = `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>` +
    t.rows.map((r) => `<tr data-record="${r.record}"><td>${r.record}</td>` + (S.meta.labelled ? `<td>${esc(r.class ?? '')}</td>` : '') +
      (S.meta.has_names ? `<td>${esc(r.name || '')}</td>` : '') + r.values.map((v) => `<td class="num">${fmt(v)}</td>`).join('') + '</tr>').join('') +
    '</tbody></table>';
  const link = $('export-selection');
  link.href = withToken(api(`selection.csv?${q}`));
  link.hidden = false;
}

// ---- interaction ------------------------------------------------------------------------

function eventXY(V, e) {
  const r = V.ov.getBoundingClientRect();
  return [(e.clientX - r.left) * V.dpr, (e.clientY - r.top) * V.dpr];
}

// hitV returns the record nearest to the screen position of view V within 8 CSS pixels
// (control points first), or −1.
function hitV(V, sx, sy) {
  const lim = (8 * V.dpr) ** 2;
  if (V.index === 0) {
    for (const r of S.controls.keys()) {
      const [x, y] = toScreenV(V, V.pos[2 * r], V.pos[2 * r + 1]);
      if ((x - sx) ** 2 + (y - sy) ** 2 <= lim) return r;
    }
  }
  if (V.dim === 3) return hit3(V, sx, sy, lim);
  const [dx, dy] = toDataV(V, sx, sy), p = V.pos, k2 = V.view.k * V.view.k;
  let best = lim / k2, arg = -1;
  for (let i = 0; i < S.n; i++) {
    const a = p[2 * i] - dx, b = p[2 * i + 1] - dy, d = a * a + b * b;
    if (d < best) { best = d; arg = i; }
  }
  return arg;
}

// hit3 is hitV in a 3-D view, on the projected positions, depth-aware: of the points drawn under
// the pointer (their disc covers it) the nearest to the eye — the one the user sees; with none
// under it, the nearest on screen within lim (squared pixels).
function hit3(V, sx, sy, lim) {
  const P = viewOf(V).P, p = V.pos, rad = (pointSize(V) / 2 + 0.5) ** 2;
  let best = lim, arg = -1, front = Infinity, under = -1;
  for (let i = 0; i < S.n; i++) {
    const [x, y, w] = project(P, p[3 * i], p[3 * i + 1], p[3 * i + 2]);
    if (!(w > 0)) continue;
    const d = (x - sx) ** 2 + (y - sy) ** 2;
    if (d <= rad && w < front) { front = w; under = i; }
    if (d < best) { best = d; arg = i; }
  }
  return under >= 0 ? under : arg;
}

const hit = (sx, sy) => hitV(S.views[0], sx, sy);

function listen(V) {
  const c = V.ov;
  c.addEventListener('pointerdown', (e) => {
    if (!S.ready || e.button !== 0) return;
    try { c.setPointerCapture(e.pointerId); } catch { /* a synthetic event's pointer (tests) */ }
    const [sx, sy] = eventXY(V, e);
    if (S.tool !== 'pan') {
      S.lasso = { view: V.index, box: S.tool === 'box', pts: [[sx, sy]] };
      return;
    }
    if (S.live && S.liveState && V.index === S.liveState.view) S.live.follow = false;
    if (V.dim === 3) { // drag orbits
      S.pan = { V, sx, sy, yaw: V.cam.yaw, pitch: V.cam.pitch };
      c.classList.add('grab');
      return;
    }
    const i = V.index === 0 ? hitV(V, sx, sy) : -1;
    if (i >= 0 && !S.readOnly) {
      if (e.shiftKey && S.controls.has(i)) { removeControl(i); return; }
      const created = !S.controls.has(i);
      if (created && S.controls.size >= S.meta.max_controls) {
        status(`at most ${S.meta.max_controls} control points: unpin one (shift-click) before pinning another`, true);
        return;
      }
      S.drag = { record: i, moved: false, created };
      if (created) {
        const pos = [V.pos[2 * i], V.pos[2 * i + 1]];
        S.controls.set(i, pos);
        // Refused (the server's cap, say): the error is shown; the point is not pinned or dragged.
        changeView('control', { record: i, pos }).catch(() => {
          S.controls.delete(i);
          if (S.drag && S.drag.record === i) { S.drag = null; S.pendingMove = null; }
          S.dirty = true;
        });
      }
      if (S.suggested === i) S.suggested = -1;
    } else {
      S.pan = { V, sx, sy, cx: V.view.cx, cy: V.view.cy };
      c.classList.add('grab');
    }
  });

  c.addEventListener('pointermove', (e) => {
    const [sx, sy] = eventXY(V, e);
    if (S.lasso) {
      const pts = S.lasso.pts, [lx, ly] = pts[pts.length - 1];
      if (S.lasso.box) pts[1] = [sx, sy];
      else if ((sx - lx) ** 2 + (sy - ly) ** 2 >= (2 * V.dpr) ** 2 && pts.length < 4000) pts.push([sx, sy]);
      S.dirty = true;
    } else if (S.drag) {
      const pos = toDataV(V, sx, sy);
      S.drag.moved = true;
      S.controls.set(S.drag.record, pos);
      S.pendingMove = { record: S.drag.record, pos };
      S.dirty = true;
    } else if (S.pan && S.pan.V.dim === 3) {
      // A drag across the view's shorter side turns it by about 180°.
      const P = S.pan.V, a = Math.PI / Math.min(P.W, P.H);
      P.cam.yaw = S.pan.yaw + (sx - S.pan.sx) * a;
      P.cam.pitch = Math.max(-Math.PI / 2, Math.min(Math.PI / 2, S.pan.pitch + (sy - S.pan.sy) * a));
      S.dirty = true;
    } else if (S.pan) {
      const P = S.pan.V;
      P.view.cx = S.pan.cx - (sx - S.pan.sx) / P.view.k;
      P.view.cy = S.pan.cy + (sy - S.pan.sy) / P.view.k;
      S.dirty = true;
    } else if (S.ready) {
      hoverAt(V, sx, sy, e);
    }
  });

  const end = () => {
    if (S.lasso) {
      const l = S.lasso;
      S.lasso = null;
      S.dirty = true;
      const pts = l.box ? boxCorners(l) : l.pts;
      if (pts.length >= 3 && !(l.box && (pts[0][0] === pts[2][0] || pts[0][1] === pts[2][1]))) {
        const L = S.views[l.view];
        if (L.dim === 3) select(l.view, pts, viewOf(L).P).catch(showError);
        else select(l.view, pts.map(([x, y]) => toDataV(L, x, y))).catch(showError);
      }
    }
    if (S.drag) {
      const changed = S.drag.moved || S.drag.created;
      S.drag = null;
      // After the last move has been sent and answered: the lists and the slow measures.
      if (changed) idle().then(() => { listControls(); afterChange(); });
    }
    if (S.pan) { S.pan = null; c.classList.remove('grab'); S.dirty = true; } // the full frame
  };
  c.addEventListener('pointerup', end);
  c.addEventListener('pointercancel', end);

  c.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (S.live && S.liveState && V.index === S.liveState.view) S.live.follow = false;
    const f = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
    if (V.dim === 3) { // zoom about the centre: a longer focal length
      V.cam.f *= f;
      S.dirty = true;
      return;
    }
    const [sx, sy] = eventXY(V, e), [x, y] = toDataV(V, sx, sy);
    V.view.k *= f;
    V.view.cx = x - (sx - V.W / 2) / V.view.k;  // keep the data point under the cursor
    V.view.cy = y + (sy - V.H / 2) / V.view.k;
    S.dirty = true;
    V.lastWheel = performance.now();
    clearTimeout(V.wheelTimer);
    V.wheelTimer = setTimeout(() => { S.dirty = true; }, 220); // the full frame once zooming stops
  }, { passive: false });

  c.addEventListener('pointerleave', () => { if (S.hover >= 0 && !S.lasso && !S.pan) { S.hover = -1; $('tip').hidden = true; S.dirty = true; } });
}

let tipTimer = 0;
function hoverAt(V, sx, sy, e) {
  const i = hitV(V, sx, sy);
  const tip = $('tip');
  if (i !== S.hover) {
    S.hover = i; S.dirty = true;
    clearTimeout(tipTimer);
    if (i < 0) { tip.hidden = true; return; }
    tipTimer = setTimeout(() => showRecord(i), 60);
  }
  if (i >= 0) {
    tip.style.left = `${Math.min(e.clientX + 14, window.innerWidth - 350)}px`;
    tip.style.top = `${Math.min(e.clientY + 14, window.innerHeight - 200)}px`;
  }
}

// hoverRecord hovers record i as the pointer would (for the tests and the table's rows).
function hoverRecord(i) {
  S.hover = i; S.dirty = true;
  return showRecord(i);
}

async function showRecord(i) {
  const k = Math.min(100, Math.max(1, +$('nbk').value || 10));
  const [rec, nb] = await Promise.all([
    request(`api/records/${i}` + (S.meta.words ? '?top=12' : '')).then((r) => r.json()),
    request(api(`neighbors/${i}?k=${k}`)).then((r) => r.json()),
  ]);
  if (S.hover !== i) return;
  S.nb = nb; S.dirty = true;
  const tip = $('tip');
  let html = `<b>#${i}</b>` + (rec.class != null ? ` · ${esc(rec.class)}` : '') + (rec.name ? ` · ${esc(rec.name)}` : '');
  if (S.controls.has(i)) html += ' · <i>control point</i>';
  if (S.qual) {
    const q = S.qual.rows ? S.qual.rows.indexOf(i) : i;
    if (q >= 0) html += `<br>trustworthiness ${fmt(S.qual.trustworthiness_points[q])}, continuity ${fmt(S.qual.continuity_points[q])}` +
      `<br>precision loss ${fmt(S.qual.precision[q])}, recall loss ${fmt(S.qual.recall[q])}`;
  }
  if (S.unc) html += `<br>uncertainty ${fmt(S.unc[i])}`;
  const near = new Set(nb.input);
  const kept = nb.views.map((v) => v.filter((j) => near.has(j)).length);
  html += '<br>' + nb.views.map((_, v) => `${S.views.length > 1 ? esc(S.views[v].name) + ': ' : ''}${kept[v]} of its ${nb.k} input neighbours among its ${nb.k} nearest ${S.views[v].dim === 3 ? 'in its 3-D space' : 'on screen'}`).join('<br>');
  // With k on both sides every neighbour missed is a stranger let in: as many precision errors.
  $('nbnote').innerHTML = `#${i}, k = ${nb.k}: ` + nb.views.map((_, v) => `${esc(S.views[v].name)}: ${nb.k - kept[v]} recall errors (and as many precision errors)`).join('; ');
  const v = rec.values, dims = S.meta.image || squareImage();
  if (dims && v.length === dims[0] * dims[1]) {
    const scale = Math.max(1, Math.floor(112 / Math.max(...dims)));
    html += `<canvas class="thumb" width="${dims[0]}" height="${dims[1]}" style="width:${dims[0] * scale}px"></canvas>`;
  } else if (S.meta.words) {
    html += '<div class="words">' + (rec.top || []).map((w) => `<span>${esc(w.feature)} <small>${fmt(w.value)}</small></span>`).join('') + '</div>';
  } else {
    html += '<table>' + v.slice(0, 12).map((x, j) => `<tr><td>${esc(rec.features ? rec.features[j] : 'x' + (j + 1))}</td><td>${fmt(x)}</td></tr>`).join('') + '</table>' + (S.meta.h > 12 ? `… ${S.meta.h} features` : '');
  }
  tip.innerHTML = html;
  tip.hidden = false;
  const c = tip.querySelector('canvas');
  if (c) { // the record as a grey image, dark ink on white
    let lo = Infinity, hi = -Infinity;
    for (const x of v) { if (x < lo) lo = x; if (x > hi) hi = x; }
    const im = c.getContext('2d').createImageData(dims[0], dims[1]);
    v.forEach((x, j) => { const g = 255 - Math.round(255 * (x - lo) / ((hi - lo) || 1)); im.data.set([g, g, g, 255], 4 * j); });
    c.getContext('2d').putImageData(im, 0, 0);
  }
}

// squareImage guesses a square picture (the digits' 8×8) when the server was told nothing.
function squareImage() {
  const side = Math.round(Math.sqrt(S.meta.h));
  return !S.meta.words && side * side === S.meta.h && side >= 4 ? [side, side] : null;
}

function removeControl(i) {
  S.controls.delete(i);
  changeView('remove', { record: i }).then(() => { listControls(); afterChange(); });
}

function listControls() {
  return serial(async () => {
    if (S.readOnly) return;
    const c = await (await request(api('controls'))).json();
    S.controls = new Map(c.records.map((r, k) => [r, c.pos[k]]));
    S.method = c.method;
    const ol = $('controls');
    ol.innerHTML = '';
    c.records.forEach((r, k) => {
      const li = document.createElement('li');
      li.textContent = `#${r} at (${fmt(c.pos[k][0])}, ${fmt(c.pos[k][1])}) `;
      const b = document.createElement('button');
      b.textContent = '×'; b.title = 'unpin'; b.onclick = () => removeControl(r);
      li.append(b); ol.append(li);
    });
    document.querySelector(`input[name=method][value=${S.method}]`).checked = true;
    S.dirty = true;
  });
}

// afterChange refreshes what is too slow to follow every frame: quality and uncertainty.
function afterChange() {
  refreshQuality();
  if (S.colourBy === 'uncertainty' || S.unc) refreshUncertainty();
}

function refreshUncertainty() {
  if (S.readOnly) return Promise.resolve();
  return serial(async () => {
    S.unc = new Float32Array(await (await request(api('uncertainty'))).arrayBuffer());
    if (S.colourBy === 'uncertainty') recolour();
  });
}

let qualSeq = 0, busyTimer = 0;
async function refreshQuality() {
  const seq = ++qualSeq;
  $('quality').classList.add('stale');
  S.qualPending = true;
  S.qualStarted = performance.now();
  // A sign of work while the measures take their seconds, with the time so far.
  const busy = $('qbusy');
  busy.hidden = false;
  const tick = () => {
    busy.textContent = `computing the quality measures on ${S.meta.quality_sampled ? `a sample of ${S.meta.quality_rows}` : `all ${S.meta.quality_rows}`} records… ${((performance.now() - S.qualStarted) / 1000).toFixed(0)} s` +
      (S.qual ? ` (the last took ${S.qual.seconds.toFixed(1)} s)` : '');
  };
  tick();
  clearInterval(busyTimer);
  busyTimer = setInterval(tick, 1000);
  await S.chain; // measure the view after the changes made so far
  try {
    const q = await (await request(api('quality'))).json();
    if (seq !== qualSeq) return;
    S.qual = q;
    showQuality(q);
    if (!['class', 'uncertainty'].includes(S.colourBy)) recolour();
  } catch (e) {
    if (seq === qualSeq) showError(e);
  } finally {
    if (seq === qualSeq) {
      S.qualPending = false; $('quality').classList.remove('stale');
      clearInterval(busyTimer); busy.hidden = true;
    }
  }
}

function showQuality(q) {
  const k = q.neighbors, rows = [
    [`trustworthiness T(${k})`, q.trustworthiness, '1 is best'],
    [`continuity C(${k})`, q.continuity, '1 is best'],
    ['smoothed precision loss', q.smoothed_precision_loss, '0 is best'],
    ['smoothed recall loss', q.smoothed_recall_loss, '0 is best'],
    ['rank precision loss', q.rank_precision_loss, '0 is best'],
    ['rank recall loss', q.rank_recall_loss, '0 is best'],
    ['5-NN error', q.knn_error, q.knn_error == null ? 'no labels' : '0 is best'],
  ];
  $('quality').tBodies[0].innerHTML = rows.map(([a, b, c]) => `<tr title="${c}"><td>${a}</td><td>${fmt(b)}</td></tr>`).join('');
  $('qnote').textContent = (q.sampled ? `On a seeded random sample of ${q.n} of the ${S.n} records. ` : `All ${q.n} records. `) +
    `${k} neighbours; took ${q.seconds.toFixed(2)} s. Hover a row for its direction.` + (S.views.length > 1 ? ` Measures of “${S.views[0].name}”.` : '');
}

document.querySelectorAll('input[name=method]').forEach((el) => el.addEventListener('change', () => {
  changeView('method', { method: el.value }).then(() => { S.suggested = -1; afterChange(); });
}));
document.querySelectorAll('input[name=tool]').forEach((el) => el.addEventListener('change', () => { S.tool = el.value; }));
$('clear-selection').onclick = () => clearSelection();
$('columns').onchange = () => showSelection().catch(showError);
$('reset').onclick = () => {
  S.controls.clear(); S.suggested = -1;
  changeView('reset').then(() => { listControls(); afterChange(); });
};
$('suggest').onclick = () => serial(async () => {
  const { record } = await (await request(api('suggest'))).json();
  S.suggested = record;
  status(record < 0 ? 'every record is a control point' : `suggested record #${record} (red ring): drag it to where it belongs`);
  S.dirty = true;
});
$('fit').onclick = fit;
$('colour').onchange = (e) => {
  S.colourBy = e.target.value;
  if (S.colourBy === 'uncertainty' && !S.unc) refreshUncertainty();
  recolour();
};
window.addEventListener('resize', () => { resize(); });
window.addEventListener('pagehide', () => { if (S.id) fetch(`api/sessions/${S.id}`, { method: 'DELETE', headers: headers(true), keepalive: true }); });

// ---- NeRV live --------------------------------------------------------------------------

// The live fit runs on the server in rounds of a few CG iterations (PE: one L-BFGS iteration on
// its class points); the page polls its state (4 times a second while it runs), fetches the
// positions of each new round into its own view and plots the two cost terms per round (PE: J
// and the mean KL), a tick where λ changed (PE: where a new start began).
let livePoll = 0;

function liveView(st) {
  let V = S.views[st.view];
  if (!V) {
    const name = st.variant === 'pe' ? 'PE' : st.variant === 'tnerv' ? (st.lambda === 1 ? 't-SNE' : 't-NeRV') : 'NeRV';
    V = newView(st.view, `${name} live${st.path === 'approximate' ? ' (Barnes–Hut)' : ''}`);
    S.views[st.view] = V;
    $('views').style.gridTemplateColumns = `repeat(${Math.min(S.views.length, 3)}, 1fr)`;
    listen(V);
    resize();
    V.r.setColours(S.colours, S.order);
    S.live = { fitted: false, follow: true };
  }
  return V;
}

async function liveAction(body) {
  const st = await (await post('live', body)).json();
  await showLive(st);
  return st;
}

async function showLive(st) {
  S.liveState = st;
  // A PE fit that has ended stays so (lowdim embed's layout): nothing to resume or stop.
  const running = st.state === 'running', active = running || st.state === 'paused' || (st.state === 'converged' && st.variant !== 'pe');
  $('live-pause').disabled = !active;
  $('live-pause').textContent = running ? 'Pause' : 'Resume';
  $('live-stop').disabled = !active;
  const stage = { knn: 'the k-NN graph', 'knn-trees': 'the k-NN graph (trees)', 'mean distance': 'the mean distance', nerv: 'iteration' }[st.stage] || st.stage;
  const p = st.progress[1] ? ` (${stage} ${st.progress[0]} of ${st.progress[1]})` : '';
  const last = st.history[st.history.length - 1];
  const fast = st.path === 'approximate';
  if (st.variant === 'pe') {
    // PE's progress counts L-BFGS iterations within a stage (a start, the warm-up), out of an upper bound.
    $('livenote').textContent = `${st.state}: round ${st.round}; ${st.iterations} iterations on the class points` +
      (last && last.stage !== 'pe' ? ` (${peStage(last.stage)})` : '') + (last ? `; J ${fmt(last.cost)}, mean KL ${fmt(last.kl)}` : '') +
      (st.state === 'converged' ? ': the fit has ended (lowdim embed -method pe computes this layout)' : '') + (st.error ? `: ${st.error}` : '');
  } else $('livenote').textContent = `${st.state}: round ${st.round}${running ? p : ''}` +
    (fast ? `; ${st.iterations} iterations${st.exaggerating ? ' (early exaggeration: λ = 1 until it ends)' : ''}` : '') +
    (last ? `; precision ${fmt(last.precision)}, recall ${fmt(last.recall)} at λ = ${last.lambda}` : st.round === 0 && running ? (fast ? '; the first round finds the neighbours' : '; the first round anneals') : '') + (st.error ? `: ${st.error}` : '');
  $('live-progress').value = running && st.progress[1] && st.variant !== 'pe' ? st.progress[0] / st.progress[1] : 0;
  $('live-progress').hidden = !running;
  plotCosts(st.history, st.variant === 'pe');
  if (st.state !== 'none') {
    const V = liveView(st);
    if (st.round > (S.liveRound || 0)) {
      S.liveRound = st.round;
      const b = await (await request(api('live/positions'))).arrayBuffer();
      setPos(V, new Float32Array(b));
      // t-SNE's layout grows a hundredfold as it forms: the view follows it until the user pans or zooms it.
      // PE's layout changes its scale as its class points spread: followed likewise.
      if (!S.live.fitted || (S.live.follow && (st.path === 'approximate' || st.variant === 'pe'))) { fitView(V); S.live.fitted = true; }
    }
  }
  clearTimeout(livePoll);
  if (running) livePoll = setTimeout(() => request(api('live')).then((r) => r.json()).then(showLive).catch(showError), 250);
}

// plotCosts draws both cost terms per round, each on its own vertical scale (its range written
// in its colour): t-SNE's precision term is many times its recall term, and on one scale the
// recall curve would lie flat. PE's terms are J and the mean KL(p_i‖q_i), with a tick where a
// start (or the warm-up) ends and the next begins.
function plotCosts(hist, isPE) {
  const c = $('costs'), g = c.getContext('2d'), W = c.width, H = c.height;
  g.clearRect(0, 0, W, H);
  if (!hist.length) return;
  const m = Math.max(hist.length - 1, 1), X = (k) => 6 + (W - 12) * k / m;
  g.strokeStyle = '#bbb'; g.fillStyle = '#666'; g.font = '10px system-ui';
  hist.forEach((h, k) => {
    const tick = (text) => { g.beginPath(); g.moveTo(X(k), 22); g.lineTo(X(k), H - 12); g.stroke(); g.fillText(text, X(k) + 2, 32); };
    if (isPE) {
      if (k && h.stage !== hist[k - 1].stage && /start \d+ of/.test(h.stage)) tick(/start (\d+)/.exec(h.stage)[1]);
    } else if (k && h.lambda !== hist[k - 1].lambda) tick(`λ ${h.lambda}`);
  });
  const terms = isPE ? [['cost', '#0060c0', 6, 'J'], ['kl', '#e07000', W / 2, 'mean KL(p‖q)']]
    : [['precision', '#c000c0', 6, 'precision KL(q‖p)'], ['recall', '#e07000', W / 2, 'recall KL(p‖q)']];
  for (const [key, colour, at] of isPE ? [...terms].reverse() : terms) { // J drawn last, on top
    const v = hist.map((h) => h[key]).filter(Number.isFinite);
    if (!v.length) continue;
    const lo = Math.min(...v), hi = Math.max(...v);
    const Y = (x) => H - 14 - (H - 40) * (x - lo) / ((hi - lo) || 1);
    g.strokeStyle = colour; g.lineWidth = 1.5;
    g.beginPath();
    hist.forEach((h, k) => (k ? g.lineTo(X(k), Y(h[key])) : g.moveTo(X(k), Y(h[key]))));
    g.stroke();
    g.fillStyle = colour; g.fillText(`${fmt(lo)} – ${fmt(hi)}`, at, 10);
  }
  g.fillStyle = terms[0][1]; g.fillText(terms[0][3], 6, H - 2);
  g.fillStyle = terms[1][1]; g.fillText(terms[1][3], 110, H - 2);
}

$('lambda').oninput = () => { $('lambda-value').textContent = (+$('lambda').value).toFixed(2); };
$('lambda').onchange = () => {
  if (S.liveState && S.liveState.variant !== 'pe' && ['running', 'paused', 'converged'].includes(S.liveState.state)) liveAction({ action: 'lambda', lambda: +$('lambda').value }).catch(showError);
};
$('live-start').onclick = () => {
  S.liveRound = 0;
  if (S.live) { S.live.fitted = false; S.live.follow = true; }
  liveAction({ action: 'start', lambda: +$('lambda').value, variant: $('variant').value }).catch(showError);
};
$('variant').onchange = () => { // t-SNE is t-NeRV at λ = 1
  if ($('variant').value === 'tsne') { $('lambda').value = 1; $('lambda-value').textContent = '1.00'; }
  showLambda();
};

// peStage names a stage of the PE fit: "pe warm-up (start 2 of 5)" becomes "warm-up, start 2 of 5".
const peStage = (s) => s.replace(/^pe ?/, '').replace(/ ?\((.*)\)$/, (_, x) => `, ${x}`).replace(/^, /, '');

// showLambda disables the λ slider for PE, which has no λ, and says so.
function showLambda() {
  const isPE = $('variant').value === 'pe';
  $('lambda').disabled = isPE;
  $('lambda-note').textContent = isPE
    ? 'PE has no λ: it places records and class points so that the map\'s class posteriors match the given ones (J = Σ KL + penalties).'
    : 'λ weighs recall (1: SNE / t-SNE) against precision (0); moving it continues the fit from where it is.';
}
$('live-pause').onclick = () => liveAction({ action: S.liveState.state === 'running' ? 'pause' : 'resume' }).catch(showError);
$('live-stop').onclick = () => liveAction({ action: 'stop' }).catch(showError);

// ---- start ------------------------------------------------------------------------------

// shortTitle keeps the last element of each path in the title ("a/b/mnist.csv — c/tsne.csv"
// becomes "mnist.csv — tsne.csv"); the whole one is the tooltip.
const shortTitle = (t) => t.split(' — ').map((s) => s.split(/[\\/]/).pop()).join(' — ');

async function start() {
  S.meta = await (await request('api/data')).json();
  S.n = S.meta.n;
  const names = S.meta.views || ['projection'];
  document.title = `lowdim — ${shortTitle(S.meta.title)}`;
  $('title').textContent = shortTitle(S.meta.title);
  $('title').title = S.meta.title;
  $('about').textContent = `${S.n} records, ${S.meta.h} features` + (S.meta.labelled ? `, ${S.meta.classes.length} classes` : '') +
    (S.meta.read_only ? '. A fixed embedding: read-only.' : '') + (names.length > 1 ? ` ${names.length} views, selection and hover linked.` : '');
  const sess = await (await request('api/sessions', { method: 'POST', body: '{}' })).json();
  S.id = sess.id; S.readOnly = sess.read_only;
  if (S.readOnly) {
    $('projection').classList.add('off');
    $('colour').querySelector('option[value=uncertainty]').disabled = true;
    $('export-projection').hidden = $('export-model').hidden = true;
  }
  $('export-embedding').href = withToken(api('embedding.csv'));
  $('export-projection').href = withToken(api('projection.csv'));
  $('export-model').href = withToken(api('model.lowdim'));
  $('views').style.gridTemplateColumns = `repeat(${Math.min(names.length, 3)}, 1fr)`;
  S.software = RENDERER === 'auto' && softwareGL();
  S.useGL = RENDERER === 'webgl2' || (RENDERER === 'auto' && !S.software);
  const dims = S.meta.dims || names.map(() => 2);
  S.views = names.map((name, v) => newView(v, v === 0 && !S.readOnly ? `projection (${S.method})` : name + (dims[v] === 3 ? ' (3-D: drag to orbit)' : ''), dims[v]));
  S.renderer = S.views[0].r.kind;
  $('renderer').textContent = S.renderer === 'webgl2' ? 'WebGL2' : S.software ? 'canvas 2D (the WebGL here is software: 2D is cheaper)' : RENDERER === '2d' ? 'canvas 2D' : 'canvas 2D (no WebGL2)';
  S.views.forEach(listen);
  const cols = $('columns'), feats = S.meta.features;
  for (let j = 0; j < Math.min(S.meta.h, 2000); j++) {
    const o = document.createElement('option');
    o.value = j; o.textContent = feats ? feats[j] : `x${j + 1}`;
    o.selected = j < 3;
    cols.append(o);
  }
  const [labels, r, ...others] = await Promise.all([
    request('api/labels').then((x) => x.arrayBuffer()),
    request(api('positions')),
    ...names.slice(1).map((_, v) => request(`api/views/${v + 1}/positions`).then((x) => x.arrayBuffer())),
  ]);
  S.labels = new Int32Array(labels);
  setPositions(r);
  resize();
  setPos(S.views[0], new Float32Array(await r.arrayBuffer()));
  others.forEach((b, v) => setPos(S.views[v + 1], new Float32Array(b)));
  fit();
  recolour();
  if (!S.readOnly) await listControls();
  if (S.n > S.meta.live_max_fast) {
    $('live-start').disabled = true;
    $('livenote').textContent = `A live fit takes at most ${S.meta.live_max_fast} records; this data set has ${S.n}: fit it with lowdim embed and show it with -embedding.`;
  } else if (S.n > S.meta.live_max) {
    // Above the exact path's size every variant runs on its fast path; Gaussian NeRV up to its own bound.
    let note = `t-NeRV and t-SNE run on the approximate path (k-NN graph, Barnes–Hut): their first iterations form the clusters at λ = 1 with early exaggeration, then λ applies. `;
    if (S.n > S.meta.live_max_nerv) {
      $('variant').querySelector('option[value=nerv]').disabled = true;
      $('variant').value = 'tnerv';
      note += `NeRV (Gaussian) runs live on at most ${S.meta.live_max_nerv} records, and this data set has ${S.n}.`;
    } else {
      note += `NeRV (Gaussian) runs on its FFT grid: t-SNE's iterations first, then one conjugate-gradient iteration of NeRV's cost at λ a round.`;
    }
    $('livenote').textContent = note;
  }
  if (S.meta.live_pe_unavailable) { // PE needs posteriors: the option says why it is off
    const o = $('variant').querySelector('option[value=pe]');
    o.disabled = true; o.textContent = 'PE (no posteriors)'; o.title = S.meta.live_pe_unavailable;
    $('pe-note').textContent = S.meta.live_pe_unavailable;
    $('pe-note').hidden = false;
  }
  if (S.meta.live_start) { // lowdim serve -method nerv|tnerv|tsne|pe
    const ls = S.meta.live_start;
    $('variant').value = ls.variant;
    $('lambda').value = ls.lambda;
    $('lambda-value').textContent = (+ls.lambda).toFixed(2);
    S.liveAuto = true;
  }
  showLambda();
  S.ready = true;
  status('ready');
  requestAnimationFrame(frame);
  if (S.liveAuto) $('live-start').click();
  refreshQuality();
}

// idle resolves when no request of the session is under way or pending (for the tests).
async function idle() {
  for (;;) {
    await S.chain;
    if (!S.busy && !S.pendingMove && !S.moveInflight) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

// For the browser tests: screenOf gives a record's place in page (CSS) pixels, toDataCSS the data
// coordinates of a page position, hitAt the record under a canvas pixel; the …V forms take a view.
const screenOfV = (v, i) => {
  const V = S.views[v], [x, y] = screenPos(V, i), r = V.ov.getBoundingClientRect();
  return [r.left + x / V.dpr, r.top + y / V.dpr];
};
window.lowdim = {
  state: S, toScreen, toData, idle, hitAt: hit, inPolygon, hoverRecord, project,
  // camera returns the projection P of 3-D view v as drawn now (null for a 2-D view).
  camera: (v) => (S.views[v].dim === 3 ? viewOf(S.views[v]).P.slice() : null),
  screenOf: (i) => screenOfV(0, i),
  screenOfV,
  hitAtV: (v, x, y) => hitV(S.views[v], x, y),
  toDataCSS: (x, y) => { const V = S.views[0], r = V.ov.getBoundingClientRect(); return toDataV(V, (x - r.left) * V.dpr, (y - r.top) * V.dpr); },
  quality: () => (async () => { while (S.qualPending) await new Promise((r) => setTimeout(r, 20)); return S.qual; })(),
  // frames returns the frame intervals (ms) since the last call: requestAnimationFrame's pace.
  frames: () => S.frameTimes.splice(0),
};

start().catch((e) => { showError(e); S.failed = true; });
