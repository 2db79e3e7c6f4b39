/**
 * The session's size belongs to the API, in the browser too: opening a session, as driver or viewer, or resizing the
 * window never resizes it. The pane draws the session at its own size: a smaller one with its edge in view, a larger
 * one scrolling at full size. "Fit to window" resizes it once, when a driver presses it; a viewer is never offered it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { RuntimeEvent, TermhostClient } from '../src/client/TermhostClient.js';
import { focusTerminal, pagePixels, signIn, uiTestbed, waitPaneStable, waitPaneState, waitTerminal } from './browser.js';
import { until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let browser: Browser;
let agent: TermhostClient;

uiTestbed((bed) => ({ d, browser, agent } = bed));

/** An agent's shell at a size of its choosing. */
function agentShell(cols: number, rows: number) {
  return agent.createSession({ command: ['bash', '--norc', '--noprofile', '-i'], env: { PS1: '$ ' }, cols, rows });
}

/** Every `resized` event of one session, from its start, as the event stream delivers them. */
function recordResizes(id: string): { sizes: Array<[number, number]>; stop(): void } {
  const stream = d.client.events({ session: id, lastEventId: 0 });
  const sizes: Array<[number, number]> = [];
  void (async () => {
    for await (const e of stream as AsyncIterable<RuntimeEvent>) {
      if (e.type === 'resized') sizes.push([e.cols as number, e.rows as number]);
    }
  })();
  return { sizes, stop: () => stream.close() };
}

/** The terminal's drawn screen and the pane's area, in CSS pixels. */
function geometry(page: Page) {
  return page.evaluate(() => {
    const host = document.querySelector('.term-host') as HTMLElement;
    const screen = document.querySelector('.xterm-screen') as HTMLElement;
    const hs = getComputedStyle(host);
    const h = host.getBoundingClientRect();
    const s = screen.getBoundingClientRect();
    const pad = parseFloat(hs.paddingLeft);
    return {
      host: { left: h.left + pad, top: h.top + pad, right: h.left + host.clientWidth - pad, bottom: h.top + host.clientHeight - pad },
      screen: { left: s.left, top: s.top, right: s.right, bottom: s.bottom, width: s.width, height: s.height },
      scroll: { width: host.scrollWidth, height: host.scrollHeight, clientWidth: host.clientWidth, clientHeight: host.clientHeight },
      edge: getComputedStyle(screen.closest('.xterm')!).boxShadow,
    };
  });
}

const near = (a: readonly number[], b: readonly number[], tol = 24) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);
const hex = (c: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)) as [number, number, number];
const TERM_BG = hex('#11151c');
const EDGE = hex('#52607a');

