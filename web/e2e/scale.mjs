// Rendering at scale (run by TestBrowserMillion and BenchmarkBrowserScale in web/browser_test.go,
// which serve n seeded synthetic records as a fixed embedding, 2-D or 3-D — a 3-D one is orbited
// where a 2-D one is panned): the time from the page's
// request to its first full frame (navigation start to the first draw, with a pixel read back so that
// the frame is really rendered), that the points are drawn (the share of the plot inked), and
// the frame time while panning — the background dragged in circles, one pointer event per
// animation frame, for LOWDIM_SECONDS (default 3) after half a second of warm-up — as the page
// pans (from 200,000 points on it moves its last full frame) and redrawing all n points in
// every frame. Headless chromium: WebGL2 runs on SwiftShader (software), so these are
// CPU figures. Prints "RESULT {json}".
//
//   LOWDIM_URL=http://127.0.0.1:PORT/ LOWDIM_ARTIFACTS=DIR [LOWDIM_QUERY=?renderer=2d] node scale.mjs
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { launch, waitReady } from './lib.mjs';

const url = process.env.LOWDIM_URL + (process.env.LOWDIM_QUERY || ''); // LOWDIM_QUERY=?renderer=2d compares
const out = process.env.LOWDIM_ARTIFACTS;
const seconds = +(process.env.LOWDIM_SECONDS || 3);
assert.ok(url && out, 'LOWDIM_URL and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const load = loadavg()[0];
  await page.goto(url);
  await waitReady(page);
  await page.waitForFunction(() => window.lowdim.state.firstFrame > 0, null, { timeout: 120000 });
  const first = await page.evaluate(() => ({ firstFrame: window.lowdim.state.firstFrame, n: window.lowdim.state.n, renderer: window.lowdim.state.renderer, dim: window.lowdim.state.views[0].dim }));
  // The share of the main view's pixels that are not background.
  const inked = await page.evaluate(() => {
    const V = window.lowdim.state.views[0], c = document.createElement('canvas');
    c.width = V.W; c.height = V.H;
    const g = c.getContext('2d');
    g.drawImage(V.base, 0, 0);
    const d = g.getImageData(0, 0, V.W, V.H).data;
    let k = 0;
    for (let q = 0; q < d.length; q += 4) if (d[q] !== 255 || d[q + 1] !== 255 || d[q + 2] !== 255) k++;
    return k / (V.W * V.H);
  });
  await page.screenshot({ path: join(out, `scale-${first.n}.png`) });
  // One full redraw of every point, timed to completion (a pixel read back waits for it): the
  // renderer's own cost, apart from the browser's frame scheduling. Median of 5.
  const render = await page.evaluate(() => {
    const V = window.lowdim.state.views[0], gl = V.r.gl, px = new Uint8Array(4), ts = [];
    for (let k = 0; k < 5; k++) {
      const t = performance.now();
      V.r.draw(V.dim === 3 ? V.proj : V.view, V.W, V.H, 1 * V.dpr); // a 3-D view: its camera
      if (gl) gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      ts.push(performance.now() - t);
    }
    return ts.sort((a, b) => a - b)[2];
  });

  // pan drags the background in circles, one pointer event per animation frame (dispatched in
  // the page: Playwright's own mouse.move waits for a round trip per event), and returns the
  // frame intervals.
  const box = await page.locator('#canvas').boundingBox();
  const [x0, y0] = [box.x + box.width / 2, box.y + box.height / 2];
  const pan = async () => {
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    const m = await page.evaluate(async ([x0, y0, secs]) => {
      const L = window.lowdim, S = L.state, c = document.getElementById('canvas');
      let k = 0, a = null;
      const t0 = performance.now();
      await new Promise((done) => {
        function step() {
          const now = performance.now();
          if (!a && now - t0 > 500) { a = { t: now, draws: S.draws }; L.frames(); }
          if (now - t0 > (secs + 0.5) * 1000) return done();
          const th = k++ / 20;
          c.dispatchEvent(new PointerEvent('pointermove', { clientX: x0 + 80 * Math.sin(th), clientY: y0 + 80 * Math.cos(th) - 80, bubbles: true }));
          requestAnimationFrame(step);
        }
        requestAnimationFrame(step);
      });
      return { ft: L.frames(), draws: S.draws - a.draws, dt: (performance.now() - a.t) / 1000, panned: !!S.pan };
    }, [x0, y0, seconds]);
    await page.mouse.up();
    assert.ok(m.panned, 'the drag panned the view');
    const ft = m.ft.slice().sort((a, b) => a - b);
    const q = (p) => ft[Math.min(ft.length - 1, Math.floor(p * ft.length))];
    return { median: q(0.5), p95: q(0.95), frames: ft.length, draws_per_s: m.draws / m.dt };
  };
  // As the page pans (the last full frame moved, from 200,000 points on or when full frames in
  // motion are slow), then redrawing every point in every frame.
  // A 3-D view orbits instead, and redraws every point in every frame: one measure.
  const fast = await pan();
  await page.evaluate(() => { window.lowdim.state.fastN = Infinity; window.lowdim.state.motionMs = -Infinity; }); // never fast
  const full = first.dim === 3 ? fast : await pan();
  const r = {
    n: first.n, dim: first.dim, renderer: first.renderer, first_frame_ms: first.firstFrame, inked, render_ms: render,
    frame_ms_median: fast.median, frame_ms_p95: fast.p95, frames: fast.frames, draws_per_s: fast.draws_per_s,
    full_frame_ms_median: full.median, full_frame_ms_p95: full.p95, full_frames: full.frames, load,
  };
  assert.deepEqual(problems, [], 'the page logged errors');
  console.log('RESULT ' + JSON.stringify(r));
} finally {
  await browser.close();
}
