// lowdim serve: the page. Plain ES module, canvas 2D; points are drawn into one ImageData per
// frame (a few milliseconds for 100,000 points), control points and highlights as vectors on top.

const $ = (id) => document.getElementById(id);
const canvas = $('canvas');
const ctx = canvas.getContext('2d');

// S is the page's whole state; window.lowdim exposes it to the browser tests.
const S = {
  meta: null, id: null, n: 0,
  pos: new Float32Array(0),     // n×2 current positions (from the server)
  labels: new Int32Array(0),
  controls: new Map(),          // record → [x, y] placement
  method: 'mle', readOnly: false,
  colourBy: 'class', colours: new Uint32Array(0), order: null,
  unc: null, qual: null, qualPending: false,
  view: { cx: 0, cy: 0, k: 1 }, W: 1, H: 1, dpr: 1,
  hover: -1, suggested: -1,
  drag: null, pan: null,
  pendingMove: null, moveInflight: false, chain: Promise.resolve(), busy: 0,
  dirty: true, frames: 0, draws: 0, updates: 0, rev: 0,
  ready: false, errors: [],
};

// ---- requests ---------------------------------------------------------------------------

// TOKEN is the server's token, when it has one (lowdim serve beyond loopback): it comes in the
// page's own address (…/?token=…) and goes with every request, as a header or, for the export
// links, in the query.
const TOKEN = new URLSearchParams(location.search).get('token') || '';

function api(path) { return `api/sessions/${S.id}/${path}`; }

function withToken(url) { return TOKEN ? `${url}?token=${encodeURIComponent(TOKEN)}` : url; }

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
    await r.arrayBuffer().then((b) => { S.pos = new Float32Array(b); });
    S.updates++;
    S.dirty = true;
  });
}

function setPositions(r) {
  const m = r.headers.get('X-Lowdim-Method');
  if (m) S.method = m;
  S.rev = +r.headers.get('X-Lowdim-Revision');
}

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

function toScreen(x, y) {
  const v = S.view;
  return [S.W / 2 + (x - v.cx) * v.k, S.H / 2 - (y - v.cy) * v.k];
}

function toData(sx, sy) {
  const v = S.view;
  return [v.cx + (sx - S.W / 2) / v.k, v.cy - (sy - S.H / 2) / v.k];
}

function fit() {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  const p = S.pos;
  for (let i = 0; i < S.n; i++) {
    const x = p[2 * i], y = p[2 * i + 1];
    if (x < x0) x0 = x; if (x > x1) x1 = x;
    if (y < y0) y0 = y; if (y > y1) y1 = y;
  }
  for (const [x, y] of S.controls.values()) {
    x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
  }
  if (!(x1 >= x0)) { x0 = x1 = y0 = y1 = 0; }
  const w = Math.max(x1 - x0, 1e-12), h = Math.max(y1 - y0, 1e-12);
  let k = 0.9 * Math.min(S.W / w, S.H / h);
  if (x1 - x0 < 1e-9 && y1 - y0 < 1e-9) k = Math.min(S.W, S.H) / 2; // everything at one place
  S.view = { cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, k };
  S.dirty = true;
}

function resize() {
  const r = canvas.getBoundingClientRect();
  S.dpr = window.devicePixelRatio || 1;
  const W = Math.max(1, Math.round(r.width * S.dpr)), H = Math.max(1, Math.round(r.height * S.dpr));
  if (W === canvas.width && H === canvas.height) return;
  const old = { W: S.W, H: S.H };
  canvas.width = W; canvas.height = H;
  S.W = W; S.H = H;
  S.img = ctx.createImageData(W, H);
  S.px = new Uint32Array(S.img.data.buffer);
  if (old.W > 1) S.view.k *= Math.min(W / old.W, H / old.H);
  S.dirty = true;
}

// ---- colours ----------------------------------------------------------------------------

const rgba = (r, g, b) => (255 << 24 | b << 16 | g << 8 | r) >>> 0; // ImageData is RGBA bytes
const hex = (c) => '#' + [c & 255, c >> 8 & 255, c >> 16 & 255].map((v) => v.toString(16).padStart(2, '0')).join('');
const TAB10 = [[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189],
  [140, 86, 75], [227, 119, 194], [127, 127, 127], [188, 189, 34], [23, 190, 207]];
