/**
 * Who is acting. An actor's kind, scope and owner come from the credential it presented (or is `system` for the
 * runtime itself), never from anything a client says about itself.
 */
import type { Selector } from './selector.js';

export type ActorKind = 'admin' | 'human' | 'agent' | 'viewer' | 'system';

/**
 * Which sessions an actor may know of. Absent (or `all`): every session, as for unscoped tokens and the admin.
 * - `own`: the sessions started with this very credential (matched by `Actor.owner`);
 * - `labels`: the sessions whose labels match a selector, such as `team=red,env!=prod`;
 * - `sessions`: a list of session ids.
 */
export type Scope =
  | { kind: 'all' }
  | { kind: 'own' }
  | { kind: 'labels'; selector: Selector }
  | { kind: 'sessions'; ids: readonly string[] };

export interface Actor {
  name: string;
  kind: ActorKind;
  /** What the actor may see; absent means everything. Never shown in a session's info or an event. */
  scope?: Scope;
  /**
   * The credential this actor stands for (a token's id): a session records it as its owner, and an `own` scope
   * matches it. Names can be reused after a revocation; this cannot.
   */
  owner?: string;
  /** The command profiles this actor may start, and nothing else; absent: whatever the runtime allows. */
  profiles?: readonly string[];
}

/** An actor as it is recorded and shown: its name and kind, nothing of its credential. */
export function actorRef(a: Actor): Actor {
  return { name: a.name, kind: a.kind };
}

/** The runtime itself, for example when the prompt detector opens a secret-input window. */
export const SYSTEM_ACTOR: Actor = { name: 'system', kind: 'system' };

/** People: they drive without leases, preempt agents, and may end a secret-input window. */
export function isHuman(a: Actor): boolean {
  return a.kind === 'human' || a.kind === 'admin';
}

/** Roles a credential can carry, from least to most privileged. */
export const ROLE_ORDER = ['viewer', 'agent', 'human', 'admin'] as const;
export type Role = (typeof ROLE_ORDER)[number];

export function atLeast(a: Actor, role: Role): boolean {
  if (a.kind === 'system') return true;
  return ROLE_ORDER.indexOf(a.kind) >= ROLE_ORDER.indexOf(role);
}
