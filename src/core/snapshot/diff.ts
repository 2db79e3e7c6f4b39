/**
 * Pure: two screens -> what changed between them. Agents that re-read a screen pay for the rows that changed, not
 * for the whole screen again.
 */
import type { Screen, ScreenChanges } from '../../protocol/http.js';

function sameCursor(a: Screen['cursor'], b: Screen['cursor']): boolean {
  return a.x === b.x && a.y === b.y && a.visible === b.visible;
}

function sameModes(a: Screen['modes'], b: Screen['modes']): boolean {
  return (
    a.mouse === b.mouse && a.mouse_encoding === b.mouse_encoding && a.app_cursor_keys === b.app_cursor_keys && a.bracketed_paste === b.bracketed_paste
  );
}

/**
 * The changes from `before` (the screen a client was served at `sinceSeq`) to `now`. Without `before`, or across a
 * size change, the answer is the full screen.
 */
export function diffScreens(sinceSeq: number, before: Screen | undefined, now: Screen): ScreenChanges {
  const { lines, raw: _raw, highlights, ...rest } = now;
  const out: ScreenChanges = { ...rest, since_seq: sinceSeq, changed: true, full: true };
  if (highlights) out.highlights = highlights;
  if (!before || before.cols !== now.cols || before.rows !== now.rows) {
    out.lines = lines;
    return out;
  }
  const changes: Array<{ row: number; text: string }> = [];
  for (let row = 0; row < lines.length; row++) if (lines[row] !== before.lines[row]) changes.push({ row, text: lines[row] });
  out.full = false;
  out.changes = changes;
  out.changed =
    changes.length > 0 ||
    !sameCursor(before.cursor, now.cursor) ||
    before.alt_screen !== now.alt_screen ||
    before.title !== now.title ||
    !sameModes(before.modes, now.modes) ||
    before.exited !== now.exited ||
    before.shell.state !== now.shell.state ||
    before.shell.command_id !== now.shell.command_id ||
    // A selection moving through a menu changes only attributes; with highlights asked for, that is a change.
    (highlights !== undefined && JSON.stringify(before.highlights ?? null) !== JSON.stringify(highlights));
  return out;
}
