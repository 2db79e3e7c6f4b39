/**
 * Key-name encoder: turns a tmux-style key name ("Enter", "C-c", "M-S-Left", "é") into the bytes an xterm would send
 * to the application for that key press.
 *
 * Owns the key-name grammar, the alias table, and every decision about which modifier combinations have a genuine
 * encoding. Pure: no I/O. Combinations a terminal cannot express are refused with a sentence naming the key, never
 * approximated, because an agent that sends "C-Enter" and silently gets "Enter" would act on a false belief.
 *
 * Grammar: zero or more prefixes `C-` (Ctrl), `M-` (Alt/Meta), `S-` (Shift), in any order, then either a named key or
 * exactly one Unicode code point. Prefixes and names are case-sensitive, as in tmux's documentation (tmux itself is
 * laxer); a near miss such as "enter" gets a "did you mean" hint instead. Only upper-case prefixes are recognised so
 * that text like "c-d" is never mistaken for a key. Repeating a prefix ("C-C-a") is harmless and means the same as
 * once.
 */

/** The terminal modes that change what a key sends. */
export interface KeyModes {
  /** DECCKM (`CSI ? 1 h`): unmodified cursor keys, Home and End use SS3 instead of CSI. */
  appCursorKeys: boolean;
}

/** `error` is a sentence for a person and always names the key as given. */
export type Encoded = { ok: true; bytes: Buffer } | { ok: false; error: string };

const ESC = '\x1b';
const CSI = '\x1b[';
const SS3 = '\x1bO';

