/**
 * What a terminal shows of a text, for the redactor to match on: the projection. Secrets are matched on what a person
 * would read, not on the bytes, so nothing the emulator leaves out of the picture may break a match, and nothing it
 * hides may escape one.
 *
 * - Escape sequences are left out: CSI (`ESC [` or the 8-bit U+009B) with its parameters, other ESC sequences, and
 *   the string sequences OSC, DCS, SOS, PM and APC (7-bit or 8-bit, ended by BEL, ST, U+009C, CAN or SUB).
 * - C0 and C1 controls are left out (NUL, BEL, SO, DEL, U+0080..U+009F, ...), as the emulator draws nothing for them:
 *   a token broken by one is drawn, and matched, whole. Tab, CR and LF stay; VT, FF, IND and NEL move to the next
 *   line, so they become LF.
 * - The payloads of string sequences (window titles, OSC 8 link targets, clipboard writes) are scanned too, as text
 *   of their own: after the visible text, each one after a line break, so a title never joins the words around it.
 *   An OSC's leading number (`0;`, `8;`) is left out.
 *
 * Every character of the projection maps back to the index of the character it came from, so a match can be
 * replaced in the original text. The map is monotonic within the visible part and within the payloads.
 */

/** Any character the fast path must not skip: C0 controls but tab, LF and CR; DEL; C1 controls. ESC is one. */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;

/**
 * One token the picture leaves out. Linear: every repeated class is followed by a disjoint one or by the end. No
 * capture groups (they cost an allocation per match, and a redraw has a match every few characters): what kind of
 * token it is, is read from its first characters.
 * 1. CSI: parameters (C0 controls in them are executed, not drawn, and do not end it; CAN and SUB end it), intermediates,
 *    a final byte when one has arrived.
 * 2. A string sequence (OSC, DCS, SOS, PM, APC): its introducer, its payload, its terminator when one has arrived.
 * 3. Any other ESC sequence (charset selection, `ESC 7`, `ESC =`, ...), or a lone ESC.
 * 4. A single control character.
 */
const TOKEN =
  /(?:\x1b\[|\x9b)[0-?\x00-\x08\x0e-\x17\x19\x1c-\x1f]*[ -/]*[@-~\x18\x1a]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x18\x1a\x1b\x9c]*(?:\x07|\x1b\\|\x9c|[\x18\x1a])?|\x1b[ -/]*[0-~]?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

/** Controls that move the cursor to the next line: they separate words like LF does. */
const LINE_BREAKS = new Set([0x0b, 0x0c, 0x84, 0x85]);
/** An OSC's leading number and its semicolon: `0;title`, `8;params;uri`. */
const OSC_NUMBER = /^\d*;/;

/** The length of a string sequence's introducer at the start of `tok` (0: not a string sequence), and whether it is an OSC. */
function stringIntroducer(tok: string): { length: number; osc: boolean } {
  const c0 = tok.charCodeAt(0);
  if (c0 === 0x1b) {
    const c1 = tok.charCodeAt(1);
    return { length: c1 === 0x5d || c1 === 0x50 || c1 === 0x58 || c1 === 0x5e || c1 === 0x5f ? 2 : 0, osc: c1 === 0x5d };
  }
  return { length: c0 === 0x90 || c0 === 0x98 || (c0 >= 0x9d && c0 <= 0x9f) ? 1 : 0, osc: c0 === 0x9d };
}

/** The length of a string sequence's terminator at the end of `tok` (its payload holds none of these characters). */
function terminatorLength(tok: string): number {
  const last = tok.charCodeAt(tok.length - 1);
  if (last === 0x07 || last === 0x9c || last === 0x18 || last === 0x1a) return 1;
  return last === 0x5c && tok.charCodeAt(tok.length - 2) === 0x1b ? 2 : 0;
}

export interface Projection {
  /** The text to match on: the visible text, then each string sequence's payload after a line break. */
  scan: string;
  /** `scan` index -> original index (one past the end at `scan.length`); null when the projection is the text itself. */
  map: Int32Array | null;
  /** `scan.slice(0, visibleEnd)` is the visible text; string payloads follow. */
  visibleEnd: number;
  /**
   * The text ends inside a string sequence that has not been terminated: the `scan` index where its payload's
   * projection starts (the payload may continue in the next chunk). -1 otherwise.
   */
  openPayload: number;
}

export function project(text: string): Projection {
  // Most output has no escapes and no controls: the projection is the text itself.
  if (!CONTROL.test(text)) return { scan: text, map: null, visibleEnd: text.length, openPayload: -1 };
  const pieces: string[] = [];
  // Visible characters are at most all of them, plus the sentinel; payloads are collected apart (they are rare).
  let map = new Int32Array(text.length + 1);
  let n = 0;
  let side = '';
  const sideMap: number[] = [];
  let openSide = -1;
  let last = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const at = m.index;
    const tok = m[0];
    if (at > last) {
      pieces.push(text.slice(last, at));
      for (let i = last; i < at; i++) map[n++] = i;
    }
    last = at + tok.length;
    if (tok.length === 1) {
      if (LINE_BREAKS.has(tok.charCodeAt(0))) {
        pieces.push('\n');
        map[n++] = at;
      }
      continue;
    }
    const intro = stringIntroducer(tok);
    if (intro.length === 0) continue;
    const end = tok.length - terminatorLength(tok);
    let begin = at + intro.length;
    let body = tok.slice(intro.length, end);
    if (intro.osc) {
      const num = OSC_NUMBER.exec(body);
      if (num) {
        begin += num[0].length;
        body = body.slice(num[0].length);
      }
    }
    side += '\n';
    sideMap.push(at);
    if (end === tok.length && last === text.length) openSide = side.length;
    if (!CONTROL.test(body)) {
      side += body;
      for (let i = 0; i < body.length; i++) sideMap.push(begin + i);
    } else {
      // Controls inside a string sequence are ignored by the emulator; they must not break a match there either.
      for (let i = 0; i < body.length; i++) {
        if (CONTROL.test(body[i]!)) continue;
        side += body[i];
        sideMap.push(begin + i);
      }
    }
  }
  if (last < text.length) {
    pieces.push(text.slice(last));
    for (let i = last; i < text.length; i++) map[n++] = i;
  }
  const plain = pieces.join('');
  if (sideMap.length > 0) {
    const all = new Int32Array(n + sideMap.length + 1);
    all.set(map.subarray(0, n));
    all.set(sideMap, n);
    map = all;
  }
  map[n + sideMap.length] = text.length;
  return { scan: plain + side, map, visibleEnd: plain.length, openPayload: openSide < 0 ? -1 : plain.length + openSide };
}

/** Projected index -> original index; an identity projection stores no array. */
export function origin(p: Projection, i: number): number {
  return p.map ? p.map[i]! : i;
}
