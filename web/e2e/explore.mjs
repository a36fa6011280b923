// Browser test of the explorer (run by TestBrowserExplore in web/browser_test.go, which serves
// the digits with the projection as view 1 and a second, fixed view 2, and -image 8x8):
// what the user sees drawn by WebGL2 in both views, a lasso and a box whose rows are compared
// with the server's answer for the same polygon, the selection table and its CSV, the
// selection dimming the other view, hover linked across views with the thumbnail and the
// input-space neighbours, per-point trustworthiness colouring, and the canvas-2D fallback.
// Prints "RESULT {json}".
//
//   LOWDIM_URL=http://127.0.0.1:PORT/ LOWDIM_ARTIFACTS=DIR node explore.mjs
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, waitReady, collectProblems } from './lib.mjs';

const url = process.env.LOWDIM_URL;
const out = process.env.LOWDIM_ARTIFACTS;
assert.ok(url && out, 'LOWDIM_URL and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

// pixelAt reads the colour the user sees at a record's place in view v: the point layer
// (WebGL2 or 2D canvas) as drawn, [r, g, b].
const pixelAt = (page, v, i) => page.evaluate(([v, i]) => {
  const V = window.lowdim.state.views[v];
  const p = V.pos, sx = Math.round(V.W / 2 + (p[2 * i] - V.view.cx) * V.view.k), sy = Math.round(V.H / 2 - (p[2 * i + 1] - V.view.cy) * V.view.k);
  const c = document.createElement('canvas');
  c.width = V.W; c.height = V.H;
  const g = c.getContext('2d');
  g.drawImage(V.base, 0, 0);
  return Array.from(g.getImageData(sx, sy, 1, 1).data.slice(0, 3));
}, [v, i]);

// isolated returns records of view v with no other record within r CSS pixels, inside the view.
const isolated = (page, v, r, max = 400) => page.evaluate(([v, r, max]) => {
  const V = window.lowdim.state.views[v], p = V.pos, n = window.lowdim.state.n, out = [];
  const lim = (r * V.dpr / V.view.k) ** 2;
  for (let i = 0; i < n && out.length < max; i++) {
    const [sx, sy] = [V.W / 2 + (p[2 * i] - V.view.cx) * V.view.k, V.H / 2 - (p[2 * i + 1] - V.view.cy) * V.view.k];
    if (sx < 20 || sy < 30 || sx > V.W - 20 || sy > V.H - 20) continue;
    let alone = true;
    for (let j = 0; j < n && alone; j++) if (j !== i && (p[2 * j] - p[2 * i]) ** 2 + (p[2 * j + 1] - p[2 * i + 1]) ** 2 < lim) alone = false;
    if (alone) out.push(i);
  }
  return out;
}, [v, r, max]);

const colourOf = (page, i) => page.evaluate((i) => { const c = window.lowdim.state.colours[i]; return [c & 255, c >> 8 & 255, c >> 16 & 255]; }, i);
const near = (a, b, tol = 3) => a.every((x, k) => Math.abs(x - b[k]) <= tol);
const dimmed = (c) => c.map((x) => Math.round(x + 0.82 * (255 - x)));

// serverSelect asks the server for the rows of a polygon of view v, as the page sends it.
const serverSelect = (page, v, polygon) => page.evaluate(async ([v, polygon]) => {
  const S = window.lowdim.state;
  const r = await fetch(`api/sessions/${S.id}/select`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ view: v, polygon }) });
  return Array.from(new Int32Array(await r.arrayBuffer()));
}, [v, polygon]);

