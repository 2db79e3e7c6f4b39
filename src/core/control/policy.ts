/**
 * Role rules, written once. Every core method that acts for someone starts with one of these, so the HTTP routes,
 * MCP tools, the attach socket and embedding programs are all held to the same rule by the same line.
 */
import { TermError, fail, ok, type Result } from '../errors.js';
import { atLeast, type Actor, type Role } from './actor.js';

const ARTICLE: Record<Role, string> = { viewer: 'a viewer', agent: 'an agent', human: 'a person', admin: 'an admin' };

/** `what` completes "… needs …": for example "resizing a session". */
export function requireRole(actor: Actor, role: Role, what: string): Result<void> {
  if (atLeast(actor, role)) return ok(undefined);
  return fail(new TermError('forbidden', `${what} needs the ${role} role or higher; ${actor.name} is ${ARTICLE[actor.kind as Role] ?? actor.kind}`, { needed_role: role }));
}

/** What a transcript may be stored as, by who asks: redaction can be switched off by an admin only. */
export function mayStoreRaw(actor: Actor): Result<void> {
  if (actor.kind === 'admin' || actor.kind === 'system') return ok(undefined);
  return fail(new TermError('forbidden', 'only an admin may store an unredacted (raw) transcript'));
}
