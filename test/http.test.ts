/** The HTTP edge: authentication, Host checks, bounds, and the error shape for every kind of bad request. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon } from '../src/main.js';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, rawRequest, startTestDaemon, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let auth: Record<string, string>;
before(async () => {
  d = await startTestDaemon({ maxSessions: 3 });
  auth = { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' };
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

function assertErrorShape(body: Record<string, unknown>, code: string) {
  assert.equal(body.code, code);
  assert.equal(typeof body.error, 'string');
  assert.ok((body.error as string).length > 10, 'a message a person can act on');
  assert.equal(typeof body.retryable, 'boolean');
  assert.ok(!JSON.stringify(body).includes('    at '), 'no stack trace');
}

test('/health needs no token; everything else does', async () => {
  const h = await rawRequest(d.address, { path: '/health' });
  assert.equal(h.status, 200);
  assert.equal(h.json.ok, true);
  assert.match(h.json.version, /^\d+\.\d+\.\d+/);
  const none = await rawRequest(d.address, { path: '/v1/sessions' });
  assert.equal(none.status, 401);
  assertErrorShape(none.json, 'unauthorized');
  const wrong = await rawRequest(d.address, { path: '/v1/sessions', headers: { authorization: `Bearer ${d.token}x` } });
  assert.equal(wrong.status, 401);
  const basic = await rawRequest(d.address, { path: '/v1/sessions', headers: { authorization: `Basic ${d.token}` } });
  assert.equal(basic.status, 401);
  const ok = await rawRequest(d.address, { path: '/v1/sessions', headers: auth });
  assert.equal(ok.status, 200);
});

test('a foreign Host header is refused with 403 (DNS rebinding), loopback names are fine', async () => {
  for (const host of ['evil.example.com', 'evil.example.com:7070', '10.0.0.1']) {
    const r = await rawRequest(d.address, { path: '/v1/sessions', headers: { ...auth, host } });
    assert.equal(r.status, 403, host);
    assertErrorShape(r.json, 'forbidden_host');
  }
  const health = await rawRequest(d.address, { path: '/health', headers: { host: 'evil.example.com' } });
  assert.equal(health.status, 403);
  for (const host of ['localhost:7070', '127.0.0.1', '[::1]:7070', 'LOCALHOST']) {
    const r = await rawRequest(d.address, { path: '/v1/sessions', headers: { ...auth, host } });
    assert.equal(r.status, 200, host);
  }
});

test('configured allowed hosts are accepted', async () => {
  const other = await startTestDaemon({ allowedHosts: ['termhost.internal'] });
  try {
    const r = await rawRequest(other.address, { path: '/health', headers: { host: 'termhost.internal:7070' } });
    assert.equal(r.status, 200);
  } finally {
    await other.stop();
  }
});

test('malformed JSON, wrong types and unknown fields are 400s with a code', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const bad = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/input`, headers: auth, body: '{"input": [' });
  assert.equal(bad.status, 400);
  assertErrorShape(bad.json, 'invalid_json');
  const wrongType = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/resize`, headers: auth, body: '{"cols":"wide","rows":10}' });
  assert.equal(wrongType.status, 400);
  assertErrorShape(wrongType.json, 'invalid_request');
  const tooBig = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/resize`, headers: auth, body: '{"cols":1001,"rows":10}' });
  assert.equal(tooBig.status, 400);
  const unknown = await rawRequest(d.address, { method: 'POST', path: '/v1/sessions', headers: auth, body: '{"comand":["sh"]}' });
  assert.equal(unknown.status, 400);
  const twoKinds = await rawRequest(d.address, {
    method: 'POST',
    path: `/v1/sessions/${s.id}/input`,
    headers: auth,
    body: JSON.stringify({ input: [{ text: 'a' }, { text: 'b', key: 'Enter' }] }),
  });
  assert.equal(twoKinds.status, 400);
  assert.equal(twoKinds.json.index, 1, 'names the bad element');
  const badSignal = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/signal`, headers: auth, body: '{"signal":"STOP"}' });
  assert.equal(badSignal.status, 400);
  await d.client.deleteSession(s.id);
});

test('a body over 1 MiB is a 413; an input batch over 10,000 items is a 400', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const big = JSON.stringify({ input: [{ text: 'x'.repeat(1024 * 1024 + 10) }] });
  const r = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/input`, headers: auth, body: big });
  assert.equal(r.status, 413);
  assertErrorShape(r.json, 'body_too_large');
  const many = JSON.stringify({ input: Array.from({ length: 10001 }, () => ({ key: 'a' })) });
  const r2 = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/input`, headers: auth, body: many });
  assert.equal(r2.status, 400);
  await d.client.deleteSession(s.id);
});

test('unknown sessions and routes are 404 with the error shape', async () => {
  for (const [method, p] of [
    ['GET', '/v1/sessions/abc123'],
    ['GET', '/v1/sessions/abc123/screen'],
    ['POST', '/v1/sessions/abc123/input'],
    ['DELETE', '/v1/sessions/abc123'],
  ] as const) {
    const r = await rawRequest(d.address, { method, path: p, headers: auth, body: method === 'POST' ? '{"input":[]}' : undefined });
    assert.equal(r.status, 404, `${method} ${p}`);
    assertErrorShape(r.json, 'session_not_found');
  }
  const route = await rawRequest(d.address, { path: '/v1/nothing', headers: auth });
  assert.equal(route.status, 404);
  assertErrorShape(route.json, 'not_found');
});

test('the session cap answers 503 past the limit', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await d.client.createSession({ command: ['sleep', '30'] })).id);
  await assert.rejects(d.client.createSession({ command: ['sleep', '30'] }), (e: TermhostError) => e.status === 503 && e.code === 'session_limit');
  for (const id of ids) await d.client.deleteSession(id, 'KILL');
});

test('/openapi.json is OpenAPI 3.1 and lists every route with its errors', async () => {
  const doc = (await d.client.openapi()) as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  assert.equal(doc.openapi, '3.1.0');
  const want = [
    ['post', '/v1/sessions'],
    ['get', '/v1/sessions'],
    ['get', '/v1/sessions/{id}'],
    ['delete', '/v1/sessions/{id}'],
    ['post', '/v1/sessions/{id}/signal'],
    ['post', '/v1/sessions/{id}/resize'],
    ['post', '/v1/sessions/{id}/input'],
    ['post', '/v1/sessions/{id}/mouse'],
    ['get', '/v1/sessions/{id}/screen'],
    ['get', '/v1/sessions/{id}/scrollback'],
    ['post', '/v1/sessions/{id}/wait'],
    ['get', '/health'],
  ];
  for (const [method, p] of want) {
    const op = doc.paths[p]?.[method];
    assert.ok(op, `${method.toUpperCase()} ${p} is documented`);
    if (p !== '/health') assert.ok(op.responses['401'], `${method} ${p} documents 401`);
  }
});

test('a unix socket is created 0600 in a 0700 directory and serves the API', async () => {
  const dir = path.join(d.stateDir, 'sock');
  const sock = path.join(dir, 'termhost.sock');
  // A state dir of its own: the test daemon holds d.stateDir (one daemon per state dir).
  const daemon = await startDaemon({ unix: sock, stateDir: path.join(d.stateDir, 'unix-state'), token: 'unix-token' });
  try {
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(sock).mode & 0o777, 0o600);
    const c = new TermhostClient({ address: `unix:${sock}`, token: 'unix-token' });
    assert.deepEqual(await c.listSessions(), []);
    c.close();
  } finally {
    await daemon.close();
  }
  await assert.rejects(startDaemon({ unix: path.join(fs.mkdtempSync('/tmp/th-open-'), 'x', '..', 'y.sock'), stateDir: path.join(d.stateDir, 'unix-state-2'), token: 't' }).then(async (x) => {
    await x.close();
    throw new Error('should not start');
  }), /must be owned by you with mode 0700|should not start/);
});

test('binding a non-loopback address without an explicit token refuses to start; a token is generated 0600', async () => {
  await assert.rejects(startDaemon({ listen: '0.0.0.0:0', stateDir: d.stateDir }), /non-loopback/);
  const stateDir = path.join(d.stateDir, 'gen');
  const daemon = await startDaemon({ listen: '127.0.0.1:0', stateDir });
  try {
    const file = path.join(stateDir, 'token');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const token = fs.readFileSync(file, 'utf8').trim();
    assert.equal(Buffer.from(token, 'base64url').length, 32, '256-bit token');
    assert.equal(daemon.token, token);
  } finally {
    await daemon.close();
  }
});

test('POST /v1/sessions with no body uses every default', async () => {
  const r = await rawRequest(d.address, { method: 'POST', path: '/v1/sessions', headers: { authorization: `Bearer ${d.token}` } });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual([r.json.cols, r.json.rows, r.json.term], [80, 24, 'xterm-256color']);
  await d.client.deleteSession(r.json.id, 'KILL');
});

test('JSON bodies are not coerced: a string where a number belongs is a 400; query strings are', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const r = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/resize`, headers: auth, body: '{"cols":"70","rows":10}' });
  assert.equal(r.status, 400);
  const t = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/input`, headers: auth, body: '{"input":[{"text":5}]}' });
  assert.equal(t.status, 400);
  assert.equal(t.json.index, 0);
  assert.match(t.json.error, /exactly one of/);
  const q = await rawRequest(d.address, { path: `/v1/sessions/${s.id}/scrollback?lines=3`, headers: auth });
  assert.equal(q.status, 200);
  await d.client.deleteSession(s.id, 'KILL');
});

test('label and env maps are bounded in their keys too', async () => {
  const long = await rawRequest(d.address, { method: 'POST', path: '/v1/sessions', headers: auth, body: JSON.stringify({ labels: { ['k'.repeat(200)]: 'v' } }) });
  assert.equal(long.status, 400);
  const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
  assert.equal((await rawRequest(d.address, { method: 'POST', path: '/v1/sessions', headers: auth, body: JSON.stringify({ labels: many }) })).status, 400);
  assert.equal((await rawRequest(d.address, { method: 'POST', path: '/v1/sessions', headers: auth, body: JSON.stringify({ env: { 'A=B': 'x' } }) })).status, 400);
});

test('--unix never deletes a file that is not a socket; --allow-host is case-insensitive and ignores ports', async () => {
  const dir = fs.mkdtempSync(path.join(d.stateDir, 'u-'));
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, 'precious.txt');
  fs.writeFileSync(file, 'keep me');
  await assert.rejects(startDaemon({ unix: file, stateDir: d.stateDir, token: 't' }), /not a socket/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'keep me');
  const other = await startTestDaemon({ allowedHosts: ['MyHost.LAN:8080'] });
  try {
    assert.equal((await rawRequest(other.address, { path: '/health', headers: { host: 'myhost.lan:7070' } })).status, 200);
  } finally {
    await other.stop();
  }
});

test('a plain GET on the attach endpoint explains itself; attach-tokens needs no body', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const r = await rawRequest(d.address, { path: `/v1/sessions/${s.id}/attach`, headers: auth });
  assert.equal(r.status, 400);
  assert.match(r.json.error, /WebSocket/);
  const t = await rawRequest(d.address, { method: 'POST', path: `/v1/sessions/${s.id}/attach-tokens`, headers: { authorization: auth.authorization! } });
  assert.equal(t.status, 201);
  assert.equal(t.json.role, 'viewer');
  await d.client.deleteSession(s.id, 'KILL');
});

test('--unix does not take over a socket a live daemon answers on', async () => {
  const dir = fs.mkdtempSync(path.join(d.stateDir, 'live-'));
  fs.chmodSync(dir, 0o700);
  const sock = path.join(dir, 's.sock');
  const first = await startDaemon({ unix: sock, stateDir: path.join(dir, 'state1'), token: 't1' });
  try {
    await assert.rejects(startDaemon({ unix: sock, stateDir: path.join(dir, 'state2'), token: 't2' }), /another daemon is listening/);
  } finally {
    await first.close();
  }
});
