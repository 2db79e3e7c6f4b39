/**
 * The headless emulator of one session: @xterm/headless fed with the PTY's bytes.
 *
 * It owns three things beyond xterm itself:
 * - knowing when everything fed has been parsed (xterm parses on a timer), so snapshots never show a stale screen;
 * - keeping that timer off the keystroke path: a chunk that arrives while nothing is pending (the echo of a keystroke,
 *   most of all) is parsed on arrival instead of a timer tick later;
 * - routing the emulator's answers to terminal queries (cursor position, device attributes) back to the PTY;
 * - knowing which screen rows changed since a snapshot last read them, so a snapshot re-reads only those.
 */
import xtermHeadless, { type IMarker } from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import type { MouseEncoding, MouseTracking } from '../input/mouse.js';
import { lineTextBefore, type XtermLine } from './lineText.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;
type XTerm = InstanceType<typeof Terminal>;

export interface TerminalModes {
  mouse: MouseTracking;
  /** sgr_pixels (?1016) asks for pixel positions; termhost only knows cells, so mouse events are refused then. */
  mouse_encoding: MouseEncoding | 'sgr_pixels';
  app_cursor_keys: boolean;
  bracketed_paste: boolean;
}

interface XtermBuffer {
  lines: { get(index: number): XtermLine | undefined; readonly length: number };
  ybase: number;
  ydisp: number;
  /** The cursor, as the public cursorX/cursorY report it. */
  x: number;
  y: number;
}

/**
 * xterm's CircularList of the normal buffer, as far as the trim watch uses it: when the scrollback is full, a new line
 * reuses the oldest one (`recycle`, which fires `onTrim` and then overwrites it); other trims (ED 3, a smaller
 * scrollback) only fire `onTrim`.
 */
interface TrimmableLines {
  get(index: number): XtermLine | undefined;
  recycle(): XtermLine;
  onTrim(listener: (amount: number) => void): { dispose(): void };
}

/** Told about every line that leaves the top of the normal buffer's scrollback. */
export interface TrimListener {
  /** The oldest line is about to be reused: its text is still readable, this once. */
  trimmed(line: XtermLine): void;
  /** Lines dropped without a chance to read them (the scrollback erased, a reset, a smaller scrollback). */
  lost(count: number): void;
}

/** Which rows xterm's parser changed: screen rows, start..end inclusive; undefined means all of them. */
type RefreshRange = { start: number; end: number } | undefined;

/**
 * xterm keeps the cursor's visibility (DECTCEM) and the mouse encoding (?1006) only in private services, and exposes
 * neither its cell storage nor which rows a write changed. They are read here (and the cells in lineText.ts) and
 * nowhere else; the versions are pinned exactly and Emulator.test.ts fails loudly if an upgrade moves them.
 */
interface XTermPrivate {
  _core: {
    coreService: { isCursorHidden: boolean };
    coreMouseService: { activeEncoding: string };
    /** The active buffer, normal or alternate; `ydisp` differs from `ybase` only while scrolled back, which termhost never does. */
    buffer: XtermBuffer;
    buffers: { normal: XtermBuffer & { lines: TrimmableLines } };
    /** Fires at the end of every parse with the rows it touched (viewport rows), the same signal xterm's renderer repaints on. */
    _inputHandler: {
      onRequestRefreshRows(listener: (range: RefreshRange) => void): { dispose(): void };
      /** ED / DECSED: `params.params[0]` is Ps; `selective` respects protected cells. */
      eraseInDisplay(params: { params: number[] }, selective: boolean): boolean;
    };
  };
}

const TRACKING: Record<string, MouseTracking> = {
  none: 'off',
  x10: 'x10',
  vt200: 'normal',
  drag: 'button_event',
  any: 'any_event',
};

export interface EmulatorOptions {
  cols: number;
  rows: number;
  scrollback: number;
  /** Bytes the emulator itself sends to the application: replies to queries. */
  onReply: (bytes: Buffer) => void;
  onTitle?: (title: string) => void;
}

export class Emulator {
  readonly term: XTerm;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private fedBytes = 0;
  private parsedBytes = 0;
  /** The chunks fed and not yet parsed, oldest first: the first is the one being parsed. */
  private unparsed: Buffer[] = [];
  /** How far into the chunk being parsed escapes have been located (escapeAt). */
  private located = 0;
  private waiters: Array<() => void> = [];
  private parsedListener: (() => void) | undefined;
  private titleText = '';
  /** Bumped whenever the screen may have changed (a parse, a resize); snapshot caches key on it. */
  generation = 0;
  /** Per screen row, bumped whenever xterm reports that row changed; a snapshot re-reads only rows whose count moved. */
  rowVersions: Uint32Array;
  /** Bumped when any row may have changed without a per-row report: resize, alternate screen, a full refresh. */
  layoutVersion = 0;
  private readonly core: XTermPrivate['_core'];
  private trimListener: TrimListener | undefined;
  /** The normal buffer's line list the trim watch is hooked into (xterm replaces it on a reset). */
  private hookedLines: TrimmableLines | undefined;

