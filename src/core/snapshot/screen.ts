/**
 * Emulator state -> Screen, the structure every client reads. Pure apart from reading the emulator; no I/O.
 */
import type { Screen, ShellState } from '../../protocol/http.js';
import type { Emulator } from '../emulator/Emulator.js';
import { highlightsOf } from './styled.js';
import { lineText, type XtermLine } from '../emulator/lineText.js';

export interface ProcessState {
  seq: number;
  exited: boolean;
  exit_code: number | null;
  exit_signal: string | null;
  exit_reason: 'completed' | 'crashed' | 'closed' | null;
  last_output_at: string | null;
  shell_integration: 'active' | 'off' | 'unsupported';
  shell: ShellState;
}

/**
 * What a snapshot last read from one emulator. Rows are read with `lineText` (rows right-trimmed: xterm's own trim
 * drops only never-written cells, but programs clear lines by writing spaces, as vim and prompts do, so trailing
 * spaces go too). After a change, only rows xterm reported changed, or whose storage moved, are read again; scrolling
 * reports every row of the scrolled region, so a one-row edit costs one row and a scrolling log costs the screen.
 */
interface ScreenCache {
  /** The emulator's generation the lines reflect; unchanged means nothing to do at all. */
  generation: number;
  layoutVersion: number;
  lines: string[];
  /** Per row: the emulator's row version and xterm's line object when the row was read. */
  versions: Uint32Array;
  sources: Array<XtermLine | undefined>;
}

const cache = new WeakMap<Emulator, ScreenCache>();

/**
 * The visible rows as text, one string per row, right-trimmed. Cached until the emulator's screen next changes, so
 * agents polling an unchanged screen (and waits re-checking it) pay nothing, and after a change only the changed rows
 * are read again. Callers get their own array.
 */
export function screenLines(emu: Emulator): string[] {
  let c = cache.get(emu);
  if (c && c.generation === emu.generation) return c.lines.slice();
  const rows = emu.term.rows;
  const versions = emu.rowVersions;
  if (!c || c.layoutVersion !== emu.layoutVersion || c.lines.length !== rows || versions.length !== rows) {
    c = { generation: -1, layoutVersion: emu.layoutVersion, lines: new Array<string>(rows).fill(''), versions: new Uint32Array(rows), sources: new Array(rows).fill(undefined) };
    // Version 0 is a real version; mark every row unread.
    for (let y = 0; y < rows; y++) c.versions[y] = versions[y]! - 1;
    cache.set(emu, c);
  }
  for (let y = 0; y < rows; y++) {
    const line = emu.screenLine(y);
    if (c.versions[y] === versions[y] && c.sources[y] === line) continue;
    c.lines[y] = line ? lineText(line) : '';
    c.versions[y] = versions[y]!;
    c.sources[y] = line;
  }
  c.generation = emu.generation;
  return c.lines.slice();
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
    shell_integration: proc.shell_integration,
    shell: proc.shell,
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
  const total = emu.term.buffer.normal.baseY;
  const n = Math.max(0, Math.min(count, total));
  const lines: string[] = [];
  for (let y = total - n; y < total; y++) {
    const line = emu.normalBufferLine(y);
    lines.push(line ? lineText(line) : '');
  }
  return { lines, total };
}

/** Scrollback lines above the screen that a wait with `after_seq` also looks at. */
export const AFTER_INPUT_SCROLLBACK_LINES = 2000;

/**
 * The text after the point where input was typed (`at.row` in the normal buffer, from `at.col`): the screen plus at
 * most AFTER_INPUT_SCROLLBACK_LINES above it. The line it was typed on is left out, with its wrapped continuation,
 * when it shows the echo of what was typed; otherwise (typing into a full-screen program, or keys with no echo) it
 * counts, since what is there now came later: a shell's next prompt lands where the cursor was when vim started. A
 * negative row, or the alternate screen being active, means everything on the screen came after.
 */
export function textAfterRow(emu: Emulator, at: { row: number; col: number; typed: string }): string {
  const { row } = at;
  if (row < 0 || emu.altScreen) return screenLines(emu).join('\n');
  const end = emu.normalBufferLength;
  const marked = emu.normalBufferLine(row);
  const echoed = at.typed !== '' && marked !== undefined && lineText(marked).slice(at.col).startsWith(at.typed.slice(0, Math.max(1, emu.term.cols - at.col)).trimEnd());
  let start = echoed ? row + 1 : row;
  while (echoed && start < end && emu.normalBufferLine(start)?.isWrapped) start++;
  start = Math.max(start, end - emu.term.rows - AFTER_INPUT_SCROLLBACK_LINES);
  const lines: string[] = [];
  for (let y = start; y < end; y++) {
    const line = emu.normalBufferLine(y);
    lines.push(line ? lineText(line) : '');
  }
  return lines.join('\n');
}
