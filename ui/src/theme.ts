/** The terminal colours, shared by xterm.js and the DOM fallback renderer (and the server's pictures) so all draw a session alike. */
import { THEMES, paletteColor as themedColor } from '../../src/protocol/theme.js';

export const THEME = THEMES.dark;

/** xterm's 256-colour palette in the UI's theme. */
export function paletteColor(index: number): string {
  return themedColor(index, THEME);
}
