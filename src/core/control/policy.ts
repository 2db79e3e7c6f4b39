/**
 * Role and scope rules, written once. Every core method that acts for someone starts with one of these, so the HTTP
 * routes, MCP tools, the attach socket, the event stream, the store's records and embedding programs are all held to
 * the same rule by the same line.
 */
import { TermError, fail, ok, type Result } from '../errors.js';
import { atLeast, type Actor, type Role, type Scope } from './actor.js';
import { matchesSelector } from './selector.js';

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

/** What the scope rule looks at: a live session and a stored record alike. */
export interface ScopeTarget {
  id: string;
  labels: Readonly<Record<string, string>>;
  /** The credential that started it (Actor.owner), or null when unknown (records from before owners were kept). */
  owner: string | null;
  /** Label keys whose values can no longer be read (redacted in a record): a selector that names one never matches. */
  unknownLabels?: ReadonlySet<string>;
}

export function isScoped(actor: Actor): boolean {
  return actor.scope !== undefined && actor.scope.kind !== 'all';
}

/**
 * May this actor know that the session exists? The one scope rule. Out of scope is answered exactly as missing by
 * every caller of this function, so it never says which of the two it was.
 */
export function visible(actor: Actor, target: ScopeTarget): boolean {
  const scope: Scope | undefined = actor.scope;
  if (!scope || scope.kind === 'all') return true;
  switch (scope.kind) {
    case 'own':
      return target.owner !== null && actor.owner !== undefined && target.owner === actor.owner;
    case 'sessions':
      return scope.ids.includes(target.id);
    case 'labels': {
      const unknown = target.unknownLabels;
      if (unknown && unknown.size > 0 && scope.selector.terms.some((t) => unknown.has(t.key))) return false;
      return matchesSelector(scope.selector, target.labels);
    }
  }
}

/** Reading the audit trail takes a person: it says who did what, across sessions. */
export function mayReadAuditTrail(actor: Actor): Result<void> {
  return requireRole(actor, 'human', 'reading the audit trail');
}

/**
 * May this actor read an audit entry about this session (`null`: about no session, or one whose record is gone)?
 * Admins read everything; a person reads what concerns the sessions in its scope.
 */
export function mayReadAuditEntry(actor: Actor, target: ScopeTarget | null): boolean {
  if (actor.kind === 'admin' || actor.kind === 'system') return true;
  return target !== null && actor.kind === 'human' && visible(actor, target);
}

/**
 * May this actor start a session with these labels? A scoped actor may only start sessions it will itself see: with
 * `labels`, inside its selector; with `sessions`, not at all (a new id is in no list).
 */
export function mayStartWithin(actor: Actor, labels: Readonly<Record<string, string>>): Result<void> {
  const scope = actor.scope;
  if (!scope || scope.kind === 'all' || scope.kind === 'own') return ok(undefined);
  if (scope.kind === 'sessions') {
    return fail(new TermError('forbidden', `${actor.name} is scoped to a list of sessions and cannot start new ones`));
  }
  if (matchesSelector(scope.selector, labels)) return ok(undefined);
  return fail(
    new TermError('forbidden', `the session's labels must match your scope (${scope.selector.text}); give labels that do`, { field: 'labels', scope: scope.selector.text }),
  );
}
