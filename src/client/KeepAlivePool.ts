/**
 * A small HTTP/1.1 client for one daemon address: keep-alive connections, one request at a time on each, at most
 * `maxConnections` of them, and a queue beyond that.
 *
 * Why not node:http: its client machinery (ClientRequest, the Agent's socket bookkeeping, the IncomingMessage stream
 * and the ticks between them) cost about 60 µs per request on the reference machine, more than the daemon's whole
 * handling of a screen read. A keystroke-to-screen round trip is two requests, so that overhead alone decided the
 * 0.5 ms latency target. Here a request is one socket write and a response one parse of the bytes that arrive.
 *
 * The daemon answers with a Content-Length, but anything HTTP/1.1 lets a server send is handled: chunked bodies, a
 * body that ends when the connection does, interim 1xx responses, bodiless 204/304, and `Connection: close`.
 *
 * Idle connections are closed well before the server's keep-alive timeout, so a request rarely meets a connection
 * the server has just closed. If one does, and not one byte of a response came back, an idempotent request (GET, HEAD,
 * PUT, DELETE) is sent again, once, on a new connection. A POST is not: the server may have read it and acted on it
 * before the connection went, and input must never be typed twice.
 */
import net from 'node:net';

export type PoolTarget = { host: string; port: number } | { socketPath: string };

export interface PoolResponse {
  status: number;
  body: Buffer;
}

/** Idle connections are closed after this long, well before the daemon's own keep-alive timeout (72 s). */
const IDLE_CLOSE_MS = 30_000;
/** Header values must be plain text: a CR or LF in one (a token from the environment, say) would inject headers. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const REQUEST_TARGET = /^[\x21-\x7e]+$/;
const CRLF = Buffer.from('\r\n');
/** Methods a server may receive twice without a different outcome (RFC 9110, 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const HEAD_END = Buffer.from('\r\n\r\n');

interface Job {
  method: string;
  /** Request line and headers, ending with the blank line, then the body: written in one go. */
  bytes: string;
  resolve: (r: PoolResponse) => void;
  reject: (err: Error) => void;
  retried: boolean;
}

type BodyMode = { kind: 'none' } | { kind: 'length'; remaining: number } | { kind: 'chunked'; remaining: number; trailers: boolean } | { kind: 'close' };

/** One keep-alive connection and the response it is reading. */
class Connection {
  readonly socket: net.Socket;
  job: Job | undefined;
  /** Completed responses on this connection; a reused connection may have been closed by the server meanwhile. */
  served = 0;
  private buffered: Buffer = Buffer.alloc(0);
  private received = false;
  private status = 0;
  private body: BodyMode | undefined;
  private parts: Buffer[] = [];
  private keepAlive = true;
  private idleTimer: NodeJS.Timeout | undefined;
  closed = false;

  constructor(
    target: PoolTarget,
    private readonly pool: KeepAlivePool,
  ) {
    this.socket = 'socketPath' in target ? net.connect({ path: target.socketPath }) : net.connect({ host: target.host, port: target.port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new Error('the connection closed before the response was complete')));
  }

