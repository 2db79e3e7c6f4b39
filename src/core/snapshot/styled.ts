/**
 * The screen as styled spans: each row a list of runs of text sharing colours and attributes, derived from the cell
 * grid (cells.ts). It feeds three consumers: render-view frames (spans -> ANSI), the browser's DOM
 * fallback renderer (spans as JSON), and highlights (inverse runs that show a selected menu item).
 */
import type { Static } from '@sinclair/typebox';
import type { Screen } from '../../protocol/http.js';
import type { SpanSchema } from '../../protocol/styled.js';
import type { Emulator } from '../emulator/Emulator.js';
import { ATTR, DEFAULT_COLOR, RGB_COLOR, STYLE_BITS, cellGrid, cellText, type CellGrid } from './cells.js';

/** A palette index 0..255, or "#rrggbb" for true colour. Absent means the terminal's default. */
export type Color = number | string;

/** A run of text sharing colours and attributes: the wire schema is the single definition. */
export type Span = Static<typeof SpanSchema>;

function colorOf(word: number): Color | undefined {
  if (word === DEFAULT_COLOR) return undefined;
  if (word >= RGB_COLOR) return `#${(word & 0xffffff).toString(16).padStart(6, '0')}`;
  return word;
}

const FLAGS = [
  ['bold', ATTR.bold],
  ['dim', ATTR.dim],
  ['italic', ATTR.italic],
  ['underline', ATTR.underline],
  ['blink', ATTR.blink],
  ['inverse', ATTR.inverse],
  ['invisible', ATTR.invisible],
  ['strike', ATTR.strike],
] as const;

function styleOf(grid: CellGrid, i: number): Omit<Span, 'text'> {
  const s: Omit<Span, 'text'> = {};
  const fg = colorOf(grid.fg[i]!);
  const bg = colorOf(grid.bg[i]!);
  if (fg !== undefined) s.fg = fg;
  if (bg !== undefined) s.bg = bg;
  const a = grid.attrs[i]!;
  for (const [name, bit] of FLAGS) if (a & bit) s[name] = true;
  return s;
}

/** Visible rows as spans. Trailing default-styled blanks are dropped, as the text lines are right-trimmed. */
export function styledRows(emu: Emulator): Span[][] {
  const grid = cellGrid(emu);
  const { cols } = grid;
  const rows: Span[][] = [];
  for (let y = 0; y < grid.rows; y++) {
    const spans: Span[] = [];
    let cur: Span | undefined;
    let prev = -1;
    for (let x = 0; x < cols; x++) {
      const i = y * cols + x;
      if (grid.attrs[i]! & ATTR.wideTail) continue;
      const same = cur !== undefined && grid.fg[i] === grid.fg[prev] && grid.bg[i] === grid.bg[prev] && (grid.attrs[i]! & STYLE_BITS) === (grid.attrs[prev]! & STYLE_BITS);
      if (same) cur!.text += cellText(grid, i);
      else spans.push((cur = { text: cellText(grid, i), ...styleOf(grid, i) }));
      prev = i;
    }
    const last = spans[spans.length - 1];
    if (last && Object.keys(last).length === 1) {
      last.text = last.text.replace(/ +$/, '');
      if (last.text === '') spans.pop();
    }
    rows.push(spans);
  }
  return rows;
}

/** A screen snapshot with its rows as spans too (format=styled), read from the same emulator state. */
export function withStyledRows(screen: Screen, emu: Emulator): Screen {
  return { ...screen, styled: styledRows(emu) };
}

function colorSgr(c: Color, base: 30 | 40): string {
  if (typeof c === 'string') {
    const n = parseInt(c.slice(1), 16);
    return `${base + 8};2;${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}`;
  }
  if (c < 8) return String(base + c);
  if (c < 16) return String(base + 60 + c - 8);
  return `${base + 8};5;${c}`;
}

/** SGR parameters that set exactly this style from the default. */
export function sgrOf(s: Omit<Span, 'text'>): string {
  const p: string[] = ['0'];
  if (s.bold) p.push('1');
  if (s.dim) p.push('2');
  if (s.italic) p.push('3');
  if (s.underline) p.push('4');
  if (s.blink) p.push('5');
  if (s.inverse) p.push('7');
  if (s.invisible) p.push('8');
  if (s.strike) p.push('9');
  if (s.fg !== undefined) p.push(colorSgr(s.fg, 30));
  if (s.bg !== undefined) p.push(colorSgr(s.bg, 40));
  return `\x1b[${p.join(';')}m`;
}

/** One row of spans as ANSI, ending in the default style. */
export function spansToAnsi(spans: Span[]): string {
  let out = '';
  for (const { text, ...style } of spans) out += sgrOf(style) + text;
  return `${out}\x1b[0m`;
}

/** Runs drawn in inverse video, with their row and column span: how most TUIs show the selected item. */
export interface Highlight {
  row: number;
  /** Terminal column of the run's first cell. */
  col: number;
  /** Width in terminal columns (a wide character counts two). */
  len: number;
  text: string;
}

/** Inverse-video runs of the visible screen, read from the cells so wide characters keep their true columns. */
export function highlightsOf(emu: Emulator): Highlight[] {
  const grid = cellGrid(emu);
  const { cols } = grid;
  const out: Highlight[] = [];
  for (let row = 0; row < grid.rows; row++) {
    let start = -1;
    let text = '';
    const close = (end: number) => {
      if (start >= 0 && text.trim() !== '') out.push({ row, col: start, len: end - start, text });
      start = -1;
      text = '';
    };
    for (let x = 0; x < cols; x++) {
      const i = row * cols + x;
      const a = grid.attrs[i]!;
      if (a & ATTR.wideTail) continue; // the right half of a wide character: part of the run already
      if (a & ATTR.inverse) {
        if (start < 0) start = x;
        text += cellText(grid, i);
      } else close(x);
    }
    close(cols);
  }
  return out;
}
