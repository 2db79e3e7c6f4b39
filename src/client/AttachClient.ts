/**
 * The client side of the attach protocol: open the socket, authenticate in the first frame, and read frames as an
 * async iterator. Used by `termhost attach` and by anyone's code; a browser speaks the same protocol.
 */
import WebSocket from 'ws';
import { decodeServerFrame, BinaryTag, type AuthFrame, type ServerFrame } from '../protocol/attach.js';
import { hostPort, type Address } from './address.js';
import { readRefusal } from './errors.js';
import { failureDetail, tlsFailure, type Trust } from './tls.js';

export interface AttachOptions extends Omit<AuthFrame, 'kind'> {
  address: Address;
  /** For a wss:// daemon: which certificates to trust (client/tls.ts); default Node's store. */
  trust?: Trust;
  session: string;
  /** The daemon's bearer token, sent as an Authorization header (native clients can). */
  bearer?: string;
  /** Sent as the Origin header, to act like a browser page. */
  origin?: string;
}

export type AttachEvent = ServerFrame | { kind: 'closed'; code: number; reason: string };

/**
 * Frames received and not yet taken, at most: past either bound the socket stops reading until the consumer has taken
 * half, so a slow consumer pushes back on the daemon (which has its own rule for slow clients) instead of growing
 * this process's memory.
 */
export const ATTACH_QUEUE_LIMITS = { frames: 4096, bytes: 8 * 1024 * 1024 };

export class AttachClient implements AsyncIterable<AttachEvent> {
  readonly ws: WebSocket;
  private readonly queue: AttachEvent[] = [];
  /** The wire size of each queued frame, in the queue's order, and their sum. */
  private readonly sizes: number[] = [];
  private queuedBytes = 0;
  private paused = false;
  private waiting: ((v: IteratorResult<AttachEvent>) => void) | undefined;
  private done = false;

  constructor(opts: AttachOptions) {
    const a = opts.address;
    const base = a.kind === 'unix' ? `ws+unix://${a.path}:` : `${a.tls ? 'wss' : 'ws'}://${hostPort(a)}`;
    const headers: Record<string, string> = {};
    if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
    if (opts.origin) headers.origin = opts.origin;
    this.ws = new WebSocket(`${base}/v1/sessions/${encodeURIComponent(opts.session)}/attach`, { headers, maxPayload: 2 * 1024 * 1024, ...opts.trust });
    const auth: AuthFrame = { kind: 'auth' };
    for (const k of ['token', 'role', 'view', 'since_seq', 'cols', 'rows'] as const) {
      if (opts[k] !== undefined) (auth as unknown as Record<string, unknown>)[k] = opts[k];
    }
    this.ws.on('open', () => this.ws.send(JSON.stringify(auth)));
    this.ws.on('message', (data: Buffer, isBinary: boolean) => {
      const d = decodeServerFrame(data, isBinary);
      if (d.ok) this.push(d.frame, data.length);
      else this.push({ kind: 'error', message: `undecodable frame from server: ${d.error}`, code: 'invalid_frame' }, data.length);
      if (!this.paused && (this.queue.length >= ATTACH_QUEUE_LIMITS.frames || this.queuedBytes >= ATTACH_QUEUE_LIMITS.bytes)) {
        this.paused = true;
        this.ws.pause();
      }
    });
    this.ws.on('unexpected-response', (_req, res) => {
      readRefusal(res, (err) => {
        const reason = err.message === `HTTP ${err.status}` ? err.message : `HTTP ${err.status}: ${err.message}`;
        this.finish(res.statusCode ?? 0, reason);
      });
    });
    this.ws.on('error', (err: NodeJS.ErrnoException) => {
      // A certificate refused is said as the HTTP client says it, with the way out (--ca, or the name to use).
      const tls = tlsFailure(a, err.code ?? '', failureDetail(err));
      this.finish(1006, tls ? `${tls.message} [${tls.code}]` : err.message);
    });
    this.ws.on('close', (code, reason) => this.finish(code, reason.toString()));
  }

  /** Bytes for the PTY (drivers only), sent as a binary stdin frame. */
  sendStdin(bytes: Buffer | string): void {
    const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(Buffer.concat([Buffer.from([BinaryTag.stdin]), data]), { binary: true });
  }

  sendResize(cols: number, rows: number): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ kind: 'resize', cols, rows }));
  }

  /** Send a raw text or binary frame, for testing what a well-behaved client never sends. */
  sendRaw(data: string | Buffer, binary = false): void {
    this.ws.send(data, { binary });
  }

  close(): void {
    this.ws.close(1000);
  }

  /** The next event, or undefined once the socket has closed and every event was read. */
  async next(): Promise<AttachEvent | undefined> {
    const r = await this[Symbol.asyncIterator]().next();
    return r.done ? undefined : r.value;
  }

  [Symbol.asyncIterator](): AsyncIterator<AttachEvent> {
    return {
      next: () => {
        const item = this.take();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
    };
  }

  /** Frames waiting to be taken: bounded by ATTACH_QUEUE_LIMITS (and the one frame that crossed it). */
  get queued(): { frames: number; bytes: number } {
    return { frames: this.queue.length, bytes: this.queuedBytes };
  }

  private push(ev: AttachEvent, size = 0): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: ev, done: false });
    } else {
      this.queue.push(ev);
      this.sizes.push(size);
      this.queuedBytes += size;
    }
  }

  private take(): AttachEvent | undefined {
    const item = this.queue.shift();
    if (item === undefined) return undefined;
    this.queuedBytes -= this.sizes.shift() ?? 0;
    if (this.paused && this.queue.length <= ATTACH_QUEUE_LIMITS.frames / 2 && this.queuedBytes <= ATTACH_QUEUE_LIMITS.bytes / 2) {
      this.paused = false;
      this.ws.resume();
    }
    return item;
  }

  private finish(code: number, reason: string): void {
    if (this.done) return;
    this.push({ kind: 'closed', code, reason });
    this.done = true;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: undefined, done: true });
    }
  }
}
