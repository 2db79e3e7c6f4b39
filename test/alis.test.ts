/**
 * The asciinema live stream (ALiS) on the wire, as a viewer's client receives it: who may watch, what a viewer sees
 * from joining to the end, that a secret-input window never reaches it, and that a viewer who stops reading is
 * dropped. The same stream played by the real asciinema-player in Chromium is test/alis.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { TermhostClient } from '../src/client/TermhostClient.js';
import { SYSTEM_ACTOR } from '../src/core/index.js';
import { ALIS_SUBPROTOCOL, decodeAlisFrame, isAlisMagic, type AlisFrame } from '../src/protocol/alis.js';
import { assertNoLeaks, attachTo, endSecretWindow, nextMatching, rawRequest, serverFrames, startTestDaemon, stuckClient, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let viewer: TermhostClient;
before(async () => {
  d = await startTestDaemon();
  viewer = new TermhostClient({ address: d.address, token: (await d.client.createToken('watcher', 'viewer')).token });
});
after(async () => {
  viewer.close();
  await d.stop();
  await assertNoLeaks();
});

interface Watch {
  ws: WebSocket;
  /** Every binary message, in order, as sent. */
  raw: Buffer[];
  frames: AlisFrame[];
  closed: Promise<{ code: number; reason: string }>;
}

/** Open the live stream and send `auth` as the first frame, as asciinema-player's page adaptor does. */
function watch(id: string, auth: Record<string, unknown> | string, opts: { path?: string; headers?: Record<string, string> } = {}): Watch {
  const ws = new WebSocket(`ws://${d.address}${opts.path ?? `/v1/sessions/${id}/alis`}`, [ALIS_SUBPROTOCOL], { headers: opts.headers });
  const w: Watch = { ws, raw: [], frames: [], closed: new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))) };
  ws.on('open', () => ws.send(typeof auth === 'string' ? auth : JSON.stringify(auth)));
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    assert.ok(isBinary, 'every ALiS message is binary');
    w.raw.push(data);
    if (w.raw.length === 1) return assert.ok(isAlisMagic(data), 'the first message is the magic');
    const f = decodeAlisFrame(data);
    assert.ok(f.ok, f.ok ? '' : f.error);
    w.frames.push(f.frame);
  });
  ws.on('error', () => {}); // refusals before the upgrade surface as a close; the tests read the close
  return w;
}

/** What a viewer's terminal was given: every reset's screen and every output, as text. */
const shown = (w: Watch) =>
  w.frames.map((f) => (f.type === 'reset' ? f.init : f.type === 'output' ? Buffer.from(f.data).toString('utf8') : '')).join('');

test('a viewer watches: the magic, a reset with the screen, live output and resizes, then the exit status and EOT', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo hello-first; read l; echo "got:$l"; exit 3'], cols: 70, rows: 12 });
  await waitText(d, s.id, 'hello-first');
  const w = watch(s.id, { kind: 'auth', token: (await viewer.mintAttachToken(s.id)).token });
  await until('the reset', () => w.frames.length > 0);
  assert.equal(w.ws.protocol, ALIS_SUBPROTOCOL);
  const reset = w.frames[0]!;
  assert.ok(reset.type === 'reset');
  assert.deepEqual([reset.lastId, reset.cols, reset.rows], [0, 70, 12]);
  assert.match(reset.init, /hello-first/);
  assert.deepEqual((await d.client.getSession(s.id)).clients, { viewers: 1, drivers: 0 }, 'the stream counts as a viewer');

  await d.client.resize(s.id, 90, 20);
  await until('the resize', () => w.frames.some((f) => f.type === 'resize' && f.cols === 90 && f.rows === 20));
  await d.client.input(s.id, [{ text: 'live-two' }, { key: 'Enter' }]);
  const end = await w.closed;
  assert.deepEqual(end, { code: 1000, reason: 'session ended' });
  assert.match(shown(w), /got:live-two/);
  const tail = w.frames.slice(-2);
  assert.deepEqual(tail.map((f) => f.type), ['exit', 'eot']);
  assert.equal(tail[0]!.type === 'exit' && tail[0]!.status, 3);
  const ids = w.frames.flatMap((f) => ('id' in f ? [f.id] : []));
  assert.deepEqual(ids, ids.map((_, i) => i + 1), 'event ids count up from 1');
});