test("opening an agent's 110x30 session as the driver leaves it 110x30, drawn at its own size with its edge in view", async () => {
  const s = await agentShell(110, 30);
  await waitText(d, s.id, '$');
  const resizes = recordResizes(s.id);
  const person = await signIn(browser, d, ['--session', s.id], { viewport: { width: 1400, height: 900 } });
  const { page } = person;
  await waitPaneState(page, 'attached');
  await page.locator('.status', { hasText: 'Live' }).waitFor();
  assert.equal(await page.locator('.badge-readonly').count(), 0, 'this is the driver');
  // The window changes size too, as a person's does; the pane then holds still far longer than the 120 ms after
  // which the UI used to resize the session to it.
  await page.setViewportSize({ width: 1300, height: 860 });
  await waitPaneStable(page, 800);
  await agent.input(s.id, [{ text: 'echo after-$((5*5))' }, { key: 'Enter' }]);
  await waitTerminal(page, 'after-25');
  const info = await d.client.getSession(s.id);
  assert.deepEqual([info.cols, info.rows], [110, 30], 'the session keeps the size the agent gave it');
  assert.deepEqual(resizes.sizes, [], 'nothing resized it');
  assert.equal(await page.locator('.session-size').innerText(), 'Size: 110×30');
  await page.locator('.fit-note', { hasText: /^this pane fits \d+×\d+$/ }).waitFor();

  // Drawn at 110x30: the screen ends well inside the pane, to the right and below.
  const g = await geometry(page);
  const cell = { w: g.screen.width / 110, h: g.screen.height / 30 };
  assert.ok(g.host.right - g.screen.right > 10 * cell.w, JSON.stringify(g));
  assert.ok(g.host.bottom - g.screen.bottom > 2 * cell.h, JSON.stringify(g));
  assert.equal(await page.locator('.term-wrap').getAttribute('data-fit'), 'smaller');
  assert.notEqual(g.edge, 'none', 'a line marks the edge');
  // And on screen: terminal background inside, the edge line at the last column and row, hatching beyond.
  const midY = Math.round(g.screen.top + g.screen.height / 2);
  const across = await pagePixels(page, { x: Math.floor(g.screen.right) - 6, y: midY, width: 40, height: 1 });
  const inside = across.at(2, 0);
  assert.ok(near(inside, TERM_BG, 4), `inside the last column: ${inside}`);
  const lineX = [...Array(across.width).keys()].find((x) => near(across.at(x, 0), EDGE));
  assert.ok(lineX !== undefined && lineX >= 4 && lineX <= 9, `the edge line just past the last column: ${JSON.stringify([...Array(across.width).keys()].map((x) => across.at(x, 0)))}`);
  const beyond = [...Array(20).keys()].map((i) => across.at(lineX! + 4 + i, 0));
  assert.ok(beyond.some((p) => !near(p, TERM_BG, 3)), `beyond the edge the pane is not the terminal: ${JSON.stringify(beyond)}`);
  const down = await pagePixels(page, { x: Math.round(g.screen.left + 40), y: Math.floor(g.screen.bottom) - 6, width: 1, height: 40 });
  assert.ok([...Array(down.height).keys()].some((y) => near(down.at(0, y), EDGE)), 'the edge line below the last row');
  resizes.stop();
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('"Fit to window" says what it will do, and resizes the session to the pane only when the driver presses it', async () => {
  const s = await agentShell(110, 30);
  await waitText(d, s.id, '$');
  const person = await signIn(browser, d, ['--session', s.id], { viewport: { width: 1400, height: 900 } });
  const { page } = person;
  await waitPaneState(page, 'attached');
  await waitPaneStable(page, 300);
  const button = page.getByRole('button', { name: 'Fit to window' });
  const target = await button.getAttribute('data-fit-to');
  const [cols, rows] = target!.split('×').map(Number) as [number, number];
  assert.ok(cols > 110 && rows > 30, target!);
  assert.equal(await button.getAttribute('title'), `Resize the session from 110×30 to ${target}, the size of this pane. The program is told (SIGWINCH) and redraws; everyone attached sees the new size.`);
  await button.click();
  const info = await until('the API to report the pane size', async () => {
    const i = await d.client.getSession(s.id);
    return i.cols !== 110 ? i : undefined;
  });
  assert.deepEqual([info.cols, info.rows], [cols, rows]);
  // The program heard about it, and the pane now draws the session filling it: less than a cell left over.
  await agent.input(s.id, [{ text: 'echo size=$(tput cols)x$(tput lines)' }, { key: 'Enter' }]);
  await waitTerminal(page, `size=${cols}x${rows}`);
  await page.locator('.session-size', { hasText: `Size: ${cols}×${rows}` }).waitFor();
  await page.locator('.term-wrap[data-fit="fills"]').waitFor();
  const g = await geometry(page);
  const cell = { w: g.screen.width / cols, h: g.screen.height / rows };
  assert.ok(g.screen.right <= g.host.right && g.host.right - g.screen.right < cell.w + 1, JSON.stringify(g));
  assert.ok(g.screen.bottom <= g.host.bottom && g.host.bottom - g.screen.bottom < cell.h + 1, JSON.stringify(g));
  assert.ok(g.scroll.width <= g.scroll.clientWidth && g.scroll.height <= g.scroll.clientHeight, `no scrolling: ${JSON.stringify(g.scroll)}`);
  assert.ok(await button.isDisabled(), 'nothing left to fit');
  assert.equal(await button.getAttribute('title'), `The session already fills this pane (${target})`);
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a viewer is never offered "Fit to window", and sees how the session compares with the pane', async () => {
  const s = await agentShell(90, 20);
  await waitText(d, s.id, '$');
  const reader = await signIn(browser, d, ['--viewer', '--session', s.id]);
  await waitPaneState(reader.page, 'attached');
  await reader.page.locator('.status .badge-readonly').waitFor();
  await reader.page.locator('.fit-note', { hasText: 'this pane fits' }).waitFor();
  assert.equal(await reader.page.getByRole('button', { name: 'Fit to window' }).count(), 0);
  await reader.close();
  // A person who could drive but switched to watching is not offered it either.
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  await page.getByRole('button', { name: 'Fit to window' }).waitFor();
  await page.getByRole('button', { name: 'Viewer' }).click();
  await page.waitForURL(/\?role=viewer$/);
  await waitPaneState(page, 'attached');
  await page.locator('.status .badge-readonly').waitFor();
  await page.locator('.fit-note').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Fit to window' }).count(), 0);
  assert.deepEqual([(await d.client.getSession(s.id)).cols, (await d.client.getSession(s.id)).rows], [90, 20]);
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a session larger than the pane scrolls at full size: nothing is cut off, and typing brings the cursor into view', async () => {
  const s = await agentShell(200, 60);
  await waitText(d, s.id, '$');
  // A marker that ends in the last column, then the prompt pushed down to the last row.
  await agent.input(s.id, [{ text: `clear; printf '%200s' RIGHT-EDGE; for i in $(seq 59); do echo; done` }, { key: 'Enter' }]);
  await until('the prompt to reach the last row', async () => (await d.client.screen(s.id)).cursor.y === 59);
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  await waitTerminal(page, 'RIGHT-EDGE');
  await page.locator('.fit-note.fit-larger', { hasText: /^larger than this pane \(\d+×\d+ fits\): scroll to see all of it$/ }).waitFor();
  assert.equal(await page.locator('.term-wrap').getAttribute('data-fit'), 'larger');
  const g = await geometry(page);
  assert.ok(g.scroll.width > g.scroll.clientWidth && g.scroll.height > g.scroll.clientHeight, JSON.stringify(g.scroll));
  assert.ok(g.screen.width > g.host.right - g.host.left && g.screen.height > g.host.bottom - g.host.top, 'drawn at full size, not shrunk');
  // The marker's last letter is past the pane's right side, and scrolling brings it in: it was never cut off.
  const lastLetter = () =>
    page.evaluate(() => {
      const row = [...document.querySelectorAll('.xterm-rows > div')].find((r) => r.textContent!.includes('RIGHT-EDGE'))!;
      const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
      let node: Text | undefined;
      while (walker.nextNode()) if (walker.currentNode.textContent!.includes('RIGHT-EDGE')) node = walker.currentNode as Text;
      const range = document.createRange();
      const end = node!.textContent!.lastIndexOf('E');
      range.setStart(node!, end);
      range.setEnd(node!, end + 1);
      const r = range.getBoundingClientRect();
      const host = (document.querySelector('.term-host') as HTMLElement).getBoundingClientRect();
      return { letter: r.right, hostRight: host.right };
    });
  const before = await lastLetter();
  assert.ok(before.letter > before.hostRight, JSON.stringify(before));
  await page.evaluate(() => {
    const host = document.querySelector('.term-host') as HTMLElement;
    host.scrollLeft = host.scrollWidth;
  });
  const after = await lastLetter();
  assert.ok(after.letter <= after.hostRight, JSON.stringify(after));
  // Back at the top left, the driver types at a prompt on the last row: the pane scrolls to show it.
  await page.evaluate(() => {
    const host = document.querySelector('.term-host') as HTMLElement;
    host.scrollLeft = 0;
    host.scrollTop = 0;
  });
  await focusTerminal(page);
  await page.keyboard.type('echo typed-$((6*6))');
  await waitTerminal(page, 'echo typed-$((6*6))');
  const cursor = await page.evaluate(() => {
    const c = document.querySelector('.xterm-rows .xterm-cursor')!.getBoundingClientRect();
    const host = (document.querySelector('.term-host') as HTMLElement).getBoundingClientRect();
    return { top: c.top, bottom: c.bottom, hostTop: host.top, hostBottom: host.bottom };
  });
  assert.ok(cursor.top >= cursor.hostTop && cursor.bottom <= cursor.hostBottom, JSON.stringify(cursor));
  const info = await d.client.getSession(s.id);
  assert.deepEqual([info.cols, info.rows], [200, 60], 'still its own size');
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});