const GREY = rgba(205, 205, 205), BG = rgba(255, 255, 255);

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
  } else if (S.qual) {
    const v = by === 'precision' ? S.qual.precision : S.qual.recall;
    const rows = S.qual.rows, sum = v.reduce((a, b) => a + b, 0) || 1;
    const hi = quantile(v, 0.99) / sum || 1;
    const inSample = new Uint8Array(n);
    v.forEach((x, k) => { const i = rows ? rows[k] : k; col[i] = ramp(x / sum / hi); inSample[i] = 1; });
    for (let i = 0; i < n; i++) (inSample[i] ? last : first).push(i);
    legend = rampLegend('0', (100 * hi).toPrecision(2) + '% (99th pct.)', `share of the ${by} loss` + (rows ? `; grey: not in the ${rows.length}-row sample` : ''));
  } else legend = 'computing…';
  S.colours = col;
  S.order = first.length ? Int32Array.from(first.concat(last)) : null;
  $('legend').innerHTML = legend;
  S.dirty = true;
}

function rampLegend(lo, hi, what) {
  const g = STOPS.map((c) => `rgb(${c})`).join(',');
  return `<div class="ramp" style="background:linear-gradient(to right,${g})"></div><span>${lo}</span><span style="margin-left:auto">${hi}</span><span>${what}</span>`;
}

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fmt = (v) => (v == null ? '—' : Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : v.toPrecision(4));

// ---- drawing ----------------------------------------------------------------------------

function stamp() {
  const r = (S.n <= 5000 ? 3 : S.n <= 30000 ? 2 : 1) * S.dpr, offs = [];
  const R = Math.max(0.75, r - 0.5);
  for (let dy = -Math.ceil(R); dy <= Math.ceil(R); dy++)
    for (let dx = -Math.ceil(R); dx <= Math.ceil(R); dx++)
      if (dx * dx + dy * dy <= R * R + 0.5) offs.push([dx, dy]);
  return offs;
}

