/**
 * One command's output as text, taken from the emulator's normal buffer between the command's C mark (output starts)
 * and its D mark (the command ended), so it is the text a person saw, without escapes, progress bars as they ended.
 *
 * Positions are xterm buffer markers, which follow their line as the screen scrolls. Lines that leave the top of the
 * scrollback while the command runs are spooled here as they go (Emulator.watchTrims), so a command's whole output
 * stays readable even when it is far longer than the scrollback; the spool is bounded.
 *
 * A secret-input window cuts the output: what the command printed before the window is frozen as text the moment it
 * opens, nothing is read while it is open, and reading resumes at the cursor where it closed. So nothing of the
 * window's bytes, not even an earlier line they rewrote, ever reaches a command's output.
 */
import type { IMarker } from '@xterm/headless';
import type { Emulator } from '../emulator/Emulator.js';
import { lineText, lineTextBefore, type XtermLine } from '../emulator/lineText.js';

/** A point in the normal buffer: a marker on its line, and a column. */
export interface BufferPoint {
  marker: IMarker;
  col: number;
}

/** The line that stands in for what a secret-input window hid. */
export const SECRET_PLACEHOLDER = '[secret input: hidden by termhost]';

/** Text is kept in chunks of about this many characters, so a long output is a few buffers, not a string per line. */
const CHUNK_CHARS = 64 * 1024;

/** `s` without its trailing spaces, in linear time (/ +$/ backtracks over every earlier run of spaces). */
function trimSpaces(s: string): string {
  let n = s.length;
  while (n > 0 && s.charCodeAt(n - 1) === 0x20) n--;
  return n === s.length ? s : s.slice(0, n);
}

/** The text of `line` from column `from` up to column `to` (exclusive; undefined: to the end), right-trimmed. */
export function lineSegment(line: XtermLine, from: number, to?: number): string {
  const upTo = to === undefined ? lineText(line) : trimSpaces(lineTextBefore(line, to));
  if (from <= 0) return upTo;
  return upTo.slice(lineTextBefore(line, from).length);
}

export class OutputCapture {
  /** Text that left the buffer (spooled lines, and what was frozen when a window opened), in chunks. */
  private readonly chunks: Buffer[] = [];
  private pending = '';
  private spooledChars = 0;
  /** Spooled output dropped because the spool was full, in characters; the gap is said where it is. */
  private droppedChars = 0;
  /** Lines the emulator dropped before they could be read (the scrollback erased, a reset). */
  private lostLines = 0;
  /** Where the text still in the buffer starts; undefined while a secret-input window is open. */
  private from: BufferPoint | undefined;
  /** The line at `from` has left the scrollback (it was spooled): the buffer part starts at line 0, column 0. */
  private fromSpooled = false;
  /** Whether any line has been emitted yet: every later line starts with a newline unless it is a wrapped one. */
  private emitted = false;
  private cutAt: BufferPoint | undefined;
  /** Bumped by every change of what was kept (a spooled line, a window's cut or resume): the snapshot cache's key. */
  private version = 0;
  /**
   * The last snapshot, for the emulator generation and version it was read at. Reading a running command re-reads
   * the whole buffer from its start (100,000 lines of 1000 columns: 1.5 s), so a reader polling a command that has
   * gone quiet would otherwise pay that on every poll, and every other client with it.
   */
  private cached: { generation: number; version: number; value: Buffer } | undefined;

  constructor(
    private readonly emu: Emulator,
    start: BufferPoint,
    /** Spool bound, in characters of text. */
    private readonly maxChars: number,
  ) {
    this.from = start;
  }

  /** Whether some output could not be kept (spool full, lines dropped by the emulator). */
  get incomplete(): boolean {
    return this.droppedChars > 0 || this.lostLines > 0;
  }

  /** A line leaves the top of the scrollback (still readable); see Emulator.watchTrims. */
  trimmed(line: XtermLine): void {
    const from = this.from;
    if (!from) return; // a secret-input window is open: its lines are never read
    this.version++;
    let text: string;
    let first = false;
    if (!this.fromSpooled) {
      if (from.marker.line !== 0) return; // before the output (or, -1, the marker went with a reset)
      this.fromSpooled = true;
      first = true;
      text = lineSegment(line, from.col);
    } else text = lineText(line);
    const sep = this.emitted && !(line.isWrapped && !first) ? '\n' : '';
    this.emitted = true;
    if (this.droppedChars > 0 || this.spooledChars + this.pending.length + text.length > this.maxChars) {
      this.droppedChars += sep.length + text.length;
      return;
    }
    this.append(sep + text);
  }

