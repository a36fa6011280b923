// Browser test of the server's limits as the page shows them (run by web/browser_test.go,
// which starts the server with a token, MaxControls 1 and MaxClientSessions 2, and a second
// server on another origin whose page tries to open a session on the first): the page carries
// the token, says why a second pin is refused (its own check, then the server's), says why a
// third tab gets no session, and another site's page cannot take one. Prints "RESULT {json}".
//
//   LOWDIM_URL=http://127.0.0.1:PORT/?token=T LOWDIM_EVIL=http://127.0.0.1:PORT2/ LOWDIM_ARTIFACTS=DIR node limits.mjs
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, waitReady } from './lib.mjs';

const url = process.env.LOWDIM_URL;
const evil = process.env.LOWDIM_EVIL;
const out = process.env.LOWDIM_ARTIFACTS;
assert.ok(url && evil && out, 'LOWDIM_URL, LOWDIM_EVIL and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

// visible returns records the pointer hits at their own place, inside the view.
const visible = (page) => page.evaluate(() => {
  const L = window.lowdim, S = L.state, found = [];
  for (let i = 0; i < S.n && found.length < 3; i++) {
    const [x, y] = L.toScreen(S.pos[2 * i], S.pos[2 * i + 1]);
    if (x > 0.2 * S.W && x < 0.8 * S.W && y > 0.2 * S.H && y < 0.8 * S.H && L.hitAt(x, y) === i) found.push(i);
  }
  return found;
});
const click = async (page, i) => {
  const [x, y] = await page.evaluate((r) => window.lowdim.screenOf(r), i);
  await page.mouse.click(x, y);
  await page.evaluate(() => window.lowdim.idle());
};
const statusOf = (page) => page.evaluate(() => document.getElementById('status').textContent);

const browser = await launch();
try {
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  // Without the token the page says what it needs.
  const bare = await ctx.newPage();
  await bare.goto(url.split('?')[0]);
  await bare.waitForFunction(() => window.lowdim && window.lowdim.state.failed, null, { timeout: 60000 });
  const noToken = await statusOf(bare);
  assert.match(noToken, /token/, `without the token the page says ${noToken}`);
  await bare.close();

  const page = await ctx.newPage();
  await page.goto(url);
  await waitReady(page);
  assert.match(await page.getAttribute('#export-embedding', 'href'), /\?token=/, 'the export link carries the token');
  const [a, b] = await visible(page);
  assert.ok(b !== undefined, 'two visible records');
  await click(page, a);
  assert.equal(await page.evaluate(() => window.lowdim.state.controls.size), 1, 'the first pin');
  // The page's own check: at the cap it does not send the pin and says why.
  await click(page, b);
  const own = await statusOf(page);
  assert.match(own, /at most 1 control points/, `second pin: the page says ${own}`);
  // The server's: a page that skipped its check gets the server's refusal, shown, and no pin.
  await page.evaluate(() => { window.lowdim.state.meta.max_controls = 99; });
  await click(page, b);
  const server = await statusOf(page);
  assert.match(server, /too many control points: 1 at most/, `second pin past the page's check: the page says ${server}`);
  const controls = await page.evaluate(async () => (await fetch(`api/sessions/${window.lowdim.state.id}/controls?token=${new URLSearchParams(location.search).get('token')}`)).json());
  assert.deepEqual(controls.records, [a], 'the server kept one control point');
  assert.equal(await page.evaluate(() => window.lowdim.state.controls.size), 1, 'the page kept one control point');
  await page.screenshot({ path: join(out, 'serve-pin-cap.png') });

  // Another origin's page posts text/plain (no preflight) to open sessions: refused.
  const other = await ctx.newPage();
  await other.goto(evil);
  await other.waitForFunction(() => window.done === true, null, { timeout: 30000 });
  const evilSaw = await other.evaluate(() => window.result);
  await other.close();

  // The second tab of this client gets a session (so the other site took none); the third is
  // refused, and says why.
  const second = await ctx.newPage();
  await second.goto(url);
  await waitReady(second);
  const third = await ctx.newPage();
  await third.goto(url);
  await third.waitForFunction(() => window.lowdim && window.lowdim.state.failed, null, { timeout: 60000 });
  const refused = await statusOf(third);
  assert.match(refused, /too many pages open from .*: 2 at most/, `third tab: the page says ${refused}`);
  await third.screenshot({ path: join(out, 'serve-too-many-pages.png') });
  console.log('RESULT ' + JSON.stringify({ noToken, own, server, refused, evil: evilSaw }));
} finally {
  await browser.close();
}
