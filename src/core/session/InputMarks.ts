/**
 * Where the cursor was when recent input was accepted, by the output offset at that moment, so a wait can look only
 * at what came afterwards (`after_seq`, `after_input`): the echo of `echo done` is on the line it was typed on, the
 * command's output below it. Each point is an xterm buffer marker, which follows its line as the screen scrolls and
 * is disposed when the line leaves the scrollback. Bounded; the oldest point is dropped first.
 */
import type { IMarker } from '@xterm/headless';

/** Recent inputs whose position is remembered per session. */
export const INPUT_MARKS_KEPT = 32;

export interface InputPoint {
  seq: number;
  /** The cursor's column then: where the echo of what was typed begins. */
  col: number;
  /** The printable start of what was typed (up to its first control character, at most 64 characters). */
  typed: string;
  /**
   * Line index in the normal buffer (scrollback included) where the input was typed; -1 when that line has scrolled
   * out of the scrollback, or when the input went to the alternate screen, where everything on it counts as after.
   */
  row: number;
}

export class InputMarks {
  private readonly points: Array<{ seq: number; marker: IMarker | undefined; col: number; typed: string }> = [];

  /** `marker` is undefined when the alternate screen was active (xterm keeps markers in the normal buffer only). */
  mark(seq: number, marker: IMarker | undefined, col = 0, typed = ''): void {
    const last = this.points[this.points.length - 1];
    if (last && last.seq === seq) {
      // Several inputs before any output: the first one's line is where typing began.
      marker?.dispose();
      return;
    }
    this.points.push({ seq, marker, col, typed: typedStart(typed) });
    if (this.points.length > INPUT_MARKS_KEPT) this.points.shift()!.marker?.dispose();
  }

  rowAt(seq: number): InputPoint | undefined {
    const p = this.points.find((x) => x.seq === seq);
    return p && pointOf(p);
  }

  get last(): InputPoint | undefined {
    const p = this.points[this.points.length - 1];
    return p && pointOf(p);
  }

  dispose(): void {
    for (const p of this.points.splice(0)) p.marker?.dispose();
  }
}

function pointOf(p: { seq: number; marker: IMarker | undefined; col: number; typed: string }): InputPoint {
  return { seq: p.seq, row: p.marker ? p.marker.line : -1, col: p.col, typed: p.typed };
}

/** What a terminal echoes of typed input, at most: its printable start, before the first control character. */
function typedStart(text: string): string {
  const end = text.search(/[\u0000-\u001f\u007f-\u009f]/);
  return (end < 0 ? text : text.slice(0, end)).slice(0, 64);
}
