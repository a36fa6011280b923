// Shared by the browser scripts: launch Debian's chromium (never a downloaded browser).
import { chromium } from 'playwright-core';

export function launch() {
  return chromium.launch({
    executablePath: process.env.LOWDIM_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

// waitReady waits until the page has its session, positions and first drawing.
export async function waitReady(page) {
  await page.waitForFunction(() => window.lowdim && (window.lowdim.state.ready || window.lowdim.state.failed), null, { timeout: 60000 });
  const errors = await page.evaluate(() => window.lowdim.state.errors);
  if (errors.length) throw new Error(`the page failed to start: ${errors.join('; ')}`);
}

// positionsOf returns the positions the page holds (n×2, row-major) as a plain array.
export function positionsOf(page) {
  return page.evaluate(() => Array.from(window.lowdim.state.pos));
}

// collectProblems returns the list the page's uncaught errors and console errors are pushed to:
// a test ends by asserting that it is empty.
export function collectProblems(page) {
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  return problems;
}

// waitLiveRound waits until the live fit has finished round r and the page has drawn it.
export function waitLiveRound(page, r, timeout) {
  return page.waitForFunction((r) => {
    const st = window.lowdim.state.liveState;
    return st && st.round >= r && window.lowdim.state.liveRound >= r;
  }, r, { timeout });
}
