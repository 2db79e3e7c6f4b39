/**
 * The wall (/ui/wall) in real Chromium: a person supervising several agents sees every session at once, each tile a
 * picture the server drew, kept live from the event stream; filters by label in the address; sees at a glance which
 * session hides its screen for a secret and which waits for input; and opens a session with a click.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TermhostClient } from '../src/client/TermhostClient.js';
import { signIn, uiTestbed, waitPaneState, waitTerminal, type Person } from './browser.js';
import { until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let browser: Browser;
let agent: TermhostClient;

uiTestbed((bed) => ({ d, browser, agent } = bed));

/** A quiet interactive shell with a fixed prompt. */
function shell(labels: Record<string, string> = {}) {
  return agent.createSession({ command: ['bash', '--norc', '--noprofile', '-i'], env: { PS1: '$ ' }, cols: 80, rows: 20, labels });
}

/**
 * Installed in every page the person opens: the text of the SVG a tile shows now ('' before its first picture). The
 * SVG places words in runs of their own (a space is a gap, not a character), so runs are joined with a space.
 */
function installTileText(): void {
  (window as unknown as { tileText(id: string): string }).tileText = (sid: string) => {
    const img = document.querySelector(`.tile[data-session="${sid}"] img`) as HTMLImageElement | null;
    if (!img?.src.startsWith('data:image/svg+xml')) return '';
    const svg = new DOMParser().parseFromString(decodeURIComponent(img.src.slice(img.src.indexOf(',') + 1)), 'image/svg+xml');
    return [...svg.querySelectorAll('text')].map((t) => [...t.querySelectorAll('tspan')].map((sp) => sp.textContent).join(' ')).join('\n');
  };
}

async function openWall(person: Person, path = '/ui/wall'): Promise<Page> {
  await person.context.addInitScript(installTileText);
  await person.page.goto(`${d.url}${path}`);
  return person.page;
}

function tileText(page: Page, id: string): Promise<string> {
  return page.evaluate((sid) => (window as unknown as { tileText(id: string): string }).tileText(sid), id);
}

async function waitTileText(page: Page, id: string, text: string, timeout = 10_000): Promise<void> {
  try {
    await page.waitForFunction(([sid, t]) => (window as unknown as { tileText(id: string): string }).tileText(sid!).includes(t!), [id, text], { timeout, polling: 50 });
  } catch {
    assert.fail(`the tile of ${id} never showed "${text}"; it shows:\n${await tileText(page, id)}`);
  }
}

const tileIds = (page: Page) => page.locator('.tile').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.session!));

test('the wall shows a live tile per session: command, state and who holds input; a tile changes when its session prints; a click opens it', async () => {
  const a = await shell();
  const b = await agent.createSession({ command: ['sh', '-c', 'echo quiet session; exec sleep 300'], cols: 60, rows: 10 });
  await waitText(d, a.id, '$');
  await agent.acquireLease(a.id, 'exclusive', 600_000);
  const person = await signIn(browser, d);
  const page = await openWall(person, '/ui/');
  await page.locator('table.sessions').waitFor();
  await page.getByRole('link', { name: 'wall' }).click();
  assert.equal(new URL(page.url()).pathname, '/ui/wall');
  for (const s of [a, b]) await page.locator(`.tile[data-session="${s.id}"]`).waitFor();
  const tileB = page.locator(`.tile[data-session="${b.id}"]`);
  assert.match(await tileB.innerText(), /sh -c 'echo quiet session; exec sleep 300'/);
  assert.match(await tileB.innerText(), /running/);
  await waitTileText(page, b.id, 'quiet session');
  await page.locator(`.tile[data-session="${a.id}"] .tile-holder`, { hasText: 'claude (agent, exclusive)' }).waitFor();

  const fetchedBefore = await page.evaluate(() => (window as unknown as { __wall: { counts: { fetched: number } } }).__wall.counts.fetched);
  await agent.input(a.id, [{ text: 'echo hello from the wall' }, { key: 'Enter' }]);
  await waitText(d, a.id, 'hello from the wall\n');
  await waitTileText(page, a.id, 'hello from the wall');
  // Only the session that printed was fetched again: the quiet one's tile cost nothing.
  const bFetches = person.requests.filter((u) => u.includes(`/v1/sessions/${b.id}/screen`)).length;
  assert.equal(bFetches, 1, 'the quiet tile was fetched once, when it first showed');
  const fetched = await page.evaluate(() => (window as unknown as { __wall: { counts: { fetched: number } } }).__wall.counts.fetched);
  assert.ok(fetched > fetchedBefore);

  await page.locator(`.tile[data-session="${a.id}"]`).click();
  assert.equal(new URL(page.url()).pathname, `/ui/sessions/${a.id}`);
  await waitPaneState(page, 'attached');
  await waitTerminal(page, 'hello from the wall');
  await page.goBack();
  await page.locator(`.tile[data-session="${a.id}"]`).waitFor();
  await person.close();
  for (const s of [a, b]) await d.client.deleteSession(s.id, 'KILL');
});

