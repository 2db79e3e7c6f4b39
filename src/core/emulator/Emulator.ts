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
    buffers: { normal: XtermBuffer };
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
    this.term.write(chunk, () => {
      this.parsedBytes += len;
      this.generation++;
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
    this.parsedListener = undefined;
    this.term.dispose();
  }
}
