/**
 * The floor renderer, for when xterm.js fails to load: it draws the server's own styled snapshot of the screen
 * (GET .../screen?format=styled) as rows of coloured spans, and fetches a new one whenever output arrives. The
 * server's emulator stays the only terminal state; this renderer parses nothing. Typing works for the common keys
 * (keys.ts).
 */
import { h } from './dom.js';
import { keyBytes } from './keys.js';
import { spanStyle, type Span } from './spans.js';
import type { TerminalView } from './terminalView.js';

export interface StyledScreen {
  cols: number;
  rows: number;
  styled: Span[][];
}

/** Rows are this many ems apart (styles.css .dom-term says the same). */
const DOM_LINE_HEIGHT = 1.25;
/** At most one snapshot request per this interval while output streams in. */
const REFRESH_MS = 80;
/** Transcript text kept when replaying into this renderer. */
const MAX_TRANSCRIPT_CHARS = 256 * 1024;

/** Terminal escapes and control characters other than newlines, for showing a transcript as plain text. */
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]/g;

export function createDomView(host: HTMLElement, fetchScreen: () => Promise<StyledScreen | undefined>): TerminalView {
  const screen = h('div', { class: 'dom-term', tabindex: 0, 'aria-label': 'terminal (simple renderer)' });
  host.append(screen);
  let cols = 80;
  let rows = 24;
  let inputEnabled = true;
  let onInput: ((data: string | Uint8Array) => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight = false;
  let dirty = false;
  let transcript: string | undefined;
  let disposed = false;

  const draw = (s: StyledScreen) => {
    const lines = s.styled.map((spans) => {
      const line = h('div', { class: 'dom-row' });
      for (const span of spans) line.append(h('span', { style: spanStyle(span) }, span.text));
      if (spans.length === 0) line.append('\u00a0');
      return line;
    });
    screen.replaceChildren(...lines);
  };

  const refresh = async () => {
    timer = undefined;
    if (inFlight || disposed || transcript !== undefined) {
      dirty = true;
      return;
    }
    inFlight = true;
    dirty = false;
    try {
      const s = await fetchScreen();
      if (s && !disposed && transcript === undefined) draw(s);
    } finally {
      inFlight = false;
      if (dirty && !disposed) schedule();
    }
  };
  const schedule = () => {
    if (!timer) timer = setTimeout(() => void refresh(), REFRESH_MS);
  };

  screen.addEventListener('keydown', (e) => {
    const bytes = keyBytes(e);
    if (bytes === undefined) return;
    e.preventDefault();
    if (inputEnabled) onInput?.(bytes);
  });

  return {
    kind: 'dom',
    get cols() {
      return cols;
    },
    get rows() {
      return rows;
    },
    reset: () => {
      transcript = undefined;
      screen.replaceChildren();
    },
    resize: (c, r) => {
      cols = c;
      rows = r;
      screen.style.width = `${c}ch`;
      screen.style.minHeight = `${r * DOM_LINE_HEIGHT}em`;
    },
    write: () => schedule(),
    writeTranscript: (text) => {
      transcript = ((transcript ?? '') + text.replace(ESCAPES, '').replace(/\r\n?/g, '\n')).slice(-MAX_TRANSCRIPT_CHARS);
      screen.replaceChildren(...transcript.split('\n').map((l) => h('div', { class: 'dom-row' }, l || '\u00a0')));
    },
    fitSize: () => {
      const probe = h('span', { class: 'dom-probe' }, 'W'.repeat(10));
      screen.append(probe);
      const charWidth = probe.getBoundingClientRect().width / 10;
      probe.remove();
      const lineHeight = parseFloat(getComputedStyle(screen).lineHeight);
      const pad = getComputedStyle(host);
      const width = host.clientWidth - parseFloat(pad.paddingLeft) - parseFloat(pad.paddingRight);
      const height = host.clientHeight - parseFloat(pad.paddingTop) - parseFloat(pad.paddingBottom);
      if (!charWidth || !lineHeight || width <= 0 || height <= 0) return undefined;
      return { cols: Math.max(2, Math.min(1000, Math.floor(width / charWidth))), rows: Math.max(2, Math.min(1000, Math.floor(height / lineHeight))) };
    },
    // The server's snapshot carries the cursor, but this renderer does not draw it.
    cursorRect: () => undefined,
    onInput: (fn) => {
      onInput = fn;
    },
    setInputEnabled: (enabled) => {
      inputEnabled = enabled;
    },
    focus: () => screen.focus(),
    dispose: () => {
      disposed = true;
      clearTimeout(timer);
      screen.remove();
    },
  };
}
