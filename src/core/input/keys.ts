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

/** `error` is a sentence for a person and always names the key as given; `suggestion` is the closest valid name. */
export type Encoded = { ok: true; bytes: Buffer } | { ok: false; error: string; suggestion?: string };

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
  ['Return', '\r'],
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

const CANONICAL: Readonly<Record<string, string>> = { Esc: 'Escape', BSpace: 'Backspace', Return: 'Enter' };

/**
 * Modifier spellings people type, beside tmux's C- M- S-: `Ctrl-c`, `Ctrl+c`, `Alt-x`, `Meta-x`, `Shift-Tab`
 * (any case). `^C` is Ctrl+C, as terminals print it.
 */
const LONG_PREFIXES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(ctrl|control)[-+]/i, 'C-'],
  [/^(alt|meta|opt|option)[-+]/i, 'M-'],
  [/^shift[-+]/i, 'S-'],
];

/** `name` in tmux's own spelling, when it uses one of the aliases above; otherwise unchanged. */
export function canonicalKeyName(name: string): string {
  let rest = name;
  let prefix = '';
  for (let changed = true; changed; ) {
    changed = false;
    for (const [re, short] of LONG_PREFIXES) {
      const m = re.exec(rest);
      if (m && rest.length > m[0].length) {
        prefix += short;
        rest = rest.slice(m[0].length);
        changed = true;
      }
    }
  }
  // ^C, ^[, ^? as a terminal shows them: Ctrl with that character (letters as lower case, as tmux writes C-c).
  if (rest.length === 2 && rest[0] === '^' && /[?-Z[\\\]_a-z]/.test(rest[1]!)) {
    prefix += 'C-';
    rest = rest[1]!.toLowerCase();
  }
  return prefix + rest;
}

const ALL_NAMES = [...SPECIALS.keys(), ...PLAIN.keys(), 'Space'];

/** Format, separator, private-use and unassigned code points; U+0020 itself is Space, a key. */
const INVISIBLE = /^(?! )[\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
const BY_LOWER = new Map(ALL_NAMES.map((n) => [n.toLowerCase(), n]));

export function encodeKey(name: string, modes: KeyModes): Encoded {
  const q = JSON.stringify(name);
  if (name === '') return fail('The key name is empty ("").');

  const mods: Mods = { ctrl: false, alt: false, shift: false };
  let rest = canonicalKeyName(name);
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
  const near = nearestName(rest);
  const prefixes = canonicalKeyName(name).slice(0, canonicalKeyName(name).length - rest.length);
  return { ok: false, error: unknownMessage(q, rest, near), ...(near ? { suggestion: prefixes + near } : {}) };
}

/** The valid key name closest to a mistyped one ("Entr" -> "Enter"), or undefined when nothing is close. */
export function suggestKey(name: string): string | undefined {
  const enc = encodeKey(name, { appCursorKeys: false });
  return enc.ok ? undefined : enc.suggestion;
}

/** Edit distance with transpositions (optimal string alignment); inputs are short key names. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** Names longer than this are not key names mistyped but something else (text); no suggestion. */
const SUGGEST_MAX_CHARS = 16;

function nearestName(base: string): string | undefined {
  const exact = BY_LOWER.get(base.toLowerCase());
  if (exact) return exact;
  if (base.length > SUGGEST_MAX_CHARS || base.length < 3) return undefined;
  const lower = base.toLowerCase();
  // Short names get one edit, longer ones two: "Ent" is Enter's start, "Tba" is Tab.
  const allowed = lower.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of ALL_NAMES) {
    const dist = editDistance(lower, n.toLowerCase());
    if (dist < bestD) [best, bestD] = [n, dist];
  }
  return bestD <= allowed ? best : undefined;
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
  // No key on any keyboard types an invisible format character (U+202E, the right-to-left override, reorders what a
  // person sees), a line or paragraph separator, a space other than Space, a private-use or an unassigned code
  // point. A key item is a claim about a key press; text and raw items remain for callers who mean these characters.
  if (INVISIBLE.test(ch)) {
    const cp = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return fail(`Key ${q} (${cp}) is an invisible, separator, private-use or unassigned character, not a key; send it as a text or raw item if you mean it.`);
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

function unknownMessage(q: string, base: string, near: string | undefined): string {
  const where = q === JSON.stringify(base) ? '' : ` (${JSON.stringify(base)} after the prefixes)`;
  const tail =
    'expected a named key such as Enter, Up or F5, or a single character, optionally with C-, M-, S- prefixes.';
  if (near && near.toLowerCase() === base.toLowerCase()) return `Unknown key ${q}${where}; names are case-sensitive: did you mean "${near}"?`;
  if (/^F\d+$/.test(base)) return `Unknown key ${q}${where}: function keys go from F1 to F12.`;
  if (near) return `Unknown key ${q}${where}: did you mean "${near}"? (${tail})`;
  return `Unknown key ${q}${where}: ${tail}`;
}

function ok(bytes: Buffer): Encoded {
  return { ok: true, bytes };
}

function fail(error: string): Encoded {
  return { ok: false, error };
}