const browser = await launch();
const result = {};
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 700 }, acceptDownloads: true });
  const problems = collectProblems(page);
  await page.goto(url + '?renderer=webgl2'); // on software GL the page would pick canvas 2D
  await waitReady(page);
  await page.evaluate(() => window.lowdim.idle());
  const S = await page.evaluate(() => ({ n: window.lowdim.state.n, renderer: window.lowdim.state.renderer, views: window.lowdim.state.views.map((V) => V.name) }));
  assert.equal(S.renderer, 'webgl2', 'the points are drawn by WebGL2');
  assert.equal(S.views.length, 2, `two views side by side: ${S.views}`);
  assert.equal(await page.textContent('#renderer'), 'WebGL2');

  // What is drawn: isolated points show their class colour, in both views.
  for (const v of [0, 1]) {
    const alone = await isolated(page, v, 4, 5);
    assert.ok(alone.length >= 3, `view ${v}: isolated points`);
    for (const i of alone) assert.ok(near(await pixelAt(page, v, i), await colourOf(page, i)), `view ${v}, record ${i}: drawn ${await pixelAt(page, v, i)}, class colour ${await colourOf(page, i)}`);
  }
  await page.screenshot({ path: join(out, 'explore-views.png') });

  // Lasso in view 1: a star-shaped (concave) path of real pointer moves around its centre.
  await page.check('input[name=tool][value=lasso]');
  const box1 = await page.locator('.view canvas.ov').nth(1).boundingBox();
  const [cx, cy] = [box1.x + box1.width / 2, box1.y + box1.height / 2];
  await page.mouse.move(cx + 150, cy);
  await page.mouse.down();
  for (let a = 1; a <= 60; a++) {
    const t = 2 * Math.PI * a / 60, r = (a % 12 < 6 ? 150 : 80);
    await page.mouse.move(cx + r * Math.cos(t), cy + r * Math.sin(t));
  }
  await page.mouse.up();
  await page.waitForFunction(() => window.lowdim.state.selTable, null, { timeout: 30000 });
  await page.evaluate(() => window.lowdim.idle());
  const lasso = await page.evaluate(() => ({ rows: Array.from(window.lowdim.state.selected), polygon: window.lowdim.state.selPolygon, view: window.lowdim.state.selView, server: Array.from(window.lowdim.state.selServer) }));
  assert.equal(lasso.view, 1);
  assert.ok(lasso.polygon.length > 30, `the lasso has ${lasso.polygon.length} vertices`);
  assert.ok(lasso.rows.length > 20 && lasso.rows.length < S.n - 20, `the lasso selected ${lasso.rows.length} of ${S.n}`);
  const server = await serverSelect(page, 1, lasso.polygon);
  assert.deepEqual(lasso.rows, server, 'the page selected the rows the server finds in the same polygon');
  assert.deepEqual(lasso.server, server, 'the page kept the server answer');
  result.lasso = lasso.rows.length;

  // The table: its count, class counts that add up, and the selected rows.
  const note = await page.textContent('#selnote');
  assert.match(note, new RegExp(`^${lasso.rows.length} records selected`), note);
  const counts = await page.$$eval('#selclasses span', (s) => s.map((e) => +e.textContent.trim().split(' ').pop()));
  assert.equal(counts.reduce((a, b) => a + b, 0), lasso.rows.length, `class counts ${counts}`);
  const tableRows = await page.$$eval('#seltable tbody tr', (r) => r.map((e) => +e.dataset.record));
  assert.deepEqual(tableRows, lasso.rows.slice(0, 200));
  const head = await page.$$eval('#seltable thead th', (h) => h.map((e) => e.textContent));
  assert.deepEqual(head, ['#', 'class', 'pixel_0_0', 'pixel_0_1', 'pixel_0_2']);

  // Linked: in view 0 a selected isolated point keeps its colour, an unselected one is dimmed.
  const sel = new Set(lasso.rows);
  const alone0 = await isolated(page, 0, 4);
  const a = alone0.find((i) => sel.has(i)), b = alone0.find((i) => !sel.has(i));
  assert.ok(a !== undefined && b !== undefined, 'isolated selected and unselected points in view 0');
  assert.ok(near(await pixelAt(page, 0, a), await colourOf(page, a)), 'a selected point keeps its colour in the other view');
  assert.ok(near(await pixelAt(page, 0, b), dimmed(await colourOf(page, b))), `an unselected point is dimmed in the other view: ${await pixelAt(page, 0, b)}`);
  await page.screenshot({ path: join(out, 'explore-lasso.png') });

  // Export: the CSV has every selected row, with the chosen columns.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-selection')]);
  const csvPath = join(out, 'selection.csv');
  await download.saveAs(csvPath);
  const lines = readFileSync(csvPath, 'utf8').trim().split('\n');
  assert.equal(lines[0], 'record,name,label,pixel_0_0,pixel_0_1,pixel_0_2');
  assert.deepEqual(lines.slice(1).map((l) => +l.split(',')[0]), lasso.rows, 'the CSV holds the selected rows');

  // Box in view 0.
  await page.check('input[name=tool][value=box]');
  const box0 = await page.locator('#canvas').boundingBox();
  const [bx, by] = [box0.x + box0.width / 2, box0.y + box0.height / 2];
  await page.mouse.move(bx - 120, by - 90);
  await page.mouse.down();
  for (let k = 1; k <= 10; k++) await page.mouse.move(bx - 120 + 22 * k, by - 90 + 15 * k);
  await page.mouse.up();
  await page.waitForFunction(() => window.lowdim.state.selView === 0 && window.lowdim.state.selTable, null, { timeout: 30000 });
  await page.evaluate(() => window.lowdim.idle());
  const boxSel = await page.evaluate(() => ({ rows: Array.from(window.lowdim.state.selected), polygon: window.lowdim.state.selPolygon }));
  assert.equal(boxSel.polygon.length, 4);
  assert.ok(boxSel.rows.length > 5, `the box selected ${boxSel.rows.length}`);
  assert.deepEqual(boxSel.rows, await serverSelect(page, 0, boxSel.polygon), 'box: the page and the server agree');
  result.box = boxSel.rows.length;
  await page.click('#clear-selection');
  await page.evaluate(() => window.lowdim.idle());
  assert.equal(await page.evaluate(() => window.lowdim.state.selected), null);

  // Hover in view 1: the tip shows the record's picture, the neighbours come from the server's
  // input space, and view 0 rings the same record.
  await page.check('input[name=tool][value=pan]');
  const [h] = await isolated(page, 1, 6, 1);
  const [hx, hy] = await page.evaluate((i) => window.lowdim.screenOfV(1, i), h);
  await page.mouse.move(hx, hy);
  await page.waitForFunction((i) => window.lowdim.state.nb && window.lowdim.state.nb.record === i && !document.getElementById('tip').hidden, h, { timeout: 30000 });
  assert.equal(await page.evaluate(() => window.lowdim.state.hover), h, 'the hovered record');
  const thumb = await page.evaluate(() => {
    const c = document.querySelector('#tip canvas');
    if (!c) return null;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, g = [];
    for (let k = 0; k < d.length; k += 4) g.push(d[k]);
    return { w: c.width, h: c.height, g };
  });
  assert.ok(thumb && thumb.w === 8 && thumb.h === 8, 'the tip shows an 8×8 picture');
  const rec = await page.evaluate(async (i) => (await fetch(`api/records/${i}`)).json(), h);
  const lo = Math.min(...rec.values), hi = Math.max(...rec.values);
  rec.values.forEach((x, j) => assert.ok(Math.abs(thumb.g[j] - (255 - Math.round(255 * (x - lo) / (hi - lo)))) <= 1, `pixel ${j}`));
  const nb = await page.evaluate(() => window.lowdim.state.nb);
  const api = await page.evaluate(async (i) => (await fetch(`api/sessions/${window.lowdim.state.id}/neighbors/${i}?k=10`)).json(), h);
  assert.deepEqual(nb.input, api.input, 'the neighbours drawn are the input-space ones');
  assert.equal(nb.input.length, 10);
  assert.match(await page.textContent('#nbnote'), /recall errors/);
  // The other view draws the hover ring and neighbour lines on its overlay.
  const inked = await page.evaluate((i) => {
    const V = window.lowdim.state.views[0], [sx, sy] = [V.W / 2 + (V.pos[2 * i] - V.view.cx) * V.view.k, V.H / 2 - (V.pos[2 * i + 1] - V.view.cy) * V.view.k];
    const d = V.octx.getImageData(Math.round(sx) - 12 * V.dpr, Math.round(sy) - 12 * V.dpr, 24 * V.dpr, 24 * V.dpr).data;
    let k = 0;
    for (let q = 3; q < d.length; q += 4) if (d[q] > 0) k++;
    return k;
  }, h);
  assert.ok(inked > 20, `view 0 marks the hovered record (${inked} pixels inked)`);
  await page.screenshot({ path: join(out, 'explore-hover.png') });

  // Colour by per-point trustworthiness once the quality is in.
  await page.evaluate(() => window.lowdim.quality());
  await page.selectOption('#colour', 'trustworthiness');
  assert.match(await page.textContent('#legend'), /trustworthiness of each point/);
  const q = await page.evaluate(() => window.lowdim.state.qual);
  const mean = q.trustworthiness_points.reduce((a, b) => a + b, 0) / q.trustworthiness_points.length;
  assert.ok(Math.abs(mean - q.trustworthiness) < 1e-9, `mean per-point trustworthiness ${mean} against T ${q.trustworthiness}`);
  await page.screenshot({ path: join(out, 'explore-trustworthiness.png') });
  assert.deepEqual(problems, [], 'the page logged errors');

  // The canvas-2D fallback draws the same colours.
  const p2 = await browser.newPage({ viewport: { width: 1000, height: 600 } });
  await p2.goto(url + '?renderer=2d');
  await waitReady(p2);
  await p2.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.equal(await p2.evaluate(() => window.lowdim.state.renderer), '2d');
  assert.match(await p2.textContent('#renderer'), /canvas 2D/);
  const alone = await isolated(p2, 1, 4, 3);
  for (const i of alone) assert.ok(near(await pixelAt(p2, 1, i), await colourOf(p2, i)), `2D: record ${i}`);
  await p2.screenshot({ path: join(out, 'explore-canvas2d.png') });
  // By default, on software GL (this headless chromium: SwiftShader) and few points, canvas 2D.
  const p3 = await browser.newPage({ viewport: { width: 800, height: 500 } });
  await p3.goto(url);
  await waitReady(p3);
  assert.equal(await p3.evaluate(() => window.lowdim.state.renderer), '2d');
  assert.match(await p3.textContent('#renderer'), /the WebGL here is software/);
  result.ok = true;
  console.log('RESULT ' + JSON.stringify(result));
} finally {
  await browser.close();
}
