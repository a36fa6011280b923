// Browser test of lowdim serve (run by web/browser_test.go, which starts the server):
// Debian's chromium, headless, driven by playwright-core. It loads the page, pins a point,
// drags it, checks what the page shows against the API, exports the embedding, switches to
// LSP, asks for a suggestion and resets. It prints one line "RESULT {json}" for the Go side,
// which checks the exported embedding against linproj itself.
//
//   LOWDIM_URL=http://127.0.0.1:PORT/ LOWDIM_ARTIFACTS=DIR node drag.mjs
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, waitReady, positionsOf, collectProblems } from './lib.mjs';

const url = process.env.LOWDIM_URL;
const out = process.env.LOWDIM_ARTIFACTS;
assert.ok(url && out, 'LOWDIM_URL and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 }, acceptDownloads: true });
  const problems = collectProblems(page);
  await page.goto(url);
  await waitReady(page);
  const n = await page.evaluate(() => window.lowdim.state.n);
  const q0 = await page.evaluate(() => window.lowdim.quality());
  assert.ok(q0 && q0.trustworthiness > 0 && q0.trustworthiness <= 1, 'the quality of the first view is shown');

  // A record that the pointer hits at its own place (not covered by another point), inside the view.
  const record = await page.evaluate(() => {
    const L = window.lowdim, S = L.state;
    for (let i = 0; i < S.n; i++) {
      const [x, y] = L.toScreen(S.pos[2 * i], S.pos[2 * i + 1]);
      if (x > 0.3 * S.W && x < 0.6 * S.W && y > 0.3 * S.H && y < 0.6 * S.H && L.hitAt(x, y) === i) return i;
    }
    return -1;
  });
  assert.ok(record >= 0, 'no visible record to drag');
  const before = await positionsOf(page);
  const [x0, y0] = await page.evaluate((i) => window.lowdim.screenOf(i), record);
  const [x1, y1] = [x0 + 180, y0 - 120];
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  for (let k = 1; k <= 24; k++) await page.mouse.move(x0 + (x1 - x0) * k / 24, y0 + (y1 - y0) * k / 24);
  await page.mouse.up();
  await page.evaluate(() => window.lowdim.idle());
  const target = await page.evaluate(([x, y]) => window.lowdim.toDataCSS(x, y), [x1, y1]);
  const after = await positionsOf(page);

  // The API has one control point, placed where the pointer let go.
  const controls = await page.evaluate(async () => (await fetch(`api/sessions/${window.lowdim.state.id}/controls`)).json());
  assert.deepEqual(controls.records, [record], 'the dragged record is the only control point');
  const scale = Math.max(...before.map(Math.abs));
  const pixel = await page.evaluate(() => window.lowdim.state.dpr / window.lowdim.state.view.k); // one CSS pixel in data units
  for (const d of [0, 1]) assert.ok(Math.abs(controls.pos[0][d] - target[d]) <= pixel, `placement ${controls.pos[0]} is not within a pixel of the pointer ${target}`);

  // The point moved to (near) its placement: MLE's placement noise keeps it from sitting on it exactly.
  const dist = (p, i, t) => Math.hypot(p[2 * i] - t[0], p[2 * i + 1] - t[1]);
  assert.ok(dist(after, record, target) < 0.25 * dist(before, record, target),
    `the dragged point went from ${dist(before, record, target)} to ${dist(after, record, target)} away from where it was dropped`);
  let others = 0;
  for (let i = 0; i < n; i++) if (i !== record && dist(after, i, [before[2 * i], before[2 * i + 1]]) > 1e-6 * scale) others++;
  assert.ok(others > n / 2, `only ${others} of the other ${n - 1} points moved`);

  // What the page draws is what the API answers.
  const api = await page.evaluate(async () => Array.from(new Float32Array(await (await fetch(`api/sessions/${window.lowdim.state.id}/positions`)).arrayBuffer())));
  assert.deepEqual(after, api, 'the page shows the positions the API answers');
  // ... and it drew the drag from the moves' coefficients and the factors it fetched once
  // (u_i = base_i + C·ax_i): bit for bit the server's float32 positions, checked just above.
  const basis = await page.evaluate(() => window.lowdim.state.basis && { m: window.lowdim.state.basis.m, n: window.lowdim.state.basis.ax.length });
  assert.deepEqual(basis, { m: 1, n }, 'the page holds the factors of one control point (GET …/basis)');

  // Export: the download is the view at full precision, with the labels.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-embedding')]);
  const csvPath = join(out, 'embedding.csv');
  await download.saveAs(csvPath);
  const lines = readFileSync(csvPath, 'utf8').trim().split('\n');
  assert.equal(lines[0], 'x,y,label');
  assert.equal(lines.length, n + 1);
  const names = await page.evaluate(() => window.lowdim.state.meta.classes);
  const labels = await page.evaluate(() => Array.from(window.lowdim.state.labels));
  lines.slice(1).forEach((l, i) => {
    const [x, y, label] = l.split(',');
    assert.ok(Math.abs(+x - after[2 * i]) <= 1e-6 * scale && Math.abs(+y - after[2 * i + 1]) <= 1e-6 * scale, `export row ${i}: ${l} vs ${after[2 * i]},${after[2 * i + 1]}`);
    assert.equal(label, names[labels[i]]);
  });
  const q1 = await page.evaluate(() => window.lowdim.quality());
  assert.ok(q1.revision >= 2, `quality was not recomputed after the drag (revision ${q1.revision})`);
  await page.screenshot({ path: join(out, 'serve-drag.png') });

  // LSP keeps the control point; with one control point every record lies on a line.
  await page.click('input[name=method][value=lsp]');
  await page.evaluate(() => window.lowdim.idle());
  const lsp = await positionsOf(page);
  assert.equal(await page.evaluate(() => window.lowdim.state.method), 'lsp');
  assert.deepEqual((await page.evaluate(async () => (await fetch(`api/sessions/${window.lowdim.state.id}/controls`)).json())).records, [record]);
  const [px, py] = [lsp[2 * record], lsp[2 * record + 1]];
  for (let i = 0; i < n; i += 7) {
    assert.ok(Math.abs(lsp[2 * i] * py - lsp[2 * i + 1] * px) <= 1e-5 * Math.hypot(lsp[2 * i], lsp[2 * i + 1]) * Math.hypot(px, py) + 1e-30,
      `LSP point ${i} is off the line through the control point`);
  }

  // Suggest: the page rings the record the API suggests.
  await page.click('#suggest');
  await page.evaluate(() => window.lowdim.idle());
  const suggested = await page.evaluate(() => window.lowdim.state.suggested);
  const apiSuggest = await page.evaluate(async () => (await (await fetch(`api/sessions/${window.lowdim.state.id}/suggest`)).json()).record);
  assert.equal(suggested, apiSuggest);
  assert.notEqual(suggested, record);
  await page.screenshot({ path: join(out, 'serve-lsp-suggest.png') });

  // Reset: no control points; LSP maps everything to the origin.
  await page.click('#reset');
  await page.evaluate(() => window.lowdim.idle());
  const reset = await positionsOf(page);
  assert.ok(reset.every((v) => v === 0), 'LSP without control points is not the origin');
  assert.equal(await page.evaluate(() => window.lowdim.state.controls.size), 0);

  assert.deepEqual(problems, [], 'the page logged errors');
  const result = { record, pos: controls.pos[0], n, others, suggested, quality: { before: q0.trustworthiness, after: q1.trustworthiness } };
  writeFileSync(join(out, 'result.json'), JSON.stringify(result, null, 1));
  console.log('RESULT ' + JSON.stringify(result));
} finally {
  await browser.close();
}
