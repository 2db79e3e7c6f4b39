/**
 * The typed SDK against a real daemon: every method, typed errors, the event stream's automatic resume across
 * dropped connections, and the attach iterator.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError, type RuntimeEvent } from '../src/index.js';
import { assertNoLeaks, startTestDaemon, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let c: TermhostClient;
before(async () => {
  d = await startTestDaemon();
  c = d.client;
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

test('every method reaches its route and returns the typed answer', async () => {
  assert.equal((await c.health()).ok, true);
  const info = await c.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, labels: { sdk: 'yes' }, cols: 70, rows: 12 });
  const id = info.id;
  await waitText(d, id, '$');
  assert.deepEqual((await c.listSessions({ sdk: 'yes' })).map((s) => s.id), [id]);
  assert.equal((await c.getSession(id)).id, id);
  assert.equal((await c.input(id, [{ text: 'echo sdk' }, { key: 'Enter' }])).written, 2);
  const w = await c.wait(id, { regex: '^sdk$', timeout_ms: 5000 });
  assert.equal(w.matched, true);
  assert.equal((await c.screen(id)).cols, 70);
  assert.ok((await c.screen(id, { raw: true })).raw?.includes('sdk'));
  assert.deepEqual((await c.screen(id, { highlights: true })).highlights, []);
  assert.equal((await c.screenChanges(id, w.screen.seq)).changed, false);
  assert.equal((await c.scrollback(id, 10)).total, 0);
  await assert.rejects(c.mouse(id, { type: 'click', button: 'left', x: 0, y: 0 }), (e: TermhostError) => e.code === 'mouse_not_enabled');
  assert.equal((await c.resize(id, 80, 20)).cols, 80);
  assert.equal((await c.signal(id, 'INT')).id, id); // an interactive bash at its prompt ignores INT
  const lease = await c.acquireLease(id, 'shared', 5000);
  assert.equal((await c.leases(id)).length, 1);
  await c.releaseLease(id, lease.lease_id);
  assert.equal((await c.secretInput(id)).active, false);
  assert.match((await c.mintAttachToken(id, 'driver')).token, /^v1\./);
  await c.banner(id, 'from the sdk');
  const tok = await c.createToken('sdk-agent', 'agent');
  assert.ok(tok.token.length > 20);
  assert.ok((await c.listTokens()).some((t) => t.name === 'sdk-agent'));
  await c.revokeToken('sdk-agent');
  assert.equal((await c.openapi()).openapi, '3.1.0');
  assert.ok((await c.schemaIndex()).schemas.length >= 5);
  assert.equal((await c.schema('screen')).$id, '/schemas/screen.json');
  await c.input(id, [{ text: 'exit 5' }, { key: 'Enter' }]);
  const done = await c.wait(id, { exit: true, timeout_ms: 5000 });
  assert.equal(done.exit_code, 5);
  await c.deleteSession(id);
  const all = await c.listAllSessions({ sdk: 'yes' });
  assert.equal(all.length, 1);
  assert.equal(all[0].live, false);
  const page = await c.transcript(id);
  assert.ok(page.chunks.map((ch) => ch.text).join('').includes('sdk'));
  assert.match(await c.transcriptCast(id), /^\{"version":3/);
  assert.match(await c.transcriptCast(id, { version: 2 }), /^\{"version":2/);
  await c.deleteSession(id, undefined, { purge: true });
  await assert.rejects(c.getSession(id), (e: TermhostError) => e.status === 404);
});

test('errors are TermhostErrors with the server code, status and retryable flag', async () => {
  await assert.rejects(c.getSession('nosuch'), (e: unknown) => {
    assert.ok(e instanceof TermhostError);
    assert.equal(e.code, 'session_not_found');
    assert.equal(e.status, 404);
    assert.equal(e.retryable, false);
    assert.match(e.message, /nosuch/);
    return true;
  });
  const info = await c.createSession({ command: ['cat'] });
  await assert.rejects(c.input(info.id, [{ key: 'Hyper-Q' }]), (e: TermhostError) => e.code === 'invalid_key' && e.status === 400 && e.body.index === 0);
  await c.secretAction(info.id, 'start', 'sdk');
  await assert.rejects(c.screen(info.id), (e: TermhostError) => e.code === 'secret_input_active' && e.status === 423 && e.retryable);
  await c.deleteSession(info.id);
  const offline = new TermhostClient({ address: '127.0.0.1:1', token: 'x' });
  await assert.rejects(offline.health(), (e: TermhostError) => e.code === 'unreachable' && e.retryable);
  offline.close();
  const wrong = new TermhostClient({ address: d.address, token: 'wrong' });
  await assert.rejects(wrong.listSessions(), (e: TermhostError) => e.code === 'unauthorized' && e.status === 401);
  wrong.close();
});

test('the event stream resumes by itself after dropped connections: no gaps, no duplicates', async () => {
  // Start from the live edge: every event after this one, through two dropped connections.
  const stream = c.events({ lastEventId: await latestEventId() });
  const it = stream[Symbol.asyncIterator]();
  const seen: RuntimeEvent[] = [];
  const readUntil = async (done: (e: RuntimeEvent) => boolean) => {
    for (;;) {
      const r = await it.next();
      assert.ok(!r.done, 'the stream ended early');
      seen.push(r.value);
      if (done(r.value)) return;
    }
  };
  const info = await c.createSession({ command: ['cat'] });
  let size = 40;
  const resized = () => seen.filter((e) => e.type === 'resized' && e.session_id === info.id).length;
  for (const round of [1, 2, 3]) {
    // Events published while the connection is down must arrive after the reconnect, once each.
    for (let i = 0; i < 3; i++) await c.resize(info.id, size++, 10);
    await readUntil(() => resized() === round * 3);
    if (round < 3) stream.dropConnection();
  }
  await c.deleteSession(info.id);
  await readUntil((e) => e.type === 'session_closed' && e.session_id === info.id);
  stream.close();
  assert.ok(stream.reconnects >= 2, `reconnected ${stream.reconnects} times`);
  const ids = seen.map((e) => e.id);
  for (let i = 1; i < ids.length; i++) assert.equal(ids[i], ids[i - 1] + 1, `ids contiguous: ${ids.join(',')}`);
  assert.equal(resized(), 9);
});

/** The id of the newest event so far, read from the runtime the daemon serves. */
async function latestEventId(): Promise<number> {
  return d.runtime.events.lastId;
}

test('a refused event stream ends the iterator with a typed error instead of retrying', async () => {
  const wrong = new TermhostClient({ address: d.address, token: 'wrong' });
  const stream = wrong.events();
  await assert.rejects((async () => {
    for await (const _ of stream) void _;
  })(), (e: TermhostError) => e.code === 'unauthorized' && e.status === 401);
  wrong.close();
});

test('attach() gives an async iterator of frames; a driver types through it', async () => {
  const info = await c.createSession({ command: ['cat'], cols: 40, rows: 5 });
  const driver = await c.attach(info.id, { role: 'driver' });
  const first = await driver.next();
  assert.equal(first?.kind, 'hello');
  driver.sendStdin('typed via attach\r');
  let echoed = '';
  for await (const f of driver) {
    if (f.kind === 'stdout') echoed += f.data.toString();
    if (echoed.includes('typed via attach')) break;
  }
  await waitText(d, info.id, 'typed via attach');
  driver.close();
  await c.deleteSession(info.id);
});
