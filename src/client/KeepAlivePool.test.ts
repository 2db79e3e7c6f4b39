/**
 * The client's HTTP/1.1 transport against scripted servers: every way a server may frame a response, split anywhere
 * across packets; connection reuse, limits and the queue; and the retry that is safe (a kept-alive connection the
 * server closed) next to the ones that are not.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { KeepAlivePool, type PoolTarget } from './KeepAlivePool.js';

interface Seen {
  method: string;
  path: string;
  body: string;
}

type Reply = (req: Seen, socket: net.Socket, n: number) => void | Promise<void>;

/** A server that reads requests (Content-Length bodies) and lets `reply` write raw bytes for each. */
async function scripted(reply: Reply, listen: { path?: string } = {}) {
  const seen: Seen[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buf = Buffer.alloc(0);
    let busy = Promise.resolve();
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.toString('latin1', 0, end).split('\r\n');
        const length = Number(/content-length: (\d+)/i.exec(head.join('\n'))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const [method, target] = head[0]!.split(' ');
        const req = { method: method!, path: target!, body: buf.toString('utf8', end + 4, end + 4 + length) };
        buf = buf.subarray(end + 4 + length);
        seen.push(req);
        const n = seen.length;
        busy = busy.then(() => reply(req, socket, n));
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => (listen.path ? server.listen(listen.path, r) : server.listen(0, '127.0.0.1', r)));
  const target: PoolTarget = listen.path ? { socketPath: listen.path } : { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port };
  return {
    target,
    seen,
    get connections() {
      return connections;
    },
    sockets,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** Write `bytes` in pieces cut at the given offsets, a tick apart, so the client sees separate packets. */
async function writeSplit(socket: net.Socket, bytes: Buffer, cuts: number[]) {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) socket.write(bytes.subarray(from, p));
    from = Math.max(from, p);
    await new Promise((r) => setImmediate(r));
  }
}

test('a response split anywhere across packets reads the same: Content-Length, chunked with trailers, 1xx first', async () => {
  const body = JSON.stringify({ lines: ['héllo', '漢字', 'x'.repeat(300)] });
  const chunked = (parts: string[]) =>
    `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n` + parts.map((p) => `${Buffer.byteLength(p).toString(16)};ext=1\r\n${p}\r\n`).join('') + '0\r\nx-trailer: 1\r\n\r\n';
  const framings = [ok(body), chunked([body.slice(0, 7), body.slice(7, 40), body.slice(40)]), `HTTP/1.1 100 Continue\r\n\r\n${ok(body)}`];
  let cuts: number[] = [];
  let framing = 0;
  const srv = await scripted((_req, socket) => writeSplit(socket, Buffer.from(framings[framing]!), cuts));
  const pool = new KeepAlivePool(srv.target, 2);
  try {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: framings.length - 1 }), fc.array(fc.nat(), { maxLength: 12 }), async (f, c) => {
        framing = f;
        cuts = c;
        const res = await pool.request('GET', '/x', { host: 'localhost' });
        assert.equal(res.status, 200);
        assert.equal(res.body.toString('utf8'), body);
      }),
      { numRuns: 150 },
    );
    assert.equal(srv.connections, 1, 'every response left the connection reusable');
  } finally {
    pool.close();
    await srv.close();
  }
});

test('a body without a length ends with the connection; 204 and HEAD have none; Connection: close is honoured', async () => {
  const srv = await scripted((req, socket) => {
    if (req.path === '/to-close') socket.end('HTTP/1.1 200 OK\r\n\r\nuntil the end');
    else if (req.path === '/204') socket.write('HTTP/1.1 204 No Content\r\n\r\n');
    else if (req.path === '/head') socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n');
    else if (req.path === '/close') socket.end(ok('"bye"', 'connection: close\r\n'));
    else socket.write(ok(JSON.stringify(req)));
  });
  const pool = new KeepAlivePool(srv.target, 1);
  try {
    assert.equal((await pool.request('GET', '/to-close', {})).body.toString(), 'until the end');
    assert.equal((await pool.request('DELETE', '/204', {})).status, 204);
    assert.equal((await pool.request('HEAD', '/head', {})).body.length, 0);
    assert.equal((await pool.request('GET', '/close', {})).body.toString(), '"bye"');
    const echoed = JSON.parse((await pool.request('POST', '/echo', { 'content-type': 'application/json' }, '{"a":"ü"}')).body.toString());
    assert.deepEqual(echoed, { method: 'POST', path: '/echo', body: '{"a":"ü"}' });
    assert.equal(srv.connections, 3, 'new connections after the read-to-close body and after Connection: close only');
  } finally {
    pool.close();
    await srv.close();
  }
});

test('a GET on a kept-alive connection the server closed is sent again on a new one; a POST that meets a hang-up is an error', async () => {
  const srv = await scripted((req, socket) => {
    if (req.path === '/hang-up') return void socket.destroy();
    socket.write(ok('{}'));
  });
  const pool = new KeepAlivePool(srv.target, 1);
  try {
    await pool.request('GET', '/a', {});
    // The server times the idle connection out.
    for (const s of srv.sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 20));
    await pool.request('GET', '/b', {});
    assert.deepEqual(
      srv.seen.map((s) => s.path),
      ['/a', '/b'],
    );
    assert.equal(srv.connections, 2);
    // A server that takes the request and hangs up without answering: sending it again could type the input twice.
    await assert.rejects(pool.request('POST', '/hang-up', {}, '{}'));
    assert.equal(srv.seen.filter((s) => s.path === '/hang-up').length, 1);
  } finally {
    pool.close();
    await srv.close();
  }
});

test('concurrent requests share at most the allowed connections and all get their own answer; close fails the rest', async () => {
  const srv = await scripted(async (req, socket) => {
    await new Promise((r) => setTimeout(r, 2));
    socket.write(ok(JSON.stringify(req.path)));
  });
  const pool = new KeepAlivePool(srv.target, 3);
  try {
    const paths = Array.from({ length: 25 }, (_, i) => `/r${i}`);
    const answers = await Promise.all(paths.map((p) => pool.request('GET', p, {}).then((r) => JSON.parse(r.body.toString()))));
    assert.deepEqual(answers, paths);
    assert.ok(srv.connections <= 3, `${srv.connections} connections`);
    const pending = Array.from({ length: 5 }, () => pool.request('GET', '/late', {}));
    pool.close();
    for (const p of pending) await assert.rejects(p);
  } finally {
    await srv.close();
  }
});

test('unix sockets work; a header value with CR/LF or a path with spaces is refused before anything is sent', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-'));
  const srv = await scripted((req, socket) => void socket.write(ok(JSON.stringify(req.path))), { path: path.join(dir, 's.sock') });
  const pool = new KeepAlivePool(srv.target);
  try {
    assert.equal((await pool.request('GET', '/over-unix', {})).body.toString(), '"/over-unix"');
    await assert.rejects(pool.request('GET', '/x', { authorization: 'Bearer a\r\nx-evil: 1' }), TypeError);
    await assert.rejects(pool.request('GET', '/a b', {}), TypeError);
    assert.equal(srv.seen.length, 1);
  } finally {
    pool.close();
    await srv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('nothing listening is an error, not a hang', async () => {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const pool = new KeepAlivePool({ host: '127.0.0.1', port });
  await assert.rejects(pool.request('GET', '/health', {}), /ECONNREFUSED/);
  pool.close();
});
