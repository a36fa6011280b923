// Browser test of a live fit at scale (run by TestBrowserLiveFast in web/browser_test.go, which
// serves 10,000 seeded synthetic records with Config.Live = t-SNE, as lowdim serve -method tsne
// does): the page starts the fit by itself on the approximate path (NeRV, which has none, is
// offered no more and the page says why), shows its progress, draws each round's positions,
// and the cost falls; pause stops new rounds, resume continues, stop ends it. Prints
// "RESULT {json}".
//
//   LOWDIM_URL=http://127.0.0.1:PORT/ LOWDIM_ARTIFACTS=DIR node livefast.mjs
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, waitReady, collectProblems, waitLiveRound } from './lib.mjs';

const url = process.env.LOWDIM_URL;
const out = process.env.LOWDIM_ARTIFACTS;
assert.ok(url && out, 'LOWDIM_URL and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

const liveNow = (page) => page.evaluate(async () => (await fetch(`api/sessions/${window.lowdim.state.id}/live`)).json());
const waitRound = (page, r) => waitLiveRound(page, r, 240000);

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 760 } });
  const problems = collectProblems(page);
  await page.goto(url);
  await waitReady(page);
  const n = await page.evaluate(() => window.lowdim.state.n);
  assert.equal(n, 10000);
  assert.ok(!(await page.evaluate(() => document.querySelector('#variant option[value=nerv]').disabled)), 'NeRV is offered at n = 10,000 (its grid path)');
  assert.equal(await page.inputValue('#variant'), 'tsne', 'the variant the server starts');

  // It starts by itself; its progress shows while the first round computes and after.
  await page.waitForFunction(() => window.lowdim.state.liveState && window.lowdim.state.liveState.state === 'running', null, { timeout: 30000 });
  const notes = new Set();
  for (let k = 0; k < 600 && !(await page.evaluate(() => (window.lowdim.state.liveRound || 0) >= 3)); k++) {
    notes.add(await page.textContent('#livenote'));
    await page.waitForTimeout(100);
  }
  await waitRound(page, 3);
  const st3 = await liveNow(page);
  assert.equal(st3.path, 'approximate');
  assert.ok([...notes].some((t) => /running: round \d+ \((the k-NN graph|iteration|the mean distance)[^)]* \d+ of \d+\)/.test(t)), `progress shown: ${[...notes].slice(0, 5).join(' | ')}`);
  assert.ok(await page.isVisible('#live-progress'), 'the progress bar');
  assert.ok(st3.exaggerating && st3.iterations === 10 * st3.round, `early exaggeration, ten iterations a round: ${st3.iterations} after ${st3.round} rounds`);
  const views = await page.evaluate(() => window.lowdim.state.views.map((V) => V.name));
  assert.equal(views.length, 2, `the live fit's view beside the projection: ${views}`);
  assert.match(views[1], /live \(Barnes–Hut\)/);

  // The cost falls: past early exaggeration (250 iterations) it is well below the first round's.
  await waitRound(page, 30);
  const st = await liveNow(page);
  const c0 = st.history[0].cost, c = st.history[st.history.length - 1].cost;
  assert.ok(!st.exaggerating && c < 0.8 * c0, `KL(p‖q) ${c0} after round 1, ${c} after round ${st.round}`);
  // The live view draws the server's latest positions.
  const same = await page.evaluate(async () => {
    const S = window.lowdim.state, V = S.views[S.liveState.view];
    const r = await fetch(`api/sessions/${S.id}/live/positions`);
    const round = +r.headers.get('X-Lowdim-Round'), p = new Float32Array(await r.arrayBuffer());
    return round !== S.liveRound || p.every((v, k) => v === V.pos[k]);
  });
  assert.ok(same, 'the live view draws the positions the server answers');
  await page.screenshot({ path: join(out, 'livefast.png') });

  // Pause: the round under way ends, then nothing; resume continues from there.
  await page.click('#live-pause');
  let p0 = await liveNow(page);
  for (let k = 0; p0.busy && k < 600; k++) { await page.waitForTimeout(100); p0 = await liveNow(page); }
  await page.waitForTimeout(800);
  const p1 = await liveNow(page);
  assert.equal(p1.state, 'paused');
  assert.equal(p1.round, p0.round, 'no new round while paused');
  await page.click('#live-pause');
  await waitRound(page, p1.round + 2);
  const r1 = await liveNow(page);
  assert.equal(r1.iterations, 10 * r1.round, 'resumed where it stopped, no iteration lost or repeated');
  await page.click('#live-stop');
  await page.waitForFunction(() => window.lowdim.state.liveState.state === 'stopped');

  // Gaussian NeRV at 10,000 records starts from the page on its grid path (t-SNE's 750
  // iterations first, ten a round; web's TestLiveFast follows a fit past them to NeRV's rounds).
  await page.selectOption('#variant', 'nerv');
  await page.evaluate(() => { const l = document.getElementById('lambda'); l.value = '0.1'; l.dispatchEvent(new Event('input')); });
  await page.click('#live-start');
  await page.waitForFunction(() => window.lowdim.state.liveState && window.lowdim.state.liveState.variant === 'nerv' && window.lowdim.state.liveState.round >= 3, null, { timeout: 240000 });
  const nv = await liveNow(page);
  assert.equal(nv.path, 'approximate');
  assert.equal(nv.lambda, 0.1);
  assert.equal(nv.history[2].iterations, 30, 'ten of t-SNE\'s iterations a round');
  await page.click('#live-stop');
  await page.waitForFunction(() => window.lowdim.state.liveState.state === 'stopped');
  assert.deepEqual(problems, [], 'the page logged errors');
  console.log('RESULT ' + JSON.stringify({ first: c0, last: c, rounds: st.round, iterations: r1.iterations }));
} finally {
  await browser.close();
}
