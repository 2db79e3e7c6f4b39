/**
 * Input leases of one session: who may send non-human input, and when.
 *
 * - A shared lease lets its holder send complete batches alongside other shared holders; the session's single write
 *   queue orders them.
 * - An exclusive lease reserves non-human input for its holder.
 * - A person always wins: human input ends any non-human exclusive lease at once (reason `preempted`), and the
 *   agent's next input is refused with `lease_preempted` so it learns that it lost the keyboard.
 * Leases expire by TTL (100 ms .. 10 min), and expiry is reported as a release with reason `expired`.
 */
import crypto from 'node:crypto';
import { TermError, fail, ok, type Result } from '../errors.js';
import { Limits } from '../limits.js';
import { actorRef, isHuman, type Actor } from './actor.js';

export type LeaseMode = 'shared' | 'exclusive';
export type ReleaseReason = 'released' | 'expired' | 'preempted' | 'revoked' | 'session_closed';
export type InputPolicy = 'auto' | 'lease';

export const LEASE_TTL_MIN_MS = 100;
export const LEASE_TTL_MAX_MS = 10 * 60 * 1000;

export interface Lease {
  lease_id: string;
  actor: Actor;
  mode: LeaseMode;
  expires_at: string;
}

interface Held {
  lease: Lease;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

export interface LeaseEvents {
  acquired(lease: Lease): void;
  released(lease: Lease, reason: ReleaseReason): void;
  preempted(lease: Lease, by: Actor): void;
}

const sameActor = (a: Actor, b: Actor) => a.name === b.name && a.kind === b.kind;

export class LeaseTable {
  private readonly held = new Map<string, Held>();
  /** Actors whose lease a person preempted (or a moderator revoked), told so on their next input. */
  private readonly preemptedActors = new Map<string, 'preempted' | 'revoked'>();

  constructor(
    private readonly events: LeaseEvents,
    private readonly now: () => number = Date.now,
  ) {}

  list(): Lease[] {
    return [...this.held.values()].map((h) => h.lease);
  }

  /** Take a lease, or renew `leaseId` if the actor holds it. */
  acquire(actor: Actor, mode: LeaseMode, ttlMs: number, leaseId?: string): Result<Lease> {
    if (leaseId !== undefined) {
      const h = this.held.get(leaseId);
      if (!h || !sameActor(h.lease.actor, actor)) {
        return fail(new TermError('lease_not_found', `no lease "${leaseId}" held by ${actor.name}; it may have expired or been preempted`));
      }
      if (h.lease.mode !== mode) {
        const conflict = this.conflictFor(actor, mode, leaseId);
        if (conflict) return fail(conflict);
      }
      clearTimeout(h.timer);
      h.lease.mode = mode;
      this.arm(h, ttlMs);
      return ok(h.lease);
    }
    if (isHuman(actor)) {
      // A person asking for the keyboard takes it: conflicting agent leases end now.
      for (const h of [...this.held.values()]) {
        if (isHuman(h.lease.actor) || sameActor(h.lease.actor, actor)) continue;
        if (mode === 'exclusive' || h.lease.mode === 'exclusive') this.preempt(h, actor);
      }
    } else {
      const conflict = this.conflictFor(actor, mode);
      if (conflict) return fail(conflict);
    }
    if (this.held.size >= Limits.maxLeasesPerSession) {
      // A person still gets the keyboard: an agent's lease makes room, the longest held first.
      const agents = isHuman(actor) ? [...this.held.values()].filter((h) => !isHuman(h.lease.actor)) : [];
      if (agents.length > 0) this.preempt(agents[0]!, actor);
      else return fail(new TermError('lease_limit', `this session has ${this.held.size} leases, the limit; release one (or let one expire) first`, { max: Limits.maxLeasesPerSession }));
    }
    // Taking a new lease is how an agent acknowledges that it was preempted.
    this.preemptedActors.delete(`${actor.kind}:${actor.name}`);
    const h: Held = {
      lease: { lease_id: `l_${crypto.randomBytes(8).toString('hex')}`, actor: actorRef(actor), mode, expires_at: '' },
      expiresAt: 0,
      timer: undefined as unknown as NodeJS.Timeout,
    };
    this.arm(h, ttlMs);
    this.held.set(h.lease.lease_id, h);
    this.events.acquired(h.lease);
    return ok(h.lease);
  }

