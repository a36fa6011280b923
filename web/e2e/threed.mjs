// Browser test of 3-D views (run by TestBrowser3D in web/browser_test.go, which serves the digits
// with a 3-D embedding as the main view and a 2-D one beside it, -image 8x8), once with WebGL2
// and once with the canvas-2D fallback: what is drawn at a record's projected place is its class
// colour (the renderer and the page's projection agree), dragging orbits (the picture changes),
// the wheel zooms and "Fit view" resets, a lasso on the orbited view selects exactly the rows the
// server selects through the camera the page sent (and those this script projects itself), and
// hovering a record shows that record, its input neighbours in both views. Prints "RESULT {json}".
//
//   LOWDIM_URL=http://127.0.0.1:PORT/ LOWDIM_ARTIFACTS=DIR node threed.mjs
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, waitReady, collectProblems } from './lib.mjs';

const url = process.env.LOWDIM_URL;
const out = process.env.LOWDIM_ARTIFACTS;
assert.ok(url && out, 'LOWDIM_URL and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

// The script's own projection of every record of view 0 under the camera the page reports
// (the 3×4 matrix P: (u, v, w) = P·(x, y, z, 1), pixel (u/w, v/w)), in device pixels.
const projected = (page) => page.evaluate(() => {
  const S = window.lowdim.state, V = S.views[0], P = window.lowdim.camera(0), p = V.pos, out = [];
  for (let i = 0; i < S.n; i++) {
    const x = p[3 * i], y = p[3 * i + 1], z = p[3 * i + 2];
    const u = P[0] * x + P[1] * y + P[2] * z + P[3], v = P[4] * x + P[5] * y + P[6] * z + P[7], w = P[8] * x + P[9] * y + P[10] * z + P[11];
    out.push([u / w, v / w, w]);
  }
  return { pts: out, dpr: V.dpr, W: V.W, H: V.H, rect: (({ left, top }) => ({ left, top }))(V.ov.getBoundingClientRect()) };
});

// isolated returns records with no other record within r device pixels on screen, inside the view.
function isolated(pr, r, max) {
  const res = [];
  for (let i = 0; i < pr.pts.length && res.length < max; i++) {
    const [x, y] = pr.pts[i];
    if (x < 30 || y < 40 || x > pr.W - 30 || y > pr.H - 30) continue;
    if (pr.pts.every(([a, b], j) => j === i || (a - x) ** 2 + (b - y) ** 2 > r * r)) res.push(i);
  }
  return res;
}

const pixel = (page, x, y) => page.evaluate(([x, y]) => {
  const V = window.lowdim.state.views[0], c = document.createElement('canvas');
  c.width = V.W; c.height = V.H;
  const g = c.getContext('2d');
  g.drawImage(V.base, 0, 0);
  return Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3));
}, [x, y]);
const colourOf = (page, i) => page.evaluate((i) => { const c = window.lowdim.state.colours[i]; return [c & 255, c >> 8 & 255, c >> 16 & 255]; }, i);
const near = (a, b, tol = 3) => a.every((x, k) => Math.abs(x - b[k]) <= tol);
const shot = (page) => page.locator('#views .view').first().screenshot();

function inPolygon(xs, ys, x, y) { // the even–odd rule, as web/explore.go writes it
  let inside = false;
  for (let i = 0, j = xs.length - 1; i < xs.length; j = i++) {
    if ((ys[i] > y) !== (ys[j] > y)) {
      const t = (xs[j] - xs[i]) * (y - ys[i]);
      if (x < t / (ys[j] - ys[i]) + xs[i]) inside = !inside;
    }
  }
  return inside;
}

