/**
 * Coverage masks of glyphs at one cell size, each rasterised once: a character in a face (regular, bold, italic,
 * bold italic) is drawn with Skia (@napi-rs/canvas) into a scratch canvas the first time it is seen, and its alpha
 * kept as a mask. Masks carry no colour, so a glyph is drawn in any colour from the same mask.
 *
 * Box drawing, block elements and braille come from geometry (boxDrawing.ts); a character DejaVu Sans Mono lacks comes
 * from the bundled fallback (UnifontEX), one neither has is drawn as an empty box, never from a system font (font.ts
 * says why).
 */
import { createCanvas, GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import { geometricMask, isGeometric } from './boxDrawing.js';
import { FALLBACK_FAMILY, FALLBACK_METRICS, FONT_FAMILY, covers, faceOf, fontPath, type Face } from './font.js';
import type { Layout } from './layout.js';

/** Masks kept per atlas; past this the atlas starts again (a screen rarely holds more than a few hundred). */
const ATLAS_GLYPHS_MAX = 8192;
/**
 * Steps of coverage a mask keeps (0 and 255 included). 16 are as smooth to the eye as 256 at terminal sizes, and keep
 * the colours of a screen few enough for an indexed-colour PNG (png.ts): each foreground on each background gives at
 * most this many.
 */
export const COVERAGE_LEVELS = 16;
const COVERAGE_STEP = 255 / (COVERAGE_LEVELS - 1);

function quantise(mask: Uint8Array): Uint8Array {
  for (let i = 0; i < mask.length; i++) mask[i] = Math.round(Math.round(mask[i]! / COVERAGE_STEP) * COVERAGE_STEP);
  return mask;
}

let registered = false;
function registerFonts(): void {
  if (registered) return;
  for (const face of ['regular', 'bold', 'italic', 'boldItalic', 'fallback'] as Face[]) {
    if (!GlobalFonts.registerFromPath(fontPath(face), face === 'fallback' ? FALLBACK_FAMILY : FONT_FAMILY)) throw new Error(`could not load the bundled font ${fontPath(face)}`);
  }
  registered = true;
}

const CSS_FACE: Record<Face, string> = { regular: '', bold: 'bold ', italic: 'italic ', boldItalic: 'italic bold ', fallback: '' };

export class GlyphAtlas {
  private readonly masks = new Map<string, Uint8Array>();
  private readonly ctx: SKRSContext2D;

  constructor(private readonly layout: Pick<Layout, 'cellW' | 'cellH' | 'fontSize' | 'baseline'>) {
    registerFonts();
    const canvas = createCanvas(layout.cellW * 2, layout.cellH);
    this.ctx = canvas.getContext('2d');
    this.ctx.fillStyle = '#ffffff';
    this.ctx.textBaseline = 'alphabetic';
  }

  /** The mask of `text` (one cell's characters) `cells` columns wide: (cellW * cells) x cellH bytes. */
  mask(text: string, bold: boolean, italic: boolean, cells: 1 | 2): Uint8Array {
    const key = `${cells}${bold ? 'b' : ''}${italic ? 'i' : ''}\u0000${text}`;
    let m = this.masks.get(key);
    if (m) return m;
    if (this.masks.size >= ATLAS_GLYPHS_MAX) this.masks.clear();
    m = quantise(this.draw(text, bold, italic, cells));
    this.masks.set(key, m);
    return m;
  }

  private draw(text: string, bold: boolean, italic: boolean, cells: 1 | 2): Uint8Array {
    const { cellW, cellH } = this.layout;
    const w = cellW * cells;
    const cp = text.codePointAt(0)!;
    if (text.length <= 2 && isGeometric(cp) && text === String.fromCodePoint(cp)) {
      const geo = geometricMask(cp, cellW, cellH)!;
      if (cells === 1) return geo;
      const wide = new Uint8Array(w * cellH);
      for (let y = 0; y < cellH; y++) wide.set(geo.subarray(y * cellW, (y + 1) * cellW), y * w);
      return wide;
    }
    let face = faceOf(bold, italic);
    if (!covers(face, text)) face = 'regular';
    if (!covers(face, text)) face = 'fallback';
    if (!covers(face, text)) return missingGlyph(w, cellH);
    const ctx = this.ctx;
    ctx.clearRect(0, 0, cellW * 2, cellH);
    // The fallback is drawn at one em per cell row, on its own baseline: its glyphs are made to fill such a cell.
    const fallback = face === 'fallback';
    const size = fallback ? cellH : this.layout.fontSize;
    const baseline = fallback ? Math.round(cellH * (FALLBACK_METRICS.ascent / (FALLBACK_METRICS.ascent + FALLBACK_METRICS.descent))) : this.layout.baseline;
    ctx.font = fallback ? `${bold ? 'bold ' : ''}${size}px ${FALLBACK_FAMILY}` : `${CSS_FACE[face]}${size}px ${FONT_FAMILY}`;
    // A glyph is centred across its cells: a wide character's may be narrower than two cells, and at a cell width
    // other than half the height the fallback's may be wider than one.
    const x = Math.max(0, (w - ctx.measureText(text).width) / 2) * (cells === 2 || fallback ? 1 : 0);
    ctx.fillText(text, x, baseline);
    const rgba = ctx.getImageData(0, 0, w, cellH).data;
    const out = new Uint8Array(w * cellH);
    for (let i = 0; i < out.length; i++) out[i] = rgba[i * 4 + 3]!;
    return out;
  }
}

/** An empty box inside the cell(s): what a terminal shows for a character its font has no glyph for. */
function missingGlyph(w: number, h: number): Uint8Array {
  const m = new Uint8Array(w * h);
  const t = Math.max(1, Math.round(h / 16));
  const x0 = Math.max(0, Math.round(w * 0.15));
  const x1 = Math.min(w, w - x0);
  const y0 = Math.round(h * 0.2);
  const y1 = Math.round(h * 0.85);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const edge = y < y0 + t || y >= y1 - t || x < x0 + t || x >= x1 - t;
      if (edge) m[y * w + x] = 255;
    }
  }
  return m;
}
