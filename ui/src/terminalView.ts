/**
 * What the pane needs from a terminal renderer. xterm.js is the real one (xtermView.ts, loaded on demand); the DOM
 * renderer (domView.ts) is the floor when xterm.js cannot load.
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
  /** The size that fills the pane, or undefined when it cannot be measured yet. */
  fitSize(): { cols: number; rows: number } | undefined;
  /** Keystrokes typed into the renderer, already encoded for the PTY. */
  onInput(fn: (data: string | Uint8Array) => void): void;
  setInputEnabled(enabled: boolean): void;
  focus(): void;
  dispose(): void;
}
