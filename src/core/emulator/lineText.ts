/**
 * The text of one xterm buffer line, read straight from xterm's cell array instead of through `translateToString`.
 *
 * `translateToString` builds a row one cell at a time by string concatenation, which leaves a rope of 200 pieces that
 * has to be flattened again later; a 200x60 screen cost about 110 µs that way. Here the UTF-16 code units go into a
 * reusable byte buffer and become one flat string in a single native call, in a fraction of the time.
 *
 * The result is byte-identical to `translateToString` (property-tested against it in lineText.test.ts): cells are
 * visited left to right, stepping over the right half of wide characters; an empty cell reads as a space; a cell with
 * combining characters reads as its stored string; a code point above U+FFFF becomes a surrogate pair.
 *
 * The layout read here is private to @xterm/headless (pinned exactly in package.json): three 32-bit words per cell,
 * the first holding the code point (bits 0-20), a "combined" flag (bit 21) and the width (bits 22-23).
 * lineText.test.ts fails first if an upgrade changes it.
 */

/** xterm's BufferLine, as far as it is read here. */
export interface XtermLine {
  readonly _data: Uint32Array;
  readonly _combined: Record<number, string | undefined>;
  readonly length: number;
  /** The line continues the one above it: the text was wrapped at the right margin. */
  readonly isWrapped: boolean;
  translateToString(trimRight?: boolean, startCol?: number, endCol?: number): string;
}

const CELL_WORDS = 3;
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED = 0x200000;
const HAS_CONTENT = 0x3fffff;
const WIDTH_SHIFT = 22;
const SPACE = 0x20;
/** Content words at or above this hold a character two (or more) columns wide. */
const WIDE = 2 << WIDTH_SHIFT;

/** Scratch space shared by every call (the runtime is single-threaded and nothing here re-enters). */
let latin1 = Buffer.allocUnsafe(512);
let units = new Uint16Array(1024);
let unitsAsBytes = Buffer.from(units.buffer, units.byteOffset, units.byteLength);

/** Make room for `need` bytes or code units, keeping the first `keep` code units. */
function grow(need: number, keep = 0): void {
  if (latin1.length < need) latin1 = Buffer.allocUnsafe(need);
  if (units.length >= need) return;
  const old = units;
  units = new Uint16Array(need);
  units.set(old.subarray(0, keep));
  unitsAsBytes = Buffer.from(units.buffer, units.byteOffset, units.byteLength);
}

/** Columns up to the last cell with content, as `translateToString(true)` counts them. */
function trimmedLength(data: Uint32Array, length: number): number {
  for (let x = length - 1; x >= 0; x--) {
    const content = data[x * CELL_WORDS]!;
    if (content & HAS_CONTENT) return x + (content >>> WIDTH_SHIFT);
  }
  return 0;
}

/**
 * The line's text from column 0 up to (not including) `endCol`, exactly as `translateToString(false, 0, endCol)`, or
 * with `trim`, as `translateToString(true)` with trailing spaces removed as well (how termhost shows a row).
 *
 * Most rows are Latin-1 only; they are collected as single bytes and become a one-byte string. The first cell that
 * needs more (a wide or combined character, anything above U+00FF) moves the row to the two-byte path.
 */
function decode(line: XtermLine, endCol: number, trim: boolean): string {
  const data = line._data;
  const length = line.length;
  let end = Math.min(endCol, length);
  if (trim) end = Math.min(end, trimmedLength(data, length));
  if (latin1.length < end) grow(end);
  const u8 = latin1;
  let n = 0;
  let x = 0;
  while (x < end) {
    const content = data[x * CELL_WORDS]!;
    const cp = content & (CODEPOINT_MASK | IS_COMBINED);
    if (cp > 0xff) return decodeWide(line, endCol, end, trim, x, n);
    u8[n++] = cp || SPACE;
    // Written as a branch, not arithmetic on the width, so the CPU can run ahead on the common width-1 case.
    if (content < WIDE) x++;
    else x += content >>> WIDTH_SHIFT;
  }
  if (trim) while (n > 0 && u8[n - 1] === SPACE) n--;
  const text = n === 0 ? '' : u8.toString('latin1', 0, n);
  return x < endCol && !trim ? text + beyondLine(endCol - x) : text;
}

/** The rest of `decode` from column `x` on, for a row with characters beyond Latin-1; `n` bytes are collected. */
function decodeWide(line: XtermLine, endCol: number, end: number, trim: boolean, x: number, n: number): string {
  const data = line._data;
  // At most two code units per column; combined cells make room for themselves.
  if (units.length < n + (end - x) * 2) grow(n + (end - x) * 2);
  let u16 = units;
  for (let i = 0; i < n; i++) u16[i] = latin1[i]!;
  while (x < end) {
    const content = data[x * CELL_WORDS]!;
    if (content & IS_COMBINED) {
      const s = line._combined[x];
      // Never seen in practice; for a broken cell the reference's answer is whatever it makes of it.
      if (s === undefined) return fallback(line, endCol, trim);
      if (u16.length < n + s.length + (end - x) * 2) {
        grow(n + s.length + (end - x) * 2, n);
        u16 = units;
      }
      for (let i = 0; i < s.length; i++) u16[n++] = s.charCodeAt(i);
    } else {
      let cp = content & CODEPOINT_MASK;
      if (cp === 0) cp = SPACE;
      if (cp > 0xffff) {
        // As xterm's stringFromCodePoint computes it, including for values past U+10FFFF.
        cp -= 0x10000;
        u16[n++] = (cp >> 10) + 0xd800;
        u16[n++] = (cp % 0x400) + 0xdc00;
      } else u16[n++] = cp;
    }
    x += content >>> WIDTH_SHIFT || 1;
  }
  if (trim) while (n > 0 && u16[n - 1] === SPACE) n--;
  const text = n === 0 ? '' : unitsAsBytes.toString('ucs2', 0, n * 2);
  return x < endCol && !trim ? text + beyondLine(endCol - x) : text;
}

/**
 * Columns asked for past the end of the line (the cursor can sit there, after a tab in the last column, say):
 * `translateToString` reads them as empty cells, one space each.
 */
function beyondLine(columns: number): string {
  return ' '.repeat(columns);
}

function fallback(line: XtermLine, endCol: number, trim: boolean): string {
  if (!trim) return line.translateToString(false, 0, endCol);
  const text = line.translateToString(true);
  return text.endsWith(' ') ? text.replace(/ +$/, '') : text;
}

/** A row as termhost shows it: `translateToString(true)` with trailing spaces removed too. */
export function lineText(line: XtermLine): string {
  return decode(line, line.length, true);
}

/** The text left of column `endCol`, untrimmed: `translateToString(false, 0, endCol)`. */
export function lineTextBefore(line: XtermLine, endCol: number): string {
  return decode(line, endCol, false);
}
