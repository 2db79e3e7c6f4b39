/**
 * The attach protocol with real WebSocket clients against a real daemon: join, resume, roles, tokens, the socket's
 * rules, and backpressure.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import xtermHeadless from '@xterm/headless';
import WebSocket from 'ws';
import { AttachClient } from '../src/client/AttachClient.js';
import { rawHttp } from './adversarial/rawHttp.js';
import { assertNoLeaks, attachTo, hex, nextMatching, rawRequest, serverFrames, startProbe, startTestDaemon, stuckClient, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ attach: { authTimeoutMs: 300, pingIntervalMs: 100 } });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

async function mint(id: string, role: 'viewer' | 'driver') {
  return d.client.request<{ token: string; ws_path: string; role: string; expires_in_s: number }>('POST', `/v1/sessions/${id}/attach-tokens`, { role });
}

async function drain(conn: AttachClient) {
  const events = [];
  for await (const ev of conn) events.push(ev);
  return events;
}

function render(bytes: Buffer, cols: number, rows: number): Promise<string[]> {
  const term = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true });
  return new Promise((resolve) =>
    term.write(bytes, () => {
      const b = term.buffer.active;
      const lines = Array.from({ length: rows }, (_, y) => (b.getLine(b.baseY + y)?.translateToString(true) ?? '').replace(/ +$/, ''));
      term.dispose();
      resolve(lines);
    }),
  );
}

test('a new client gets hello, then a repaint equal to the screen, then live output', async () => {
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, cols: 50, rows: 8 });
  await d.client.input(s.id, [{ text: 'printf "\\033[31mred\\033[0m and \\033[1mbold\\033[0m\\n"' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'red and bold');
  const conn = attachTo(d, s.id, { token: (await mint(s.id, 'viewer')).token });
  const hello = await nextMatching(conn, 'hello');
  assert.equal(hello.role, 'viewer');
  assert.equal(hello.view, 'stream');
  assert.deepEqual([hello.session.id, hello.session.cols, hello.session.rows], [s.id, 50, 8]);
  const paint = await nextMatching(conn, 'repaint');
  assert.equal(paint.seq, hello.seq);
  const screen = await d.client.screen(s.id);
  assert.equal(screen.seq, hello.seq);
  assert.deepEqual(await render(paint.data, 50, 8), screen.lines);
  assert.ok(paint.data.toString().includes('\x1b[31m'), 'the repaint keeps colours');
  await d.client.input(s.id, [{ text: 'echo live' }, { key: 'Enter' }]);
  const live = await nextMatching(conn, 'stdout');
  assert.equal(live.seq, hello.seq, 'live output starts exactly where the repaint left off');
  conn.close();
  await d.client.deleteSession(s.id);
});

test('since_seq resumes with exactly the bytes after it: no gaps, no duplicates', async () => {
  const code = "import sys,time\nsys.stdin.readline()\nfor i in range(1500):\n    print('%05d' % i, flush=True)\n    time.sleep(0.0005) if i % 50 == 0 else None";
  const s = await d.client.createSession({ command: ['python3', '-c', code], cols: 80, rows: 10 });
  // One token per socket: attach tokens are single-use.
  const witness = attachTo(d, s.id, { token: (await mint(s.id, 'driver')).token });
  const first = attachTo(d, s.id, { token: (await mint(s.id, 'driver')).token });
  const wHello = await nextMatching(witness, 'hello');
  const fHello = await nextMatching(first, 'hello');
  await d.client.input(s.id, [{ text: 'go' }, { key: 'Enter' }]);
  // The first client reads a while, then drops off in the middle of the stream.
  const got: Buffer[] = [];
  let end = fHello.seq;
  while (end - fHello.seq < 3000) {
    const ev = await nextMatching(first, 'stdout');
    assert.equal(ev.seq, end, 'contiguous');
    got.push(ev.data);
    end = ev.seq + ev.data.length;
  }
  first.close();
  const second = attachTo(d, s.id, { token: (await mint(s.id, 'driver')).token, since_seq: end });
  const sHello = await nextMatching(second, 'hello');
  assert.equal(sHello.seq, end, 'the stream resumes where the client left off');
  for (const ev of await drain(second)) {
    if (ev.kind === 'repaint') assert.fail('a resumable client gets no repaint');
    if (ev.kind === 'stdout') {
      assert.equal(ev.seq, end, 'no gap and no overlap');
      got.push(ev.data);
      end += ev.data.length;
    }
  }
  const truth: Buffer[] = [];
  for (const ev of await drain(witness)) if (ev.kind === 'stdout') truth.push(ev.data);
  assert.equal(wHello.seq, fHello.seq);
  assert.deepEqual(Buffer.concat(got), Buffer.concat(truth));
  const lines = Buffer.concat(got).toString().split('\r\n').filter((l) => /^\d{5}$/.test(l));
  assert.deepEqual(lines, Array.from({ length: 1500 }, (_, i) => String(i).padStart(5, '0')));
  await d.client.deleteSession(s.id);
});

test('a since_seq older than the replay ring gets a repaint instead', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'head -c 800000 /dev/zero | tr "\\0" "y"; sleep 30'], cols: 80, rows: 5 });
  // All of it out, by the byte count (a pause in the output proves nothing on a loaded machine).
  await until('the 800,000 bytes', async () => (await d.client.getSession(s.id)).seq >= 800000, 30_000);
  const conn = attachTo(d, s.id, { bearer: d.token, since_seq: 0 });
  const hello = await nextMatching(conn, 'hello');
  assert.ok(hello.seq >= 800000);
  await nextMatching(conn, 'repaint');
  conn.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('the exit frame is pinned: a client joining after the exit still gets it, last', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo bye; exit 3'] });
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  const events = await drain(attachTo(d, s.id, { bearer: d.token }));
  assert.deepEqual(events.map((e) => e.kind), ['hello', 'repaint', 'exit', 'closed']);
  const exit = events[2]!;
  assert.deepEqual(exit, { kind: 'exit', code: 3, signal: null, reason: 'completed' });
  await d.client.deleteSession(s.id);
});

test('exit reasons: closed for a DELETE, crashed for a signal termhost did not send', async () => {
  const a = await d.client.createSession({ command: ['sleep', '30'] });
  const conn = attachTo(d, a.id, { bearer: d.token });
  await nextMatching(conn, 'hello');
  void d.client.deleteSession(a.id, 'TERM');
  assert.deepEqual(await nextMatching(conn, 'exit'), { kind: 'exit', code: null, signal: 'SIGTERM', reason: 'closed' });
  const b = await d.client.createSession({ command: ['sh', '-c', 'sleep 0.2; kill -SEGV $$'] });
  const conn2 = attachTo(d, b.id, { bearer: d.token });
  assert.equal((await nextMatching(conn2, 'exit')).reason, 'crashed');
  await d.client.deleteSession(b.id);
});

test('banners published while nobody is attached are replayed to every later client', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  await d.client.request('POST', `/v1/sessions/${s.id}/banner`, { message: 'build failed before anyone looked' });
  for (let i = 0; i < 2; i++) {
    const conn = attachTo(d, s.id, { bearer: d.token });
    const banner = await nextMatching(conn, 'error');
    assert.equal(banner.message, 'banner from admin (admin): build failed before anyone looked');
    conn.close();
  }
  const live = attachTo(d, s.id, { bearer: d.token });
  await nextMatching(live, 'error'); // the retained one
  await d.client.request('POST', `/v1/sessions/${s.id}/banner`, { message: 'live notice' });
  assert.equal((await nextMatching(live, 'error')).message, 'banner from admin (admin): live notice');
  live.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a viewer cannot write or resize: refused to that client alone, and the app sees no byte', async () => {
  const probe = await startProbe(d, [], [], { cols: 100, rows: 10 });
  const viewer = attachTo(d, probe.id, { token: (await mint(probe.id, 'viewer')).token, role: 'viewer' });
  const other = attachTo(d, probe.id, { bearer: d.token });
  await nextMatching(viewer, 'hello');
  await nextMatching(other, 'hello');
  viewer.sendStdin('rm -rf /\r');
  assert.equal((await nextMatching(viewer, 'error')).code, 'read_only');
  viewer.sendResize(20, 5);
  assert.equal((await nextMatching(viewer, 'error')).code, 'read_only');
  assert.deepEqual([(await d.client.getSession(probe.id)).cols], [100]);
  // The probe's first group is the API's byte, so the viewer's bytes never reached it.
  assert.equal(await probe.send([{ text: 'k' }]), hex('k'));
  viewer.close();
  other.close();
});

test("a driver's bytes reach the app unchanged, and a driver's resize applies", async () => {
  const probe = await startProbe(d, [], ['--winch'], { cols: 100, rows: 10 });
  const driver = attachTo(d, probe.id, { token: (await mint(probe.id, 'driver')).token, role: 'driver' });
  assert.equal((await nextMatching(driver, 'hello')).role, 'driver');
  const bytes = Buffer.from([0x1b, 0x5b, 0x31, 0x3b, 0x35, 0x41, 0x03, 0xc3, 0xa9, 0x7f, 0x00]);
  driver.sendStdin(bytes);
  assert.equal(await probe.next(), bytes.toString('hex'));
  driver.sendRaw(JSON.stringify({ kind: 'stdin', data: Buffer.from('json-b64').toString('base64') }));
  assert.equal(await probe.next(), hex('json-b64'));
  driver.sendResize(90, 12);
  assert.deepEqual(await nextMatching(driver, 'resized'), { kind: 'resized', cols: 90, rows: 12 });
  await waitText(d, probe.id, 'WINCH 90x12');
  driver.close();
});

test('a viewer token cannot attach as a driver: the role is downgraded, never upgraded', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const conn = attachTo(d, s.id, { token: (await mint(s.id, 'viewer')).token, role: 'driver' });
  assert.equal((await nextMatching(conn, 'hello')).role, 'viewer');
  conn.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('forged, other-session and missing tokens are refused with 4003', async () => {
  const a = await d.client.createSession({ command: ['sleep', '30'] });
  const b = await d.client.createSession({ command: ['sleep', '30'] });
  const forB = (await mint(b.id, 'driver')).token;
  const [v, payload] = forB.split('.');
  for (const token of [forB, `${v}.${payload}.AAAA`, 'garbage', d.token + 'x']) {
    const closed = await nextMatching(attachTo(d, a.id, { token }), 'closed');
    assert.equal(closed.code, 4003, token);
  }
  const none = await nextMatching(attachTo(d, a.id, {}), 'closed');
  assert.equal(none.code, 4003);
  await d.client.deleteSession(a.id, 'KILL');
  await d.client.deleteSession(b.id, 'KILL');
});

test('no auth frame in time, or a first frame that is not auth, closes with 4001', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const url = `ws://${d.address}/v1/sessions/${s.id}/attach`;
  const silent = new WebSocket(url);
  const code = await new Promise<number>((resolve) => silent.on('close', (c) => resolve(c)));
  assert.equal(code, 4001);
  const wrong = new WebSocket(url);
  wrong.on('open', () => wrong.send(JSON.stringify({ kind: 'resize', cols: 10, rows: 10 })));
  assert.equal(await new Promise<number>((resolve) => wrong.on('close', (c) => resolve(c))), 4001);
  await d.client.deleteSession(s.id, 'KILL');
});

test('the upgrade is refused for a query string, a foreign Origin, Origin null, a foreign Host, an unknown session named with a header token', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const upgrade = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(d.address, { path, headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers } });
  const path = `/v1/sessions/${s.id}/attach`;
  const q = await upgrade(`${path}?token=${d.token}`);
  assert.equal(q.status, 400);
  assert.equal(q.json.code, 'invalid_request');
  assert.equal((await upgrade(path, { origin: 'https://evil.example' })).status, 403);
  assert.equal((await upgrade(path, { origin: 'null' })).status, 403);
  assert.equal((await upgrade(path, { host: 'evil.example' })).status, 403);
  assert.equal((await upgrade('/v1/sessions/ffffffff/attach', { authorization: `Bearer ${d.token}` })).status, 404);
  // Without a header nobody is known before the upgrade: an unknown session is told apart only after the auth frame
  // (4004), so a tokenless caller cannot probe for ids.
  const tokenless = await rawHttp(
    d.address,
    'GET /v1/sessions/ffffffff/attach HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    '',
    1000,
  );
  assert.equal(tokenless.status, 101);
  const unknown = attachTo(d, 'ffffffff', { token: d.token });
  const closed = await nextMatching(unknown, 'closed');
  assert.equal(closed.code, 4004);
  // The daemon's own origin is fine.
  const own = attachTo(d, s.id, { bearer: d.token, origin: `http://${d.address}` });
  await nextMatching(own, 'hello');
  own.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a frame over 1 MiB is refused and closes the socket (1009); bad frames after auth get an error frame', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const conn = attachTo(d, s.id, { bearer: d.token, role: 'driver' });
  await nextMatching(conn, 'hello');
  conn.sendRaw('{"kind":');
  assert.equal((await nextMatching(conn, 'error')).code, 'invalid_frame');
  conn.sendRaw(JSON.stringify({ kind: 'exit', code: 0 }));
  assert.match((await nextMatching(conn, 'error')).message, /server to client/);
  conn.sendRaw(JSON.stringify({ kind: 'teleport' }));
  assert.match((await nextMatching(conn, 'error')).message, /unknown frame kind/);
  conn.sendRaw(Buffer.alloc(1024 * 1024 + 16, 2), true);
  assert.equal((await nextMatching(conn, 'closed')).code, 1009);
  await d.client.deleteSession(s.id, 'KILL');
});

test('a peer that stops answering pings is dropped', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const ws = new WebSocket(`ws://${d.address}/v1/sessions/${s.id}/attach`, { headers: { authorization: `Bearer ${d.token}` }, autoPong: false });
  ws.on('open', () => ws.send(JSON.stringify({ kind: 'auth' })));
  const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
  assert.equal(code, 4009);
  await d.client.deleteSession(s.id, 'KILL');
});

test('a slow client is disconnected while another keeps receiving at full speed', async () => {
  // Its own daemon with the default 30 s ping, so the stuck client is dropped for its backlog, not for missed pongs.
  const d = await startTestDaemon();
  const s = await d.client.createSession({ command: ['sh', '-c', 'sleep 0.3; exec cat /dev/zero | tr "\\0" "z"'], cols: 80, rows: 5 });
  // Always stop the daemon: a failure part-way would otherwise leave /dev/zero streaming into an undrained reader.
  const slow = await stuckClient(d, `/v1/sessions/${s.id}/attach`);
  const fast = attachTo(d, s.id, { bearer: d.token });
  try {
    await nextMatching(fast, 'hello');
    const before = (await d.client.getSession(s.id)).clients;
    assert.deepEqual(before, { viewers: 2, drivers: 0 });
    let received = 0;
    for (;;) {
      const ev = await nextMatching(fast, 'stdout', 20000);
      received += ev.data.length;
      if ((await d.client.getSession(s.id)).clients.viewers === 1) break;
      assert.ok(received < 512 * 1024 * 1024, 'the slow client was never dropped');
    }
    // The dropped client reads what was queued for it at once: the daemon waits 2 s for the closing handshake before
    // it cuts the socket, so a client that stayed paused longer would never see the close frame.
    const closed = new Promise<Buffer>((resolve) => {
      const parts: Buffer[] = [];
      slow.on('data', (c: Buffer) => parts.push(c));
      slow.on('close', () => resolve(Buffer.concat(parts)));
    });
    slow.resume();
    // The fast client goes on at full speed after the slow one is gone.
    const after = received;
    while (received - after < 8 * 1024 * 1024) received += (await nextMatching(fast, 'stdout', 20000)).data.length;
    const closeFrame = await closed;
    // The last frame on the wire is a close frame (opcode 8) carrying 4008. Frames are parsed from the start of the
    // stream: searching for the byte 0x88 could land inside a data frame.
    const frames = serverFrames(closeFrame);
    const last = frames[frames.length - 1];
    assert.equal(last?.opcode, 8, `the last frame is a close frame (saw ${frames.length} frames)`);
    assert.equal(last!.payload.readUInt16BE(0), 4008);
    assert.ok(process.memoryUsage().rss < 1024 * 1024 * 1024, 'memory stays bounded');
  } finally {
    fast.close();
    slow.destroy();
    await d.client.deleteSession(s.id, 'KILL').catch(() => {});
    await d.stop();
  }
});
