/**
 * A client that puts its credential in a query string must not find it in the daemon's log (issue 12 §4). termhost
 * never asks for one, but clients guess: `?token=`, `?access_token=`, an attach URL with `?token=`. The log is
 * captured at trace level (everything the daemon can say), through successes, refusals and errors.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { assertNoLeaks, rawRequest, startTestDaemon, type TestDaemon } from '../helpers.js';
import { rawHttp } from './rawHttp.js';

let d: TestDaemon;
let log = '';
before(async () => {
  const stream = new Writable({
    write(chunk, _enc, done) {
      log += String(chunk);
      done();
    },
  });
  d = await startTestDaemon({ logger: { level: 'trace', stream } });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

test('credentials in query strings never reach the log, whatever the answer', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const secrets = {
    token: 'qtok1a2b3c4d5e6f7a8b9c0d',
    access_token: 'qacc9f8e7d6c5b4a3f2e1d0c',
    attach: 'qatt5a5a5a5a5a5a5a5a5a5a',
    key: 'qkey0b1c2d3e4f5a6b7c8d9e',
    password: 'qpwd7e6e5e4e3e2e1e0e9e8e',
    api_key: 'qapi1f1f1f1f1f1f1f1f1f1f',
    sig: 'qsig2e2e2e2e2e2e2e2e2e2e',
  };
  const auth = { host: 'localhost', authorization: `Bearer ${d.token}` };
  // Authenticated and anonymous reads, a 404, a validation error (unknown query parameter), a bad body.
  for (const path of [
    `/v1/sessions?token=${secrets.token}`,
    `/v1/sessions/${s.id}/screen?access_token=${secrets.access_token}`,
    `/v1/sessions?x=1&key=${secrets.key}&y=2`,
    `/nope?password=${secrets.password}`,
    `/v1/sessions/${s.id}/screen?api_key=${secrets.api_key};sig=${secrets.sig}`,
  ]) {
    await rawRequest(d.address, { path, headers: auth });
    await rawRequest(d.address, { path, headers: { host: 'localhost' } });
    await rawRequest(d.address, { method: 'POST', path, headers: { ...auth, 'content-type': 'application/json' }, body: '{"broken' });
  }
  // The attach socket, with the token where it must never go: refused before the upgrade, and as a plain GET.
  // So is the live stream (ALiS), which asciinema-player's own driver would open with the token in its URL.
  for (const socket of ['attach', 'alis']) {
    const socketPath = `/v1/sessions/${s.id}/${socket}?token=${secrets.attach}`;
    await rawHttp(d.address, `GET ${socketPath} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==`);
    await rawRequest(d.address, { path: socketPath, headers: auth });
  }
  // A request the HTTP parser refuses (clientError): its raw bytes carry the query.
  await rawHttp(d.address, `GET /v1/sessions?token=${secrets.token} HTTP/1.1\r\nHost: localhost\r\nBad Header: x`);
  // A request target with a fragment.
  await rawHttp(d.address, `GET /v1/sessions?token=${secrets.token}#frag HTTP/1.1\r\nHost: localhost`);
  await d.client.deleteSession(s.id, 'KILL');

  assert.ok(log.includes('/v1/sessions'), 'requests are logged at this level');
  for (const [name, secret] of Object.entries(secrets)) assert.ok(!log.includes(secret), `the ${name} secret is in the log:\n${log.split('\n').filter((l) => l.includes(secret)).join('\n')}`);
  assert.ok(!log.includes(d.token), 'the bearer token is in the log');
});
