/**
 * Scopes between their wire form and the rule's: `POST /v1/tokens` and tokens.json carry `"own"`,
 * `{"labels": "team=red"}` or `{"sessions": ["id", ...]}` (the CLI's text form is protocol/scopeText.ts). Absent
 * (null) is unscoped: every session.
 */
import { Bounds, SESSION_REF_PATTERN } from '../../protocol/bounds.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import type { Scope } from './actor.js';
import { parseSelector } from './selector.js';

import type { WireScope } from '../../protocol/http.js';

export type { WireScope };

const SESSION_ID = new RegExp(SESSION_REF_PATTERN);

/** A scope as it came from a client or a file (possibly untyped JSON). */
export function parseScope(wire: unknown): Result<Scope> {
  const bad = (why: string) => fail<Scope>(new TermError('invalid_request', `scope ${why}`, { field: 'scope' }));
  if (wire === undefined || wire === null) return ok({ kind: 'all' });
  if (wire === 'own') return ok({ kind: 'own' });
  if (typeof wire !== 'object' || Array.isArray(wire)) return bad('must be "own", {"labels": "k=v,..."} or {"sessions": ["id", ...]}');
  const keys = Object.keys(wire);
  const w = wire as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === 'labels') {
    if (typeof w.labels !== 'string') return bad('labels must be a selector string such as "team=red,env!=prod"');
    const sel = parseSelector(w.labels);
    return sel.ok ? ok({ kind: 'labels', selector: sel.value }) : sel;
  }
  if (keys.length === 1 && keys[0] === 'sessions') {
    const ids = w.sessions;
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > Bounds.scopeSessionsMax) return bad(`sessions must list 1 to ${Bounds.scopeSessionsMax} session ids`);
    for (const id of ids) if (typeof id !== 'string' || !SESSION_ID.test(id)) return bad(`sessions: ${JSON.stringify(String(id).slice(0, 64))} is not a session id`);
    return ok({ kind: 'sessions', ids: [...new Set(ids as string[])] });
  }
  return bad('must be "own", {"labels": "k=v,..."} or {"sessions": ["id", ...]}');
}

/** The wire form, or null for unscoped. */
export function scopeToWire(scope: Scope | undefined): WireScope | null {
  if (!scope || scope.kind === 'all') return null;
  if (scope.kind === 'own') return 'own';
  if (scope.kind === 'labels') return { labels: scope.selector.text };
  return { sessions: [...scope.ids] };
}

