/**
 * A cell grid drawn into pixels: each cell's background, its glyph's mask from the atlas blended in its foreground
 * colour, underline and strikethrough as lines, and the cursor as a block in the theme's cursor colour.
 *
 * One walk over the cells (`paint`) drives two painters:
 * - indexed: one byte per pixel into a palette of at most 256 colours. Every colour on a screen is a background, a
 *   foreground, or a glyph edge between the two at one of the atlas's COVERAGE_LEVELS, so most screens fit; the
 *   bytes are a third of RGB's to write and to deflate. It gives up (undefined) on the 257th colour.
 * - RGB: three bytes per pixel, for screens with more colours (every cell its own true colour) and for GIF frames.
 * Both lay their pixels out as PNG scanlines (a filter byte, 0, before each row), so encoding needs no second copy.
 * Both compute a blended colour the same way, so the two give the same pixels.
 */
import { ATTR, cellText, type CellGrid } from '../snapshot/cells.js';
import { cellColors, paletteOf } from './colors.js';
import { COVERAGE_LEVELS, type GlyphAtlas } from './GlyphAtlas.js';
import type { Layout } from './layout.js';

export interface RgbImage {
  width: number;
  height: number;
  /** Bytes per row: 1 (the PNG filter byte, 0) + 3 per pixel. */
  stride: number;
  data: Uint8Array;
}

export interface IndexedImage {
  width: number;
  height: number;
  /** Bytes per row: 1 (the PNG filter byte, 0) + 1 per pixel. */
  stride: number;
  data: Uint8Array;
  /** RGB triples, one per index used. */
  palette: Uint8Array;
}

/** Colours an indexed picture may have (8-bit indices). */
export const PALETTE_MAX = 256;

/** Which cell the cursor covers (-1 for none): a cursor on a wide character covers both its cells. */
export function cursorCell(grid: CellGrid, layout: Layout): number {
  const { x, y, visible } = grid.cursor;
  if (!layout.cursor || !visible || y < layout.firstRow || y > layout.lastRow) return -1;
  return y * grid.cols + x;
}

/** The colour a mask pixel of coverage `cover` (0..255) gives in colour `c` over `under`. */
export function blendColour(under: number, c: number, cover: number): number {
  // Truncated as a Uint8Array store truncates, so the RGB painter (which stores directly) gives the same bytes.
  const k = cover / 255;
  const ch = (s: number) => {
    const u = (under >> s) & 255;
    return Math.trunc(u + (((c >> s) & 255) - u) * k) << s;
  };
  return ch(16) | ch(8) | ch(0);
}

interface Painter {
  fill(x: number, y: number, w: number, h: number, c: number): boolean;
  blend(x: number, y: number, w: number, h: number, mask: Uint8Array, fg: number, bg: number): boolean;
}

/** Walk the cells and paint each; false when the painter gave up. */
function paint(grid: CellGrid, layout: Layout, atlas: GlyphAtlas, p: Painter): boolean {
  const { cellW, cellH } = layout;
  const pal = paletteOf(layout.theme);
  const cursorAt = cursorCell(grid, layout);
  const lineT = Math.max(1, Math.round(cellH / 16));
  const underlineY = Math.min(cellH - lineT, layout.baseline + Math.max(1, Math.round(cellH / 16)));
  const strikeY = Math.round(layout.baseline - layout.fontSize * 0.3);
  const cols = grid.cols;
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
      if (!p.fill(px, py, w, cellH, bg)) return false;
      if (fg === bg) continue;
      const ch = grid.chars[i]!;
      if (ch !== 0 && ch !== 0x20 && !(a & ATTR.invisible)) {
        const mask = atlas.mask(cellText(grid, i), (a & ATTR.bold) !== 0, (a & ATTR.italic) !== 0, cells);
        if (!p.blend(px, py, w, cellH, mask, fg, bg)) return false;
      }
      if (a & ATTR.underline && !p.fill(px, py + underlineY, w, lineT, fg)) return false;
      if (a & ATTR.strike && !p.fill(px, py + strikeY, w, lineT, fg)) return false;
    }
  }
  return true;
}

