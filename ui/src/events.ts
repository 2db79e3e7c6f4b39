/**
 * The daemon's event stream (GET /v1/events, Server-Sent Events) for the whole page: the list and the pane both
 * listen. It is read with fetch, not EventSource, because the request must carry the page key in a header (the
 * cookie alone does not authenticate; see api.ts), and EventSource cannot send headers. So this file does what
 * EventSource would: parse the stream, remember the last event id, and reconnect with Last-Event-ID after a dropped
 * connection. After a refusal (the sign-in ended, say) or a daemon restart, which restarts event ids, listeners are
 * told to resynchronise from scratch.
 */
import type { EventType } from '../../src/protocol/events.js';
import { keyHeader } from './api.js';

export interface RuntimeEvent {
  id: number;
  type: string;
  session_id: string | null;
  at: string;
  [field: string]: unknown;
}

export type StreamStatus = 'live' | 'reconnecting';

/**
 * The events some view of the page acts on. The stream asks for these only (GET /v1/events?types=): the per-keystroke
 * and 60-a-second ones (output, screen_changed, input_accepted, input_rejected) would cost the daemon and the page
 * thousands of events a second with many busy sessions, and no view uses them. A view that needs another adds it here.
 */
export const PAGE_EVENT_TYPES = [
  'session_opened',
  'session_closed',
  'process_exited',
  'screen_updated',
  'resized',
  'title_changed',
  'lease_acquired',
  'lease_released',
  'input_preempted',
  'secret_input_started',
  'secret_input_ended',
  'input_needed',
  'input_resumed',
  'client_attached',
  'client_detached',
] as const satisfies readonly EventType[];

/** How long to wait before opening a new stream once one failed or was refused (EventSource's own default is 3 s). */
const REOPEN_AFTER_MS = 3000;
/** After a dropped connection, the first retry comes sooner: the daemon was fine a moment ago. */
const RETRY_AFTER_DROP_MS = 500;
/** A stream's unparsed tail past this is junk, not an event: the stream is dropped and reopened. */
const MAX_PENDING_CHARS = 4 * 1024 * 1024;

export class EventStream {
  private abort: AbortController | undefined;
  private readonly listeners = new Set<(e: RuntimeEvent) => void>();
  private readonly resyncs = new Set<() => void>();
  private readonly statuses = new Set<(s: StreamStatus) => void>();
  private reopenTimer: ReturnType<typeof setTimeout> | undefined;
  private hadError = false;
  private stopped = true;
  /** The last event id seen; sent as Last-Event-ID so a reconnect resumes exactly there. */
  private lastId: string | undefined;
  /**
   * Asked before reopening a stream the daemon refused; false stops for good (the sign-in ended, say). A refusal
   * does not say why, so the page has to ask the daemon.
   */
  beforeReopen: () => Promise<boolean> = async () => true;

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.open();
  }

  private async open(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    let refused = false;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', ...keyHeader() };
      if (this.lastId !== undefined) headers['last-event-id'] = this.lastId;
      const res = await fetch(`/v1/events?types=${PAGE_EVENT_TYPES.join(',')}`, { headers, credentials: 'same-origin', cache: 'no-store', signal: abort.signal });
      if (!res.ok || !res.body) {
        refused = true;
        this.lastId = undefined; // as EventSource does after a refusal: the next stream starts afresh, with a resync
        await res.body?.cancel().catch(() => undefined);
      } else {
        this.emitStatus('live');
        if (this.hadError) for (const fn of [...this.resyncs]) fn();
        this.hadError = false;
        await this.read(res.body);
      }
    } catch {
      /* the daemon went away, or stop() aborted the request */
    }
    if (this.stopped || abort !== this.abort) return;
    this.hadError = true;
    this.emitStatus('reconnecting');
    clearTimeout(this.reopenTimer);
    this.reopenTimer = setTimeout(
      () => {
        const ask = refused ? this.beforeReopen() : Promise.resolve(true);
        void ask.then((again) => {
          if (again && !this.stopped && abort === this.abort) void this.open();
        });
      },
      refused ? REOPEN_AFTER_MS : RETRY_AFTER_DROP_MS,
    );
  }

  /** Parse the stream as the SSE spec does: events end with a blank line; `id:` and `data:` fields, `:` comments. */
  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buf.search(/\r?\n\r?\n/)) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + (buf.startsWith('\r\n', end) ? 4 : 2));
        this.dispatch(block);
      }
      if (buf.length > MAX_PENDING_CHARS) {
        await reader.cancel();
        return;
      }
    }
  }

  private dispatch(block: string): void {
    const data: string[] = [];
    let id: string | undefined;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
    if (id !== undefined) this.lastId = id;
    if (data.length === 0) return;
    let e: RuntimeEvent;
    try {
      e = JSON.parse(data.join('\n')) as RuntimeEvent;
    } catch {
      return;
    }
    if (e.type === 'reset') for (const fn of [...this.resyncs]) fn();
    else for (const fn of [...this.listeners]) fn(e);
  }

  private emitStatus(s: StreamStatus): void {
    for (const fn of [...this.statuses]) fn(s);
  }

  /** Every event; returns the unsubscribe function. */
  on(fn: (e: RuntimeEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Called when events may have been missed: reload whatever you show. */
  onResync(fn: () => void): () => void {
    this.resyncs.add(fn);
    return () => this.resyncs.delete(fn);
  }

  onStatus(fn: (s: StreamStatus) => void): () => void {
    this.statuses.add(fn);
    return () => this.statuses.delete(fn);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.reopenTimer);
    this.abort?.abort();
    this.abort = undefined;
  }
}