test('a session that already ended still plays: its last screen, its status, the end', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo all-done; exit 0'] });
  await until('the exit', async () => (await d.client.getSession(s.id)).exited);
  const w = watch(s.id, { kind: 'auth', token: (await viewer.mintAttachToken(s.id)).token });
  assert.equal((await w.closed).code, 1000);
  assert.deepEqual(w.frames.map((f) => f.type), ['reset', 'exit', 'eot']);
  assert.match(shown(w), /all-done/);
});

test('only a first frame with a live credential for this session opens the stream, and never a token in the URL', async () => {
  const s = await d.client.createSession({ command: ['sleep', '60'] });
  const other = await d.client.createSession({ command: ['sleep', '60'] });
  const token = async () => (await viewer.mintAttachToken(s.id)).token;

  // A token in the URL is refused before the upgrade, whatever else is right; so is a page on a foreign origin.
  const upgrade = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(d.address, {
      path,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': ALIS_SUBPROTOCOL, ...headers },
    });
  const inUrl = await upgrade(`/v1/sessions/${s.id}/alis?token=${await token()}`);
  assert.equal(inUrl.status, 400);
  assert.equal(inUrl.json.code, 'invalid_request');
  assert.match(inUrl.json.error, /live stream URL takes no query string/);
  const foreign = await upgrade(`/v1/sessions/${s.id}/alis`, { origin: 'http://evil.example' });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.json.code, 'forbidden_origin');

  const spent = await token();
  const first = watch(s.id, { kind: 'auth', token: spent });
  await until('the first use to play', () => first.frames.length > 0);
  first.ws.close();
  // One token, one socket of either kind: spent on the attach socket, it cannot open the stream.
  const spentOnAttach = await token();
  const attached = attachTo(d, s.id, { token: spentOnAttach });
  await nextMatching(attached, 'hello');
  attached.close();
  const revokedBy = await d.client.createToken('soon-gone', 'viewer');
  const revocable = (await new TermhostClient({ address: d.address, token: revokedBy.token }).mintAttachToken(s.id)).token;
  await d.client.revokeToken('soon-gone');

  for (const [what, auth, code, reason] of [
    ['no token', { kind: 'auth' }, 4003, /a token is required/],
    ['a made-up token', { kind: 'auth', token: 'v1.bm9wZQ.bm9wZQ' }, 4003, /invalid, expired, already used, revoked, or for another session/],
    ['a token for another session', { kind: 'auth', token: (await viewer.mintAttachToken(other.id)).token }, 4003, /for another session/],
    ['a token already used', { kind: 'auth', token: spent }, 4003, /already used/],
    ['a token already used on the attach socket', { kind: 'auth', token: spentOnAttach }, 4003, /already used/],
    ['a token whose minter was revoked', { kind: 'auth', token: revocable }, 4003, /revoked/],
    ['a driver role', { kind: 'auth', token: await token(), role: 'driver' }, 4003, /read-only/],
    ['a first frame that is not auth', { kind: 'resize', cols: 10, rows: 10 }, 4001, /must be an auth frame/],
    ['a first frame that is not JSON', 'token please', 4001, /not valid JSON/],
  ] as const) {
    const w = watch(s.id, auth);
    const closed = await w.closed;
    assert.equal(closed.code, code, what);
    assert.match(closed.reason, reason, what);
    assert.equal(w.raw.length, 0, `${what}: not even the magic is sent`);
  }

  // Watching takes nothing from the viewer: a frame after auth ends the stream.
  const chatty = watch(s.id, { kind: 'auth', token: await token() });
  await until('the stream to start', () => chatty.frames.length > 0);
  chatty.ws.send(JSON.stringify({ kind: 'stdin', data: 'ZWNobyBoaQ==' }));
  assert.deepEqual(await chatty.closed, { code: 1008, reason: 'the live stream is read-only; it takes no frames after auth' });
  await d.client.deleteSession(s.id, 'KILL');
  await d.client.deleteSession(other.id, 'KILL');
});

const SECRET = 'hunter2-alis-secret';

