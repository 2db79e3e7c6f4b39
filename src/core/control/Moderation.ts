/**
 * One session's moderation: whether a person must be present for agents to type, who is present, whether a
 * moderator paused agent input, and the grace timer that ends a required session nobody attends.
 *
 * The rule, in this codebase's roles (docs/security.md "Moderated sessions"):
 * - a person is an actor of kind `human` or `admin` (`isHuman`): the kind comes from the credential, never from the
 *   client, so an agent's token cannot pass for one whatever it attaches as;
 * - present means attached with role `driver`. A viewer attach is not presence: the attach socket turns its actor
 *   into a `viewer` for the whole connection, and watching is not being there to take the keyboard. An HTTP call is
 *   not presence either: it is a moment, not a connection that says when the person left.
 * - While required and nobody is present, and whenever a moderator paused, agent input is refused. People may always
 *   type; their input is what moderation protects.
 * - The grace timer runs from the start (nobody came yet) and from the moment the last person left; it is cleared
 *   only by a person attaching. Nothing an agent does (input, leases, attaching) touches it.
 */
import { Bounds } from '../../protocol/bounds.js';
import type { ModerationChange, ModerationState } from '../../protocol/moderation.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import { actorRef, isHuman, type Actor } from './actor.js';

/** How long a required session waits for a person when neither the session nor the operator says. */
export const DEFAULT_MODERATOR_GRACE_MS = 5 * 60 * 1000;

export interface ModerationOptions {
  required: boolean;
  graceMs: number;
}

export interface ModerationEvents {
  /** The state changed; `actor` did it (the runtime itself for a grace expiry). */
  changed(change: ModerationChange, actor: Actor, detail: Record<string, string>): void;
  /** Nobody came within the grace period: the session must end. */
  expired(): void;
}

/** A client as moderation sees it: a connection id, its attach role and its actor. */
export interface Attendee {
  readonly id: number;
  readonly role: 'viewer' | 'driver';
  readonly actor: Actor;
}

export class Moderation {
  private readonly present = new Map<number, Actor>();
  private everPresent = false;
  private pausedBy: Actor | null = null;
  private timer: NodeJS.Timeout | undefined;
  private endsAt: number | null = null;
  private over = false;

  constructor(
    readonly options: ModerationOptions,
    private readonly sessionRef: string,
    private readonly on: ModerationEvents,
    private readonly now: () => number = Date.now,
  ) {
    if (options.required) this.arm();
  }

  /** Only a person attached as driver is presence; anything else is ignored. */
  joined(c: Attendee): void {
    if (this.over || c.role !== 'driver' || !isHuman(c.actor)) return;
    this.present.set(c.id, actorRef(c.actor));
    this.everPresent = true;
    this.disarm();
    if (this.options.required) this.on.changed('person_joined', c.actor, {});
  }

  left(c: Attendee): void {
    if (this.over || !this.present.delete(c.id)) return;
    if (!this.options.required) return;
    if (this.present.size === 0) this.arm();
    this.on.changed('person_left', c.actor, {});
  }

  /** May this actor type now, as far as moderation goes? People always may. */
  authorize(actor: Actor): Result<void> {
    if (isHuman(actor) || actor.kind === 'system') return ok(undefined);
    const state = this.snapshot();
    if (this.pausedBy) {
      return fail(
        new TermError('input_paused', `${this.pausedBy.name} paused agent input on this session; wait for a moderator to resume it (termhost moderate ${this.sessionRef} resume)`, {
          refused: 'input',
          moderation: state,
        }),
      );
    }
    if (this.options.required && this.present.size === 0) {
      const when = this.everPresent ? 'the last person attached as driver left' : 'no person has attached as driver yet';
      return fail(
        new TermError(
          'moderator_required',
          `this session requires a person present for agents to type, and ${when}; ask one to run \`termhost attach -write ${this.sessionRef}\` (or open it in the UI as driver), then retry${this.endsAt !== null ? `; it ends at ${new Date(this.endsAt).toISOString()} if nobody comes` : ''}`,
          { refused: 'input', moderation: state },
        ),
      );
    }
    return ok(undefined);
  }

  /** Pause or resume agent input, for a person (the session checked the role). */
  pause(by: Actor): Result<void> {
    if (this.pausedBy) return ok(undefined);
    this.pausedBy = actorRef(by);
    this.on.changed('paused', by, {});
    return ok(undefined);
  }

  resume(by: Actor): Result<void> {
    if (!this.pausedBy) return ok(undefined);
    this.pausedBy = null;
    this.on.changed('resumed', by, {});
    return ok(undefined);
  }

  /** Say what a moderator did that is not a state of this class (a revoked lease, the end), or that time ran out. */
  announce(change: ModerationChange, actor: Actor, detail: Record<string, string>): void {
    this.on.changed(change, actor, detail);
  }

  snapshot(): ModerationState {
    const refused = this.pausedBy !== null || (this.options.required && this.present.size === 0);
    return {
      required: this.options.required,
      presence: this.present.size > 0 ? 'present' : this.everPresent ? 'absent' : 'waiting',
      present: [...this.present.values()],
      required_person: this.options.required
        ? `a person (a human or admin token) attached as driver: termhost attach -write ${this.sessionRef}`
        : 'nobody: agents may type without a person present',
      paused_by: this.pausedBy,
      agent_input: refused ? 'refused' : 'allowed',
      grace_ms: this.options.graceMs,
      ends_at: this.endsAt === null ? null : new Date(this.endsAt).toISOString(),
    };
  }

  /** The session ended (or is freed): no timer may fire any more. */
  dispose(): void {
    this.over = true;
    this.disarm();
  }

  private arm(): void {
    this.disarm();
    this.endsAt = this.now() + this.options.graceMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.over || this.present.size > 0) return;
      this.on.expired();
    }, this.options.graceMs);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.endsAt = null;
  }
}

/** The grace a spec asks for, checked against the bounds (the edges check it first in their own words). */
export function checkGraceMs(v: unknown, field: string): Result<void> {
  if (v === undefined) return ok(undefined);
  if (!Number.isInteger(v) || (v as number) < Bounds.moderatorGraceMsMin || (v as number) > Bounds.moderatorGraceMsMax) {
    return fail(new TermError('invalid_request', `${field} must be an integer from ${Bounds.moderatorGraceMsMin} to ${Bounds.moderatorGraceMsMax} (ms)`, { field }));
  }
  return ok(undefined);
}
