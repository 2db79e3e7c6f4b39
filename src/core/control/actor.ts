/**
 * Who is acting. An actor's kind comes from the credential it presented (or is `system` for the runtime itself),
 * never from anything a client says about itself.
 */
export type ActorKind = 'admin' | 'human' | 'agent' | 'viewer' | 'system';

export interface Actor {
  name: string;
  kind: ActorKind;
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
