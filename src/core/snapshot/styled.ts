/**
 * The screen as styled spans: each row a list of runs of text sharing colours and attributes. Pure apart from
 * reading the emulator's cells. It feeds three consumers: render-view frames (spans -> ANSI), the browser's DOM
 * fallback renderer (spans as JSON), and highlights (inverse runs that show a selected menu item).
 */
import type { IBufferCell } from '@xterm/headless';
import type { Static } from '@sinclair/typebox';
import type { Screen } from '../../protocol/http.js';
import type { SpanSchema } from '../../protocol/styled.js';
import type { Emulator } from '../emulator/Emulator.js';

/** A palette index 0..255, or "#rrggbb" for true colour. Absent means the terminal's default. */
export type Color = number | string;

/** A run of text sharing colours and attributes: the wire schema is the single definition. */
export type Span = Static<typeof SpanSchema>;

type Cell = IBufferCell;

function colorOf(rgb: boolean, palette: boolean, value: number): Color | undefined {
  if (rgb) return `#${value.toString(16).padStart(6, '0')}`;
  if (palette) return value;
  return undefined;
}

function styleOf(cell: Cell): Omit<Span, 'text'> {
  const s: Omit<Span, 'text'> = {};
  const fg = colorOf(cell.isFgRGB(), cell.isFgPalette(), cell.getFgColor());
  const bg = colorOf(cell.isBgRGB(), cell.isBgPalette(), cell.getBgColor());
  if (fg !== undefined) s.fg = fg;
  if (bg !== undefined) s.bg = bg;
  if (cell.isBold()) s.bold = true;
  if (cell.isDim()) s.dim = true;
  if (cell.isItalic()) s.italic = true;
  if (cell.isUnderline()) s.underline = true;
  if (cell.isBlink()) s.blink = true;
  if (cell.isInverse()) s.inverse = true;
  if (cell.isInvisible()) s.invisible = true;
  if (cell.isStrikethrough()) s.strike = true;
  return s;
}

function sameStyle(a: Omit<Span, 'text'>, b: Omit<Span, 'text'>): boolean {
  return (
    a.fg === b.fg &&
    a.bg === b.bg &&
    a.bold === b.bold &&
    a.dim === b.dim &&
    a.italic === b.italic &&
    a.underline === b.underline &&
    a.blink === b.blink &&
    a.inverse === b.inverse &&
    a.invisible === b.invisible &&
    a.strike === b.strike
  );
}

/** Visible rows as spans. Trailing default-styled blanks are dropped, as the text lines are right-trimmed. */
export function styledRows(emu: Emulator): Span[][] {
  const buf = emu.term.buffer.active;
  const cols = emu.term.cols;
  const rows: Span[][] = [];
  let cell: Cell | undefined;
  for (let y = 0; y < emu.term.rows; y++) {
    const line = buf.getLine(buf.baseY + y);
    const spans: Span[] = [];
    if (line) {
      let cur: Span | undefined;
      for (let x = 0; x < cols; x++) {
        cell = line.getCell(x, cell);
        if (!cell || cell.getWidth() === 0) continue; // the right half of a wide character
        const style = styleOf(cell);
        const ch = cell.getChars() || ' ';
        if (cur && sameStyle(cur, style)) cur.text += ch;
        else spans.push((cur = { text: ch, ...style }));
      }
      const last = spans[spans.length - 1];
      if (last && Object.keys(last).length === 1) {
        last.text = last.text.replace(/ +$/, '');
        if (last.text === '') spans.pop();
      }
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
  const buf = emu.term.buffer.active;
  const cols = emu.term.cols;
  const out: Highlight[] = [];
  let cell: Cell | undefined;
  for (let row = 0; row < emu.term.rows; row++) {
    const line = buf.getLine(buf.baseY + row);
    if (!line) continue;
    let start = -1;
    let text = '';
    const close = (end: number) => {
      if (start >= 0 && text.trim() !== '') out.push({ row, col: start, len: end - start, text });
      start = -1;
      text = '';
    };
    for (let x = 0; x < cols; x++) {
      cell = line.getCell(x, cell);
      if (!cell) break;
      if (cell.getWidth() === 0) continue; // the right half of a wide character: part of the run already
      if (cell.isInverse()) {
        if (start < 0) start = x;
        text += cell.getChars() || ' ';
      } else close(x);
    }
    close(cols);
  }
  return out;
}