test('nothing typed or echoed during a secret-input window reaches the stream; the screen after it does', async () => {
  const code = "import time\ns=input('Secret word: ')\nprint('\\x1b[2J\\x1b[H' + 'length %d' % len(s), flush=True)\ntime.sleep(60)";
  const s = await d.client.createSession({ command: ['python3', '-c', code], cols: 60, rows: 8 });
  await waitText(d, s.id, 'Secret word:');
  const w = watch(s.id, { kind: 'auth', token: (await viewer.mintAttachToken(s.id)).token });
  await until('the stream to start', () => w.frames.length > 0);
  // A second viewer joins while the window is open: a blank screen of the right size, nothing more.
  await d.client.secretAction(s.id, 'start', 'asking for the secret word');
  const late = watch(s.id, { kind: 'auth', token: (await viewer.mintAttachToken(s.id)).token });
  await until('the late viewer to start', () => late.frames.length > 0);
  assert.deepEqual(late.frames[0], { type: 'reset', lastId: 0, timeUs: (late.frames[0] as { timeUs: number }).timeUs, cols: 60, rows: 8, init: '' });

  // The person types; the tty echoes it; the program reads it and clears the screen.
  await d.client.input(s.id, [{ text: SECRET }, { key: 'Enter' }]);
  // The API's view is frozen during the window, so the test looks inside the runtime for the program's answer.
  await until('the program to take the secret', () => {
    const r = d.manager.get(s.id, SYSTEM_ACTOR);
    return r.ok && r.value.peekScreen().lines.join('\n').includes(`length ${SECRET.length}`);
  });
  const beforeEnd = w.frames.length;
  await endSecretWindow(d.client, s.id);

  for (const v of [w, late]) {
    await until('a fresh reset after the window', () => v.frames.slice(1).some((f) => f.type === 'reset' && f.init.includes(`length ${SECRET.length}`)));
  }
  assert.ok(w.frames.slice(beforeEnd).some((f) => f.type === 'reset'), 'the window ends with a reset, not with its bytes');
  w.ws.close();
  late.ws.close();
  const wire = Buffer.concat([...w.raw, ...late.raw]).toString('latin1');
  assert.ok(!wire.includes(SECRET), 'no byte of the secret is on the wire');
  assert.ok(!wire.includes(SECRET.slice(0, 6)), 'not even its echo, one key at a time');
  await d.client.deleteSession(s.id, 'KILL');
});

test('output cut in the middle of a character reaches the viewer whole, each frame valid UTF-8 on its own', async () => {
  // One byte per write, with pauses, so the PTY hands them over in separate reads.
  const code = "import sys,time\nfor b in '\u20ac\u00e9\u{1F600}-end'.encode():\n  sys.stdout.buffer.write(bytes([b])); sys.stdout.flush(); time.sleep(0.02)\ntime.sleep(60)";
  const s = await d.client.createSession({ command: ['python3', '-c', code] });
  const w = watch(s.id, { kind: 'auth', token: (await viewer.mintAttachToken(s.id)).token });
  await until('the whole text', () => shown(w).includes('-end'), 10_000);
  const strict = new TextDecoder('utf-8', { fatal: true });
  for (const f of w.frames) if (f.type === 'output') strict.decode(f.data); // throws on a cut character
  assert.match(shown(w), /\u20ac\u00e9\u{1F600}-end/u);
  w.ws.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a viewer that stops reading is dropped with 4008, and the session and other viewers go on', async () => {
  const own = await startTestDaemon({ attach: { maxBufferedBytes: 256 * 1024 } });
  const s = await own.client.createSession({ command: ['sh', '-c', 'sleep 0.3; exec cat /dev/zero | tr "\\0" "z"'], cols: 80, rows: 5 });
  const slow = await stuckClient(own, `/v1/sessions/${s.id}/alis`);
  try {
    await until('the slow viewer to be dropped', async () => (await own.client.getSession(s.id)).clients.viewers === 0, 60_000);
    const closed = new Promise<Buffer>((resolve) => {
      const parts: Buffer[] = [];
      slow.on('data', (c: Buffer) => parts.push(c));
      slow.on('close', () => resolve(Buffer.concat(parts)));
    });
    slow.resume();
    const frames = serverFrames(await closed);
    const last = frames[frames.length - 1];
    assert.equal(last?.opcode, 8, `the last frame is a close frame (saw ${frames.length} frames)`);
    assert.equal(last!.payload.readUInt16BE(0), 4008);
    assert.equal((await own.client.getSession(s.id)).exited, false, 'the session goes on');
  } finally {
    slow.destroy();
    await own.client.deleteSession(s.id, 'KILL').catch(() => {});
    await own.stop();
  }
});
