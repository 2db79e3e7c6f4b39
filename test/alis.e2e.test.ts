/**
 * A live session in the real asciinema-player (the npm package, pinned), in Debian's Chromium, on a page of another
 * origin that embeds it, the way a site shows a termhost session to people. Two ways in:
 * - the page adaptor (dist/ui/assets/alis-driver.js): it opens the ALiS socket itself and sends a fresh viewer token
 *   in the first frame, so the token never appears in a URL;
 * - the player's own WebSocket driver, which can send nothing, behind a relay that authenticates for it: this proves
 *   the bytes the daemon sends are ALiS as the player's own decoder reads it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import WebSocket, { WebSocketServer } from 'ws';
import { TermhostClient } from '../src/client/TermhostClient.js';
import { ALIS_SUBPROTOCOL } from '../src/protocol/alis.js';
import { launchChromium } from './browser.js';
import { assertNoLeaks, ROOT, startTestDaemon, type TestDaemon } from './helpers.js';

const PLAYER = path.join(ROOT, 'node_modules', 'asciinema-player', 'dist', 'bundle');
const ADAPTOR = path.join(ROOT, 'dist', 'ui', 'assets', 'alis-driver.js');

/** The embedding page: the player's own bundle and stylesheet, and the adaptor, all served by the site itself. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="stylesheet" href="/player.css"><script src="/player.js"></script></head>
<body><div id="player"></div>
<script type="module">
import { termhostLive } from '/alis-driver.js';
const el = document.getElementById('player');
window.watchLive = (url) => { window.player = AsciinemaPlayer.create(termhostLive({ url, token: () => window.mintToken() }), el, { autoPlay: true }); };
window.watchPlain = (url) => { window.player = AsciinemaPlayer.create(url, el, { autoPlay: true }); };
window.pageReady = true;
</script></body></html>`;

const FILES: Record<string, { file: string; type: string } | { body: string; type: string }> = {
  '/': { body: PAGE, type: 'text/html; charset=utf-8' },
  '/player.js': { file: path.join(PLAYER, 'asciinema-player.min.js'), type: 'text/javascript' },
  '/player.css': { file: path.join(PLAYER, 'asciinema-player.css'), type: 'text/css' },
  '/alis-driver.js': { file: ADAPTOR, type: 'text/javascript' },
};

let site: http.Server;
let origin: string;
let d: TestDaemon;
let browser: Browser;
let viewer: TermhostClient;
/** The session the page's token function mints for, and every token it handed out. */
let watching = '';
const minted: string[] = [];

before(async () => {
  site = http.createServer((req, res) => {
    const f = FILES[req.url ?? ''];
    if (!f) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': f.type }).end('body' in f ? f.body : fs.readFileSync(f.file));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  [d, browser] = await Promise.all([startTestDaemon({ allowedOrigins: [origin] }), launchChromium()]);
  viewer = new TermhostClient({ address: d.address, token: (await d.client.createToken('audience', 'viewer')).token });
});
after(async () => {
  viewer.close();
  await browser.close();
  await new Promise((resolve) => site.close(resolve));
  await d.stop();
  await assertNoLeaks();
});

/** A fresh page of the embedding site; `mintToken` stands for the site's backend, which holds a viewer API token. */
async function openPage(): Promise<{ page: Page; urls: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('websocket', (ws) => urls.push(ws.url()));
  await page.exposeFunction('mintToken', async () => {
    const { token } = await viewer.mintAttachToken(watching);
    minted.push(token);
    return token;
  });
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => (window as unknown as { pageReady?: boolean }).pageReady === true);
  return { page, urls };
}

/** The player's terminal as text, one line per row. */
const playerText = (page: Page) => page.evaluate(() => (document.querySelector('.ap-term-text') as HTMLElement | null)?.innerText ?? '');

async function waitPlayer(page: Page, what: string, cond: string, timeout = 15_000): Promise<void> {
  try {
    await page.waitForFunction(cond, undefined, { timeout, polling: 50 });
  } catch {
    const overlays = await page.evaluate(() => [...document.querySelectorAll('.ap-overlay')].map((o) => o.outerHTML).join('\n'));
    assert.fail(`the player never showed ${what}; it shows:\n${await playerText(page)}\noverlays: ${overlays || '(none)'}`);
  }
}

const showsText = (text: string) => `(document.querySelector('.ap-term-text')?.innerText ?? '').includes(${JSON.stringify(text)})`;

test('asciinema-player shows a session live through the page adaptor: the screen at join, new output, a resize, the end', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo hello-first; read l; echo "got:$l"; read m; echo "got:$m"; exit 0'], cols: 60, rows: 10 });
  watching = s.id;
  const { page, urls } = await openPage();
  await page.evaluate((url) => (window as unknown as { watchLive(u: string): void }).watchLive(url), `ws://${d.address}/v1/sessions/${s.id}/alis`);
  await waitPlayer(page, 'the screen at join', showsText('hello-first'));

  // Printed after the page loaded and joined: it arrives live.
  await d.client.input(s.id, [{ text: 'live-two' }, { key: 'Enter' }]);
  await waitPlayer(page, 'the live output', showsText('got:live-two'));
  await d.client.resize(s.id, 72, 14);
  await waitPlayer(page, 'the new size', `document.querySelectorAll('.ap-term-text .ap-line').length === 14`);
  await d.client.input(s.id, [{ text: 'bye' }, { key: 'Enter' }]);
  await waitPlayer(page, 'the end', `(document.querySelector('.ap-overlay-info')?.textContent ?? '').includes('session ended')`);
  assert.match(await playerText(page), /got:bye/);

  assert.ok(minted.length > 0);
  for (const token of minted) assert.ok(!urls.some((u) => u.includes(token) || u.includes(encodeURIComponent(token))), 'no URL the page opened carries a token');
  await page.context().close();
});

