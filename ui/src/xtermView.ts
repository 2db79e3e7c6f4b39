/**
 * The terminal renderer: xterm.js with the fit addon. Its own bundle entry (assets/xterm.js), imported on demand by
 * the pane, so a failure to load it leaves the page working with the DOM renderer.
 */
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { THEME } from './theme.js';
import type { TerminalView } from './terminalView.js';

/** Lines the browser keeps above the screen; the session's own scrollback stays on the server. */
const SCROLLBACK_LINES = 5000;

export function createXtermView(host: HTMLElement): TerminalView {
  const term = new Terminal({
    scrollback: SCROLLBACK_LINES,
    fontFamily: '"DejaVu Sans Mono", "Cascadia Mono", Menlo, Consolas, monospace',
    fontSize: 14,
    lineHeight: 1.1,
    cursorBlink: true,
    theme: THEME,
    allowProposedApi: false,
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(host);
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
      const d = fit.proposeDimensions();
      return d && Number.isFinite(d.cols) && Number.isFinite(d.rows) && d.cols > 0 && d.rows > 0 ? { cols: Math.min(d.cols, 1000), rows: Math.min(d.rows, 1000) } : undefined;
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
    dispose: () => term.dispose(),
  };
}
