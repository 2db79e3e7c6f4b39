/**
 * Signing a browser in to the UI, at the HTTP level: login codes, the cookie they become, what the cookie may do
 * (same-origin state changes only), what is logged, and the page's own routes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import type { AttachClient } from '../src/client/AttachClient.js';
import { assertNoLeaks, attachTo, nextMatching, rawRequest, startTestDaemon, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let log = '';
const origin = () => `http://${d.address}`;
before(async () => {
  const stream = new Writable({
    write(chunk, _enc, done) {
      log += String(chunk);
      done();
    },
  });
  d = await startTestDaemon({ logger: { level: 'debug', stream } });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/** The page key of each sign-in, by its cookie: what the page's script keeps in localStorage and sends. */
const keys = new Map<string, string>();

/** Sign in as a browser would: mint with a bearer token, exchange the code, keep the cookie and the page's key. */
async function signIn(client: TermhostClient = d.client, as: 'human' | 'viewer' = 'human') {
  const minted = await client.mintUiLogin({ as });
  const res = await rawRequest(d.address, { path: minted.login_path, headers: { host: d.address } });
  assert.equal(res.status, 200, res.text);
  const setCookie = String(res.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
  const key = /<meta name="termhost-ui-key" content="([A-Za-z0-9_-]{43})">/.exec(res.text)?.[1];
  const next = /<meta name="termhost-next" content="([^"]*)">/.exec(res.text)?.[1];
  assert.ok(key, 'the sign-in page carries its key');
  keys.set(cookie, key);
  return { minted, res, setCookie, cookie, key, next };
}