const browser = await launch();
const result = {};
try {
  for (const renderer of ['webgl2', '2d']) {
    const page = await browser.newPage({ viewport: { width: 1300, height: 700 } });
    const problems = collectProblems(page);
    await page.goto(`${url}?renderer=${renderer}`);
    await waitReady(page);
    await page.evaluate(() => window.lowdim.idle());
    const meta = await page.evaluate(() => ({ dims: window.lowdim.state.views.map((V) => V.dim), renderer: window.lowdim.state.renderer, names: window.lowdim.state.views.map((V) => V.name) }));
    assert.deepEqual(meta.dims, [3, 2], `a 3-D view beside a 2-D one: ${JSON.stringify(meta)}`);
    assert.equal(meta.renderer, renderer);
    const r = { renderer };

    // What is drawn where the page projects: isolated records show their class colour.
    await page.waitForTimeout(100);
    let pr = await projected(page);
    const alone = isolated(pr, 6 * pr.dpr, 4);
    assert.ok(alone.length >= 3, `isolated records on screen: ${alone}`);
    for (const i of alone) {
      const [x, y] = pr.pts[i], got = await pixel(page, Math.floor(x), Math.floor(y)), want = await colourOf(page, i);
      assert.ok(near(got, want), `${renderer}: record ${i} at (${x.toFixed(1)}, ${y.toFixed(1)}) drawn ${got}, class colour ${want}`);
    }

    // Orbit: drag the view; the camera turns and the picture changes.
    const before = await shot(page), P0 = await page.evaluate(() => window.lowdim.camera(0));
    const box = await page.locator('#canvas').boundingBox();
    const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let k = 1; k <= 10; k++) await page.mouse.move(cx + 12 * k, cy + 5 * k);
    await page.mouse.up();
    await page.waitForTimeout(150);
    const after = await shot(page), P1 = await page.evaluate(() => window.lowdim.camera(0));
    assert.notDeepEqual(P1, P0, 'the drag changed the camera');
    assert.ok(!before.equals(after), 'the orbit changed the picture');
    await page.screenshot({ path: join(out, `threed-orbit-${renderer}.png`) });

    // Zoom, then Fit view: back to the first camera.
    await page.mouse.move(cx, cy);
    await page.mouse.wheel(0, -300);
    await page.waitForTimeout(100);
    const zoomed = await page.evaluate(() => window.lowdim.state.views[0].cam.f / window.lowdim.state.views[0].cam.f0);
    assert.ok(zoomed > 1.2, `the wheel zoomed in: ×${zoomed}`);
    await page.click('#fit');
    assert.deepEqual(await page.evaluate(() => window.lowdim.camera(0)), P0, 'Fit view resets the camera');
    // And orbit again, for the rest.
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let k = 1; k <= 8; k++) await page.mouse.move(cx - 10 * k, cy + 9 * k);
    await page.mouse.up();
    await page.waitForTimeout(100);

    // Lasso in the orbited 3-D view: a star around the centre, real pointer moves.
    await page.check('input[name=tool][value=lasso]');
    const star = [];
    for (let k = 0; k <= 14; k++) {
      const a = (k / 14) * 2 * Math.PI, rr = (k % 2 ? 0.16 : 0.3) * Math.min(box.width, box.height);
      star.push([cx + rr * Math.cos(a), cy + rr * Math.sin(a)]);
    }
    await page.mouse.move(...star[0]);
    await page.mouse.down();
    for (const q of star.slice(1)) await page.mouse.move(q[0], q[1], { steps: 3 });
    await page.mouse.up();
    await page.waitForFunction(() => window.lowdim.state.selServer, null, { timeout: 30000 });
    await page.evaluate(() => window.lowdim.idle());
    const sel = await page.evaluate(() => ({ page: Array.from(window.lowdim.state.selected), server: Array.from(window.lowdim.state.selServer), poly: window.lowdim.state.selPolygon, view: window.lowdim.state.selView }));
    assert.equal(sel.view, 0);
    assert.ok(sel.page.length > 10 && sel.page.length < 1797, `the lasso selected ${sel.page.length} records`);
    assert.deepEqual(sel.server, sel.page, 'the server selected the rows the page did');
    pr = await projected(page);
    const xs = sel.poly.map((q) => q[0]), ys = sel.poly.map((q) => q[1]);
    const mine = pr.pts.flatMap(([x, y, w], i) => (w > 0 && inPolygon(xs, ys, x, y) ? [i] : []));
    assert.deepEqual(sel.page, mine, 'the rows this script projects into the lasso');
    r.selected = sel.page.length;
    await page.screenshot({ path: join(out, `threed-lasso-${renderer}.png`) });
    await page.click('#clear-selection');
    await page.check('input[name=tool][value=pan]');

    // Hover: an isolated record of the orbited view shows itself and its neighbours in both views.
    const lonely = isolated(pr, 10 * pr.dpr, 1)[0];
    assert.ok(lonely >= 0, 'an isolated record to hover');
    const [hx, hy] = pr.pts[lonely];
    await page.mouse.move(pr.rect.left + hx / pr.dpr, pr.rect.top + hy / pr.dpr);
    await page.waitForFunction((i) => { const S = window.lowdim.state; return S.nb && S.nb.record === i && !document.getElementById('tip').hidden; }, lonely, { timeout: 30000 });
    const tip = await page.textContent('#tip');
    assert.ok(tip.startsWith(`#${lonely}`), `the tip shows record ${lonely}: ${tip}`);
    assert.equal(await page.evaluate(() => window.lowdim.state.nb.views.length), 2, 'neighbours in both views');
    assert.ok(await page.evaluate(() => !!document.querySelector('#tip canvas.thumb')), 'the thumbnail');
    r.hovered = lonely;
    await page.screenshot({ path: join(out, `threed-hover-${renderer}.png`) });

    // Depth-aware: where two records fall on one pixel, with no third within 5 pixels, the hover
    // takes the nearer to the eye.
    const pair = await page.evaluate(() => {
      const S = window.lowdim.state, V = S.views[0], P = window.lowdim.camera(0), p = V.pos, pr = [];
      for (let i = 0; i < S.n; i++) pr.push(window.lowdim.project(P, p[3 * i], p[3 * i + 1], p[3 * i + 2]));
      for (let i = 0; i < S.n; i++) {
        const close = [];
        for (let j = 0; j < S.n && close.length < 3; j++) if ((pr[j][0] - pr[i][0]) ** 2 + (pr[j][1] - pr[i][1]) ** 2 < 25) close.push(j);
        if (close.length !== 2) continue;
        const [a, b] = close;
        if ((pr[a][0] - pr[b][0]) ** 2 + (pr[a][1] - pr[b][1]) ** 2 > 0.25 || pr[a][2] === pr[b][2]) continue;
        return { a, b, front: pr[a][2] < pr[b][2] ? a : b, hit: window.lowdim.hitAt(pr[b][0], pr[b][1]) };
      }
      return null;
    });
    if (pair) assert.equal(pair.hit, pair.front, `the nearer of two records on one pixel: ${JSON.stringify(pair)}`);
    r.depthPair = pair;

    // Trustworthiness colouring of the 3-D view.
    await page.selectOption('#colour', 'trustworthiness');
    await page.evaluate(() => window.lowdim.quality());
    await page.waitForFunction(() => /trustworthiness of each point/.test(document.getElementById('legend').textContent), null, { timeout: 60000 });
    r.trustworthiness = await page.evaluate(() => window.lowdim.state.qual.trustworthiness);
    assert.deepEqual(problems, [], problems.join('\n'));
    result[renderer] = r;
    await page.close();
  }
  console.log('RESULT ' + JSON.stringify(result));
} finally {
  await browser.close();
}
