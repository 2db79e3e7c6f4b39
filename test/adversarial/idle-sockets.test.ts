/**
 * Connections (issue 12 §4): there was no cap on open sockets, and a socket had 60 s to send its headers. 2,000 idle
 * sockets (ulimit -n is far above that here) must not make the daemon hold 2,000 descriptors, and it must keep
 * answering people promptly. A daemon whose every socket is busy answers a newcomer 503 at once; slow headers are cut
 * off; long answers (waits, event streams, attach) are not.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { CONNECTION_LIMITS } from '../../src/server/app.js';
import { assertNoLeaks, attachTo, nextMatching, rawRequest, sse, startTestDaemon, until, waitText, type TestDaemon } from '../helpers.js';
import { rawHttp, target } from './rawHttp.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/**
 * Established TCP sockets whose local port is the daemon's: the daemon's side of each connection, from the kernel's
 * table. (The client side can count more: past the listen backlog the kernel completes handshakes it then drops.)
 */
function daemonSideSockets(address: string): number {
  const port = target(address).port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table = '';
    try {
      table = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 table
    }
    for (const line of table.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local?.endsWith(`:${port}`) && state === '01') n++;
    }
  }
  return n;
}

/** `n` sockets that connect and never send a byte; `open` counts those the daemon has not closed. */
async function idleSockets(address: string, n: number) {
  const sockets: net.Socket[] = [];
  let open = 0;
  let settled = 0;
  for (let i = 0; i < n; i++) {
    const s = net.connect(target(address));
    let counted = false;
    s.on('connect', () => {
      open++;
      counted = true;
      settled++;
    });
    s.on('error', () => {});
    s.resume(); // a paused socket never reports the daemon's FIN
    s.on('close', () => {
      if (counted) open--;
      else settled++;
    });
    sockets.push(s);
  }
  await until(`${n} sockets to connect`, () => settled >= n, 30_000);
  return {
    get open() {
      return open;
    },
    close: () => sockets.forEach((s) => s.destroy()),
  };
}

/** A request whose headers never end; what the daemon answered once it closed the socket, or 'open'. */
function slowHeaders(address: string, deadlineMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(target(address), () => socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: a'));
    let got = '';
    const timer = setTimeout(() => (socket.destroy(), resolve('open')), deadlineMs);
    socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => (clearTimeout(timer), resolve(got)));
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: Math.round(s[Math.floor(s.length / 2)]! * 10) / 10, max: Math.round(s.at(-1)! * 10) / 10 };
};

test('2,000 idle sockets: the daemon holds at most its cap and keeps serving /health and a screen promptly', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo steady-screen; sleep 60'] });
  await waitText(d, s.id, 'steady-screen');
  const auth = { authorization: `Bearer ${d.token}` };
  const idle = await idleSockets(d.address, 2000);
  try {
    await until('the daemon to close what it will not hold', () => daemonSideSockets(d.address) <= CONNECTION_LIMITS.sockets, 10_000).catch(() => {
      assert.fail(`the daemon holds ${daemonSideSockets(d.address)} idle sockets; its cap is ${CONNECTION_LIMITS.sockets}`);
    });
    const health: number[] = [];
    const screen: number[] = [];
    for (let i = 0; i < 20; i++) {
      const [h, hms] = await timed(() => rawRequest(d.address, { path: '/health' }));
      assert.equal(h.status, 200);
      health.push(hms);
      const [sc, sms] = await timed(() => rawRequest(d.address, { path: `/v1/sessions/${s.id}/screen`, headers: auth }));
      assert.equal(sc.status, 200);
      assert.ok((sc.json.lines as string[]).includes('steady-screen'));
      screen.push(sms);
    }
    const figures = { idle_sockets: 2000, held_by_daemon: daemonSideSockets(d.address), health_ms: stats(health), screen_ms: stats(screen) };
    console.log(`# idle-socket flood: ${JSON.stringify(figures)}`);
    // Generous, and on the medians: the machine is shared with other test runs, where one answer in twenty can wait
    // seconds for a core (2.4 s once, at load 22). An unbounded daemon answers too; the cap is the point.
    assert.ok(figures.health_ms.median < 2000 && figures.screen_ms.median < 2000, JSON.stringify(figures));
  } finally {
    idle.close();
    await d.client.deleteSession(s.id, 'KILL');
  }
});

test('when every socket is busy, a newcomer gets 503 connection_limit at once, and busy sockets are never closed for it', async () => {
  const small = await startTestDaemon({ connections: { sockets: 4 } });
  const streams = Array.from({ length: 4 }, () => sse(small.address, small.token));
  try {
    for (const st of streams) await st.next(10_000); // ": connected": each stream holds a busy socket
    const [a, ms] = await timed(() => rawHttp(small.address, 'GET /health HTTP/1.1\r\nHost: localhost'));
    assert.equal(a.status, 503, a.body);
    const body = JSON.parse(a.body) as Record<string, unknown>;
    assert.deepEqual([body.code, body.retryable, body.limit, body.max], ['connection_limit', true, 'sockets', 4]);
    console.log(`# full daemon: 503 in ${ms.toFixed(1)} ms`);
    assert.ok(ms < 2000, `answered in ${ms} ms`);
    assert.ok(streams.every((st) => !st.ended), 'the busy streams live on');
    streams[0]!.close();
    await until('a free socket', async () => (await rawRequest(small.address, { path: '/health' }).catch(() => ({ status: 0 }))).status === 200, 10_000);
  } finally {
    for (const st of streams) st.close();
    await small.stop();
  }
});

test('slow headers are cut off after headersTimeoutMs; waits, event streams and attach outlast requestTimeoutMs', async () => {
  const quick = await startTestDaemon({ connections: { headersTimeoutMs: 1000, requestTimeoutMs: 1500 } });
  try {
    const s = await quick.client.createSession({ command: ['cat'] });
    const stream = sse(quick.address, quick.token);
    await stream.next(10_000);
    const conn = attachTo(quick, s.id, { bearer: quick.token, role: 'driver' });
    await nextMatching(conn, 'hello');
    // A wait that answers after 3 s, twice the request timeout.
    const wait = quick.client.wait(s.id, { text: 'never-printed', timeout_ms: 3000 });
    const [slow, ms] = await timed(() => slowHeaders(quick.address, 20_000));
    assert.ok(slow !== 'open', 'the daemon closed the slow socket');
    console.log(`# slow headers: cut off after ${Math.round(ms)} ms (headersTimeoutMs 1000)`);
    assert.ok(ms >= 900 && ms < 6000, `cut off after ${Math.round(ms)} ms`);
    assert.match(slow, /^$|^HTTP\/1\.1 408/, 'closed, or told 408 Request Timeout');
    const waited = await wait;
    assert.equal(waited.matched, false, 'the wait ran its 3 s and answered');
    assert.ok(!stream.ended, 'the event stream lives');
    conn.sendStdin('attach-still-works\r');
    await waitText(quick, s.id, 'attach-still-works');
    stream.close();
    conn.close();
    await quick.client.deleteSession(s.id, 'KILL');
  } finally {
    await quick.stop();
  }
});
