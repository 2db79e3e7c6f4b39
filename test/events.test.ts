/** The event stream: types and fields, filtering, exact resume by Last-Event-ID, reset, heartbeats. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { assertNoLeaks, sse, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ heartbeatMs: 200 });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

async function collect(stream: ReturnType<typeof sse>, until: (e: Record<string, unknown>) => boolean) {
  const out: Array<Record<string, unknown>> = [];
  for (;;) {
    const e = await stream.nextEvent();
    if (!e) throw new Error(`stream ended after ${out.length} events`);
    out.push(e);
    if (until(e)) return out;
  }
}

test('a session lifecycle produces the documented events with ids, types, session ids and times', async () => {
  const stream = sse(d.address, d.token);
  assert.equal((await stream.next())?.comment, 'connected');
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } });
  await d.client.input(s.id, [{ text: 'printf "\\033]0;my-title\\007"; echo done' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'done');
  await d.client.resize(s.id, 90, 20);
  const conn = (await import('./helpers.js')).attachTo(d, s.id, { bearer: d.token });
  await (await import('./helpers.js')).nextMatching(conn, 'hello');
  conn.close();
  await d.client.deleteSession(s.id);
  const events = await collect(stream, (e) => e.type === 'session_closed' && e.session_id === s.id);
  const mine = events.filter((e) => e.session_id === s.id);
  const types = new Set(mine.map((e) => e.type));
  for (const t of ['session_opened', 'screen_changed', 'output', 'input_accepted', 'title_changed', 'resized', 'client_attached', 'client_detached', 'process_exited', 'session_closed']) {
    assert.ok(types.has(t), `${t} in ${[...types].join(',')}`);
  }
  const ids = events.map((e) => e.id as number);
  assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'ids increase');
  assert.equal(new Set(ids).size, ids.length);
  for (const e of mine) assert.match(String(e.at), /^\d{4}-\d\d-\d\dT/);
  const out = mine.find((e) => e.type === 'output')!;
  assert.equal(typeof out.bytes, 'number');
  assert.ok(!('data' in out), 'byte counts only');
  assert.deepEqual(mine.find((e) => e.type === 'input_accepted')!.actor, { name: 'admin', kind: 'admin' });
  assert.equal(mine.find((e) => e.type === 'title_changed')!.title, 'my-title');
  assert.deepEqual(mine.find((e) => e.type === 'process_exited')!.reason, 'closed');
  stream.close();
});

test('output events count every byte, the last chunk included, before the exit is reported', async () => {
  const stream = sse(d.address, d.token);
  assert.equal((await stream.next())?.comment, 'connected');
  const s = await d.client.createSession({ command: ['printf', 'hi'] });
  const events = await collect(stream, (e) => e.type === 'process_exited' && e.session_id === s.id);
  const mine = events.filter((e) => e.session_id === s.id);
  const bytes = mine.filter((e) => e.type === 'output').reduce((n, e) => n + (e.bytes as number), 0);
  assert.equal(bytes, 2, JSON.stringify(mine));
  const last = mine.filter((e) => e.type === 'output').at(-1)!;
  assert.equal(last.seq, 2, 'the output event carries the stream offset after its bytes');
  const screens = mine.filter((e) => e.type === 'screen_changed');
  assert.equal(screens.at(-1)!.seq, 2, 'the last screen_changed reflects every byte');
  assert.equal(new Set(screens.map((e) => e.seq)).size, screens.length, 'no screen_changed repeats a seq');
  await d.client.deleteSession(s.id);
  stream.close();
});

test('screen_changed is coalesced: a burst of output gives a handful of events, not one per chunk', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'seq 1 20000; sleep 30'] });
  const stream = sse(d.address, d.token, { session: s.id, lastEventId: 0 });
  await waitText(d, s.id, '20000');
  await d.client.deleteSession(s.id, 'KILL');
  const events = await collect(stream, (e) => e.type === 'session_closed');
  const screens = events.filter((e) => e.type === 'screen_changed');
  assert.ok(screens.length >= 1 && screens.length < 100, `${screens.length} screen_changed events`);
  assert.ok(events.every((e) => e.session_id === s.id), 'filtered by session');
  stream.close();
});

test('Last-Event-ID resumes exactly after that event, for any disconnect point (property)', async () => {
  // A history to resume into.
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } });
  for (let i = 0; i < 15; i++) await d.client.input(s.id, [{ text: `echo line-${i}` }, { key: 'Enter' }]);
  await waitText(d, s.id, 'line-14');
  await d.client.deleteSession(s.id);
  const full = sse(d.address, d.token, { lastEventId: 0 });
  const all = await collect(full, (e) => e.type === 'session_closed' && e.session_id === s.id);
  full.close();
  const ids = all.map((e) => e.id as number);
  assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1), 'from 0: every event, no gaps');

  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 0, max: ids.length - 1 }), { minLength: 1, maxLength: 4 }), async (cuts) => {
      // Read the stream in pieces, reconnecting with the last id seen each time.
      const got: number[] = [];
      let last = 0;
      for (const cut of [...cuts].sort((a, b) => a - b).concat([ids.length - 1])) {
        const stream = sse(d.address, d.token, { lastEventId: last });
        while (last < ids[cut]!) {
          const e = await stream.nextEvent();
          got.push(e!.id as number);
          last = e!.id as number;
        }
        stream.close();
      }
      assert.deepEqual(got, ids);
    }),
    { numRuns: 25 },
  );
});

test('an id older than the backlog gets a reset first, then the backlog', async () => {
  const small = await startTestDaemon({ eventBacklog: 20 });
  try {
    const s = await small.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } });
    for (let i = 0; i < 40; i++) await small.client.input(s.id, [{ text: 'x' }]);
    await until('events past the backlog', () => small.runtime.events.lastId > 25);
    const stream = sse(small.address, small.token, { lastEventId: 1 });
    const first = await stream.nextEvent();
    assert.equal(first?.type, 'reset');
    const oldest = first?.oldest_id as number;
    assert.equal((await stream.nextEvent())?.id, oldest);
    stream.close();
    // An id from the future (say, from before a daemon restart) is a reset too.
    const future = sse(small.address, small.token, { lastEventId: 999999 });
    assert.equal((await future.nextEvent())?.type, 'reset');
    future.close();
    await small.client.deleteSession(s.id);
  } finally {
    await small.stop();
  }
});

test('an idle stream carries heartbeat comments', async () => {
  const stream = sse(d.address, d.token);
  await stream.next();
  const m = await stream.next(3000);
  assert.equal(m?.comment, 'heartbeat');
  stream.close();
});

test('a viewer may read the stream; without a token it is a 401', async () => {
  const viewer = (await d.client.createToken('sse-viewer', 'viewer')).token;
  const ok = sse(d.address, viewer);
  await ok.next();
  assert.equal(ok.status, 200);
  ok.close();
  const bad = sse(d.address, 'nope');
  await bad.next().catch(() => undefined);
  assert.equal(bad.status, 401);
  bad.close();
});
