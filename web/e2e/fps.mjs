// Frames per second while dragging (run by BenchmarkBrowserDrag in web/browser_test.go): pins a
// point, then drags it in circles for LOWDIM_SECONDS (default 5) and counts, in the page,
// requestAnimationFrame callbacks (frames), redraws and position updates received from the
// server. Headless chromium with --disable-gpu: the canvas is rendered in software.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, waitReady } from './lib.mjs';

const url = process.env.LOWDIM_URL, out = process.env.LOWDIM_ARTIFACTS;
const seconds = +(process.env.LOWDIM_SECONDS || 5);
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  const t0 = Date.now();
  await page.goto(url);
  await waitReady(page);
  const load = (Date.now() - t0) / 1000;
  await page.evaluate(() => window.lowdim.quality()); // the first quality computation is over
  const record = await page.evaluate(() => {
    const L = window.lowdim, S = L.state;
    for (let i = 0; i < S.n; i++) {
      const [x, y] = L.toScreen(S.pos[2 * i], S.pos[2 * i + 1]);
      if (x > 0.3 * S.W && x < 0.7 * S.W && y > 0.3 * S.H && y < 0.7 * S.H && L.hitAt(x, y) === i) return i;
    }
    return -1;
  });
  assert.ok(record >= 0, 'no visible record to drag');
  const [x0, y0] = await page.evaluate((i) => window.lowdim.screenOf(i), record);
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  // The pointer moves once per animation frame, like a mouse, dispatched in the page (Playwright's
  // own mouse.move waits for a round trip per event and would limit the rate by itself).
  const m = await page.evaluate(async ([x0, y0, secs]) => {
    const S = window.lowdim.state, c = document.getElementById('canvas');
    const snap = () => ({ t: performance.now(), frames: S.frames, draws: S.draws, updates: S.updates });
    let a = null, k = 0;
    const t0 = performance.now();
    await new Promise((done) => {
      function step() {
        const now = performance.now();
        if (!a && now - t0 > 500) a = snap(); // after half a second of warm-up
        if (now - t0 > (secs + 0.5) * 1000) return done();
        const th = k++ / 30;
        c.dispatchEvent(new PointerEvent('pointermove', { clientX: x0 + 120 * Math.sin(th), clientY: y0 - 120 + 120 * Math.cos(th), bubbles: true }));
        requestAnimationFrame(step);
      }
      requestAnimationFrame(step);
    });
    return { a, b: snap(), k };
  }, [x0, y0, seconds]);
  const { a, b } = m;
  await page.mouse.up();
  await page.evaluate(() => window.lowdim.idle());
  await page.screenshot({ path: join(out, 'fps.png') });
  const dt = (b.t - a.t) / 1000;
  const r = {
    n: await page.evaluate(() => window.lowdim.state.n), seconds: dt, load,
    fps: (b.frames - a.frames) / dt, draws_per_s: (b.draws - a.draws) / dt,
    updates_per_s: (b.updates - a.updates) / dt, pointer_moves_per_s: m.k / (dt + 0.5),
  };
  console.log('RESULT ' + JSON.stringify(r));
} finally {
  await browser.close();
}
