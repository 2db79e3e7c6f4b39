/**
 * The screen as a grid of cells: the one place the emulator's cells are read. Styled spans and highlights
 * (styled.ts) and pictures (core/picture) are all derived from it, so a colour or an attribute means the same thing
 * in every form of the screen.
 *
 * The grid is flat typed arrays, row-major, so it is cheap to build, to compare and to post to a worker thread. It is
 * cached per emulator generation (bumped by every parse and resize): reading an unchanged screen again costs nothing,
 * and callers must treat the grid as read-only.
 */
import type { IBufferCell } from '@xterm/headless';
import type { Emulator } from '../emulator/Emulator.js';

/** Colour words: DEFAULT_COLOR, a palette index 0..255, or RGB_COLOR | 0xrrggbb for true colour. */
export const DEFAULT_COLOR = -1;
export const RGB_COLOR = 0x1000000;

/** Attribute bits of a cell. */
export const ATTR = {
  bold: 1,
  dim: 2,
  italic: 4,
  underline: 8,
  blink: 16,
  inverse: 32,
  invisible: 64,
  strike: 128,
  /** A character two columns wide starts here. */
  wide: 256,
  /** The right half of a wide character: nothing of its own to draw. */
  wideTail: 512,
} as const;

/** The bits that make up a style (everything but the width marks). */
export const STYLE_BITS = 255;

/** xterm's colour modes as getFgColorMode/getBgColorMode report them (the CM_* bits of its attribute words). */
const CM_P16 = 0x1000000;
const CM_P256 = 0x2000000;
const CM_RGB = 0x3000000;

export interface CellGrid {
  cols: number;
  rows: number;
  /** Per cell: its code point, 0 for an empty cell, or -(1 + i) for `strings[i]` (a character with combining marks). */
  chars: Int32Array;
  fg: Int32Array;
  bg: Int32Array;
  attrs: Uint16Array;
  strings: string[];
  cursor: { x: number; y: number; visible: boolean };
}

function colorWord(mode: number, value: number): number {
  if (mode === CM_RGB) return RGB_COLOR | value;
  if (mode === CM_P16 || mode === CM_P256) return value;
  return DEFAULT_COLOR;
}

function attrsOf(cell: IBufferCell): number {
  let a = 0;
  if (cell.isBold()) a |= ATTR.bold;
  if (cell.isDim()) a |= ATTR.dim;
  if (cell.isItalic()) a |= ATTR.italic;
  if (cell.isUnderline()) a |= ATTR.underline;
  if (cell.isBlink()) a |= ATTR.blink;
  if (cell.isInverse()) a |= ATTR.inverse;
  if (cell.isInvisible()) a |= ATTR.invisible;
  if (cell.isStrikethrough()) a |= ATTR.strike;
  return a;
}

const cache = new WeakMap<Emulator, { generation: number; grid: CellGrid }>();

/** The visible screen as a cell grid, read once per emulator generation. */
export function cellGrid(emu: Emulator): CellGrid {
  const hit = cache.get(emu);
  if (hit && hit.generation === emu.generation) return hit.grid;
  const grid = readGrid(emu);
  cache.set(emu, { generation: emu.generation, grid });
  return grid;
}

function readGrid(emu: Emulator): CellGrid {
  const buf = emu.term.buffer.active;
  const cols = emu.term.cols;
  const rows = emu.term.rows;
  const n = cols * rows;
  const grid: CellGrid = {
    cols,
    rows,
    chars: new Int32Array(n),
    fg: new Int32Array(n).fill(DEFAULT_COLOR),
    bg: new Int32Array(n).fill(DEFAULT_COLOR),
    attrs: new Uint16Array(n),
    strings: [],
    cursor: { x: Math.min(buf.cursorX, cols - 1), y: buf.cursorY, visible: emu.cursorVisible },
  };
  let cell: IBufferCell | undefined;
  for (let y = 0; y < rows; y++) {
    const line = buf.getLine(buf.baseY + y);
    if (!line) continue;
    for (let x = 0; x < cols; x++) {
      cell = line.getCell(x, cell);
      if (!cell) break;
      const i = y * cols + x;
      const width = cell.getWidth();
      grid.fg[i] = colorWord(cell.getFgColorMode(), cell.getFgColor());
      grid.bg[i] = colorWord(cell.getBgColorMode(), cell.getBgColor());
      let a = attrsOf(cell);
      if (width === 0) a |= ATTR.wideTail;
      else if (width === 2) a |= ATTR.wide;
      grid.attrs[i] = a;
      if (width === 0) continue;
      const chars = cell.getChars();
      if (chars.length === 0) continue;
      const code = chars.codePointAt(0)!;
      if (chars.length === 1 || (chars.length === 2 && code > 0xffff)) grid.chars[i] = code;
      else grid.chars[i] = -(grid.strings.push(chars));
    }
  }
  return grid;
}

/** The text of cell `i`: a space for an empty cell. */
export function cellText(grid: CellGrid, i: number): string {
  const c = grid.chars[i]!;
  if (c === 0) return ' ';
  return c > 0 ? String.fromCodePoint(c) : grid.strings[-c - 1]!;
}
