/**
 * The runtime's event stream (GET /v1/events) as an async iterator that survives disconnects: after a dropped
 * connection it reconnects with `Last-Event-ID` set to the last event it yielded, so the consumer sees every event
 * once, in order. When the daemon no longer has those events, a `reset` event says so before the stream goes on.
 * Refusals (401, 403, 400) end the iterator with a TermhostError instead of retrying forever.
 */
// Named imports of Node's modules on the `termhost ls` path: in the CommonJS bundle (scripts/build-cli.mjs) a default
// import costs a copy of every export of the module, on each start.
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { RuntimeEvent } from '../protocol/events.js';
import { hostPort, type Address } from './address.js';
import { readRefusal, TermhostError } from './errors.js';
import { failureDetail, requestFor, tlsFailure, type Trust } from './tls.js';

export interface EventStreamOptions {
  address: Address;
  /** For an https:// daemon: which certificates to trust (client/tls.ts); default Node's store. */
  trust?: Trust;
  token?: string;
  /** Only this session's events. */
  session?: string;
  /** Resume after this event id (as if the last one yielded was it). */
  lastEventId?: number;
  /** Reconnect delays grow from the first to the last, doubling. */
  retryMinMs?: number;
  retryMaxMs?: number;
}

/** Events parsed but not yet taken by the consumer; past this the connection pauses until the consumer catches up. */
const MAX_QUEUED_EVENTS = 10_000;
/**
 * One event's text, at most: the daemon's largest events are a few KiB. A stream that sends more without ending an
 * event is broken or hostile, and ends with `event_too_large` instead of growing the buffer without end.
 */
export const MAX_EVENT_BYTES = 1024 * 1024;

export class EventStream implements AsyncIterable<RuntimeEvent> {
  /** Id of the last event yielded; a reconnect resumes after it. */
  lastEventId: number | undefined;
  /** Number of times the stream reconnected after a drop. */
  reconnects = 0;
  private readonly queue: RuntimeEvent[] = [];
  private waiting: { resolve: (r: IteratorResult<RuntimeEvent>) => void; reject: (e: unknown) => void } | undefined;
  private failure: TermhostError | undefined;
  private closed = false;
  private req: ClientRequest | undefined;
  private res: IncomingMessage | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private delayMs: number;

  constructor(private readonly opts: EventStreamOptions) {
    this.lastEventId = opts.lastEventId;
    this.delayMs = opts.retryMinMs ?? 250;
    this.connect();
  }

  /** Stop: the iterator ends after the events already queued. */
  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.req?.destroy();
    this.wake();
  }

  /** Drop the current connection as a network failure would; the stream reconnects and resumes. For tests. */
  dropConnection(): void {
    this.req?.destroy();
  }

  [Symbol.asyncIterator](): AsyncIterator<RuntimeEvent> {
    return {
      next: () => {
        const item = this.queue.shift();
        if (item) {
          this.lastEventId = item.id > 0 ? item.id : this.lastEventId;
          if (this.queue.length < MAX_QUEUED_EVENTS / 2) this.res?.resume();
          return Promise.resolve({ value: item, done: false });
        }
        if (this.failure) return Promise.reject(this.failure);
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
      },
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private connect(): void {
    if (this.closed) return;
    const a = this.opts.address;
    const target = a.kind === 'unix' ? { socketPath: a.path } : { host: a.host, port: a.port, ...this.opts.trust };
    const send = requestFor(a);
    // Node checks a certificate against the Host header's name: it must be the daemon's, as the other transports send.
    const headers: OutgoingHttpHeaders = { host: a.kind === 'unix' ? 'localhost' : hostPort(a), accept: 'text/event-stream' };
    if (this.opts.token) headers.authorization = `Bearer ${this.opts.token}`;
    // Resume from what was queued, not only from what was yielded: queued events are not fetched twice.
    const resumeFrom = this.queue.length > 0 ? this.queue[this.queue.length - 1].id : this.lastEventId;
    if (resumeFrom !== undefined) headers['last-event-id'] = String(resumeFrom);
    const path = `/v1/events${this.opts.session ? `?session=${encodeURIComponent(this.opts.session)}` : ''}`;
    const req = send({ ...target, method: 'GET', path, headers, agent: false }, (res) => {
      if (res.statusCode !== 200) return this.refused(res);
      this.res = res;
      this.delayMs = this.opts.retryMinMs ?? 250;
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        // Only the new text can hold the end of the event: look from just before it, not from the start again.
        let from = Math.max(0, buf.length - 1);
        buf += chunk;
        let end: number;
        while ((end = buf.indexOf('\n\n', from)) >= 0) {
          this.onBlock(buf.slice(0, end));
          buf = buf.slice(end + 2);
          from = 0;
        }
        if (buf.length > MAX_EVENT_BYTES) return this.fail(new TermhostError(`the event stream sent an event larger than ${MAX_EVENT_BYTES / 1024 / 1024} MiB; is the address a termhost daemon?`, 'event_too_large', 200, false));
        if (this.queue.length >= MAX_QUEUED_EVENTS) res.pause();
      });
      res.on('close', () => this.retry());
    });
    this.req = req;
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A certificate refused now will be refused on every retry: end with the reason, as a 401 does.
      const tls = tlsFailure(a, err.code ?? '', failureDetail(err));
      if (!tls) return this.retry();
      this.fail(tls);
    });
    req.end();
  }

  private onBlock(block: string): void {
    let data = '';
    for (const line of block.split('\n')) if (line.startsWith('data: ')) data += line.slice(6);
    if (!data) return; // a comment (connected, heartbeat)
    let event: RuntimeEvent;
    try {
      event = JSON.parse(data) as RuntimeEvent;
    } catch {
      return;
    }
    this.queue.push(event);
    this.wake();
  }

  private refused(res: IncomingMessage): void {
    readRefusal(res, (err) => {
      // Server trouble (5xx) may pass; a refusal will not.
      if (err.status >= 500) return this.retry();
      this.fail(err);
    });
  }

  /** End with this error (after the events already queued), and drop the connection. */
  private fail(err: TermhostError): void {
    if (this.failure) return;
    this.failure = err;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.req?.destroy();
    this.wake();
  }

  private retry(): void {
    this.res = undefined;
    if (this.closed || this.failure || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.reconnects++;
      this.connect();
    }, this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, this.opts.retryMaxMs ?? 5000);
  }

  private wake(): void {
    const w = this.waiting;
    if (!w) return;
    const item = this.queue.shift();
    if (item) {
      this.waiting = undefined;
      this.lastEventId = item.id > 0 ? item.id : this.lastEventId;
      return w.resolve({ value: item, done: false });
    }
    if (this.failure) {
      this.waiting = undefined;
      return w.reject(this.failure);
    }
    if (this.closed) {
      this.waiting = undefined;
      w.resolve({ value: undefined, done: true });
    }
  }
}