test('the adaptor tells the person why a stream is refused', async () => {
  const s = await d.client.createSession({ command: ['sleep', '60'] });
  watching = s.id;
  const { page } = await openPage();
  // The site's backend hands out a token that was already used: the daemon refuses it, and the page says so.
  const used = (await viewer.mintAttachToken(s.id)).token;
  const first = new WebSocket(`ws://${d.address}/v1/sessions/${s.id}/alis`, [ALIS_SUBPROTOCOL]);
  first.on('open', () => first.send(JSON.stringify({ kind: 'auth', token: used })));
  await new Promise((resolve) => first.once('message', resolve));
  first.close();
  await page.exposeFunction('usedToken', () => used);
  await page.evaluate((url) => {
    const w = window as unknown as { usedToken(): Promise<string>; mintToken(): Promise<string> };
    w.mintToken = () => w.usedToken();
    (window as unknown as { watchLive(u: string): void }).watchLive(url);
  }, `ws://${d.address}/v1/sessions/${s.id}/alis`);
  await waitPlayer(page, 'the refusal', `(document.querySelector('.ap-overlay-info')?.textContent ?? '').includes('already used')`);
  await page.context().close();
  await d.client.deleteSession(s.id, 'KILL');
});

test("the player's own ALiS driver plays the daemon's stream as sent (behind a relay that authenticates for it)", async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo plain-first; read l; echo "plain:$l"; sleep 60'], cols: 50, rows: 8 });
  // The relay adds only the first frame: every byte after it goes to the player as the daemon sent it.
  const relay = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (offered) => (offered.has(ALIS_SUBPROTOCOL) ? ALIS_SUBPROTOCOL : false) });
  relay.on('connection', (player) => {
    const upstream = new WebSocket(`ws://${d.address}/v1/sessions/${s.id}/alis`, [ALIS_SUBPROTOCOL]);
    upstream.on('open', async () => upstream.send(JSON.stringify({ kind: 'auth', token: (await viewer.mintAttachToken(s.id)).token })));
    upstream.on('message', (data: Buffer, isBinary: boolean) => player.send(data, { binary: isBinary }));
    upstream.on('close', (code, reason) => (code === 1005 || code === 1006 ? player.terminate() : player.close(code, reason)));
    player.on('close', () => upstream.close());
  });
  await new Promise((resolve) => relay.once('listening', resolve));
  const { page } = await openPage();
  try {
    await page.evaluate((url) => (window as unknown as { watchPlain(u: string): void }).watchPlain(url), `ws://127.0.0.1:${(relay.address() as AddressInfo).port}/`);
    await waitPlayer(page, 'the screen at join', showsText('plain-first'));
    await d.client.input(s.id, [{ text: 'from-afar' }, { key: 'Enter' }]);
    await waitPlayer(page, 'the live output', showsText('plain:from-afar'));
    await d.client.resize(s.id, 64, 11);
    await waitPlayer(page, 'the new size', `document.querySelectorAll('.ap-term-text .ap-line').length === 11`);
    await d.client.deleteSession(s.id, 'KILL');
    await waitPlayer(page, 'the end', `(document.querySelector('.ap-overlay-info')?.textContent ?? '').includes('session ended')`);
  } finally {
    await page.context().close();
    for (const c of relay.clients) c.terminate();
    await new Promise((resolve) => relay.close(resolve));
  }
});
