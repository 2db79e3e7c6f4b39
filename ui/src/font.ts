/**
 * The terminal's font. It ships with the page (styles.css declares it from @fontsource/dejavu-mono), so a session
 * looks the same on every machine and never depends on which monospace fonts the system has.
 */
import type { FontMetrics } from './cellHeight.js';

export const TERM_FONT_FAMILY = '"DejaVu Mono", monospace';
export const TERM_FONT_SIZE_PX = 14;

/** Measure the font as the browser will draw it (the font must be loaded first). */
export function measureFont(family: string, sizePx: number, dpr: number): FontMetrics {
  const ctx = new OffscreenCanvas(1, 1).getContext('2d')!;
  ctx.font = `${sizePx}px ${family}`;
  const w = ctx.measureText('W');
  // The underscore is the font's lowest ink; bold draws it thicker, so take the lower of the two.
  let ink = 0;
  for (const weight of ['', 'bold ']) {
    ctx.font = `${weight}${sizePx * dpr}px ${family}`;
    ink = Math.max(ink, ctx.measureText('_').actualBoundingBoxDescent);
  }
  return { ascent: w.fontBoundingBoxAscent, descent: w.fontBoundingBoxDescent, underscoreInkDevice: ink, dpr };
}

/** Load both weights the terminal draws with, so xterm.js measures the real font and not a stand-in. */
export async function loadTermFont(): Promise<void> {
  try {
    await Promise.all([document.fonts.load(`${TERM_FONT_SIZE_PX}px ${TERM_FONT_FAMILY}`), document.fonts.load(`bold ${TERM_FONT_SIZE_PX}px ${TERM_FONT_FAMILY}`)]);
  } catch {
    /* the font file did not arrive: the terminal still works in the browser's monospace, measured as it is */
  }
}
