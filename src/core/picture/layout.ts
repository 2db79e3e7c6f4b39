/**
 * How big a picture is: the cell size from `scale` (pixels per cell row) or `max_width`, the rows drawn, and the font
 * size and baseline that fit DejaVu Sans Mono into a cell. Pure; the same layout drives PNG, SVG and GIF frames.
 */
import { Bounds } from '../../protocol/bounds.js';
import type { ThemeName } from '../../protocol/theme.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import { FONT_METRICS } from './font.js';

export interface PictureOptions {
  format: 'png' | 'svg';
  /** Pixels per cell row (the cell's height; its width is about half). */
  scale?: number;
  /** The picture's width at most, in pixels: the largest scale that fits (and at most `scale`, when given). */
  maxWidth?: number;
  /** The picture's height at most, in pixels (with maxWidth, a bound on the long edge, as MCP image consumers want). */
  maxHeight?: number;
  theme?: ThemeName;
  /** First and last screen row drawn (0-based, inclusive); default the whole screen. */
  rows?: { first: number; last: number };
  /** Draw the cursor (unless the application hid it). Default true. */
  cursor?: boolean;
}

/** The bounds on picture options, read from the wire bounds. */
export const PictureBounds = {
  scaleMin: Bounds.pictureScaleMin,
  scaleMax: Bounds.pictureScaleMax,
  scaleDefault: Bounds.pictureScaleDefault,
  pixelsMax: Bounds.picturePixelsMax,
} as const;

export interface Layout {
  cellW: number;
  cellH: number;
  fontSize: number;
  /** The text baseline's distance from the top of a cell. */
  baseline: number;
  firstRow: number;
  lastRow: number;
  cols: number;
  width: number;
  height: number;
  theme: ThemeName;
  cursor: boolean;
}

export function cellWidthFor(cellH: number): number {
  return Math.max(1, Math.round((cellH * FONT_METRICS.advance) / (FONT_METRICS.ascent + FONT_METRICS.descent)));
}

/** The layout of a picture of a `cols` x `rows` screen, or why these options cannot be drawn. */
export function layoutFor(cols: number, rows: number, opts: Omit<PictureOptions, 'format'>): Result<Layout> {
  const first = opts.rows?.first ?? 0;
  const last = Math.min(opts.rows?.last ?? rows - 1, rows - 1);
  if (first > last || first >= rows) {
    return fail(new TermError('invalid_request', `rows ${first}-${opts.rows?.last ?? first} is outside the screen (rows 0-${rows - 1})`, { field: 'rows' }));
  }
  const shown = last - first + 1;
  const fits = (h: number) => {
    const w = cellWidthFor(h) * cols;
    const height = h * shown;
    if (opts.maxWidth !== undefined && w > opts.maxWidth) return false;
    if (opts.maxHeight !== undefined && height > opts.maxHeight) return false;
    return w * height <= PictureBounds.pixelsMax;
  };
  let cellH = opts.scale ?? PictureBounds.scaleDefault;
  if (opts.scale !== undefined && opts.maxWidth === undefined && opts.maxHeight === undefined && !fits(cellH)) {
    return fail(new TermError('invalid_request', `scale ${opts.scale} makes a picture of more than ${PictureBounds.pixelsMax} pixels; ask for a smaller scale, a max_width or a max_height`, { field: 'scale' }));
  }
  if (opts.maxWidth !== undefined || opts.maxHeight !== undefined) cellH = opts.scale ?? PictureBounds.scaleMax;
  while (cellH > PictureBounds.scaleMin && !fits(cellH)) cellH--;
  if (!fits(cellH)) {
    return fail(new TermError('invalid_request', `a ${cols}x${shown} screen does not fit in that size even at scale ${PictureBounds.scaleMin}`, { field: opts.maxWidth !== undefined ? 'max_width' : opts.maxHeight !== undefined ? 'max_height' : 'scale' }));
  }
  const cellW = cellWidthFor(cellH);
  const em = FONT_METRICS.ascent + FONT_METRICS.descent;
  const fontSize = Math.min(cellH / em, cellW / FONT_METRICS.advance);
  const baseline = Math.round((cellH - fontSize * em) / 2 + fontSize * FONT_METRICS.ascent);
  return ok({
    cellW,
    cellH,
    fontSize,
    baseline,
    firstRow: first,
    lastRow: last,
    cols,
    width: cellW * cols,
    height: cellH * shown,
    theme: opts.theme ?? 'dark',
    cursor: opts.cursor ?? true,
  });
}