function draw() {
  S.draws++;
  const { W, H, px } = S, p = S.pos, col = S.colours, v = S.view;
  px.fill(BG);
  const offs = S.stamp, hw = W / 2, hh = H / 2, k = v.k, cx = v.cx, cy = v.cy;
  const order = S.order, n = S.n;
  if (offs.length === 1) {
    for (let m = 0; m < n; m++) {
      const i = order ? order[m] : m;
      const x = (hw + (p[2 * i] - cx) * k) | 0, y = (hh - (p[2 * i + 1] - cy) * k) | 0;
      if (x >= 0 && x < W && y >= 0 && y < H) px[y * W + x] = col[i];
    }
  } else {
    for (let m = 0; m < n; m++) {
      const i = order ? order[m] : m;
      const x = Math.round(hw + (p[2 * i] - cx) * k), y = Math.round(hh - (p[2 * i + 1] - cy) * k);
      if (x < -3 || x > W + 3 || y < -3 || y > H + 3) continue;
      const c = col[i];
      for (const [dx, dy] of offs) {
        const xx = x + dx, yy = y + dy;
        if (xx >= 0 && xx < W && yy >= 0 && yy < H) px[yy * W + xx] = c;
      }
    }
  }
  ctx.putImageData(S.img, 0, 0);
  const d = S.dpr;
  ctx.lineWidth = 1.5 * d;
  for (const [r, [x, y]] of S.controls) {       // placement: ring; line to where the point went
    const [sx, sy] = toScreen(x, y), [px_, py_] = toScreen(p[2 * r], p[2 * r + 1]);
    ctx.strokeStyle = '#000';
    ctx.beginPath(); ctx.moveTo(sx, sy); ctx.lineTo(px_, py_); ctx.stroke();
    ctx.beginPath(); ctx.arc(sx, sy, 7 * d, 0, 2 * Math.PI); ctx.stroke();
    ctx.fillStyle = hex(col[r]);
    ctx.beginPath(); ctx.arc(px_, py_, 4 * d, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
  }
  for (const [i, c] of [[S.suggested, '#d00'], [S.hover, '#000']]) {
    if (i < 0) continue;
    const [sx, sy] = toScreen(p[2 * i], p[2 * i + 1]);
    ctx.strokeStyle = c;
    ctx.beginPath(); ctx.arc(sx, sy, 10 * d, 0, 2 * Math.PI); ctx.stroke();
  }
}

function frame() {
  S.frames++;
  pumpMove();
  if (S.dirty && S.img) { S.dirty = false; draw(); }
  requestAnimationFrame(frame);
}

// pumpMove sends the latest drag position, at most one move in flight: moves made while one is
// under way are coalesced into the next.
function pumpMove() {
  if (S.moveInflight || !S.pendingMove) return;
  const m = S.pendingMove;
  S.pendingMove = null;
  S.moveInflight = true;
  changeView('move', m).finally(() => { S.moveInflight = false; });
}

// ---- interaction ------------------------------------------------------------------------

function eventXY(e) {
  const r = canvas.getBoundingClientRect();
  return [(e.clientX - r.left) * S.dpr, (e.clientY - r.top) * S.dpr];
}

// hit returns the point nearest to the screen position within 8 CSS pixels (control points
// first), or −1.
function hit(sx, sy) {
  const lim = (8 * S.dpr) ** 2;
  for (const r of S.controls.keys()) {
    const [x, y] = toScreen(S.pos[2 * r], S.pos[2 * r + 1]);
    if ((x - sx) ** 2 + (y - sy) ** 2 <= lim) return r;
  }
  const [dx, dy] = toData(sx, sy), p = S.pos, k2 = S.view.k * S.view.k;
  let best = lim / k2, arg = -1;
  for (let i = 0; i < S.n; i++) {
    const a = p[2 * i] - dx, b = p[2 * i + 1] - dy, d = a * a + b * b;
    if (d < best) { best = d; arg = i; }
  }
  return arg;
}

canvas.addEventListener('pointerdown', (e) => {
  if (!S.ready || e.button !== 0) return;
  canvas.setPointerCapture(e.pointerId);
  const [sx, sy] = eventXY(e), i = hit(sx, sy);
  if (i >= 0 && !S.readOnly) {
    if (e.shiftKey && S.controls.has(i)) { removeControl(i); return; }
    const created = !S.controls.has(i);
    if (created && S.controls.size >= S.meta.max_controls) {
      status(`at most ${S.meta.max_controls} control points: unpin one (shift-click) before pinning another`, true);
      return;
    }
    S.drag = { record: i, moved: false, created };
    if (created) {
      const pos = [S.pos[2 * i], S.pos[2 * i + 1]];
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
    S.pan = { sx, sy, cx: S.view.cx, cy: S.view.cy };
    canvas.classList.add('grab');
  }
});

canvas.addEventListener('pointermove', (e) => {
  const [sx, sy] = eventXY(e);
  if (S.drag) {
    const pos = toData(sx, sy);
    S.drag.moved = true;
    S.controls.set(S.drag.record, pos);
    S.pendingMove = { record: S.drag.record, pos };
    S.dirty = true;
  } else if (S.pan) {
    S.view.cx = S.pan.cx - (sx - S.pan.sx) / S.view.k;
    S.view.cy = S.pan.cy + (sy - S.pan.sy) / S.view.k;
    S.dirty = true;
  } else if (S.ready) {
    hoverAt(sx, sy, e);
  }
});

function endPointer() {
  if (S.drag) {
    const changed = S.drag.moved || S.drag.created;
    S.drag = null;
    // After the last move has been sent and answered: the lists and the slow measures.
    if (changed) idle().then(() => { listControls(); afterChange(); });
  }
  if (S.pan) { S.pan = null; canvas.classList.remove('grab'); }
}
canvas.addEventListener('pointerup', endPointer);
canvas.addEventListener('pointercancel', endPointer);

canvas.addEventListener('wheel', (e) => {
  e.preventDefault();
  const [sx, sy] = eventXY(e), [x, y] = toData(sx, sy);
  const f = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
  S.view.k *= f;
  S.view.cx = x - (sx - S.W / 2) / S.view.k;  // keep the data point under the cursor
  S.view.cy = y + (sy - S.H / 2) / S.view.k;
  S.dirty = true;
}, { passive: false });

canvas.addEventListener('pointerleave', () => { if (S.hover >= 0) { S.hover = -1; $('tip').hidden = true; S.dirty = true; } });

let tipTimer = 0;
function hoverAt(sx, sy, e) {
  const i = hit(sx, sy);
  const tip = $('tip');
  if (i !== S.hover) {
    S.hover = i; S.dirty = true;
    clearTimeout(tipTimer);
    if (i < 0) { tip.hidden = true; return; }
    tipTimer = setTimeout(() => showRecord(i), 60);
  }
  if (i >= 0) {
    const r = canvas.getBoundingClientRect();
    tip.style.left = `${Math.min(e.clientX - r.left + 14, r.width - 240)}px`;
    tip.style.top = `${e.clientY - r.top + 14}px`;
  }
}

async function showRecord(i) {
  const rec = await (await request(`api/records/${i}`)).json();
  if (S.hover !== i) return;
  const tip = $('tip');
  let html = `<b>#${i}</b>` + (rec.class != null ? ` · ${esc(rec.class)}` : '') + (rec.name ? ` · ${esc(rec.name)}` : '');
  if (S.controls.has(i)) html += ' · <i>control point</i>';
  if (S.qual) {
    const k = S.qual.rows ? S.qual.rows.indexOf(i) : i;
    if (k >= 0) html += `<br>precision loss ${fmt(S.qual.precision[k])}, recall loss ${fmt(S.qual.recall[k])}`;
  }
  if (S.unc) html += `<br>uncertainty ${fmt(S.unc[i])}`;
  const v = rec.values, side = Math.round(Math.sqrt(S.meta.h));
  if (side * side === S.meta.h && side >= 4 && v.length === S.meta.h) {
    html += `<canvas width="${side}" height="${side}" style="width:${Math.max(64, side * 2)}px"></canvas>`;
  } else {
    html += '<table>' + v.slice(0, 12).map((x, j) => `<tr><td>${esc(rec.features ? rec.features[j] : 'x' + (j + 1))}</td><td>${fmt(x)}</td></tr>`).join('') + '</table>' + (v.length > 12 ? `… ${S.meta.h} features` : '');
  }
  tip.innerHTML = html;
  tip.hidden = false;
  const c = tip.querySelector('canvas');
  if (c) { // a square number of features: draw the record as a grey image
    const lo = Math.min(...v), hi = Math.max(...v), im = c.getContext('2d').createImageData(side, side);
    v.forEach((x, j) => { const g = 255 - Math.round(255 * (x - lo) / ((hi - lo) || 1)); im.data.set([g, g, g, 255], 4 * j); });
    c.getContext('2d').putImageData(im, 0, 0);
  }
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

let qualSeq = 0;
async function refreshQuality() {
  const seq = ++qualSeq;
  $('quality').classList.add('stale');
  S.qualPending = true;
  await S.chain; // measure the view after the changes made so far
  try {
    const q = await (await request(api('quality'))).json();
    if (seq !== qualSeq) return;
    S.qual = q;
    showQuality(q);
    if (S.colourBy === 'precision' || S.colourBy === 'recall') recolour();
  } catch (e) {
    if (seq === qualSeq) showError(e);
  } finally {
    if (seq === qualSeq) { S.qualPending = false; $('quality').classList.remove('stale'); }
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
    `${k} neighbours; took ${q.seconds.toFixed(2)} s. Hover a row for its direction.`;
}

document.querySelectorAll('input[name=method]').forEach((el) => el.addEventListener('change', () => {
  changeView('method', { method: el.value }).then(() => { S.suggested = -1; afterChange(); });
}));
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

// ---- start ------------------------------------------------------------------------------

async function start() {
  S.meta = await (await request('api/data')).json();
  S.n = S.meta.n;
  document.title = `lowdim — ${S.meta.title}`;
  $('title').textContent = S.meta.title;
  $('about').textContent = `${S.n} records, ${S.meta.h} features` + (S.meta.labelled ? `, ${S.meta.classes.length} classes` : '') +
    (S.meta.read_only ? '. A fixed embedding: read-only.' : '');
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
  S.labels = new Int32Array(await (await request('api/labels')).arrayBuffer());
  const r = await request(api('positions'));
  setPositions(r);
  S.pos = new Float32Array(await r.arrayBuffer());
  S.stamp = null;
  resize();
  S.stamp = stamp();
  fit();
  recolour();
  if (!S.readOnly) await listControls();
  S.ready = true;
  status('ready');
  requestAnimationFrame(frame);
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
// coordinates of a page position, hitAt the record under a canvas pixel.
window.lowdim = {
  state: S, toScreen, toData, idle, hitAt: hit,
  screenOf: (i) => {
    const [x, y] = toScreen(S.pos[2 * i], S.pos[2 * i + 1]), r = canvas.getBoundingClientRect();
    return [r.left + x / S.dpr, r.top + y / S.dpr];
  },
  toDataCSS: (x, y) => { const r = canvas.getBoundingClientRect(); return toData((x - r.left) * S.dpr, (y - r.top) * S.dpr); },
  quality: () => (async () => { while (S.qualPending) await new Promise((r) => setTimeout(r, 20)); return S.qual; })(),
};

start().catch((e) => { showError(e); S.failed = true; });