  send(job: Job): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.socket.ref();
    this.job = job;
    this.received = false;
    this.status = 0;
    this.body = undefined;
    this.parts = [];
    this.keepAlive = true;
    this.socket.write(job.bytes, 'utf8');
  }

  idle(): void {
    this.socket.unref();
    this.idleTimer = setTimeout(() => this.destroy(), IDLE_CLOSE_MS);
    this.idleTimer.unref();
  }

  destroy(err?: Error): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.fail(err ?? new Error('the client was closed'));
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (!this.job) {
      // Bytes nobody asked for: the connection is out of step, so it cannot be trusted with another request.
      this.destroy();
      return;
    }
    this.received = true;
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    try {
      this.parse();
    } catch (err) {
      this.destroy(err as Error);
    }
  }

  private parse(): void {
    for (;;) {
      if (!this.body) {
        const end = this.buffered.indexOf(HEAD_END);
        if (end < 0) return;
        const head = this.buffered.toString('latin1', 0, end);
        this.buffered = this.buffered.subarray(end + 4);
        if (!this.readHead(head)) continue; // an interim 1xx response: the real one follows
      }
      const body = this.body!;
      if (body.kind === 'none') return this.complete();
      if (body.kind === 'close') {
        this.parts.push(this.buffered);
        this.buffered = Buffer.alloc(0);
        return;
      }
      if (body.kind === 'length') {
        const take = Math.min(body.remaining, this.buffered.length);
        if (take > 0) this.parts.push(this.buffered.subarray(0, take));
        this.buffered = this.buffered.subarray(take);
        body.remaining -= take;
        if (body.remaining === 0) return this.complete();
        return;
      }
      if (!this.readChunks(body)) return;
      return this.complete();
    }
  }

  /** Status line and headers; false for an interim (1xx) response. */
  private readHead(head: string): boolean {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!m) throw new Error(`not an HTTP/1.x response: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
    const status = Number(m[2]);
    if (status === 101) throw new Error('the server switched protocols on a plain request');
    if (status >= 100 && status < 200) return false;
    let length: number | undefined;
    let chunked = false;
    let connection = m[1] === '0' ? 'close' : 'keep-alive';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error(`malformed response header: ${JSON.stringify(line.slice(0, 80))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== undefined && Number(value) !== length)) throw new Error(`bad Content-Length: ${value}`);
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      else if (name === 'connection') connection = value.toLowerCase();
    }
    this.status = status;
    this.keepAlive = !/(?:^|,)\s*close\s*(?:,|$)/.test(connection) && (m[1] === '1' || /keep-alive/.test(connection));
    const job = this.job!;
    if (job.method === 'HEAD' || status === 204 || status === 304) this.body = { kind: 'none' };
    else if (chunked) this.body = { kind: 'chunked', remaining: -1, trailers: false };
    else if (length !== undefined) this.body = length === 0 ? { kind: 'none' } : { kind: 'length', remaining: length };
    else {
      this.body = { kind: 'close' };
      this.keepAlive = false;
    }
    return true;
  }

  /** Chunked body: true once the last chunk and the trailers are in. */
  private readChunks(body: { remaining: number; trailers: boolean }): boolean {
    for (;;) {
      if (body.trailers) {
        const eol = this.buffered.indexOf(CRLF);
        if (eol < 0) return false;
        this.buffered = this.buffered.subarray(eol + 2);
        if (eol === 0) return true; // the blank line after the trailers
        continue;
      }
      if (body.remaining < 0) {
        const eol = this.buffered.indexOf(CRLF);
        if (eol < 0) return false;
        const size = this.buffered.toString('latin1', 0, eol).split(';')[0]!.trim();
        if (!/^[0-9a-fA-F]+$/.test(size)) throw new Error(`bad chunk size: ${JSON.stringify(size.slice(0, 20))}`);
        this.buffered = this.buffered.subarray(eol + 2);
        body.remaining = parseInt(size, 16);
        if (body.remaining === 0) body.trailers = true;
        continue;
      }
      // Chunk data, then its CRLF.
      if (this.buffered.length < body.remaining + 2) {
        if (body.remaining > 0 && this.buffered.length > 0) {
          const take = Math.min(body.remaining, this.buffered.length);
          this.parts.push(this.buffered.subarray(0, take));
          this.buffered = this.buffered.subarray(take);
          body.remaining -= take;
        }
        return false;
      }
      this.parts.push(this.buffered.subarray(0, body.remaining));
      if (this.buffered[body.remaining] !== 0x0d || this.buffered[body.remaining + 1] !== 0x0a) throw new Error('chunk not followed by CRLF');
      this.buffered = this.buffered.subarray(body.remaining + 2);
      body.remaining = -1;
    }
  }

  private complete(): void {
    const job = this.job!;
    const response: PoolResponse = { status: this.status, body: this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts) };
    this.job = undefined;
    this.body = undefined;
    this.parts = [];
    this.served++;
    const reusable = this.keepAlive && this.buffered.length === 0;
    this.buffered = Buffer.alloc(0);
    job.resolve(response);
    if (reusable) this.pool.released(this);
    else this.destroy();
  }

  private onEnd(): void {
    if (this.job && this.body?.kind === 'close') return this.complete();
    this.destroy(new Error('the server closed the connection before the response was complete'));
  }

  /** The connection is done for; hand its request back for one retry when that is safe, else fail it. */
  private fail(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    const job = this.job;
    this.job = undefined;
    this.pool.gone(this);
    if (!job) return;
    if (this.served > 0 && !this.received && !job.retried && IDEMPOTENT.has(job.method)) {
      job.retried = true;
      this.pool.enqueue(job);
    } else job.reject(err);
  }
}

export class KeepAlivePool {
  private readonly idle: Connection[] = [];
  private readonly connections = new Set<Connection>();
  private readonly queue: Job[] = [];
  private closed = false;

  constructor(
    private readonly target: PoolTarget,
    private readonly maxConnections = 8,
  ) {}

  /** One request; the body, if any, is sent as UTF-8 with its Content-Length. */
  request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<PoolResponse> {
    // TypeErrors, as node:http throws them: the caller's mistake, not a connection problem.
    if (!REQUEST_TARGET.test(path)) return Promise.reject(new TypeError(`request path has characters that need escaping: ${JSON.stringify(path)}`));
    let head = `${method} ${path} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      if (!HEADER_VALUE.test(value)) return Promise.reject(new TypeError(`header ${name} has characters a header cannot carry`));
      head += `${name}: ${value}\r\n`;
    }
    if (body !== undefined) head += `content-length: ${Buffer.byteLength(body)}\r\n`;
    head += '\r\n';
    return new Promise((resolve, reject) => this.enqueue({ method, bytes: body === undefined ? head : head + body, resolve, reject, retried: false }));
  }

  /** Close every connection; requests still waiting fail. */
  close(): void {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the client was closed'));
    for (const c of [...this.connections]) c.destroy();
  }

  enqueue(job: Job): void {
    if (this.closed) return job.reject(new Error('the client was closed'));
    const conn = this.idle.pop() ?? (this.connections.size < this.maxConnections ? this.open() : undefined);
    if (conn) conn.send(job);
    else this.queue.push(job);
  }

  released(conn: Connection): void {
    const next = this.queue.shift();
    if (next) return conn.send(next);
    conn.idle();
    this.idle.push(conn);
  }

  gone(conn: Connection): void {
    this.connections.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    // A slot is free again: start the next queued request on a new connection.
    const next = this.queue.shift();
    if (next && !this.closed) this.enqueue(next);
  }

  private open(): Connection {
    const conn = new Connection(this.target, this);
    this.connections.add(conn);
    return conn;
  }
}
