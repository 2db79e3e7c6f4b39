/**
 * What the terminal draws, checked in pixels: the font ships with the page, and an underscore is ink, wholly inside
 * its cell, at device pixel ratio 1 and 2. (`for _ in` once read `for   in`: the cell was one pixel too short for
 * DejaVu Sans Mono's underscore, and xterm's DOM renderer clips each row.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TermhostClient } from '../src/client/TermhostClient.js';
import { pagePixels, signIn, uiTestbed, waitPaneState, waitTerminal } from './browser.js';
import { waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let browser: Browser;
let agent: TermhostClient;

uiTestbed((bed) => ({ d, browser, agent } = bed));

const COLS = 40;
const ROWS = 6;
/** Channel sum above the background's that counts as ink (text is #d8dee9 on #11151c). */
const INK = 120;

/** Which device-pixel rows of one cell carry ink, top to bottom, and the row just below the cell. */
async function inkRows(page: Page, col: number, row: number): Promise<{ cell: boolean[]; below: boolean }> {
  const screen = (await page.locator('.xterm-screen').boundingBox())!;
  const w = screen.width / COLS;
  const h = screen.height / ROWS;
  const cell = { left: screen.x + col * w, top: screen.y + row * h, right: screen.x + (col + 1) * w, bottom: screen.y + (row + 1) * h };
  const region = { x: Math.floor(cell.left), y: Math.floor(cell.top), width: Math.ceil(cell.right) - Math.floor(cell.left), height: Math.ceil(cell.bottom) - Math.floor(cell.top) + 2 };
  const px = await pagePixels(page, region);
  const bg = px.at(0, 0).reduce((a, b) => a + b, 0);
  // A device pixel belongs to the cell when its centre does.
  const inCell = (v: number, lo: number, hi: number) => v >= lo && v < hi;
  // Columns a pixel in from each side: a bold neighbour may lean over the boundary by that much.
  const xs = [...Array(px.width).keys()].filter((x) => inCell(region.x + (x + 0.5) / px.dpr, cell.left + 1 / px.dpr, cell.right - 1 / px.dpr));
  const ys = [...Array(px.height).keys()];
  const inked = (y: number) => xs.some((x) => px.at(x, y).reduce((a, b) => a + b, 0) > bg + INK);
  const cellYs = ys.filter((y) => inCell(region.y + (y + 0.5) / px.dpr, cell.top, cell.bottom));
  return { cell: cellYs.map(inked), below: inked(cellYs.at(-1)! + 1) };
}

for (const dpr of [1, 2]) {
  test(`at device pixel ratio ${dpr}, "for _ in" shows its underscore, regular and bold, wholly inside the cell`, async () => {
    const s = await agent.createSession({ command: ['sh', '-c', `printf 'for _ in x\\n\\033[1mfor _ in x\\033[0m\\n'; sleep 60`], cols: COLS, rows: ROWS });
    await waitText(d, s.id, 'for _ in x');
    const person = await signIn(browser, d, ['--viewer', '--session', s.id], { deviceScaleFactor: dpr });
    const { page } = person;
    assert.equal(await page.evaluate(() => devicePixelRatio), dpr);
    await waitPaneState(page, 'attached');
    await waitTerminal(page, 'for _ in x');
    await page.locator('.overlay').waitFor({ state: 'hidden' });
    for (const [row, weight] of [[0, 'regular'], [1, 'bold']] as const) {
      const space = await inkRows(page, 3, row);
      assert.ok(!space.cell.some(Boolean), `${weight}: the space before it is blank (the sampler looks at the right cell)`);
      const under = await inkRows(page, 4, row);
      const map = under.cell.map((v) => (v ? '#' : '.')).join('');
      const inked = under.cell.flatMap((v, i) => (v ? [i] : []));
      assert.ok(inked.length > 0, `${weight}: no ink under the underscore (${map})`);
      assert.ok(inked[0]! >= under.cell.length / 2, `${weight}: the ink is low in the cell, where an underscore is (${map})`);
      // Not on the cell's last pixel row, nor spilling past it: a baseline rounded one pixel lower still shows it.
      assert.ok(!under.cell.at(-1) && !under.below, `${weight}: the underscore touches the cell's bottom edge, where rows are clipped (${map}|${under.below ? '#' : '.'})`);
    }
    await person.close();
    await d.client.deleteSession(s.id, 'KILL');
  });
}

test('the terminal font comes with the page: DejaVu Mono from the daemon, whatever fonts the system has', async () => {
  const s = await agent.createSession({ command: ['sh', '-c', 'echo font-check; sleep 60'] });
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  const fonts: Array<{ url: string; type: string | undefined; status: number }> = [];
  page.on('response', (r) => r.url().endsWith('.woff2') && fonts.push({ url: r.url(), type: r.headers()['content-type'], status: r.status() }));
  await page.reload();
  await waitPaneState(page, 'attached');
  await waitTerminal(page, 'font-check');
  const faces = await page.evaluate(() => [...document.fonts].map((f) => `${f.family} ${f.weight} ${f.status}`).sort());
  assert.deepEqual(faces.filter((f) => f.includes('DejaVu Mono')), ['DejaVu Mono 400 loaded', 'DejaVu Mono 700 loaded'], faces.join(', '));
  for (const f of fonts) {
    assert.ok(f.url.startsWith(`${d.url}/ui/assets/`), f.url);
    assert.deepEqual([f.status, f.type], [200, 'font/woff2'], f.url);
  }
  assert.ok(fonts.length >= 1, 'the font was fetched from the daemon');
  const family = await page.evaluate(() => getComputedStyle(document.querySelector('.xterm-rows')!).fontFamily);
  assert.match(family, /^"DejaVu Mono"/);
  // The name is the page's own: a system DejaVu Sans Mono (or its absence) changes nothing.
  assert.ok(await page.evaluate(() => document.fonts.check('14px "DejaVu Mono"')));
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});