interface Mods {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

/**
 * Keys with an xterm "modified key" form. `letter` keys send `CSI X` / `SS3 X` unmodified and `CSI 1;m X` modified;
 * `tilde` keys send `CSI n ~` unmodified and `CSI n;m ~` modified.
 */
type Special =
  | { form: 'letter'; final: string; cursor: boolean } // cursor: follows DECCKM (CSI vs SS3) when unmodified
  | { form: 'tilde'; n: number };

const cursorKey = (final: string): Special => ({ form: 'letter', final, cursor: true });
// F1-F4 send SS3 whatever DECCKM says.
const ss3Key = (final: string): Special => ({ form: 'letter', final, cursor: false });
const tildeKey = (n: number): Special => ({ form: 'tilde', n });

const SPECIALS: ReadonlyMap<string, Special> = new Map([
  ['Up', cursorKey('A')],
  ['Down', cursorKey('B')],
  ['Right', cursorKey('C')],
  ['Left', cursorKey('D')],
  ['Home', cursorKey('H')],
  ['End', cursorKey('F')],
  ['Insert', tildeKey(2)],
  ['IC', tildeKey(2)],
  ['Delete', tildeKey(3)],
  ['DC', tildeKey(3)],
  ['PgUp', tildeKey(5)],
  ['PPage', tildeKey(5)],
  ['PageUp', tildeKey(5)],
  ['PgDn', tildeKey(6)],
  ['NPage', tildeKey(6)],
  ['PageDown', tildeKey(6)],
  ['F1', ss3Key('P')],
  ['F2', ss3Key('Q')],
  ['F3', ss3Key('R')],
  ['F4', ss3Key('S')],
  // xterm skips 16 and 22: the numbering follows the DEC VT220 function-key layout.
  ['F5', tildeKey(15)],
  ['F6', tildeKey(17)],
  ['F7', tildeKey(18)],
  ['F8', tildeKey(19)],
  ['F9', tildeKey(20)],
  ['F10', tildeKey(21)],
  ['F11', tildeKey(23)],
  ['F12', tildeKey(24)],
]);

/** Named keys with no xterm modified form. Space is not here: it is handled as the character ' '. */
const PLAIN: ReadonlyMap<string, string> = new Map([
  ['Enter', '\r'],
  ['Escape', ESC],
  ['Esc', ESC],
  ['Tab', '\t'],
  ['BTab', `${CSI}Z`],
  ['Backspace', '\x7f'],
  ['BSpace', '\x7f'],
]);

/** Why Ctrl cannot combine with each plain named key. */
const NO_CTRL: Readonly<Record<string, string>> = {
  Enter: 'a terminal sends plain Enter (\\r) for Ctrl+Enter, so the application could not tell them apart',
  Escape: 'a terminal sends plain Escape for Ctrl+Escape, so the application could not tell them apart',
  Tab: 'a terminal sends plain Tab for Ctrl+Tab, so the application could not tell them apart',
  BTab: 'a terminal sends plain Shift+Tab (CSI Z) for Ctrl+Shift+Tab, so the application could not tell them apart',
  // Terminals genuinely disagree here (xterm, VTE and Windows Terminal variously send ^H or ^?), so any choice
  // would be a guess about the application's expectations; the caller can say which byte it means.
  Backspace: 'terminals disagree on what Ctrl+Backspace sends; use "C-h" for ^H or "Backspace" for ^?',
};

const CANONICAL: Readonly<Record<string, string>> = { Esc: 'Escape', BSpace: 'Backspace' };

const ALL_NAMES = [...SPECIALS.keys(), ...PLAIN.keys(), 'Space'];
const BY_LOWER = new Map(ALL_NAMES.map((n) => [n.toLowerCase(), n]));

export function encodeKey(name: string, modes: KeyModes): Encoded {
  const q = JSON.stringify(name);
  if (name === '') return fail('The key name is empty ("").');

  const mods: Mods = { ctrl: false, alt: false, shift: false };
  let rest = name;
  // Same rule as tmux: a prefix is a modifier letter followed by '-' with something (possibly '-') after it.
  while (rest.length >= 2 && rest[1] === '-' && (rest[0] === 'C' || rest[0] === 'M' || rest[0] === 'S')) {
    if (rest[0] === 'C') mods.ctrl = true;
    else if (rest[0] === 'M') mods.alt = true;
    else mods.shift = true;
    rest = rest.slice(2);
  }
  if (rest === '') return fail(`Key ${q} has a modifier prefix but no key after it.`);

  const special = SPECIALS.get(rest);
  if (special) return ok(encodeSpecial(special, mods, modes));

  const plain = PLAIN.get(rest);
  if (plain !== undefined) return encodePlain(q, CANONICAL[rest] ?? rest, plain, mods);

  if (rest === 'Space') return encodeChar(q, ' ', mods);
  if ([...rest].length === 1) return encodeChar(q, rest, mods);
  return fail(unknownMessage(q, rest));
}

/** True when `encodeKey(name, …)` would succeed; the answer never depends on the modes. */
export function isKeyName(name: string): boolean {
  return encodeKey(name, { appCursorKeys: false }).ok;
}

function encodeSpecial(key: Special, mods: Mods, modes: KeyModes): Buffer {
  // xterm folds every modifier, Alt included, into one parameter: m = 1 + Shift(1) + Alt(2) + Ctrl(4).
  // A modified cursor key always uses CSI, even under DECCKM (that is what xterm does).
  const m = 1 + (mods.shift ? 1 : 0) + (mods.alt ? 2 : 0) + (mods.ctrl ? 4 : 0);
  if (key.form === 'tilde') return Buffer.from(m === 1 ? `${CSI}${key.n}~` : `${CSI}${key.n};${m}~`);
  if (m !== 1) return Buffer.from(`${CSI}1;${m}${key.final}`);
  const intro = key.cursor && !modes.appCursorKeys ? CSI : SS3;
  return Buffer.from(intro + key.final);
}

/** Enter, Escape, Tab, BTab, Backspace: only Alt (ESC prefix) and Shift+Tab have real encodings. */
function encodePlain(q: string, canonical: string, seq: string, mods: Mods): Encoded {
  if (mods.ctrl) return fail(`Key ${q} has no encoding: ${NO_CTRL[canonical]}.`);
  if (mods.shift) {
    // Shift+Tab is BTab; BTab already means Shift+Tab, so a redundant S- on it changes nothing.
    if (canonical === 'Tab' || canonical === 'BTab') seq = `${CSI}Z`;
    else {
      return fail(
        `Key ${q} has no encoding: a terminal sends the same bytes for Shift+${canonical} as for ${canonical}, ` +
          `so the shift would be lost; send "${canonical}" if that is what you mean.`,
      );
    }
  }
  // Alt as ESC prefix, as xterm does with metaSendsEscape: M-Enter = ESC CR, M-Backspace = ESC DEL, M-Escape = ESC ESC.
  return ok(Buffer.from(mods.alt ? ESC + seq : seq));
}

/** One code point, possibly with modifiers. */
function encodeChar(q: string, ch: string, mods: Mods): Encoded {
  // A control character (C0, DEL, C1) or lone surrogate is not a printable key: the caller should use a name such as
  // Enter, Tab or C-x, or the raw escape hatch when it really means arbitrary bytes.
  if (/^[\p{Cc}\p{Cs}]$/u.test(ch)) {
    return fail(`Key ${q} is not a printable character; use a key name such as Enter, Tab or C-x instead.`);
  }
  let out = ch;
  if (mods.shift) {
    // The legacy encoding has no way to say Ctrl+Shift+letter: a terminal sends the same byte as Ctrl+letter.
    if (mods.ctrl) {
      return fail(
        `Key ${q} has no encoding: a terminal sends the same control character for Ctrl+Shift+key as for Ctrl+key; ` +
          `drop the S- if that is what you mean.`,
      );
    }
    const upper = ch.toUpperCase();
    const hasCase = upper !== ch || ch.toLowerCase() !== ch;
    // Shift is only meaningful on letters. Anything else (S-1, S-%) depends on the keyboard layout, so refuse
    // rather than guess; "ß".toUpperCase() is "SS", two characters, which is not one key either.
    if (!hasCase || [...upper].length !== 1) {
      const hint = ch === ' ' ? '' : ' To type a symbol, send it directly (for example "!" rather than "S-1").';
      return fail(`Key ${q} has no encoding: Shift only combines with letters, Tab and the special keys.${hint}`);
    }
    out = upper;
  }
  if (mods.ctrl) {
    const code = ctrlCode(out);
    if (code === undefined) {
      return fail(
        `Key ${q} has no encoding: Ctrl only combines with letters, Space and the characters @ [ \\ ] ^ _ ? ` +
          `(digits and other symbols have no standard control code; terminals disagree on them).`,
      );
    }
    out = String.fromCharCode(code);
  }
  return ok(Buffer.from(mods.alt ? ESC + out : out, 'utf8'));
}

/**
 * The classic control-character table, the same set tmux accepts: C-a..C-z and C-A..C-Z are 0x01..0x1a,
 * C-@ and C-Space are NUL, C-[ \ ] ^ _ are 0x1b..0x1f, and C-? is DEL.
 */
function ctrlCode(ch: string): number | undefined {
  const c = ch.codePointAt(0)!;
  if (c >= 0x61 && c <= 0x7a) return c - 0x60; // a-z
  if (c >= 0x40 && c <= 0x5f) return c - 0x40; // @ A-Z [ \ ] ^ _
  if (c === 0x20) return 0; // Space
  if (c === 0x3f) return 0x7f; // ?
  return undefined;
}

function unknownMessage(q: string, base: string): string {
  const where = q === JSON.stringify(base) ? '' : ` (${JSON.stringify(base)} after the prefixes)`;
  const tail =
    'expected a named key such as Enter, Up or F5, or a single character, optionally with C-, M-, S- prefixes.';
  const near = BY_LOWER.get(base.toLowerCase());
  if (near) return `Unknown key ${q}${where}; names are case-sensitive: did you mean "${near}"?`;
  if (/^F\d+$/.test(base)) return `Unknown key ${q}${where}: function keys go from F1 to F12.`;
  return `Unknown key ${q}${where}: ${tail}`;
}

function ok(bytes: Buffer): Encoded {
  return { ok: true, bytes };
}

function fail(error: string): Encoded {
  return { ok: false, error };
}