  release(actor: Actor, leaseId: string): Result<Lease> {
    const h = this.held.get(leaseId);
    if (!h || (!sameActor(h.lease.actor, actor) && !isHuman(actor))) {
      return fail(new TermError('lease_not_found', `no lease "${leaseId}" held by ${actor.name}`));
    }
    this.drop(h, 'released');
    return ok(h.lease);
  }

  /**
   * A moderator ends an agent's lease (reason `revoked`); the agent's next input is refused with `lease_preempted`, so
   * it learns the keyboard was taken rather than finding its lease silently gone. People's leases are not revocable.
   */
  revoke(leaseId: string): Result<Lease> {
    const h = this.held.get(leaseId);
    if (!h || isHuman(h.lease.actor)) return fail(new TermError('lease_not_found', `no agent lease "${leaseId}" on this session (GET .../leases lists them)`, { field: 'lease_id' }));
    this.preemptedActors.set(`${h.lease.actor.kind}:${h.lease.actor.name}`, 'revoked');
    this.drop(h, 'revoked');
    return ok(h.lease);
  }

  /**
   * May this actor write now? Humans always may, and their input preempts agents' exclusive leases. Others need a
   * lease (explicit, or an implicit shared one for this request under the `auto` policy).
   */
  authorizeInput(actor: Actor, policy: InputPolicy, leaseId?: string): Result<void> {
    if (isHuman(actor)) {
      for (const h of [...this.held.values()]) if (!isHuman(h.lease.actor) && h.lease.mode === 'exclusive') this.preempt(h, actor);
      return ok(undefined);
    }
    const key = `${actor.kind}:${actor.name}`;
    const lost = this.preemptedActors.get(key);
    if (lost) {
      this.preemptedActors.delete(key);
      return fail(
        new TermError(
          'lease_preempted',
          lost === 'revoked'
            ? 'a moderator revoked your lease; take a new lease when a moderator lets you type again'
            : 'a person took over the keyboard and your lease was preempted; take a new lease when they are done',
        ),
      );
    }
    if (leaseId !== undefined) {
      const h = this.held.get(leaseId);
      if (!h || !sameActor(h.lease.actor, actor)) {
        return fail(new TermError('lease_required', `lease "${leaseId}" is not held by ${actor.name} (expired or released); take a new lease`));
      }
      return ok(undefined);
    }
    const own = [...this.held.values()].find((h) => sameActor(h.lease.actor, actor));
    if (own) return ok(undefined);
    if (policy === 'lease') {
      return fail(new TermError('lease_required', 'this session requires a lease for agent input: POST /v1/sessions/{id}/leases first'));
    }
    const conflict = this.conflictFor(actor, 'shared');
    return conflict ? fail(conflict) : ok(undefined);
  }

  dispose(): void {
    for (const h of [...this.held.values()]) this.drop(h, 'session_closed');
  }

  private conflictFor(actor: Actor, mode: LeaseMode, except?: string): TermError | undefined {
    for (const h of this.held.values()) {
      if (h.lease.lease_id === except || sameActor(h.lease.actor, actor)) continue;
      if (h.lease.mode === 'exclusive' || mode === 'exclusive') {
        return new TermError(
          'lease_held',
          `${h.lease.actor.kind} "${h.lease.actor.name}" holds ${h.lease.mode === 'exclusive' ? 'an exclusive' : 'a shared'} lease until ${h.lease.expires_at}`,
          { holder: h.lease.actor, mode: h.lease.mode, expires_at: h.lease.expires_at },
          true,
        );
      }
    }
    return undefined;
  }

  private arm(h: Held, ttlMs: number): void {
    h.expiresAt = this.now() + ttlMs;
    h.lease.expires_at = new Date(h.expiresAt).toISOString();
    h.timer = setTimeout(() => this.drop(h, 'expired'), ttlMs);
    h.timer.unref();
  }

  private preempt(h: Held, by: Actor): void {
    this.preemptedActors.set(`${h.lease.actor.kind}:${h.lease.actor.name}`, 'preempted');
    this.events.preempted(h.lease, by);
    this.drop(h, 'preempted');
  }

  private drop(h: Held, reason: ReleaseReason): void {
    if (!this.held.delete(h.lease.lease_id)) return;
    clearTimeout(h.timer);
    this.events.released(h.lease, reason);
  }
}
