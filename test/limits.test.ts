/**
 * Caps on what stays open: attach sockets, event streams and waits per daemon, leases per session, named tokens.
 * Each refusal is a clear error that names the cap, and a freed slot can be used again.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { Limits } from '../src/core/index.js';
import { TokenStore } from '../src/server/TokenStore.js';
import { assertNoLeaks, attachTo, nextMatching, rawRequest, sse, startTestDaemon, until, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ connections: { attachSockets: 2, eventStreams: 1, waits: 2 } });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/** Open an attach upgrade by hand: the HTTP status when it is refused, or the open socket. */
function upgrade(id: string): Promise<{ status: number; body: any; ws?: WebSocket }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${d.address}/v1/sessions/${id}/attach`, { headers: { host: 'localhost' } });
    ws.on('open', () => resolve({ status: 101, body: undefined, ws }));
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.on('error', reject);
  });
}

test('attach sockets: past the cap an upgrade is refused with 503 connection_limit; closing one frees its slot', async () => {
  const s = await d.client.createSession({ command: ['cat'] });
  const a = attachTo(d, s.id, { bearer: d.token });
  const b = attachTo(d, s.id, { bearer: d.token });
  await nextMatching(a, 'hello');
  await nextMatching(b, 'hello');
  const refused = await upgrade(s.id);
  assert.equal(refused.status, 503);
  assert.deepEqual([refused.body.code, refused.body.retryable, refused.body.limit, refused.body.max], ['connection_limit', true, 'attach_sockets', 2]);
  assert.match(refused.body.error, /2 attach sockets are open/);
  // A plain GET of the attach URL (no upgrade) takes no slot.
  assert.equal((await rawRequest(d.address, { path: `/v1/sessions/${s.id}/attach`, headers: { authorization: `Bearer ${d.token}` } })).status, 400);
  a.close();
  const again = await until('a freed attach slot', async () => {
    const r = await upgrade(s.id);
    if (r.status === 101) return r;
    return false;
  });
  // An upgrade that never authenticates still holds its slot until its connection ends.
  assert.equal((await upgrade(s.id)).status, 503);
  again.ws!.close();
  b.close();
  await until('both slots free', async () => {
    const r = await upgrade(s.id);
    r.ws?.close();
    return r.status === 101;
  });
  await d.client.deleteSession(s.id, 'KILL');
});

test('event streams: past the cap GET /v1/events is 503 connection_limit; a closed stream frees its slot', async () => {
  const first = sse(d.address, d.token);
  assert.equal((await first.next())?.comment, 'connected');
  const r = await rawRequest(d.address, { path: '/v1/events', headers: { authorization: `Bearer ${d.token}` } });
  assert.equal(r.status, 503);
  assert.deepEqual([r.json.code, r.json.limit, r.json.max], ['connection_limit', 'event_streams', 1]);
  first.close();
  const second = await until('a freed event-stream slot', async () => {
    const s = sse(d.address, d.token);
    const m = await s.next().catch(() => undefined);
    if (m?.comment === 'connected') return s;
    s.close();
    return false;
  });
  second.close();
});

test('waits and long polls share one cap; a wait that ends or is abandoned frees its slot', async () => {
  // Not cat: a program reading the terminal is reported as waiting for input about 100 ms after it starts, and that
  // change of state ends a long poll begun after the screen read (on a loaded machine the poll started late).
  // sleep reads nothing; the kernel still echoes what is typed.
  const s = await d.client.createSession({ command: ['sleep', '120'] });
  const screen = await d.client.screen(s.id);
  const waiting = d.client.wait(s.id, { text: 'never-printed', timeout_ms: 60_000 });
  const polling = rawRequest(d.address, { path: `/v1/sessions/${s.id}/screen?since_seq=${screen.seq}&wait_ms=60000`, headers: { authorization: `Bearer ${d.token}` } });
  await until('a wait and a long poll in progress', () => d.app.connectionSlots.waits.inUse === 2);
  await assert.rejects(
    d.client.wait(s.id, { text: 'never-printed', timeout_ms: 100 }),
    (e: TermhostError) => e.status === 503 && e.code === 'connection_limit' && (e.body as { limit?: string }).limit === 'waits',
  );
  // Output ends both: the wait matches, the long poll sees a change. Then a wait fits again.
  await d.client.input(s.id, [{ text: 'never-printed' }, { key: 'Enter' }]);
  assert.equal((await waiting).matched, true);
  assert.equal((await polling).status, 200);
  await until('both slots free', () => d.app.connectionSlots.waits.inUse === 0);
  assert.equal((await d.client.wait(s.id, { text: 'never-printed', timeout_ms: 1000 })).matched, true);
  // A client that hangs up mid-wait gives its slot back.
  const [host, port] = [d.address.slice(0, d.address.lastIndexOf(':')), Number(d.address.slice(d.address.lastIndexOf(':') + 1))];
  const hangUp = http.request({ host, port, agent: false, method: 'POST', path: `/v1/sessions/${s.id}/wait`, headers: { host: 'localhost', authorization: `Bearer ${d.token}`, 'content-type': 'application/json' } });
  hangUp.on('error', () => {});
  hangUp.end(JSON.stringify({ text: 'not-this-either', timeout_ms: 60_000 }));
  await until('the wait in progress', () => d.app.connectionSlots.waits.inUse === 1);
  hangUp.destroy();
  await until('its slot given back', () => d.app.connectionSlots.waits.inUse === 0);
  await d.client.deleteSession(s.id, 'KILL');
});

test('leases: at most Limits.maxLeasesPerSession per session, 409 lease_limit past it; a person still gets one', async () => {
  const s = await d.client.createSession({ command: ['cat'] });
  const agent = new TermhostClient({ address: d.address, token: (await d.client.createToken('lease-filler', 'agent')).token });
  const held = [];
  for (let i = 0; i < Limits.maxLeasesPerSession; i++) held.push(await agent.acquireLease(s.id, 'shared', 60_000));
  await assert.rejects(agent.acquireLease(s.id, 'shared', 60_000), (e: TermhostError) => e.status === 409 && e.code === 'lease_limit' && e.retryable === false);
  // Renewing one that is held is not a new lease.
  await agent.acquireLease(s.id, 'shared', 60_000, held[1]!.lease_id);
  await agent.request('DELETE', `/v1/sessions/${s.id}/leases/${held[2]!.lease_id}`);
  await agent.acquireLease(s.id, 'shared', 60_000);
  // A person asking takes the room of the agent lease held longest.
  const mine = await d.client.acquireLease(s.id, 'shared', 60_000);
  const leases = (await d.client.request<{ leases: Array<{ lease_id: string }> }>('GET', `/v1/sessions/${s.id}/leases`)).leases.map((l) => l.lease_id);
  assert.equal(leases.length, Limits.maxLeasesPerSession);
  assert.ok(leases.includes(mine.lease_id));
  assert.ok(!leases.includes(held[0]!.lease_id), 'the oldest agent lease made room');
  agent.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('named tokens: creating past the cap is token_limit; revoking one makes room', () => {
  const store = new TokenStore('admin-secret', undefined, 3);
  for (const n of ['a', 'b', 'c']) assert.ok(store.create(n, 'agent').ok);
  const over = store.create('d', 'agent');
  assert.ok(!over.ok);
  assert.equal(over.error.code, 'token_limit');
  assert.equal(over.error.extra.max, 3);
  assert.ok(store.revoke('b').ok);
  assert.ok(store.create('d', 'agent').ok);
});
