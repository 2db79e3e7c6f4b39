/**
 * Keyboard events -> bytes for the DOM fallback renderer, which has no xterm.js to encode keys. It covers typing,
 * Ctrl-letters, Alt as an ESC prefix and the common editing and cursor keys, in the terminal's normal modes; full
 * fidelity (application cursor keys, mouse) is xterm.js's job. Pure: takes only the event's fields.
 */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  metaKey: boolean;
}

const NAMED: Record<string, string> = {
  Enter: '\r',
  Backspace: '\x7f',
  Tab: '\t',
  Escape: '\x1b',
  ArrowUp: '\x1b[A',
  ArrowDown: '\x1b[B',
  ArrowRight: '\x1b[C',
  ArrowLeft: '\x1b[D',
  Home: '\x1b[H',
  End: '\x1b[F',
  Insert: '\x1b[2~',
  Delete: '\x1b[3~',
  PageUp: '\x1b[5~',
  PageDown: '\x1b[6~',
};

/** The bytes a key sends, or undefined for keys the page should leave to the browser (Cmd-C, F5...). */
export function keyBytes(e: KeyLike): string | undefined {
  if (e.metaKey) return undefined;
  if (e.key === 'Tab' && e.shiftKey) return '\x1b[Z';
  let out: string | undefined = NAMED[e.key];
  if (out === undefined && e.key.length === 1) {
    if (e.ctrlKey) {
      const c = e.key.toLowerCase().charCodeAt(0);
      if (c >= 97 && c <= 122) out = String.fromCharCode(c - 96);
      else if (e.key === ' ' || e.key === '@') out = '\x00';
      else if (e.key === '[') out = '\x1b';
      else if (e.key === '\\') out = '\x1c';
      else if (e.key === ']') out = '\x1d';
      else return undefined;
    } else out = e.key;
  }
  if (out === undefined) return undefined;
  return e.altKey ? `\x1b${out}` : out;
}
