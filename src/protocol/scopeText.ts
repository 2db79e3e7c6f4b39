/**
 * A scope as a person writes it on a command line and reads it in `token ls`: `own`, `labels:team=red,env!=prod`,
 * `sessions:ID,ID`; `all` for an unscoped token. The wire form (`"own"`, `{"labels": ...}`, `{"sessions": [...]}`) is
 * the one schema (http.ts ScopeSchema); the daemon parses and checks the selector itself, so this only splits text.
 */
import type { WireScope } from './http.js';

/** The wire form of `own`, `labels:SEL` or `sessions:ID,ID`; a string saying what is wrong otherwise. */
export function scopeFromText(text: string): WireScope | { error: string } {
  if (text === 'own') return 'own';
  const colon = text.indexOf(':');
  const kind = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  if (kind === 'labels' && rest !== '') return { labels: rest };
  if (kind === 'sessions' && rest !== '') return { sessions: rest.split(',').map((s) => s.trim()) };
  return { error: `a scope is own, labels:SELECTOR (such as labels:team=red,env!=prod) or sessions:ID,ID; not ${JSON.stringify(text.slice(0, 80))}` };
}

/** How `token ls` prints a scope: null (unscoped) is `all`. */
export function scopeToText(scope: WireScope | null): string {
  if (scope === null) return 'all';
  if (scope === 'own') return 'own';
  if ('labels' in scope) return `labels:${scope.labels}`;
  return `sessions:${scope.sessions.join(',')}`;
}
