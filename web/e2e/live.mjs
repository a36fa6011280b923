// Browser test of NeRV live (run by TestBrowserLive in web/browser_test.go, which serves 500
// of the digits): start a fit from the page, see its view appear and follow the server's
// rounds, pause (no new round), move the λ slider from 0.1 to 0.9 and resume — the fit
// continues from where it was and the recall cost falls while the precision cost rises, as
// plotted — then stop. Prints "RESULT {json}".
//
//   LOWDIM_URL=http://127.0.0.1:PORT/ LOWDIM_ARTIFACTS=DIR node live.mjs
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, waitReady, collectProblems, waitLiveRound } from './lib.mjs';

const url = process.env.LOWDIM_URL;
const out = process.env.LOWDIM_ARTIFACTS;
assert.ok(url && out, 'LOWDIM_URL and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

const state = (page) => page.evaluate(() => window.lowdim.state.liveState);
const waitRound = (page, r) => waitLiveRound(page, r, 120000);

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 760 } });
  const problems = collectProblems(page);
  await page.goto(url);
  await waitReady(page);
  assert.equal(await page.inputValue('#lambda'), '0.1');
  await page.click('#live-start');
  await waitRound(page, 2);
  const views = await page.evaluate(() => window.lowdim.state.views.map((V) => V.name));
  assert.deepEqual(views, ['projection (mle)', 'NeRV live'], 'the live fit has its own view beside the projection');
  // The live view shows the server's latest positions.
  const same = await page.evaluate(async () => {
    const S = window.lowdim.state, V = S.views[S.liveState.view];
    const r = await fetch(`api/sessions/${S.id}/live/positions`);
    const round = +r.headers.get('X-Lowdim-Round'), p = new Float32Array(await r.arrayBuffer());
    return round !== S.liveRound || p.every((v, k) => v === V.pos[k]);
  });
  assert.ok(same, 'the live view draws the positions the server answers');

  await page.click('#live-pause');
  await page.waitForFunction(() => window.lowdim.state.liveState.state === 'paused');
  // The round under way when paused still ends; then nothing more.
  const liveNow = () => page.evaluate(async () => (await fetch(`api/sessions/${window.lowdim.state.id}/live`)).json());
  let st0 = await liveNow();
  for (let k = 0; st0.busy && k < 600; k++) { await page.waitForTimeout(100); st0 = await liveNow(); }
  assert.ok(!st0.busy, 'the round under way when paused ends');
  const paused = st0.round;
  await page.waitForTimeout(1000);
  const still = await liveNow();
  assert.equal(still.round, paused, 'no new round while paused');
  assert.equal(await page.textContent('#live-pause'), 'Resume');
  const before = still.history[still.history.length - 1];

  // The slider: λ 0.9, then resume.
  await page.evaluate(() => {
    const el = document.getElementById('lambda');
    el.value = '0.9';
    el.dispatchEvent(new Event('input'));
    el.dispatchEvent(new Event('change'));
  });
  await page.waitForFunction(() => document.getElementById('lambda-value').textContent === '0.90');
  await page.click('#live-pause');
  await waitRound(page, paused + 3);
  const st = await state(page);
  const after = st.history[st.history.length - 1];
  assert.equal(before.lambda, 0.1);
  assert.equal(after.lambda, 0.9);
  assert.ok(after.recall < before.recall && after.precision > before.precision,
    `λ 0.1 → 0.9: recall ${before.recall} → ${after.recall}, precision ${before.precision} → ${after.precision}`);
  // The plot draws both cost terms.
  const inks = await page.evaluate(() => {
    const c = document.getElementById('costs'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let mag = 0, orange = 0;
    for (let q = 0; q < d.length; q += 4) {
      if (d[q + 3] > 200 && d[q] > 150 && d[q + 1] < 60 && d[q + 2] > 150) mag++;
      if (d[q + 3] > 200 && d[q] > 180 && d[q + 1] > 80 && d[q + 1] < 140 && d[q + 2] < 60) orange++;
    }
    return { mag, orange };
  });
  assert.ok(inks.mag > 30 && inks.orange > 30, `the cost plot: ${JSON.stringify(inks)}`);
  assert.match(await page.textContent('#livenote'), /at λ = 0.9/);
  await page.screenshot({ path: join(out, 'live.png') });

  await page.click('#live-stop');
  await page.waitForFunction(() => window.lowdim.state.liveState.state === 'stopped');
  assert.ok(await page.isDisabled('#live-pause'));
  assert.deepEqual(problems, [], 'the page logged errors');
  console.log('RESULT ' + JSON.stringify({ paused, before, after, rounds: st.round }));
} finally {
  await browser.close();
}