  /** Lines dropped without being readable. */
  lost(count: number): void {
    this.version++;
    if (this.from && (this.fromSpooled || this.from.marker.line < count)) this.lostLines += count;
  }

  /** A secret-input window opens at `at`: freeze what came before it, and read nothing until it closes. */
  cut(at: BufferPoint): void {
    this.version++;
    if (this.from) {
      this.append(this.gapNote() + this.readBuffer(this.from, this.fromSpooled, at));
      this.droppedChars = 0;
      this.from.marker.dispose();
    }
    this.from = undefined;
    this.cutAt = at;
  }

  /** The window closed with the cursor at `at`: the placeholder stands for what it hid, and reading resumes. */
  resume(at: BufferPoint): void {
    this.version++;
    // On another line than the cut, what follows starts a line of its own.
    const sameLine = this.cutAt !== undefined && this.cutAt.marker.line === at.marker.line;
    this.append(this.placeholder() + (sameLine ? '' : '\n'));
    this.cutAt?.marker.dispose();
    this.cutAt = undefined;
    this.from = at;
    this.fromSpooled = false;
    this.emitted = false;
  }

  /** The output so far, up to the cursor (only what came before the window, while one is open). */
  snapshot(): Buffer {
    const c = this.cached;
    if (c && c.generation === this.emu.generation && c.version === this.version) return c.value;
    const tail = this.from ? this.gapNote() + this.readBuffer(this.from, this.fromSpooled, undefined) : '';
    const value = Buffer.concat([...this.chunks, Buffer.from(this.pending + tail, 'utf8')]);
    this.cached = { generation: this.emu.generation, version: this.version, value };
    return value;
  }

  /** The command ended at `end` (its D mark; undefined: the cursor): the whole output. Lets go of the markers. */
  finish(end: BufferPoint | undefined): Buffer {
    if (this.from) this.append(this.gapNote() + this.readBuffer(this.from, this.fromSpooled, end));
    // Ended inside an open window: everything since it opened stays hidden.
    else if (this.cutAt) this.append(this.placeholder());
    this.droppedChars = 0;
    if (this.lostLines > 0) this.append(`\n[termhost: ${this.lostLines} lines of output were erased from the terminal before they could be read]`);
    this.dispose();
    this.flush();
    return Buffer.concat(this.chunks);
  }

  dispose(): void {
    this.cached = undefined;
    this.from?.marker.dispose();
    this.cutAt?.marker.dispose();
    this.cutAt = undefined;
  }

  /** The placeholder, set off from a prompt before it ("Password: " reads back right-trimmed). */
  private placeholder(): string {
    const last = this.pending ? this.pending.charCodeAt(this.pending.length - 1) : (this.chunks.at(-1)?.at(-1) ?? 0x0a);
    return last === 0x0a || last === 0x20 ? SECRET_PLACEHOLDER : ` ${SECRET_PLACEHOLDER}`;
  }

  /** Where spooled output was dropped, one line that says how much. */
  private gapNote(): string {
    if (this.droppedChars === 0) return '';
    return `\n[termhost: ${this.droppedChars} characters of output left out here: more than the ${this.maxChars}-character spool]`;
  }

  /** The buffer from `from` (line 0 when spooled) to `to` (undefined: the cursor), line by line. */
  private readBuffer(from: BufferPoint, spooled: boolean, to: BufferPoint | undefined): string {
    const emu = this.emu;
    const normal = emu.term.buffer.normal;
    const startLine = spooled ? 0 : from.marker.line;
    const endLine = to ? to.marker.line : normal.baseY + normal.cursorY;
    const endCol = to ? to.col : normal.cursorX;
    if (startLine < 0 || endLine < 0) return '';
    let out = '';
    let emitted = this.emitted;
    for (let y = startLine; y <= endLine; y++) {
      const line = emu.normalBufferLine(y);
      if (!line) break;
      const first = y === startLine && !spooled;
      if (emitted && !(line.isWrapped && !first)) out += '\n';
      emitted = true;
      out += lineSegment(line, first ? from.col : 0, y === endLine ? endCol : undefined);
    }
    return out;
  }

  private append(text: string): void {
    if (!text) return;
    this.pending += text;
    this.emitted = true;
    if (this.pending.length >= CHUNK_CHARS) this.flush();
  }

  private flush(): void {
    if (!this.pending) return;
    const b = Buffer.from(this.pending, 'utf8');
    this.chunks.push(b);
    this.spooledChars += this.pending.length;
    this.pending = '';
  }
}
