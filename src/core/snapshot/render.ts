/**
 * Whole-screen redraws for attach clients, rendered from the emulator rather than replayed from bytes.
 *
 * - `repaint`: the join-time redraw for a client the size of the session, via the serialize addon, which also
 *   restores the application's modes (cursor keys, mouse, bracketed paste) and the alternate screen.
 * - `renderFrame`: the render view, for a client larger than the session, whose own wrapping and scrolling would
 *   garble the raw stream. The session is drawn as a box at the top left; every row is cleared to the client's edge
 *   in the default style, the rest of the client screen is blanked, and the cursor goes where the session's is. The
 *   frame is wrapped in synchronized-output marks (?2026) so terminals that know them draw it without flicker.
 */
import type { Emulator } from '../emulator/Emulator.js';
import { spansToAnsi, styledRows } from './styled.js';

export function repaint(emu: Emulator): Buffer {
  return Buffer.from(`\x1b[0m\x1b[H\x1b[2J${emu.styledAnsi()}`, 'utf8');
}

export function renderFrame(emu: Emulator, client: { cols: number; rows: number }): Buffer {
  const rows = styledRows(emu);
  const visible = Math.min(rows.length, client.rows);
  let out = '\x1b[?2026h\x1b[?25l\x1b[0m';
  for (let y = 0; y < visible; y++) out += `\x1b[${y + 1};1H${spansToAnsi(rows[y]!)}\x1b[K`;
  if (client.rows > visible) out += `\x1b[${visible + 1};1H\x1b[J`;
  const buf = emu.term.buffer.active;
  out += `\x1b[${buf.cursorY + 1};${buf.cursorX + 1}H`;
  if (emu.cursorVisible) out += '\x1b[?25h';
  out += '\x1b[?2026l';
  return Buffer.from(out, 'utf8');
}
