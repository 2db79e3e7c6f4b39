/**
 * WebSocket upgrades on routes that are not WebSocket routes (issue 12 §4). The websocket plugin upgraded any route
 * it was asked to, answering 101 before the route could refuse, so `/mcp` accepted an upgrade from a foreign Origin
 * (its Origin check lived in the handler the upgrade skipped) and so did every other GET route. Every GET route is
 * asked for an upgrade from a foreign page, with and without a token: none may answer 101.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertNoLeaks, startTestDaemon, type TestDaemon } from '../helpers.js';
import { rawHttp } from './rawHttp.js';

let d: TestDaemon;
let id: string;
before(async () => {
  d = await startTestDaemon();
  id = (await d.client.createSession({ command: ['sleep', '60'] })).id;
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

function upgrade(path: string, headers: Record<string, string>) {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${d.address}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return rawHttp(d.address, lines.join('\r\n'), '', 3000);
}

const concrete = (url: string) => url.replace(':id', id).replace(':name.json', 'attach-auth-frame.json').replace(':file', 'app.js');

test('no GET route answers 101 to an upgrade from a foreign Origin, with or without a token', async () => {
  const gets = d.app.registeredRoutes.filter((r) => r.method === 'GET');
  assert.ok(gets.length >= 20);
  const failures: string[] = [];
  for (const r of gets) {
    for (const [who, headers] of [
      ['no token', { Origin: 'http://evil.example' }],
      ['a token', { Origin: 'http://evil.example', Authorization: `Bearer ${d.token}` }],
      ['a token, another local port', { Origin: 'http://127.0.0.1:1', Authorization: `Bearer ${d.token}` }],
    ] as const) {
      const a = await upgrade(concrete(r.url), headers);
      if (a.status === 101 || a.status === 0) failures.push(`${r.url} with ${who}: ${a.status}`);
    }
  }
  assert.deepEqual(failures, []);
});

test('a route that is not a WebSocket refuses an upgrade with 400 before any 101, even from our own page', async () => {
  for (const path of ['/health', '/v1/sessions', `/v1/sessions/${id}/screen`, '/v1/events', '/ui/', '/mcp']) {
    const a = await upgrade(path, { Origin: `http://${d.address}`, Authorization: `Bearer ${d.token}` });
    assert.equal(a.status, 400, `${path}: ${a.status} ${a.body}`);
    const body = JSON.parse(a.body) as { code: string; error: string };
    assert.equal(body.code, 'invalid_request');
    assert.match(body.error, /not a WebSocket/);
  }
});

test('/mcp refuses a foreign Origin in a hook, before the upgrade check or the MCP transport', async () => {
  const a = await upgrade('/mcp', { Origin: 'http://evil.example', Authorization: `Bearer ${d.token}` });
  assert.equal(a.status, 403);
  assert.equal((JSON.parse(a.body) as { code: string }).code, 'forbidden_origin');
});

test('the attach route still upgrades from our own origin, and refuses a foreign one before 101', async () => {
  const foreign = await upgrade(`/v1/sessions/${id}/attach`, { Origin: 'http://evil.example' });
  assert.equal(foreign.status, 403);
  const ours = await upgrade(`/v1/sessions/${id}/attach`, { Origin: `http://${d.address}` });
  assert.equal(ours.status, 101);
});
