/** Pictures of screens and recordings: what the rest of core (and, through core/index.ts, the edges) use. */
export { PictureRenderer, RENDER_QUEUE_MAX, GIF_JOBS_MAX } from './PictureRenderer.js';
export { PictureCache, PICTURES_PER_SESSION } from './PictureCache.js';
export { layoutFor, PictureBounds, type PictureOptions, type Layout } from './layout.js';
// Types only from gif.js: its module loads the canvas, which only the worker needs.
export type { Recording, RecordingEvent, GifOptions } from './gif.js';

/** A drawn screen and what it shows. */
export interface Picture {
  format: 'png' | 'svg';
  bytes: Buffer;
  width: number;
  height: number;
  /** The stream offset the screen reflects. */
  seq: number;
  /** Changes whenever the screen does (also on a resize, which leaves seq alone): for ETags. */
  version: number;
  cols: number;
  /** The screen rows drawn, first and last (0-based, inclusive). */
  firstRow: number;
  lastRow: number;
  /** Pixels per cell. */
  cellWidth: number;
  cellHeight: number;
}

export const PICTURE_MIME = { png: 'image/png', svg: 'image/svg+xml' } as const;
