/**
 * Label selectors, as a scoped token carries them: `team=red,env!=prod`. A comma means "and"; each term is
 * `key=value` (the label is that value), `key!=value` (absent or another value), `key` (present) or `!key`
 * (absent). Keys follow the label-key rule (letters, digits, `. _ / -`), so a selector is never ambiguous; values
 * are any text without a comma. Pure, and linear in the selector's length.
 */
import { Bounds, LABEL_KEY_PATTERN } from '../../protocol/bounds.js';
import { TermError, fail, ok, type Result } from '../errors.js';

export type SelectorTerm =
  | { key: string; op: '='; value: string }
  | { key: string; op: '!='; value: string }
  | { key: string; op: 'exists' }
  | { key: string; op: 'absent' };

export interface Selector {
  /** The text it was parsed from, normalised (no spaces around terms). */
  readonly text: string;
  readonly terms: readonly SelectorTerm[];
}

/** Terms in one selector: enough for any real policy, and a bound on the work per check. */
export const SELECTOR_TERMS_MAX = Bounds.selectorTermsMax;
export const SELECTOR_CHARS_MAX = Bounds.selectorCharsMax;

const KEY = new RegExp(LABEL_KEY_PATTERN);

export function parseSelector(text: string): Result<Selector> {
  const bad = (why: string) => fail<Selector>(new TermError('invalid_request', `label selector ${JSON.stringify(text.slice(0, 80))}: ${why}`, { field: 'scope' }));
  if (typeof text !== 'string' || text.trim() === '') return bad('is empty; write terms such as team=red,env!=prod');
  if (text.length > SELECTOR_CHARS_MAX) return bad(`is longer than ${SELECTOR_CHARS_MAX} characters`);
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length > SELECTOR_TERMS_MAX) return bad(`has more than ${SELECTOR_TERMS_MAX} terms`);
  const terms: SelectorTerm[] = [];
  for (const part of parts) {
    if (part === '') return bad('has an empty term (two commas in a row, or one at an end)');
    const ne = part.indexOf('!=');
    const eq = part.indexOf('=');
    let term: SelectorTerm;
    if (ne > 0) term = { key: part.slice(0, ne).trim(), op: '!=', value: part.slice(ne + 2).trim() };
    else if (eq > 0) term = { key: part.slice(0, eq).trim(), op: '=', value: part.slice(eq + 1).trim() };
    else if (part.startsWith('!')) term = { key: part.slice(1).trim(), op: 'absent' };
    else term = { key: part, op: 'exists' };
    if (!KEY.test(term.key)) return bad(`${JSON.stringify(term.key)} is not a label key (letters, digits, . _ / -, starting with a letter or digit)`);
    terms.push(term);
  }
  return ok({ text: terms.map(formatTerm).join(','), terms });
}

function formatTerm(t: SelectorTerm): string {
  if (t.op === 'exists') return t.key;
  if (t.op === 'absent') return `!${t.key}`;
  return `${t.key}${t.op}${t.value}`;
}

export function matchesSelector(sel: Selector, labels: Readonly<Record<string, string>>): boolean {
  for (const t of sel.terms) {
    const has = Object.prototype.hasOwnProperty.call(labels, t.key);
    switch (t.op) {
      case '=':
        if (!has || labels[t.key] !== t.value) return false;
        break;
      case '!=':
        if (has && labels[t.key] === t.value) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case 'absent':
        if (has) return false;
        break;
    }
  }
  return true;
}