export function rasterize(grid: CellGrid, layout: Layout, atlas: GlyphAtlas): RgbImage {
  const { width, height } = layout;
  const stride = 1 + width * 3;
  const data = new Uint8Array(stride * height);
  paint(grid, layout, atlas, {
    fill(x0, y0, w, h, c) {
      const rowStart = y0 * stride + 1 + x0 * 3;
      for (let p = 0; p < w; p++) {
        data[rowStart + p * 3] = c >> 16;
        data[rowStart + p * 3 + 1] = (c >> 8) & 255;
        data[rowStart + p * 3 + 2] = c & 255;
      }
      for (let y = 1; y < h; y++) data.copyWithin(rowStart + y * stride, rowStart, rowStart + w * 3);
      return true;
    },
    blend(x0, y0, w, h, mask, fg, bg) {
      // blendColour, inlined: this loop runs for every pixel of every glyph.
      const fr = fg >> 16;
      const fgG = (fg >> 8) & 255;
      const fb = fg & 255;
      const br = bg >> 16;
      const bgG = (bg >> 8) & 255;
      const bb = bg & 255;
      for (let y = 0; y < h; y++) {
        const row = (y0 + y) * stride + 1 + x0 * 3;
        const m = y * w;
        for (let x = 0; x < w; x++) {
          const cover = mask[m + x]!;
          if (cover === 0) continue;
          const at = row + x * 3;
          if (cover === 255) {
            data[at] = fr;
            data[at + 1] = fgG;
            data[at + 2] = fb;
          } else {
            const k = cover / 255;
            data[at] = br + (fr - br) * k;
            data[at + 1] = bgG + (fgG - bgG) * k;
            data[at + 2] = bb + (fb - bb) * k;
          }
        }
      }
      return true;
    },
  });
  return { width, height, stride, data };
}

/** The coverage level of each mask value (the atlas keeps only COVERAGE_LEVELS values). */
const LEVEL_OF = Uint8Array.from({ length: 256 }, (_, v) => Math.round((v * (COVERAGE_LEVELS - 1)) / 255));

/** The picture in palette indices, or undefined when it needs more than PALETTE_MAX colours. */
export function rasterizeIndexed(grid: CellGrid, layout: Layout, atlas: GlyphAtlas): IndexedImage | undefined {
  const { width, height } = layout;
  const stride = 1 + width;
  const data = new Uint8Array(stride * height);
  const palette = new Uint8Array(PALETTE_MAX * 3);
  const indexOf = new Map<number, number>();
  /** Per foreground-on-background pair, the index of each coverage level (-1 until first used). */
  const pairs = new Map<number, Int16Array>();
  const index = (c: number): number => {
    let ix = indexOf.get(c);
    if (ix === undefined) {
      if (indexOf.size === PALETTE_MAX) return -1;
      ix = indexOf.size;
      indexOf.set(c, ix);
      palette[ix * 3] = c >> 16;
      palette[ix * 3 + 1] = (c >> 8) & 255;
      palette[ix * 3 + 2] = c & 255;
    }
    return ix;
  };
  const painted = paint(grid, layout, atlas, {
    fill(x0, y0, w, h, c) {
      const ix = index(c);
      if (ix < 0) return false;
      for (let y = 0; y < h; y++) data.fill(ix, (y0 + y) * stride + 1 + x0, (y0 + y) * stride + 1 + x0 + w);
      return true;
    },
    blend(x0, y0, w, h, mask, fg, bg) {
      const key = fg * 0x1000000 + bg;
      let levels = pairs.get(key);
      if (!levels) pairs.set(key, (levels = new Int16Array(COVERAGE_LEVELS).fill(-1)));
      for (let y = 0; y < h; y++) {
        const row = (y0 + y) * stride + 1 + x0;
        for (let x = 0; x < w; x++) {
          const cover = mask[y * w + x]!;
          if (cover === 0) continue;
          const level = LEVEL_OF[cover]!;
          let ix = levels[level]!;
          if (ix < 0) {
            ix = levels[level] = index(cover === 255 ? fg : blendColour(bg, fg, cover));
            if (ix < 0) return false;
          }
          data[row + x] = ix;
        }
      }
      return true;
    },
  });
  return painted ? { width, height, stride, data, palette: palette.subarray(0, indexOf.size * 3) } : undefined;
}
