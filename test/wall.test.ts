/**
 * What the wall of tiles (/ui/wall) asks of the daemon, over plain HTTP: a screen_updated event at a pace a picture
 * can follow, an event stream that carries only the types asked for, a tile that costs no drawing while its screen is
 * unchanged, and tiles that know only the sessions a scoped sign-in may see. The page itself is tested in Chromium
 * (wall.e2e.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostClient } from '../src/client/TermhostClient.js';
import { SCREEN_UPDATE_INTERVAL_MS } from '../src/core/Runtime.js';
import { assertNoLeaks, rawRequest, sse, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const auth = () => ({ authorization: `Bearer ${d.token}` });
const tilePath = (id: string) => `/v1/sessions/${id}/screen?format=svg&scale=10`;

test('a program printing continuously gets at most one screen_updated per 500 ms, and its final screen just before its exit', async () => {
  const stream = sse(d.address, d.token, { types: 'screen_updated,process_exited' });
  await stream.next(); // ": connected": the stream is subscribed
  const s = await d.client.createSession({ command: ['sh', '-c', 'i=0; while [ $i -lt 300 ]; do echo line $i; i=$((i+1)); sleep 0.005; done'] });
  const events: Array<Record<string, unknown>> = [];
  for (;;) {
    const e = await stream.nextEvent(20_000);
    assert.ok(e, 'the stream stayed open');
    assert.ok(e.type === 'screen_updated' || e.type === 'process_exited', `only the types asked for, not ${String(e.type)}`);
    if (e.session_id !== s.id) continue;
    if (e.type === 'process_exited') break;
    events.push(e);
  }
  stream.close();
  const times = events.map((e) => Date.parse(String(e.at)));
  // The last one may come sooner: the exit publishes the final screen at once, so that it precedes process_exited.
  for (let i = 1; i < times.length - 1; i++) {
    assert.ok(times[i]! - times[i - 1]! >= SCREEN_UPDATE_INTERVAL_MS - 2, `events ${i - 1} and ${i} are ${times[i]! - times[i - 1]!} ms apart`);
  }
  assert.ok(events.length >= 2, `a program printing for over a second is reported more than once (${events.length})`);
  const final = (await d.client.screen(s.id)).seq;
  assert.equal(events.at(-1)!.seq, final, 'the last screen_updated reflects every byte');
  await d.client.deleteSession(s.id);
});

test('?types= names event types; an unknown one is a 400 that names it, not a silent stream', async () => {
  const res = await rawRequest(d.address, { path: '/v1/events?types=screen_updated,screen_chnaged', headers: auth() });
  assert.equal(res.status, 400);
  assert.equal(res.json.code, 'invalid_request');
  assert.match(res.json.error, /"screen_chnaged" is not an event type/);
  const junk = await rawRequest(d.address, { path: `/v1/events?types=${encodeURIComponent('a,,b')}`, headers: auth() });
  assert.equal(junk.status, 400);
});

test('an unchanged tile is not drawn again: If-None-Match gets a 304 and the renderer draws nothing; a change is drawn once', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo before; read x; echo after; exec sleep 60'], cols: 40, rows: 6 });
  await waitText(d, s.id, 'before');
  const first = await rawRequest(d.address, { path: tilePath(s.id), headers: auth() });
  assert.equal(first.status, 200);
  assert.equal(first.headers['content-type'], 'image/svg+xml');
  assert.match(first.text, /before/);
  const etag = String(first.headers.etag);
  const drawn = d.manager.pictures.screensDrawn;
  for (let i = 0; i < 5; i++) {
    const again = await rawRequest(d.address, { path: tilePath(s.id), headers: { ...auth(), 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
  }
  assert.equal(d.manager.pictures.screensDrawn, drawn, 'five looks at an unchanged screen drew nothing');
  await d.client.input(s.id, [{ text: 'x' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'after');
  const changed = await rawRequest(d.address, { path: tilePath(s.id), headers: { ...auth(), 'if-none-match': etag } });
  assert.equal(changed.status, 200);
  assert.match(changed.text, /after/);
  assert.equal(d.manager.pictures.screensDrawn, drawn + 1, 'the changed screen was drawn once');
  await d.client.deleteSession(s.id);
});

test('tiles honour scopes: an own-scoped sign-in lists, draws and hears of its own sessions only', async () => {
  const alice = await d.client.createToken('alice', 'human', { scope: 'own' });
  const asAlice = new TermhostClient({ address: d.address, token: alice.token });
  const hers = await asAlice.createSession({ command: ['sh', '-c', 'echo hers; read x; echo more; exec sleep 60'] });
  const notHers = await d.client.createSession({ command: ['sh', '-c', 'echo not hers; read x; echo more; exec sleep 60'] });
  await waitText(d, hers.id, 'hers');
  await waitText(d, notHers.id, 'not hers');

  // Her browser: the cookie and page key of her sign-in, as the wall sends them.
  const minted = await asAlice.mintUiLogin({});
  const login = await rawRequest(d.address, { path: minted.login_path, headers: { host: d.address } });
  const cookie = String(login.headers['set-cookie']).split(';')[0]!;
  const key = /<meta name="termhost-ui-key" content="([A-Za-z0-9_-]{43})">/.exec(login.text)![1]!;
  const page = (p: string) => rawRequest(d.address, { path: p, headers: { host: d.address, cookie, 'x-termhost-ui-key': key } });
  const list = await page('/v1/sessions');
  assert.deepEqual(list.json.sessions.map((s: { id: string }) => s.id), [hers.id]);
  assert.equal((await page(tilePath(hers.id))).status, 200);
  const other = await page(tilePath(notHers.id));
  assert.deepEqual([other.status, other.json.code], [404, 'session_not_found'], 'a session outside the scope has no tile');

  // Her event stream carries her screen updates, never the other session's.
  const stream = sse(d.address, alice.token, { types: 'screen_updated' });
  await stream.next();
  await d.client.input(notHers.id, [{ key: 'Enter' }]);
  await waitText(d, notHers.id, 'more');
  await d.client.input(hers.id, [{ key: 'Enter' }]);
  const seen: string[] = [];
  await until('her screen_updated', async () => {
    const e = await stream.nextEvent(10_000);
    seen.push(String(e?.session_id));
    return e?.session_id === hers.id;
  });
  assert.ok(!seen.includes(notHers.id), 'no event of the other session');
  stream.close();
  asAlice.close();
  for (const s of [hers, notHers]) await d.client.deleteSession(s.id, 'KILL', { purge: true });
});
