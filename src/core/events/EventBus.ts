/**
 * The runtime's event stream: every event gets a global, monotonic id and goes to every subscriber synchronously.
 * The last N events are kept so a consumer that reconnects resumes exactly after the last id it saw; an id older than
 * the backlog is answered with a reset.
 */
import type { EventFields, RuntimeEvent } from '../../protocol/events.js';

/** Events kept for resuming consumers. */
export const EVENT_BACKLOG = 10_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type EventInput = DistributiveOmit<EventFields, never>;

export class EventBus {
  private readonly backlog: RuntimeEvent[] = [];
  private nextId = 1;
  private readonly listeners = new Set<(e: RuntimeEvent) => void>();

  constructor(
    private readonly capacity: number = EVENT_BACKLOG,
    private readonly now: () => number = Date.now,
  ) {}

  publish(sessionId: string | null, fields: EventInput): RuntimeEvent {
    const event = { ...fields, id: this.nextId++, session_id: sessionId, at: new Date(this.now()).toISOString() } as RuntimeEvent;
    this.backlog.push(event);
    if (this.backlog.length > this.capacity) this.backlog.splice(0, this.backlog.length - this.capacity);
    for (const l of [...this.listeners]) l(event);
    return event;
  }

  subscribe(listener: (e: RuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The id of the newest event, 0 before any. */
  get lastId(): number {
    return this.nextId - 1;
  }

  /**
   * Events after `lastId`. `reset` is true when events after `lastId` have already left the backlog, so the caller
   * cannot be given an exact continuation.
   */
  since(lastId: number): { events: RuntimeEvent[]; reset: boolean; oldestId: number } {
    const oldestId = this.backlog[0]?.id ?? this.nextId;
    // An id from the future (a previous daemon's, say) cannot be continued either.
    if (lastId > this.lastId) return { events: this.backlog.slice(), reset: true, oldestId };
    if (lastId === this.lastId) return { events: [], reset: false, oldestId };
    const reset = lastId + 1 < oldestId;
    const from = reset ? 0 : lastId + 1 - oldestId;
    return { events: this.backlog.slice(from), reset, oldestId };
  }
}
