// Browser test of a live PE fit (run by TestBrowserLivePE in web/browser_test.go, which serves
// 500 digits with posteriors made from their labels at LOWDIM_URL, and the same digits without
// posteriors at LOWDIM_URL_NOPE): PE is chosen and started from the page; the λ slider is off
// with a note; the picture changes round by round and ends at the server's last positions with
// the class points drawn; the cost plot shows J falling; pause stops new rounds and resume goes
// on to the end; stop ends a second fit. Without posteriors PE is not offered and the page says
// why. Prints "RESULT {json}".
//
//   LOWDIM_URL=http://127.0.0.1:PORT/ LOWDIM_URL_NOPE=… LOWDIM_ARTIFACTS=DIR node livepe.mjs
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, waitReady, collectProblems, waitLiveRound } from './lib.mjs';

const url = process.env.LOWDIM_URL, urlNoPE = process.env.LOWDIM_URL_NOPE;
const out = process.env.LOWDIM_ARTIFACTS;
assert.ok(url && urlNoPE && out, 'LOWDIM_URL, LOWDIM_URL_NOPE and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

const liveNow = (page) => page.evaluate(async () => (await fetch(`api/sessions/${window.lowdim.state.id}/live`)).json());
const livePos = (page) => page.evaluate(() => { const S = window.lowdim.state; return Array.from(S.views[S.liveState.view].pos); });
const waitIdle = async (page) => {
  let st = await liveNow(page);
  for (let k = 0; st.busy && k < 600; k++) { await page.waitForTimeout(50); st = await liveNow(page); }
  return st;
};

// curveEnds returns the vertical pixel position (0 at the top) of the J curve's first and last
// points on the cost canvas: the topmost pixel of J's colour in the canvas's leftmost and
// rightmost few plotted columns.
const curveEnds = (page) => page.evaluate(() => {
  const c = document.getElementById('costs'), g = c.getContext('2d'), { width: W, height: H } = c;
  const img = g.getImageData(0, 0, W, H).data;
  const isJ = (x, y) => { const k = 4 * (y * W + x); return Math.abs(img[k] - 0) < 40 && Math.abs(img[k + 1] - 96) < 40 && Math.abs(img[k + 2] - 192) < 40 && img[k + 3] > 100; };
  const colY = (x0, x1) => { for (let y = 14; y < H - 12; y++) for (let x = x0; x <= x1; x++) if (isJ(x, y)) return y; return -1; };
  return [colY(5, 8), colY(W - 9, W - 6)];
});

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 760 } });
  const problems = collectProblems(page);
  await page.goto(url);
  await waitReady(page);
  assert.equal(await page.evaluate(() => window.lowdim.state.n), 500);
  assert.ok(!(await page.evaluate(() => document.querySelector('#variant option[value=pe]').disabled)), 'PE is offered: the server has posteriors');
  assert.ok(!(await page.isVisible('#pe-note')), 'no note against PE');
  await page.selectOption('#variant', 'pe');
  assert.ok(await page.isDisabled('#lambda'), 'PE has no λ: the slider is off');
  assert.match(await page.textContent('#lambda-note'), /PE has no λ/);

  await page.click('#live-start');
  await waitLiveRound(page, 3, 60000);
  const st3 = await liveNow(page);
  assert.equal(st3.variant, 'pe');
  assert.equal(st3.classes.length, 2 * 10, 'ten class points');
  const views = await page.evaluate(() => window.lowdim.state.views.map((V) => V.name));
  assert.deepEqual(views, ['projection (mle)', 'PE live'], 'the live fit has its own view beside the projection');
  assert.match(await page.textContent('#livenote'), /round \d+; \d+ iterations on the class points \(start 1 of 5\); J [\d.]+, mean KL [\d.]+/);
  const early = await livePos(page);

  // Pause: the round under way ends, then nothing.
  await page.click('#live-pause');
  const p0 = await waitIdle(page);
  await page.waitForTimeout(800);
  const p1 = await liveNow(page);
  assert.equal(p1.state, 'paused');
  assert.equal(p1.round, p0.round, 'no new round while paused');
  assert.equal(await page.textContent('#live-pause'), 'Resume');

  // Resume: on to the fit's end.
  await page.click('#live-pause');
  await page.waitForFunction(() => {
    const S = window.lowdim.state, st = S.liveState;
    return st && st.state === 'converged' && S.liveRound === st.round;
  }, null, { timeout: 180000 });
  const end = await liveNow(page);
  assert.ok(end.round > p1.round, `rounds after resuming: ${p1.round} → ${end.round}`);
  const last = await livePos(page);
  let moved = 0;
  for (let k = 0; k < last.length; k++) moved = Math.max(moved, Math.abs(last[k] - early[k]));
  assert.ok(moved > 0.1, `the picture changed between round 3 and the end: max |Δ| = ${moved}`);
  const same = await page.evaluate(async () => {
    const S = window.lowdim.state, V = S.views[S.liveState.view];
    const p = new Float32Array(await (await fetch(`api/sessions/${S.id}/live/positions`)).arrayBuffer());
    return p.length === V.pos.length && p.every((v, k) => v === V.pos[k]);
  });
  assert.ok(same, 'the live view draws the positions the server answers');
  const h = end.history, j0 = h[0].cost, j1 = h[h.length - 1].cost;
  assert.ok(j1 < j0 && h[h.length - 1].kl < h[0].kl, `J ${j0} → ${j1}, KL ${h[0].kl} → ${h[h.length - 1].kl}`);
  const [y0, y1] = await curveEnds(page);
  assert.ok(y0 >= 0 && y1 > y0, `the plotted J ends lower than it starts (pixel rows ${y0} → ${y1}, lower is further down)`);
  assert.match(await page.textContent('#livenote'), /converged: .*\(the lowest J of 5 starts\).*the fit has ended/);
  assert.ok(await page.isDisabled('#live-pause'), 'nothing to resume once PE has ended');
  await page.screenshot({ path: join(out, 'livepe.png') });

  // Stop ends a fit under way.
  await page.click('#live-start');
  await page.waitForFunction(() => { const st = window.lowdim.state.liveState; return st && st.state === 'running' && st.round >= 2; }, null, { timeout: 60000 });
  await page.click('#live-stop');
  await page.waitForFunction(() => window.lowdim.state.liveState.state === 'stopped');
  const s0 = (await waitIdle(page)).round;
  await page.waitForTimeout(600);
  assert.equal((await liveNow(page)).round, s0, 'no round after stop');
  assert.deepEqual(problems, [], 'the page logged errors');

  // A server without posteriors: PE is off and the page says why.
  const other = await browser.newPage({ viewport: { width: 1300, height: 760 } });
  const problems2 = collectProblems(other);
  await other.goto(urlNoPE);
  await waitReady(other);
  assert.ok(await other.evaluate(() => document.querySelector('#variant option[value=pe]').disabled), 'PE is not offered without posteriors');
  assert.match(await other.textContent('#pe-note'), /posteriors.*-method pe/);
  assert.deepEqual(problems2, [], 'the second page logged errors');
  console.log('RESULT ' + JSON.stringify({ rounds: end.round, iterations: end.iterations, J: [j0, j1], moved, pixels: [y0, y1] }));
} finally {
  await browser.close();
}
