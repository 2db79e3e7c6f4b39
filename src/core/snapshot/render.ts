/**
 * Whole-screen redraws for attach clients, rendered from the emulator rather than replayed from bytes.
 *
 * - `repaint`: the join-time redraw for a client the size of the session, via the serialize addon, which also
 *   restores the application's modes (cursor keys, mouse, bracketed paste) and the alternate screen.
 * - `renderFrame`: the render view, for a client larger than the session, whose own wrapping and scrolling would
 *   garble the raw stream. The session is drawn as a box at the top left; every row is cleared to the client's edge
 *   in the default style, the rest of the client screen is blanked, the session's edge is drawn where the client has
 *   room for it (a dim line to the right and below), and the cursor goes where the session's is. The
 *   frame is wrapped in synchronized-output marks (?2026) so terminals that know them draw it without flicker.
 */
import type { Emulator } from '../emulator/Emulator.js';
import { spansToAnsi, styledRows } from './styled.js';

export function repaint(emu: Emulator): Buffer {
  return Buffer.from(`\x1b[0m\x1b[H\x1b[2J${emu.styledAnsi()}`, 'utf8');
}

/** The session's edge in the render view, drawn dim so it reads as a frame and not as the program's output. */
const EDGE = { right: '\u2502', bottom: '\u2500', corner: '\u2518', on: '\x1b[0;2m', off: '\x1b[0m' } as const;

export function renderFrame(emu: Emulator, client: { cols: number; rows: number }): Buffer {
  const rows = styledRows(emu);
  const visible = Math.min(rows.length, client.rows);
  const cols = emu.term.cols;
  // Where the session ends, when the client has room to show it: a line to the right, one below, a corner.
  const right = client.cols > cols ? `\x1b[${cols + 1}G${EDGE.on}${EDGE.right}${EDGE.off}` : '';
  let out = '\x1b[?2026h\x1b[?25l\x1b[0m';
  for (let y = 0; y < visible; y++) out += `\x1b[${y + 1};1H${spansToAnsi(rows[y]!)}\x1b[K${right}`;
  if (client.rows > visible) {
    out += `\x1b[${visible + 1};1H\x1b[J`;
    out += `${EDGE.on}${EDGE.bottom.repeat(Math.min(cols, client.cols))}${right ? EDGE.corner : ''}${EDGE.off}`;
  }
  const buf = emu.term.buffer.active;
  out += `\x1b[${buf.cursorY + 1};${buf.cursorX + 1}H`;
  if (emu.cursorVisible) out += '\x1b[?25h';
  out += '\x1b[?2026l';
  return Buffer.from(out, 'utf8');
}
