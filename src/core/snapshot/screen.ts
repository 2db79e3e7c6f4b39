/**
 * Emulator state -> Screen, the structure every client reads. Pure apart from reading the emulator; no I/O.
 */
import type { Screen } from '../../protocol/http.js';
import type { Emulator } from '../emulator/Emulator.js';
import { highlightsOf } from './styled.js';

export interface ProcessState {
  seq: number;
  exited: boolean;
  exit_code: number | null;
  exit_signal: string | null;
  exit_reason: 'completed' | 'crashed' | 'closed' | null;
  last_output_at: string | null;
}

/**
 * A row as text, right-trimmed. xterm's own trim drops only never-written cells; programs clear lines by writing
 * spaces (vim, prompts), so trailing spaces are trimmed here too.
 */
function rowText(line: { translateToString(trimRight: boolean): string } | undefined): string {
  const text = line?.translateToString(true) ?? '';
  return text.endsWith(' ') ? text.replace(/ +$/, '') : text;
}

const cache = new WeakMap<Emulator, { generation: number; lines: readonly string[] }>();

/**
 * The visible rows as text, one string per row, right-trimmed. Cached until the emulator's screen next changes, so
 * agents polling an unchanged screen (and waits re-checking it) pay nothing. Callers get their own array.
 */
export function screenLines(emu: Emulator): string[] {
  const hit = cache.get(emu);
  if (hit && hit.generation === emu.generation) return hit.lines.slice();
  const buf = emu.term.buffer.active;
  const rows = emu.term.rows;
  const lines = new Array<string>(rows);
  for (let y = 0; y < rows; y++) lines[y] = rowText(buf.getLine(buf.baseY + y));
  cache.set(emu, { generation: emu.generation, lines });
  return lines.slice();
}

export function snapshotScreen(emu: Emulator, proc: ProcessState, withRaw = false, withHighlights = false): Screen {
  const buf = emu.term.buffer.active;
  const screen: Screen = {
    seq: proc.seq,
    cols: emu.term.cols,
    rows: emu.term.rows,
    lines: screenLines(emu),
    cursor: { x: buf.cursorX, y: buf.cursorY, visible: emu.cursorVisible },
    alt_screen: emu.altScreen,
    title: emu.title,
    modes: emu.modes,
    exited: proc.exited,
    exit_code: proc.exit_code,
    exit_signal: proc.exit_signal,
    exit_reason: proc.exit_reason,
    last_output_at: proc.last_output_at,
  };
  if (withRaw) screen.raw = emu.styledAnsi();
  if (withHighlights) screen.highlights = highlightsOf(emu);
  return screen;
}

/**
 * The last `count` lines above the screen. Scrollback belongs to the normal buffer: a full-screen app in the
 * alternate buffer has none of its own, and what scrolled off before it started is still there.
 */
export function scrollbackLines(emu: Emulator, count: number): { lines: string[]; total: number } {
  const buf = emu.term.buffer.normal;
  const total = buf.baseY;
  const n = Math.max(0, Math.min(count, total));
  const lines: string[] = [];
  for (let y = total - n; y < total; y++) lines.push(rowText(buf.getLine(y)));
  return { lines, total };
}
