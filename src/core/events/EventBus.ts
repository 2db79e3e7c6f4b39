/**
 * The runtime's event stream: every event gets a global, monotonic id and goes to every subscriber synchronously.
 * The last N events are kept so a consumer that reconnects resumes exactly after the last id it saw; an id older than
 * the backlog is answered with a reset.
 */
import type { EventFields, RuntimeEvent } from '../../protocol/events.js';
import type { Actor } from '../control/actor.js';
import { visible, type ScopeTarget } from '../control/policy.js';

/** Events kept for resuming consumers. */
export const EVENT_BACKLOG = 10_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type EventInput = DistributiveOmit<EventFields, never>;

export class EventBus {
  /**
   * The last `capacity` events in a ring: `head` is the oldest. A plain array trimmed from the front moved all 10,000
   * entries on every event once it was full, which put ~20 µs on every keystroke of a long-running daemon.
   */
  private readonly ring: Array<RuntimeEvent | undefined>;
  private head = 0;
  private size = 0;
  private nextId = 1;
  /** Replaced, never mutated, on (un)subscribe: a publish iterates the array it started with. */
  private listeners: ReadonlyArray<(e: RuntimeEvent) => void> = [];
  /**
   * The session each event is about, for the scope rule. Beside the event, not in it (nothing of a session's owner
   * goes on the wire), and weakly held: it goes when the event leaves the backlog.
   */
  private readonly targets = new WeakMap<RuntimeEvent, ScopeTarget>();

  constructor(
    private readonly capacity: number = EVENT_BACKLOG,
    private readonly now: () => number = Date.now,
  ) {
    this.ring = new Array<RuntimeEvent | undefined>(Math.max(0, capacity));
  }

  /** `target`: the session the event is about, as the scope rule sees it; events without one concern everyone. */
  publish(sessionId: string | null, fields: EventInput, target?: ScopeTarget): RuntimeEvent {
    const event = { ...fields, id: this.nextId++, session_id: sessionId, at: new Date(this.now()).toISOString() } as RuntimeEvent;
    if (target) this.targets.set(event, target);
    if (this.capacity > 0) {
      this.ring[(this.head + this.size) % this.capacity] = event;
      if (this.size < this.capacity) this.size++;
      else this.head = (this.head + 1) % this.capacity;
    }
    for (const l of this.listeners) l(event);
    return event;
  }

  subscribe(listener: (e: RuntimeEvent) => void): () => void {
    if (!this.listeners.includes(listener)) this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** May this actor see this event? Events about a session it may not see are left out of every stream. */
  visibleTo(actor: Actor, event: RuntimeEvent): boolean {
    const target = this.targets.get(event);
    return target === undefined || visible(actor, target);
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
    // Ids are consecutive, so the backlog holds exactly the last `size` of them.
    const oldestId = this.nextId - this.size;
    // An id from the future (a previous daemon's, say) cannot be continued either.
    if (lastId > this.lastId) return { events: this.backlogFrom(0), reset: true, oldestId };
    if (lastId === this.lastId) return { events: [], reset: false, oldestId };
    const reset = lastId + 1 < oldestId;
    return { events: this.backlogFrom(reset ? 0 : lastId + 1 - oldestId), reset, oldestId };
  }

  /** Backlog events from position `from` (0 = oldest) to the newest. */
  private backlogFrom(from: number): RuntimeEvent[] {
    const out: RuntimeEvent[] = [];
    for (let i = from; i < this.size; i++) out.push(this.ring[(this.head + i) % this.capacity]!);
    return out;
  }
}
