/**
 * The daemon's event stream (GET /v1/events, Server-Sent Events) for the whole page: the list and the pane both
 * listen. EventSource cannot send headers, so the stream is authenticated by the sign-in cookie. The browser
 * resumes by Last-Event-ID by itself after a dropped connection; after a longer outage (or a daemon restart, which
 * restarts event ids) listeners are told to resynchronise from scratch.
 */
export interface RuntimeEvent {
  id: number;
  type: string;
  session_id: string | null;
  at: string;
  [field: string]: unknown;
}

export type StreamStatus = 'live' | 'reconnecting';

/** How long to wait before opening a new stream once the browser has given up on one. */
const REOPEN_AFTER_MS = 3000;

export class EventStream {
  private source: EventSource | undefined;
  private readonly listeners = new Set<(e: RuntimeEvent) => void>();
  private readonly resyncs = new Set<() => void>();
  private readonly statuses = new Set<(s: StreamStatus) => void>();
  private reopenTimer: ReturnType<typeof setTimeout> | undefined;
  private hadError = false;
  private stopped = false;
  /**
   * Asked before reopening a stream the browser gave up on; false stops for good (the sign-in ended, say). The
   * browser does not say why a stream failed, so the page has to ask the daemon.
   */
  beforeReopen: () => Promise<boolean> = async () => true;

  start(): void {
    this.stopped = false;
    this.open();
  }

  private open(): void {
    const es = new EventSource('/v1/events');
    this.source = es;
    es.onopen = () => {
      this.emitStatus('live');
      if (this.hadError) for (const fn of [...this.resyncs]) fn();
      this.hadError = false;
    };
    es.onmessage = (m) => {
      let e: RuntimeEvent;
      try {
        e = JSON.parse(m.data as string) as RuntimeEvent;
      } catch {
        return;
      }
      if (e.type === 'reset') for (const fn of [...this.resyncs]) fn();
      else for (const fn of [...this.listeners]) fn(e);
    };
    es.onerror = () => {
      this.hadError = true;
      this.emitStatus('reconnecting');
      // CLOSED means the browser will not retry by itself (a refused or failed response): try again later.
      if (es.readyState === EventSource.CLOSED && !this.stopped) {
        es.close();
        clearTimeout(this.reopenTimer);
        this.reopenTimer = setTimeout(() => {
          void this.beforeReopen().then((again) => again && !this.stopped && this.open());
        }, REOPEN_AFTER_MS);
      }
    };
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
    this.source?.close();
  }
}