test('?label=team=red shows the red sessions only; a filter typed on the page goes into the address and survives a reload', async () => {
  const red = await shell({ team: 'red' });
  const red2 = await shell({ team: 'red', env: 'prod' });
  const blue = await shell({ team: 'blue' });
  const person = await signIn(browser, d);
  const page = await openWall(person, '/ui/wall?label=team=red');
  await page.locator(`.tile[data-session="${red2.id}"]`).waitFor();
  await until('exactly the red tiles', async () => JSON.stringify((await tileIds(page)).sort()) === JSON.stringify([red.id, red2.id].sort()));
  assert.equal(await page.locator('.wall-filter').inputValue(), 'team=red');

  await page.locator('.wall-filter').fill('team=red, env=prod');
  await page.locator('.wall-filter').press('Enter');
  await until('the prod tile alone', async () => JSON.stringify(await tileIds(page)) === JSON.stringify([red2.id]));
  assert.equal(new URL(page.url()).search, '?label=team=red&label=env=prod');
  await page.reload();
  await page.locator(`.tile[data-session="${red2.id}"]`).waitFor();
  assert.deepEqual(await tileIds(page), [red2.id]);

  // A new session that matches appears by itself; one that does not, does not.
  const later = await shell({ team: 'red', env: 'prod' });
  const other = await shell({ team: 'blue', env: 'prod' });
  await page.locator(`.tile[data-session="${later.id}"]`).waitFor();
  assert.equal(await page.locator(`.tile[data-session="${other.id}"]`).count(), 0);

  await page.locator('.wall-filter').fill('');
  await page.locator('.wall-filter').press('Enter');
  await page.locator(`.tile[data-session="${blue.id}"]`).waitFor();
  assert.equal(new URL(page.url()).search, '');
  await person.close();
  for (const s of [red, red2, blue, later, other]) await d.client.deleteSession(s.id, 'KILL');
});

test('a secret-input window shows the lock mark instead of a picture; a program waiting for a line is marked as waiting', async () => {
  const code = ['import getpass, time', "getpass.getpass('[sudo] password for alice: ')", "print('authenticated', flush=True)", 'time.sleep(300)'].join('\n');
  const secret = await agent.createSession({ command: ['python3', '-c', code], cols: 80, rows: 12 });
  const reader = ['import time', "x = input('Continue? [Y/n] ')", "print('answered-' + x, flush=True)", 'time.sleep(300)'].join('\n');
  const waiting = await agent.createSession({ command: ['python3', '-c', reader], cols: 80, rows: 12 });
  await until('the detector to open a window', async () => (await agent.secretInput(secret.id)).active);
  await until('the reader to wait', async () => (await agent.getSession(waiting.id)).shell.input_needed !== null);
  const person = await signIn(browser, d);
  const page = await openWall(person);
  const tile = page.locator(`.tile[data-session="${secret.id}"]`);
  await tile.locator('[data-mark="secret"]').waitFor();
  await tile.locator('.tile-hidden', { hasText: 'Secret input' }).waitFor();
  assert.equal(await tile.locator('img').count(), 0, 'no picture of a hidden screen');
  assert.equal(await tile.getAttribute('data-state'), 'secret');
  const waitingTile = page.locator(`.tile[data-session="${waiting.id}"]`);
  await waitingTile.locator('[data-mark="input-needed"]', { hasText: 'waiting for a line' }).waitFor();
  await waitTileText(page, waiting.id, 'Continue? [Y/n]');

  // The person answers the program (through the API here); the mark goes with the wait.
  await d.client.input(waiting.id, [{ text: 'y' }, { key: 'Enter' }]);
  await waitTileText(page, waiting.id, 'answered-y');
  await waitingTile.locator('[data-mark="input-needed"]').waitFor({ state: 'detached' });
  await person.close();
  for (const s of [secret, waiting]) await d.client.deleteSession(s.id, 'KILL');
});

test('only tiles on screen are fetched: scrolling down draws the ones below', async () => {
  const sessions = [];
  for (let i = 0; i < 12; i++) sessions.push(await agent.createSession({ command: ['sh', '-c', `echo tile number ${i}; exec sleep 300`], cols: 80, rows: 24, labels: { wall: 'scroll' } }));
  const person = await signIn(browser, d, [], { viewport: { width: 800, height: 600 } });
  const page = await openWall(person, '/ui/wall?label=wall=scroll');
  const first = sessions[0]!;
  const last = sessions.at(-1)!;
  await waitTileText(page, first.id, 'tile number 0');
  const fetchedFor = (id: string) => person.requests.filter((u) => u.includes(`/v1/sessions/${id}/screen`)).length;
  assert.equal(fetchedFor(last.id), 0, 'the last tile, far below the fold, was not fetched');
  await page.locator(`.tile[data-session="${last.id}"]`).scrollIntoViewIfNeeded();
  await waitTileText(page, last.id, 'tile number 11');
  await person.close();
  for (const s of sessions) await d.client.deleteSession(s.id, 'KILL');
});
