/**
 * Who did what, as the runtime sees it: one stream of audit records for the store to keep (store/Store.ts) and any
 * embedding program to watch. The runtime records what happens to sessions (Runtime.ts wires each session's events
 * here); the server records what only it sees (tokens, UI sign-ins, purges) through `record`.
 *
 * Input is recorded by actor, as byte counts, coalesced per session, actor and source over INPUT_COALESCE_MS: one row
 * per second of typing, not one per key, so the trail never keeps a keystroke rhythm. During a secret-input window no
 * input is recorded at all (Runtime.ts drops it), only the window's opening and closing.
 */
import type { AuditAction } from '../../protocol/audit.js';
import { actorRef, type Actor } from '../control/actor.js';
import { Emitter } from '../events/Emitter.js';

/** Input by one actor into one session within this long is one record. */
export const INPUT_COALESCE_MS = 1000;

export type AuditDetail = Record<string, string | number | boolean | null>;

export interface AuditRecord {
  /** Epoch ms. */
  at: number;
  sessionId: string | null;
  /** Name and kind only: nothing of the credential. */
  actor: Actor;
  action: AuditAction;
  detail: AuditDetail;
  /** The session's output offset at that moment (where an asciicast marker goes), or null. */
  seq: number | null;
}

interface PendingInput {
  sessionId: string;
  actor: Actor;
  source: string;
  bytes: number;
  writes: number;
  at: number;
  seq: number;
}

export class AuditTrail {
  readonly events = new Emitter<{ record: [AuditRecord] }>();
  private readonly pending = new Map<string, PendingInput>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  record(sessionId: string | null, actor: Actor, action: AuditAction, detail: AuditDetail = {}, seq: number | null = null): void {
    // Input before this moment is recorded before it, so the trail stays in order.
    if (sessionId !== null) this.flushSession(sessionId);
    this.events.emit('record', { at: this.now(), sessionId, actor: actorRef(actor), action, detail, seq });
  }

  /** Input written for an actor: counted, and recorded once per INPUT_COALESCE_MS. */
  input(sessionId: string, actor: Actor, source: string, bytes: number, seq: number): void {
    const key = `${sessionId}\0${actor.kind}\0${actor.name}\0${source}`;
    const held = this.pending.get(key);
    if (held) {
      held.bytes += bytes;
      held.writes++;
    } else this.pending.set(key, { sessionId, actor: actorRef(actor), source, bytes, writes: 1, at: this.now(), seq });
    this.timer ??= setTimeout(() => this.flushAll(), INPUT_COALESCE_MS);
  }

  /** Record a session's counted input now (before another record about it, or before a secret window opens). */
  flushSession(sessionId: string): void {
    for (const [key, p] of this.pending) if (p.sessionId === sessionId) this.emitInput(key, p);
  }

  flushAll(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const [key, p] of this.pending) this.emitInput(key, p);
  }

  private emitInput(key: string, p: PendingInput): void {
    this.pending.delete(key);
    this.events.emit('record', { at: p.at, sessionId: p.sessionId, actor: p.actor, action: 'input', detail: { source: p.source, bytes: p.bytes, writes: p.writes }, seq: p.seq });
  }

  /** Record what is counted, and stop the timer. */
  dispose(): void {
    this.flushAll();
  }
}