/** A request as the page makes it: the cookie (the browser adds it) and the key (the page's script adds it). */
function withCookie(cookie: string, opts: { method?: string; path: string; origin?: string; body?: unknown; withoutKey?: boolean }) {
  const headers: Record<string, string> = { host: d.address, cookie };
  const key = keys.get(cookie);
  if (key && !opts.withoutKey) headers['x-termhost-ui-key'] = key;
  if (opts.origin) headers.origin = opts.origin;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  return rawRequest(d.address, { method: opts.method, path: opts.path, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
}

test('a login code becomes an HttpOnly, SameSite=Strict cookie and a page key once; the page is never cached', async () => {
  const { minted, res, setCookie, cookie, next } = await signIn();
  assert.match(minted.login_path, /^\/ui\/login\?code=[A-Za-z0-9_-]{43}$/);
  assert.equal(minted.expires_in_s, 60);
  assert.equal(next, '/ui/');
  assert.match(String(res.headers['content-type']), /text\/html/);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(String(res.headers['content-security-policy']), /script-src 'self'/);
  assert.match(res.text, /\/ui\/assets\/app\.js/);
  assert.match(setCookie, new RegExp(`^termhost_ui_${d.address.split(':')[1]}=`));
  for (const attr of ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=43200']) assert.ok(setCookie.includes(attr), attr);
  assert.equal(res.headers['referrer-policy'], 'no-referrer');
  const again = await rawRequest(d.address, { path: minted.login_path, headers: { host: d.address } });
  assert.equal(again.status, 401);
  assert.deepEqual([again.json.code, again.json.retryable], ['unauthorized', false]);
  assert.match(again.json.error, /used or expired/);
  const me = await withCookie(cookie, { path: '/ui/me' });
  assert.deepEqual(me.json.actor, { name: 'admin', kind: 'human' });
  assert.ok(Date.parse(me.json.expires_at) > Date.now());
});

test('--session and --viewer choose where the browser lands; an unknown session is a 404 at minting', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const driver = await d.client.mintUiLogin({ session: s.id });
  const r1 = await rawRequest(d.address, { path: driver.login_path, headers: { host: d.address } });
  assert.match(r1.text, new RegExp(`<meta name="termhost-next" content="/ui/sessions/${s.id}">`));
  const viewer = await d.client.mintUiLogin({ session: s.id, as: 'viewer' });
  const r2 = await rawRequest(d.address, { path: viewer.login_path, headers: { host: d.address } });
  assert.match(r2.text, new RegExp(`<meta name="termhost-next" content="/ui/sessions/${s.id}\\?role=viewer">`));
  await assert.rejects(d.client.mintUiLogin({ session: 'nosuch' }), (e: TermhostError) => e.status === 404 && e.code === 'session_not_found');
  await d.client.deleteSession(s.id, 'KILL');
});

test('only people with a bearer token mint login codes: not agents, not viewers, not a signed-in browser', async () => {
  for (const role of ['agent', 'viewer'] as const) {
    const t = await d.client.createToken(`mint-${role}`, role);
    const c = new TermhostClient({ address: d.address, token: t.token });
    await assert.rejects(c.mintUiLogin(), (e: TermhostError) => e.status === 403 && e.code === 'forbidden');
    c.close();
  }
  const human = await d.client.createToken('mint-human', 'human');
  const hc = new TermhostClient({ address: d.address, token: human.token });
  const { cookie } = await signIn(hc);
  hc.close();
  assert.deepEqual((await withCookie(cookie, { path: '/ui/me' })).json.actor, { name: 'mint-human', kind: 'human' });
  const fromBrowser = await withCookie(cookie, { method: 'POST', path: '/v1/ui/login-codes', origin: origin(), body: {} });
  assert.equal(fromBrowser.status, 403);
  assert.equal(fromBrowser.json.code, 'forbidden');
  // A person in a browser is not an admin, whoever minted the code.
  const { cookie: adminMinted } = await signIn();
  const tokens = await withCookie(adminMinted, { method: 'POST', path: '/v1/tokens', origin: origin(), body: { name: 'x', role: 'agent' } });
  assert.equal(tokens.status, 403);
});

test('the cookie reads anything, but changes state only with our own Origin (CSRF)', async () => {
  const { cookie } = await signIn();
  assert.equal((await withCookie(cookie, { path: '/v1/sessions' })).status, 200);
  const body = { command: ['sleep', '30'] };
  const none = await withCookie(cookie, { method: 'POST', path: '/v1/sessions', body });
  assert.equal(none.status, 403);
  assert.equal(none.json.code, 'forbidden_origin');
  const foreign = await withCookie(cookie, { method: 'POST', path: '/v1/sessions', origin: 'http://evil.example', body });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.json.code, 'forbidden_origin');
  const otherPort = await withCookie(cookie, { method: 'POST', path: '/v1/sessions', origin: 'http://127.0.0.1:1', body });
  assert.equal(otherPort.status, 403);
  const ours = await withCookie(cookie, { method: 'POST', path: '/v1/sessions', origin: origin(), body });
  assert.equal(ours.status, 201, ours.text);
  assert.deepEqual(ours.json.created_by, { name: 'admin', kind: 'human' });
  const del = await withCookie(cookie, { method: 'DELETE', path: `/v1/sessions/${ours.json.id}?signal=KILL`, origin: origin() });
  assert.equal(del.status, 204);
  // An explicit Authorization header is the caller's choice of credential: a wrong one is not rescued by the cookie.
  const wrong = await rawRequest(d.address, { path: '/v1/sessions', headers: { host: d.address, cookie, authorization: 'Bearer nope' } });
  assert.equal(wrong.status, 401);
  // The Host allowlist applies to the UI and to cookies like everything else.
  const rebound = await rawRequest(d.address, { path: '/v1/sessions', headers: { host: 'evil.example', cookie } });
  assert.equal(rebound.status, 403);
  assert.equal((await rawRequest(d.address, { path: '/ui/', headers: { host: 'evil.example' } })).status, 403);
});

test('a viewer sign-in reads but cannot create, signal or type', async () => {
  const { cookie } = await signIn(d.client, 'viewer');
  assert.deepEqual((await withCookie(cookie, { path: '/ui/me' })).json.actor, { name: 'admin', kind: 'viewer' });
  const create = await withCookie(cookie, { method: 'POST', path: '/v1/sessions', origin: origin(), body: {} });
  assert.equal(create.status, 403);
  assert.equal(create.json.code, 'forbidden');
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const mint = await withCookie(cookie, { method: 'POST', path: `/v1/sessions/${s.id}/attach-tokens`, origin: origin(), body: { role: 'driver' } });
  assert.equal(mint.status, 403);
  const watch = await withCookie(cookie, { method: 'POST', path: `/v1/sessions/${s.id}/attach-tokens`, origin: origin(), body: { role: 'viewer' } });
  assert.equal(watch.status, 201);
  await d.client.deleteSession(s.id, 'KILL');
});

test('the event stream takes the cookie with the page key (the page reads it with fetch)', async () => {
  const { cookie, key } = await signIn();
  const res = await new Promise<{ status: number; type: string; first: string }>((resolve, reject) => {
    const headers = { host: d.address, cookie, 'x-termhost-ui-key': key };
    const req = http.request({ host: '127.0.0.1', port: Number(d.address.split(':')[1]), path: '/v1/events', headers }, (r) => {
      r.once('data', (c: Buffer) => {
        resolve({ status: r.statusCode ?? 0, type: String(r.headers['content-type']), first: c.toString() });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(res.status, 200);
  assert.match(res.type, /text\/event-stream/);
  assert.match(res.first, /connected/);
});

test('signing out ends the cookie; an admin can sign every browser out', async () => {
  const { cookie } = await signIn();
  const out = await withCookie(cookie, { method: 'POST', path: '/ui/logout', origin: origin() });
  assert.equal(out.status, 204);
  assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
  assert.equal((await withCookie(cookie, { path: '/v1/sessions' })).status, 401);
  const { cookie: a } = await signIn();
  const { cookie: b } = await signIn();
  const all = await d.client.request<{ signed_out: number }>('DELETE', '/v1/ui/logins');
  assert.ok(all.signed_out >= 2);
  for (const c of [a, b]) assert.equal((await withCookie(c, { path: '/ui/me' })).status, 401);
});

test('the page and its assets are served with a strict CSP; unknown assets are JSON 404s', async () => {
  for (const p of ['/ui/', '/ui/sessions/abc123']) {
    const page = await rawRequest(d.address, { path: p, headers: { host: d.address } });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'.*connect-src 'self'.*frame-ancestors 'none'/);
    assert.match(page.text, /\/ui\/assets\/app\.js/);
    assert.ok(!page.text.includes(d.token));
  }
  const redirect = await rawRequest(d.address, { path: '/ui', headers: { host: d.address } });
  assert.deepEqual([redirect.status, redirect.headers.location], [308, '/ui/']);
  for (const asset of ['app.js', 'xterm.js', 'style.css']) {
    const r = await rawRequest(d.address, { path: `/ui/assets/${asset}`, headers: { host: d.address } });
    assert.equal(r.status, 200, asset);
  }
  const missing = await rawRequest(d.address, { path: '/ui/assets/nope.js', headers: { host: d.address } });
  assert.deepEqual([missing.status, missing.json.code], [404, 'not_found']);
  const escape = await rawRequest(d.address, { path: '/ui/assets/..%2f..%2fpackage.json', headers: { host: d.address } });
  assert.ok(escape.status === 400 || escape.status === 404, String(escape.status));
});

test('a styled screen: rows of spans with colours and attributes, for the DOM fallback renderer', async () => {
  const s = await d.client.createSession({ command: ['printf', '\\033[1;31mred\\033[0m plain \\033[44mblue\\033[0m\\n'], cols: 40, rows: 4 });
  await waitText(d, s.id, 'plain');
  const r = await d.client.request<{ lines: string[]; styled: Array<Array<Record<string, unknown>>> }>('GET', `/v1/sessions/${s.id}/screen?format=styled`);
  assert.equal(r.lines[0], 'red plain blue');
  assert.deepEqual(r.styled[0], [{ text: 'red', fg: 1, bold: true }, { text: ' plain ' }, { text: 'blue', bg: 4 }]);
  assert.equal(r.styled.length, 4);
  const plain = await d.client.request<Record<string, unknown>>('GET', `/v1/sessions/${s.id}/screen`);
  assert.equal(plain.styled, undefined);
  await d.client.deleteSession(s.id);
});

test('the request log never carries the login code, the cookie or the token', async () => {
  const { minted, cookie } = await signIn();
  await withCookie(cookie, { path: '/v1/sessions' });
  const code = minted.login_path.split('code=')[1]!;
  assert.ok(log.includes('"path":"/ui/login"'), 'the sign-in request is logged, without its code');
  assert.ok(!log.includes(code), 'login code in the log');
  assert.ok(!log.includes(cookie.split('=')[1]!), 'cookie secret in the log');
  assert.ok(!log.includes(keys.get(cookie)!), 'page key in the log');
  assert.ok(!log.includes(d.token), 'token in the log');
});

test('`termhost ui --api-url URL --token-file F` signs in to a daemon elsewhere; a unix socket needs --api-url', async () => {
  const { runCli } = await import('../src/cli/main.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-ui-cli-'));
  try {
    const file = path.join(dir, 'token');
    fs.writeFileSync(file, `${d.token}\n`, { mode: 0o600 });
    let out = '';
    let err = '';
    const io = { out: (s: string) => (out += s), err: (s: string) => (err += s) };
    assert.equal(await runCli(['ui', '--print', '--api-url', `http://${d.address}/`, '--token-file', file], io), 0, err);
    assert.match(out.trim(), new RegExp(`^http://${d.address}/ui/login\\?code=`));
    assert.match(err, /within 60 s; it works once/);
    const res = await rawRequest(d.address, { path: new URL(out.trim()).pathname + new URL(out.trim()).search, headers: { host: d.address } });
    assert.equal(res.status, 200);
    err = '';
    assert.equal(await runCli(['ui', '--print', '--addr', `unix:${path.join(dir, 'sock')}`, '--token', d.token], io), 2);
    assert.match(err, /a browser cannot reach a unix socket/);
    err = '';
    assert.equal(await runCli(['ui', '--print', '--api-url', 'ftp://example.test', '--token-file', file], io), 2);
    assert.match(err, /must be an http:\/\/ or https:\/\/ URL/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the cookie never authenticates the attach socket: the page must send an attach token in the first frame', async () => {
  const { cookie } = await signIn();
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
    const ws = new WebSocket(`ws://${d.address}/v1/sessions/${s.id}/attach`, { headers: { cookie, origin: origin() } });
    ws.on('open', () => ws.send(JSON.stringify({ kind: 'auth', role: 'driver' })));
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.on('error', reject);
  });
  assert.equal(closed.code, 4003);
  const minted = await withCookie(cookie, { method: 'POST', path: `/v1/sessions/${s.id}/attach-tokens`, origin: origin(), body: { role: 'driver' } });
  assert.equal(minted.status, 201);
  const hello = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const ws = new WebSocket(`ws://${d.address}/v1/sessions/${s.id}/attach`, { headers: { origin: origin() } });
    ws.on('open', () => ws.send(JSON.stringify({ kind: 'auth', token: minted.json.token, role: 'driver' })));
    ws.on('message', (data, binary) => {
      if (binary) return;
      ws.close();
      resolve(JSON.parse(String(data)) as Record<string, unknown>);
    });
    ws.on('error', reject);
  });
  assert.deepEqual([hello.kind, hello.role], ['hello', 'driver']);
  await d.client.deleteSession(s.id, 'KILL');
});

test('the root sends a browser to /ui/; an API client gets JSON: a 401 without a token, where things are with one', async () => {
  const browser = await rawRequest(d.address, { path: '/', headers: { host: d.address, accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
  assert.deepEqual([browser.status, browser.headers.location], [303, '/ui/']);
  const curl = await rawRequest(d.address, { path: '/', headers: { host: d.address, accept: '*/*' } });
  assert.equal(curl.status, 401);
  assert.match(String(curl.headers['content-type']), /application\/json/);
  assert.equal(curl.json.code, 'unauthorized');
  const client = await d.client.request<Record<string, unknown>>('GET', '/');
  assert.deepEqual([client.service, client.ui, client.openapi], ['termhost', '/ui/', '/openapi.json']);
});

test('the cookie alone, as a server on another port of this host receives it, signs nobody in, nor out', async () => {
  const { cookie } = await signIn();
  for (const path of ['/v1/sessions', '/v1/events', '/openapi.json']) {
    const r = await withCookie(cookie, { path, withoutKey: true });
    assert.equal(r.status, 401, path);
    assert.equal(r.json.code, 'unauthorized');
    assert.match(r.json.error, /cookie alone/);
  }
  assert.equal((await withCookie(cookie, { path: '/ui/me', withoutKey: true })).status, 401);
  const create = await withCookie(cookie, { method: 'POST', path: '/v1/sessions', origin: origin(), body: { command: ['true'] }, withoutKey: true });
  assert.equal(create.status, 401);
  // Another sign-in's key does not fit this cookie.
  const other = await signIn();
  const mixed = await rawRequest(d.address, { path: '/v1/sessions', headers: { host: d.address, cookie, 'x-termhost-ui-key': keys.get(other.cookie)! } });
  assert.equal(mixed.status, 401);
  // Signing out with the cookie alone leaves the browser signed in.
  assert.equal((await withCookie(cookie, { method: 'POST', path: '/ui/logout', origin: origin(), withoutKey: true })).status, 204);
  assert.equal((await withCookie(cookie, { path: '/ui/me' })).status, 200, 'still signed in');
});

/** An event stream the page opens with its cookie and key; resolves `ended` when the daemon ends the response. */
function cookieStream(cookie: string, key: string): Promise<{ ended: Promise<void>; destroy: () => void }> {
  return new Promise((resolve, reject) => {
    const headers = { host: d.address, cookie, 'x-termhost-ui-key': key };
    const req = http.request({ host: '127.0.0.1', port: Number(d.address.split(':')[1]), path: '/v1/events', headers }, (r) => {
      assert.equal(r.statusCode, 200);
      const ended = new Promise<void>((done) => r.on('close', () => done()));
      r.once('data', () => resolve({ ended, destroy: () => req.destroy() }));
      r.resume();
    });
    req.on('error', reject);
    req.end();
  });
}

/** An attach socket as the page opens it: an attach token minted with the cookie, sent in the first frame. */
async function cookieSocket(cookie: string, id: string): Promise<AttachClient> {
  const mint = await withCookie(cookie, { method: 'POST', path: `/v1/sessions/${id}/attach-tokens`, origin: origin(), body: { role: 'driver' } });
  assert.equal(mint.status, 201, mint.text);
  const conn = attachTo(d, id, { token: mint.json.token as string, role: 'driver', origin: origin() });
  await nextMatching(conn, 'hello');
  return conn;
}

test('signing a browser out closes what it opened: its attach sockets and event streams, as revoking a token does', async () => {
  // A laptop left signed in on a session page kept typing as a person (and counting as a moderated session's
  // moderator) after its sign-out or an admin's "sign every browser out".
  const s = await d.client.createSession({ command: ['sleep', '60'] });
  const one = await signIn();
  const socket = await cookieSocket(one.cookie, s.id);
  const stream = await cookieStream(one.cookie, one.key);
  const other = await signIn();
  const otherSocket = await cookieSocket(other.cookie, s.id);
  assert.equal((await withCookie(one.cookie, { method: 'POST', path: '/ui/logout', origin: origin() })).status, 204);
  assert.equal((await nextMatching(socket, 'closed')).code, 4003);
  await stream.ended;
  assert.equal(otherSocket.ws.readyState, WebSocket.OPEN, 'another browser stays signed in');
  // An admin signs every browser out: the rest close too.
  const third = await signIn();
  const thirdStream = await cookieStream(third.cookie, third.key);
  await d.client.request('DELETE', '/v1/ui/logins');
  assert.equal((await nextMatching(otherSocket, 'closed')).code, 4003);
  await thirdStream.ended;
  await d.client.deleteSession(s.id, 'KILL');
});
