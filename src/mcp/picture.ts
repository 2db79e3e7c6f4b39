/**
 * Screens as pictures for agents: a PNG sized for vision models. The long edge stays within IMAGE_EDGE_MAX_PX (past
 * it, models scale the image down themselves and spend tokens on pixels they then drop) and the encoded image under
 * IMAGE_BYTES_MAX (what MCP clients accept in one content block); a screen that still encodes larger, such as one
 * full of true-colour noise, is drawn again at a smaller scale.
 */
import { TermError } from '../core/errors.js';
import type { Screenshot } from '../client/TermhostClient.js';
import type { Backend } from './backend.js';

export const IMAGE_EDGE_MAX_PX = 1568;
export const IMAGE_BYTES_MAX = 1024 * 1024;
/** Pixels per cell row when the agent names none: legible glyphs at a modest token cost. */
export const IMAGE_SCALE_DEFAULT = 16;
/** The smallest scale the renderer draws. */
const SCALE_MIN = 4;

export async function agentPicture(backend: Backend, id: string, opts: { scale?: number; theme?: 'dark' | 'light' } = {}): Promise<Screenshot> {
  let scale = opts.scale ?? IMAGE_SCALE_DEFAULT;
  for (;;) {
    const shot = await backend.picture(id, { format: 'png', scale, maxWidth: IMAGE_EDGE_MAX_PX, maxHeight: IMAGE_EDGE_MAX_PX, theme: opts.theme });
    if (shot.bytes.length < IMAGE_BYTES_MAX || shot.cellHeight <= SCALE_MIN) {
      if (shot.bytes.length >= IMAGE_BYTES_MAX) throw new TermError('invalid_request', `the screen does not fit in ${IMAGE_BYTES_MAX} bytes as a PNG even at scale ${SCALE_MIN}; read it as text`);
      return shot;
    }
    // Bytes grow with the area, so shrink both edges by the square root of the overshoot, and a little more.
    scale = Math.max(SCALE_MIN, Math.min(shot.cellHeight - 1, Math.floor(shot.cellHeight * Math.sqrt(IMAGE_BYTES_MAX / shot.bytes.length) * 0.9)));
  }
}

/** The text line next to a picture: what it shows. */
export function describePicture(id: string, shot: Screenshot): string {
  const rows = shot.lastRow - shot.firstRow + 1;
  return `screen of ${id} as a ${shot.width}x${shot.height} PNG: ${shot.cols}x${rows} cells of ${shot.cellWidth}x${shot.cellHeight} px (seq ${shot.seq})`;
}
