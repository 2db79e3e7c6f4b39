/**
 * How tall a terminal cell must be for the font's lowest glyph to fit in it (pure; font.ts measures the font).
 *
 * Why the line height is computed rather than fixed: xterm.js sizes a cell from the font's ascent plus descent as the
 * browser reports them, and the browser rounds each to whole pixels. DejaVu Sans Mono at 14 px has a 3.3 px
 * descender, reported as 3; its underscore, hinted, inks the 4th pixel row below the baseline. With lineHeight 1.1 the
 * cell is floor(16 * 1.1) = 17 px, so the underscore lands on the cell's very last pixel row with nothing to spare, and the
 * DOM renderer clips every row (overflow: hidden). Wherever the baseline rounds one pixel lower, `for _ in` reads
 * `for   in` (xterm.js issue 4067; its canvas and WebGL renderers nudge underscores up, the DOM renderer does not).
 * So the cell gets the leading the font's lowest glyph needs, measured on this display, with room for the rounding.
 */

/** The line height we want when the font needs no more: a little air between rows. */
export const BASE_LINE_HEIGHT = 1.1;
/** What a baseline rounded the wrong way can cost, in device pixels: half above, half below. */
const ROUNDING_DEVICE_PX = 1;

/** What the browser reports for the font, in CSS pixels at the terminal's size, and the display's pixel ratio. */
export interface FontMetrics {
  /** fontBoundingBoxAscent and fontBoundingBoxDescent of the font at the CSS size (what xterm.js sizes cells by). */
  ascent: number;
  descent: number;
  /** How far the underscore's ink reaches below the baseline, in device pixels (measured at the device size). */
  underscoreInkDevice: number;
  dpr: number;
}

/**
 * The smallest lineHeight, at least BASE_LINE_HEIGHT, whose cell holds the underscore even when the baseline rounds
 * half a device pixel the wrong way. It follows xterm's DOM renderer: char height = ceil((ascent + descent) * dpr)
 * device pixels, cell height = floor(char height * lineHeight), and the browser splits the extra leading evenly
 * above and below the text. So the leading must cover the ink's overhang below the descent twice (once for the half
 * below, once for the half above that pushes the baseline down) plus the rounding.
 */
export function cellLineHeight(m: FontMetrics): number {
  const charDevice = Math.ceil((m.ascent + m.descent) * m.dpr);
  if (!(charDevice > 0)) return BASE_LINE_HEIGHT;
  const overhang = Math.ceil(m.underscoreInkDevice) - m.descent * m.dpr;
  const leadingNeeded = Math.max(0, Math.ceil(2 * overhang + ROUNDING_DEVICE_PX));
  const base = Math.floor(charDevice * BASE_LINE_HEIGHT);
  if (base - charDevice >= leadingNeeded) return BASE_LINE_HEIGHT;
  // A hair above the exact ratio, so that xterm's floor() lands on the cell height and not one pixel short.
  return (charDevice + leadingNeeded) / charDevice + 1e-6;
}
