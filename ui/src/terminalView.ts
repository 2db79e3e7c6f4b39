/**
 * What the pane needs from a terminal renderer. xterm.js is the real one (xtermView.ts, loaded on demand); the DOM
 * renderer (domView.ts) is the floor when xterm.js cannot load. A renderer draws the session at the session's size,
 * whatever the pane's: only the API (or a person pressing "Fit to window") changes that size.
 */
export interface TerminalView {
  readonly kind: 'xterm' | 'dom';
  readonly cols: number;
  readonly rows: number;
  /** Forget everything on screen and every mode: a repaint follows. */
  reset(): void;
  resize(cols: number, rows: number): void;
  /** Bytes from the session (stream or repaint). */
  write(data: Uint8Array | string): void;
  /** Text replayed from a transcript. */
  writeTranscript(text: string): void;
  /** The size that would fill the pane, or undefined when it cannot be measured yet. */
  fitSize(): { cols: number; rows: number } | undefined;
  /** Where the cursor's cell is on the page, when the renderer knows and the cursor is on screen. */
  cursorRect(): DOMRect | undefined;
  /** Keystrokes typed into the renderer, already encoded for the PTY. */
  onInput(fn: (data: string | Uint8Array) => void): void;
  setInputEnabled(enabled: boolean): void;
  focus(): void;
  dispose(): void;
}
