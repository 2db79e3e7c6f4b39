/**
 * A cell grid drawn into RGB pixels: each cell's background, its glyph's mask from the atlas blended in its
 * foreground colour, underline and strikethrough as lines, and the cursor as a block in the theme's cursor colour.
 * The pixels are laid out as PNG scanlines (a filter byte, then RGB), so encoding needs no second copy.
 */
import { ATTR, cellText, type CellGrid } from '../snapshot/cells.js';
import { cellColors, paletteOf } from './colors.js';
import type { GlyphAtlas } from './GlyphAtlas.js';
import type { Layout } from './layout.js';

export interface RgbImage {
  width: number;
  height: number;
  /** Bytes per row: 1 (the PNG filter byte, 0) + 3 per pixel. */
  stride: number;
  data: Uint8Array;
}

/** Which cells the cursor covers: its cell, and the right half too when it sits on a wide character. */
export function cursorCell(grid: CellGrid, layout: Layout): number {
  const { x, y, visible } = grid.cursor;
  if (!layout.cursor || !visible || y < layout.firstRow || y > layout.lastRow) return -1;
  return y * grid.cols + x;
}

export function rasterize(grid: CellGrid, layout: Layout, atlas: GlyphAtlas): RgbImage {
  const { cellW, cellH, width, height } = layout;
  const stride = 1 + width * 3;
  const data = new Uint8Array(stride * height);
  const pal = paletteOf(layout.theme);
  const cursorAt = cursorCell(grid, layout);
  const lineT = Math.max(1, Math.round(cellH / 16));
  const underlineY = Math.min(cellH - lineT, layout.baseline + Math.max(1, Math.round(cellH / 16)));
  const strikeY = Math.round(layout.baseline - layout.fontSize * 0.3);
  const cols = grid.cols;

  const fill = (x0: number, y0: number, w: number, h: number, c: number) => {
    const r = (c >> 16) & 255;
    const g = (c >> 8) & 255;
    const b = c & 255;
    const rowStart = y0 * stride + 1 + x0 * 3;
    for (let p = 0; p < w; p++) {
      data[rowStart + p * 3] = r;
      data[rowStart + p * 3 + 1] = g;
      data[rowStart + p * 3 + 2] = b;
    }
    for (let y = 1; y < h; y++) data.copyWithin(rowStart + y * stride, rowStart, rowStart + w * 3);
  };

  for (let row = layout.firstRow; row <= layout.lastRow; row++) {
    const py = (row - layout.firstRow) * cellH;
    for (let col = 0; col < cols; col++) {
      const i = row * cols + col;
      const a = grid.attrs[i]!;
      if (a & ATTR.wideTail && col > 0) continue;
      const cells = a & ATTR.wide && col + 1 < cols ? 2 : 1;
      let [fg, bg] = cellColors(pal, grid.fg[i]!, grid.bg[i]!, a);
      if (i === cursorAt) [fg, bg] = [pal.cursorText, pal.cursor];
      const px = col * cellW;
      const w = cellW * cells;
      fill(px, py, w, cellH, bg);
      if (fg === bg) continue;
      const ch = grid.chars[i]!;
      if (ch !== 0 && ch !== 0x20 && !(a & ATTR.invisible)) {
        const mask = atlas.mask(cellText(grid, i), (a & ATTR.bold) !== 0, (a & ATTR.italic) !== 0, cells);
        blend(data, stride, px, py, w, cellH, mask, fg);
      }
      if (a & ATTR.underline) fill(px, py + underlineY, w, lineT, fg);
      if (a & ATTR.strike) fill(px, py + strikeY, w, lineT, fg);
    }
  }
  return { width, height, stride, data };
}

/** Draw `mask` in colour `c` over what is there: out = under + (c - under) * coverage. */
function blend(data: Uint8Array, stride: number, x0: number, y0: number, w: number, h: number, mask: Uint8Array, c: number): void {
  const r = (c >> 16) & 255;
  const g = (c >> 8) & 255;
  const b = c & 255;
  for (let y = 0; y < h; y++) {
    const row = (y0 + y) * stride + 1 + x0 * 3;
    const m = y * w;
    for (let x = 0; x < w; x++) {
      const cover = mask[m + x]!;
      if (cover === 0) continue;
      const at = row + x * 3;
      if (cover === 255) {
        data[at] = r;
        data[at + 1] = g;
        data[at + 2] = b;
      } else {
        data[at] += ((r - data[at]!) * cover) / 255;
        data[at + 1] += ((g - data[at + 1]!) * cover) / 255;
        data[at + 2] += ((b - data[at + 2]!) * cover) / 255;
      }
    }
  }
}