  constructor(opts: EmulatorOptions) {
    this.term = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: opts.scrollback,
      allowProposedApi: true,
      logLevel: 'off',
    });
    this.serializer = new SerializeAddon();
    this.term.loadAddon(this.serializer);
    this.term.onData((data) => {
      // Empty data comes from feed's `input('', true)`; everything else is a reply the application asked for.
      if (data.length > 0) opts.onReply(Buffer.from(data, 'utf8'));
    });
    this.term.onBinary((data) => opts.onReply(Buffer.from(data, 'latin1')));
    this.term.onTitleChange((title) => {
      this.titleText = title;
      opts.onTitle?.(title);
    });
    this.core = (this.term as unknown as XTermPrivate)._core;
    this.rowVersions = new Uint32Array(opts.rows);
    this.core._inputHandler.onRequestRefreshRows((range) => this.rowsChanged(range));
    // Handlers registered here run before xterm's own and fall through to them by returning false.
    this.term.parser.registerCsiHandler({ final: 'J' }, (params) => this.eraseAboveGuard(params, false));
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'J' }, (params) => this.eraseAboveGuard(params, true));
  }

  /**
   * Program output must never crash the daemon. xterm 6.0.0's "erase above" (ED 1) with the cursor in the last column
   * clears the wrap flag of the line below the cursor, indexing the buffer without its scrollback offset: on the last
   * row of a buffer that has never scrolled that line does not exist, and the parser throws (a bare
   * `printf '\e[24;80H\e[1J'` in a fresh 80x24 session did it). In exactly that case, erasing from the top to the
   * cursor inclusive is erasing the whole screen, which xterm's ED 2 does safely.
   */
  private eraseAboveGuard(params: readonly (number | number[])[], selective: boolean): boolean {
    if (params[0] !== 1) return false;
    const buf = this.core.buffer;
    if (buf.x + 1 < this.term.cols || buf.lines.get(buf.y + 1) !== undefined) return false;
    return this.core._inputHandler.eraseInDisplay({ params: [2] }, selective);
  }

  private rowsChanged(range: RefreshRange): void {
    const buf = this.core.buffer;
    // Viewport rows are screen rows unless the viewport is scrolled back; then (never, in practice) assume everything.
    if (range === undefined || buf.ybase !== buf.ydisp) {
      this.layoutVersion++;
      return;
    }
    const versions = this.rowVersions;
    const end = Math.min(range.end, versions.length - 1);
    for (let y = Math.max(0, range.start); y <= end; y++) versions[y]!++;
  }

  /** xterm's storage of screen row `y` (0 = top) of the active buffer, for snapshots; see lineText.ts. */
  screenLine(y: number): XtermLine | undefined {
    const buf = this.core.buffer;
    return buf.lines.get(buf.ybase + y);
  }

  /** The cursor's row left of the cursor, untrimmed: what a prompt detector reads. */
  textLeftOfCursor(): string {
    // The private buffer, not term.buffer.active: this runs after every parse, and the public getter checks the
    // proposed-API option and builds a view object each time.
    const buf = this.core.buffer;
    const line = buf.lines.get(buf.ybase + buf.y);
    return line ? lineTextBefore(line, buf.x) : '';
  }

  /**
   * A marker on the cursor's line that follows it as the screen scrolls (see InputMarks). Undefined while the
   * alternate screen is active: xterm keeps markers in the normal buffer only.
   */
  markCursorLine(): IMarker | undefined {
    return this.altScreen ? undefined : this.term.registerMarker(0);
  }

  /** The cursor's column in the active buffer. */
  get cursorColumn(): number {
    return this.core.buffer.x;
  }

  /** The cursor's line as a marker that follows it, and its column; undefined on the alternate screen. */
  cursorMark(): { marker: IMarker; col: number } | undefined {
    const marker = this.markCursorLine();
    return marker && { marker, col: this.core.buffer.x };
  }

  /**
   * Shell integration: the payloads of OSC 133 (FinalTerm marks) and OSC 7 (working directory), in stream order, as
   * they are parsed, so the cursor is exactly where the shell printed them. Registered only for sessions that use
   * them: other sessions' output pays nothing.
   */
  onShellEscape(listener: (ident: 133 | 7, data: string) => void): void {
    for (const ident of [133, 7] as const) {
      this.term.parser.registerOscHandler(ident, (data) => {
        listener(ident, data);
        return true;
      });
    }
  }

  /**
   * Watch lines leaving the top of the scrollback (one listener): how a command's output stays readable after it
   * scrolled out of the emulator. Only a full scrollback trims, so a session that never fills it pays nothing.
   */
  watchTrims(listener: TrimListener): void {
    this.trimListener = listener;
    this.hookTrims();
  }

  private hookTrims(): void {
    const lines = this.core.buffers.normal.lines;
    if (!this.trimListener || lines === this.hookedLines) return;
    this.hookedLines = lines;
    const listener = this.trimListener;
    const recycle = lines.recycle.bind(lines);
    let recycling = false;
    lines.recycle = () => {
      // Index 0 is the oldest line, the one recycle() hands back to be overwritten.
      const oldest = lines.get(0);
      if (oldest) listener.trimmed(oldest);
      recycling = true;
      try {
        return recycle();
      } finally {
        recycling = false;
      }
    };
    lines.onTrim((amount) => {
      if (!recycling) listener.lost(amount);
    });
  }

  /** Lines in the normal buffer, scrollback included. */
  get normalBufferLength(): number {
    return this.core.buffers.normal.lines.length;
  }

  /** xterm's storage of line `index` of the normal buffer, scrollback included (0 = oldest). */
  normalBufferLine(index: number): XtermLine | undefined {
    return this.core.buffers.normal.lines.get(index);
  }

  /**
   * Feed PTY output. `parsed` fires (from xterm's parser) once these bytes are reflected on the screen.
   *
   * When nothing is waiting to be parsed, the chunk is parsed right away instead of on xterm's next timer tick: the
   * timer only adds latency and leaves the PTY unread while it waits, and a single PTY read is small (a few KiB), so
   * parsing it inline never holds the event loop for long. Under a backlog xterm's own time-sliced parsing takes over.
   */
  feed(chunk: Buffer): void {
    // `input('', true)` is xterm's public way to say "a user just typed": its next write is then parsed synchronously.
    if (this.fedBytes === this.parsedBytes) this.term.input('', true);
    this.fedBytes += chunk.length;
    const len = chunk.length;
    this.unparsed.push(chunk);
    this.term.write(chunk, () => {
      this.parsedBytes += len;
      this.unparsed.shift();
      this.located = 0;
      this.generation++;
      // A reset (RIS) gives the normal buffer a new line list; the trim watch follows it.
      if (this.trimListener && this.core.buffers.normal.lines !== this.hookedLines) this.hookTrims();
      if (this.parsedBytes === this.fedBytes && this.waiters.length > 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      }
      this.parsedListener?.();
    });
  }

  /** Called after each fed chunk has been parsed. */
  onParsed(listener: () => void): void {
    this.parsedListener = listener;
  }

  /**
   * Where, in the stream, the OSC escape being handled right now lies: `ident;data` looked up in the chunk being
   * parsed, after the escapes already located in it (a chunk can carry a C and a D mark). Only called from an
   * escape's handler, so ordinary output pays nothing. An escape split across two reads is placed at the start of the
   * chunk that completes it.
   */
  escapeAt(ident: number, data: string): { start: number; end: number } {
    const chunk = this.unparsed[0];
    const base = this.parsedBytes;
    if (!chunk) return { start: base, end: base };
    const needle = `${ident};${data}`;
    const i = chunk.indexOf(needle, this.located, 'utf8');
    if (i < 0) return { start: base, end: base };
    const len = Buffer.byteLength(needle);
    // ESC ] (or the C1 OSC) before it; BEL or ESC \ after it.
    const start = i >= 2 && chunk[i - 2] === 0x1b ? i - 2 : i >= 1 ? i - 1 : i;
    const end = Math.min(chunk.length, i + len + (chunk[i + len] === 0x07 ? 1 : 2));
    this.located = i + len;
    return { start: base + start, end: base + end };
  }

  /** The stream offset up to which everything fed has been parsed. */
  get parsedOffset(): number {
    return this.parsedBytes;
  }

  /** Bytes fed but not yet parsed. */
  get pendingBytes(): number {
    return this.fedBytes - this.parsedBytes;
  }

  /** Resolves once everything fed so far is on the screen. */
  whenParsed(): Promise<void> {
    if (this.parsedBytes === this.fedBytes) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  get title(): string {
    return this.titleText;
  }

  get altScreen(): boolean {
    return this.term.buffer.active.type === 'alternate';
  }

  get cursorVisible(): boolean {
    return !this.core.coreService.isCursorHidden;
  }

  get modes(): TerminalModes {
    const m = this.term.modes;
    const encoding = this.core.coreMouseService.activeEncoding;
    return {
      mouse: TRACKING[m.mouseTrackingMode] ?? 'off',
      mouse_encoding: encoding === 'SGR' ? 'sgr' : encoding === 'SGR_PIXELS' ? 'sgr_pixels' : 'default',
      app_cursor_keys: m.applicationCursorKeysMode,
      bracketed_paste: m.bracketedPasteMode,
    };
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    this.rowVersions = new Uint32Array(this.term.rows);
    this.layoutVersion++;
    this.generation++;
  }

  /** The visible screen as styled ANSI that reproduces it on a terminal of the same size. */
  styledAnsi(): string {
    return this.serializer.serialize({ scrollback: 0, excludeAltBuffer: false });
  }

  dispose(): void {
    this.waiters = [];
    this.unparsed = [];
    this.parsedListener = undefined;
    this.trimListener = undefined;
    this.term.dispose();
  }
}
