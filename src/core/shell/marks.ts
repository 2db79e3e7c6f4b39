/**
 * Pure: the payloads of the shell-integration escapes termhost's scripts print, as the emulator's OSC handlers
 * receive them (the text after `133;` or `7;`).
 *
 * - OSC 133 (FinalTerm): `A` prompt start, `B` prompt end (input starts), `C` output starts, `D;<status>` the command
 *   ended. termhost's scripts add `th=<nonce>`; a mark without the session's nonce is not believed.
 * - OSC 7: `file://host/path`, the working directory, percent-encoded.
 */

export type MarkKind = 'A' | 'B' | 'C' | 'D';

export interface ShellMark {
  kind: MarkKind;
  /** D only: the command's exit status, or null when the mark did not say. */
  status: number | null;
}

/** The longest payload considered: a mark is a few dozen bytes; anything longer is not one of ours. */
const MARK_CHARS_MAX = 256;

/**
 * A trusted mark, or `untrusted` for an OSC 133 that lacks the nonce (a program printing marks, a nested session,
 * another integration), or undefined for a mark termhost does not use (`133;P`, `133;E`...).
 */
export function parseMark(data: string, nonce: string): ShellMark | 'untrusted' | undefined {
  if (data.length > MARK_CHARS_MAX) return 'untrusted';
  const parts = data.split(';');
  const kind = parts[0];
  if (kind !== 'A' && kind !== 'B' && kind !== 'C' && kind !== 'D') return undefined;
  let trusted = false;
  for (let i = 1; i < parts.length; i++) if (parts[i] === `th=${nonce}`) trusted = true;
  if (!trusted) return 'untrusted';
  let status: number | null = null;
  if (kind === 'D' && parts.length > 1 && /^\d{1,3}$/.test(parts[1]!)) status = Number(parts[1]);
  return { kind, status };
}

/** The longest working directory taken from OSC 7. */
const CWD_CHARS_MAX = 4096;

/** The path of an OSC 7 `file://host/path` payload, decoded; undefined when it is not one. */
export function parseCwd(data: string): string | undefined {
  if (data.length > CWD_CHARS_MAX * 3 || !data.startsWith('file://')) return undefined;
  const slash = data.indexOf('/', 'file://'.length);
  if (slash < 0) return undefined;
  try {
    const path = decodeURIComponent(data.slice(slash));
    return path.length <= CWD_CHARS_MAX && !/[\u0000-\u001f]/.test(path) ? path : undefined;
  } catch {
    return undefined; // a malformed escape: not a path termhost can report
  }
}
