/**
 * The clients against a server that is not a termhost daemon, or is one gone wrong: every size has a bound on the
 * client's side too. An event stream that never ends an event, and refusals whose bodies never end, used to grow the
 * client's memory without end and never answer; each now ends with an error that says what happened, and the
 * connection is dropped. An attach whose consumer is slower than the server pushes back instead of queueing all. The server here is a plain node:http server written to misbehave, not a model of ours.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { ATTACH_QUEUE_LIMITS, AttachClient } from '../../src/client/AttachClient.js';
import { BinaryTag } from '../../src/protocol/attach.js';
import { EventStream } from '../../src/client/EventStream.js';
import { MAX_ERROR_BODY_BYTES, TermhostError } from '../../src/client/errors.js';

/** Per connection: how many bytes the server wrote, and whether the client hung up. */
const seen: Array<{ path: string; written: number; closed: boolean }> = [];
const STOP_AT = 64 * 1024 * 1024;
const piece = Buffer.alloc(64 * 1024, 'x');

/** Write pieces until the client hangs up (or STOP_AT, far past every bound), as fast as the socket takes them. */
function flood(out: NodeJS.WritableStream & { destroyed?: boolean }, record: { written: number; closed: boolean }): void {
  const pump = () => {
    while (!record.closed && record.written < STOP_AT) {
      record.written += piece.length;
      if (!out.write(piece)) return void out.once('drain', pump);
    }
  };
  pump();
}

let server: http.Server;
let port = 0;
before(async () => {
  server = http.createServer((req, res) => {
    const record = { path: req.url ?? '', written: 0, closed: false };
    seen.push(record);
    res.on('close', () => (record.closed = true));
    if (req.url?.startsWith('/v1/events') && req.headers.authorization === 'Bearer endless-event') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ');
      return flood(res, record);
    }
    res.writeHead(401, { 'content-type': 'application/json' });
    res.write('{"error":"no","code":"unauthorized","pad":"');
    flood(res, record);
  });
  server.on('upgrade', (req, socket) => {
    const record = { path: req.url ?? '', written: 0, closed: false };
    seen.push(record);
    socket.on('close', () => (record.closed = true));
    socket.on('error', () => {});
    socket.write('HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\n\r\n{"error":"no","pad":"');
    flood(socket, record);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** The promise's value, or a failure naming what never answered. */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

const address = () => ({ kind: 'tcp' as const, host: '127.0.0.1', port });

test('an event stream that never ends its event ends with event_too_large, and the connection is dropped', async () => {
  const stream = new EventStream({ address: address(), token: 'endless-event', retryMinMs: 10 });
  const err = await within(20_000, 'the event stream', stream[Symbol.asyncIterator]().next().then(() => undefined, (e: unknown) => e));
  assert.ok(err instanceof TermhostError, `an error, got ${String(err)}`);
  assert.equal(err.code, 'event_too_large');
  assert.match(err.message, /larger than 1 MiB; is the address a termhost daemon\?/);
  const record = seen.find((s) => s.path.startsWith('/v1/events'))!;
  await within(5_000, 'the hang-up', (async () => { while (!record.closed) await new Promise((r) => setImmediate(r)); })());
  // What the kernel's socket buffers held on the way is beside the point; the client stopped reading near the bound.
  assert.ok(record.written < STOP_AT, `the client hung up after ${record.written} bytes`);
  stream.close();
});

test('a refusal of the event stream whose body never ends still ends the stream, with its status', async () => {
  const before = seen.length;
  const stream = new EventStream({ address: address(), token: 'other', retryMinMs: 10 });
  const err = await within(20_000, 'the refused event stream', stream[Symbol.asyncIterator]().next().then(() => undefined, (e: unknown) => e));
  assert.ok(err instanceof TermhostError, `an error, got ${String(err)}`);
  assert.equal(err.status, 401);
  const record = seen[before]!;
  await within(5_000, 'the hang-up', (async () => { while (!record.closed) await new Promise((r) => setImmediate(r)); })());
  assert.ok(record.written < STOP_AT, `the client hung up after ${record.written} bytes (it reads at most ${MAX_ERROR_BODY_BYTES})`);
  stream.close();
});

test('an attach refused with a body that never ends closes with the status', async () => {
  const before = seen.length;
  const client = new AttachClient({ address: address(), session: 's1', bearer: 'x' });
  client.ws.on('error', () => {});
  let last: Awaited<ReturnType<AttachClient['next']>>;
  const closed = within(20_000, 'the refused attach', (async () => {
    for (;;) {
      last = await client.next();
      if (!last || last.kind === 'closed') return last;
    }
  })());
  const ev = await closed;
  assert.ok(ev && ev.kind === 'closed', `closed, got ${JSON.stringify(ev)}`);
  assert.equal(ev.code, 403);
  const record = seen[before]!;
  await within(5_000, 'the hang-up', (async () => { while (!record.closed) await new Promise((r) => setImmediate(r)); })());
  assert.ok(record.written < STOP_AT, `the client hung up after ${record.written} bytes`);
});

test('an attach socket flooded faster than its consumer takes frames stops reading at its bound, and loses no frame', async () => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const wsPort = (wss.address() as AddressInfo).port;
  // 64 MiB in all: more than the client's bound, the kernel's socket buffers and the server's own buffer together.
  const total = ATTACH_QUEUE_LIMITS.frames * 16;
  let sent = 0;
  let server: WebSocket | undefined;
  wss.on('connection', (ws) => {
    server = ws;
    // Frames of 1 KiB, numbered by their seq, written as fast as ws takes them.
    const frame = (n: number) => {
      const b = Buffer.alloc(9 + 1024, 'y');
      b[0] = BinaryTag.stdout;
      b.writeBigUInt64BE(BigInt(n), 1);
      return b;
    };
    const pump = () => {
      while (sent < total && ws.bufferedAmount < 4 * 1024 * 1024) ws.send(frame(sent++), { binary: true });
      if (sent < total) setImmediate(pump);
    };
    pump();
  });
  const client = new AttachClient({ address: { kind: 'tcp', host: '127.0.0.1', port: wsPort }, session: 's1', bearer: 'x' });
  try {
    // Nobody takes frames: the client fills to its bound and stops reading; the rest waits in the server's buffers.
    await within(20_000, 'the client queue to fill', (async () => {
      while (client.queued.frames < ATTACH_QUEUE_LIMITS.frames) await new Promise((r) => setTimeout(r, 5));
    })());
    const filled = client.queued.frames;
    // Either the server backs up (the client stopped reading), or the client takes the whole flood in.
    await within(30_000, 'the server to back up, or the client to take everything', (async () => {
      while (!(client.ws.isPaused && server && server.bufferedAmount >= 4 * 1024 * 1024) && client.queued.frames < total) await new Promise((r) => setTimeout(r, 5));
    })());
    assert.ok(sent < total, `the server could not send it all (sent ${sent} of ${total}; the client holds ${client.queued.frames})`);
    // ws may still hand over the frames it had already read from the socket when it paused.
    assert.ok(client.queued.frames <= filled + 512, `the queue stayed near its bound: ${client.queued.frames} frames (bound ${ATTACH_QUEUE_LIMITS.frames})`);
    // Now consume: every frame comes, in order, none lost to the pause.
    for (let n = 0; n < total; n++) {
      const ev = await within(20_000, `frame ${n}`, client.next());
      assert.ok(ev && ev.kind === 'stdout', `frame ${n}: ${JSON.stringify(ev && ev.kind)}`);
      assert.equal(ev.seq, n);
    }
  } finally {
    client.close();
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  }
});
