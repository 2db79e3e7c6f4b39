/**
 * The terminal renderer: xterm.js. Its own bundle entry (assets/xterm.js), imported on demand by the pane, so a
 * failure to load it leaves the page working with the DOM renderer.
 *
 * The terminal is always drawn at the session's size. fitSize() only works out the size that would fill the pane, for
 * its "Fit to window" control. (xterm's fit addon is not used: it ignores the pane's padding and counts the
 * scrollbars a larger session puts on the pane, so its answer overflows or falls short.)
 */
import { Terminal } from '@xterm/xterm';
import { cellLineHeight } from './cellHeight.js';
import { loadTermFont, measureFont, TERM_FONT_FAMILY, TERM_FONT_SIZE_PX } from './font.js';
import { THEME } from './theme.js';
import type { TerminalView } from './terminalView.js';

/** Lines the browser keeps above the screen; the session's own scrollback stays on the server. */
const SCROLLBACK_LINES = 5000;

const lineHeightHere = () => cellLineHeight(measureFont(TERM_FONT_FAMILY, TERM_FONT_SIZE_PX, window.devicePixelRatio || 1));

/** The room inside an element's padding, scrollbars included: once the session fits, they are gone. */
function contentBox(el: HTMLElement): { width: number; height: number } {
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  const px = (p: string) => parseFloat(cs.getPropertyValue(p)) || 0;
  return {
    width: r.width - px('padding-left') - px('padding-right') - px('border-left-width') - px('border-right-width'),
    height: r.height - px('padding-top') - px('padding-bottom') - px('border-top-width') - px('border-bottom-width'),
  };
}

export async function createXtermView(host: HTMLElement): Promise<TerminalView> {
  // xterm.js measures its cells once, when it opens: the real font must be there by then.
  await loadTermFont();
  const term = new Terminal({
    scrollback: SCROLLBACK_LINES,
    fontFamily: TERM_FONT_FAMILY,
    fontSize: TERM_FONT_SIZE_PX,
    lineHeight: lineHeightHere(),
    cursorBlink: true,
    theme: THEME,
    allowProposedApi: false,
  });
  term.open(host);
  // Moved to a display with another pixel ratio, the font rounds differently: measure the cell again.
  let dprQuery: MediaQueryList | undefined;
  const onDprChange = () => {
    term.options.lineHeight = lineHeightHere();
    watchDpr();
  };
  const watchDpr = () => {
    dprQuery = window.matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    dprQuery.addEventListener('change', onDprChange, { once: true });
  };
  watchDpr();
  let inputEnabled = true;
  let onInput: ((data: string | Uint8Array) => void) | undefined;
  term.onData((d) => inputEnabled && onInput?.(d));
  // Some mouse reports are raw bytes, delivered as a binary string.
  term.onBinary((d) => inputEnabled && onInput?.(Uint8Array.from(d, (c) => c.charCodeAt(0) & 0xff)));
  return {
    kind: 'xterm',
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    reset: () => term.reset(),
    resize: (cols, rows) => {
      if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
    },
    write: (data) => term.write(data),
    writeTranscript: (text) => term.write(text),
    fitSize: () => {
      const screen = term.element?.querySelector('.xterm-screen');
      if (!screen) return undefined;
      const cell = screen.getBoundingClientRect();
      const room = contentBox(host);
      const cellWidth = cell.width / term.cols;
      const cellHeight = cell.height / term.rows;
      if (!(cellWidth > 0 && cellHeight > 0 && room.width > 0 && room.height > 0)) return undefined;
      // One pixel short, so that xterm rounding its canvas up never tips the pane into scrolling.
      const cols = Math.floor((room.width - 1) / cellWidth);
      const rows = Math.floor((room.height - 1) / cellHeight);
      return { cols: Math.max(2, Math.min(1000, cols)), rows: Math.max(1, Math.min(1000, rows)) };
    },
    cursorRect: () => {
      const screen = term.element?.querySelector('.xterm-screen');
      if (!screen) return undefined;
      const box = screen.getBoundingClientRect();
      const buf = term.buffer.active;
      const row = buf.baseY + buf.cursorY - buf.viewportY;
      if (row < 0 || row >= term.rows) return undefined; // scrolled back: the cursor is not on screen
      const w = box.width / term.cols;
      const h = box.height / term.rows;
      return new DOMRect(box.left + buf.cursorX * w, box.top + row * h, w, h);
    },
    onInput: (fn) => {
      onInput = fn;
    },
    setInputEnabled: (enabled) => {
      inputEnabled = enabled;
      term.options.disableStdin = !enabled;
      term.options.cursorBlink = enabled;
    },
    focus: () => term.focus(),
    dispose: () => {
      dprQuery?.removeEventListener('change', onDprChange);
      term.dispose();
    },
  };
}
