// Browser test of a read-only page on word counts (run by TestBrowserReadOnly in
// web/browser_test.go, which serves seeded word counts with a fixed embedding, -words, and a
// title of two long paths): the projection's export links stay hidden, the quality section
// shows that it is working while it computes, the title is one line of file names, and a
// hovered document shows its most frequent words (the server's). Prints "RESULT {json}".
//
//   LOWDIM_URL=http://127.0.0.1:PORT/ LOWDIM_ARTIFACTS=DIR node readonly.mjs
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from './lib.mjs';

const url = process.env.LOWDIM_URL;
const out = process.env.LOWDIM_ARTIFACTS;
assert.ok(url && out, 'LOWDIM_URL and LOWDIM_ARTIFACTS must be set');
mkdirSync(out, { recursive: true });

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  await page.goto(url);
  // While the first quality computation runs, the section says so.
  await page.waitForFunction(() => window.lowdim && window.lowdim.state.ready, null, { timeout: 60000 });
  const busy = await page.evaluate(() => ({ pending: window.lowdim.state.qualPending, visible: !document.getElementById('qbusy').hidden, text: document.getElementById('qbusy').textContent }));
  assert.ok(busy.pending, 'the quality is still computing right after the page is ready');
  assert.ok(busy.visible && /computing the quality measures on a sample of/.test(busy.text), `the quality section shows work: ${JSON.stringify(busy)}`);
  assert.ok(await page.isVisible('#qbusy'));
  await page.screenshot({ path: join(out, 'readonly-quality-busy.png') });
  const q = await page.evaluate(() => window.lowdim.quality());
  assert.ok(q.trustworthiness > 0);
  assert.ok(!(await page.isVisible('#qbusy')), 'the sign of work goes once the measures are in');

  // Read-only: the embedding's export shows, the projection's do not.
  assert.ok(await page.isVisible('#export-embedding'));
  assert.ok(!(await page.isVisible('#export-projection')), 'projection export hidden in read-only mode');
  assert.ok(!(await page.isVisible('#export-model')), 'model export hidden in read-only mode');
  assert.ok(!(await page.isVisible('#projection')), 'no projection section');

  // The title: the file names, one line; the whole paths on hover.
  const title = await page.evaluate(() => { const h = document.getElementById('title'); return { text: h.textContent, full: h.title, height: h.getBoundingClientRect().height }; });
  assert.equal(title.text, 'bbc.mtx.gz — tsne.csv');
  assert.match(title.full, /^\/very\/long\/path/);
  assert.ok(title.height < 30, `the title takes ${title.height} px`);

  // Hover a document: its most frequent words, as the server ranks them.
  const i = await page.evaluate(() => {
    const L = window.lowdim, S = L.state;
    for (let i = 0; i < S.n; i++) {
      const [x, y] = L.toScreen(S.pos[2 * i], S.pos[2 * i + 1]);
      if (x > 0.2 * S.W && x < 0.8 * S.W && y > 0.2 * S.H && y < 0.8 * S.H && L.hitAt(x, y) === i) return i;
    }
    return -1;
  });
  assert.ok(i >= 0);
  const [x, y] = await page.evaluate((i) => window.lowdim.screenOf(i), i);
  await page.mouse.move(x, y);
  await page.waitForFunction(() => !document.getElementById('tip').hidden && document.querySelector('#tip .words'), null, { timeout: 30000 });
  const shown = await page.$$eval('#tip .words span', (s) => s.map((e) => e.firstChild.textContent.trim()));
  const rec = await page.evaluate(async (i) => (await fetch(`api/records/${i}?top=12`)).json(), i);
  assert.deepEqual(shown, rec.top.map((w) => w.feature), 'the tip lists the top words');
  assert.ok(shown.length > 0 && shown[0].startsWith('word'));
  await page.screenshot({ path: join(out, 'readonly-words.png') });
  console.log('RESULT ' + JSON.stringify({ title: title.text, words: shown, busy: busy.text }));
} finally {
  await browser.close();
}
