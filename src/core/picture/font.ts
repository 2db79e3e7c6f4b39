/**
 * The fonts pictures are drawn with, shipped with termhost as runtime dependencies (their files hold the whole font,
 * whatever the "latin" in their names says):
 * - DejaVu Sans Mono (@fontsource/dejavu-mono), regular, bold, italic and bold italic: some 3,300 glyphs, Latin,
 *   Greek, Cyrillic, symbols, box drawing;
 * - UnifontEX (@fontsource/unifontex), one face with a glyph for nearly every character of the Basic Multilingual
 *   Plane and the common emoji: the fallback for what DejaVu lacks, CJK, Hangul and emoji above all.
 *
 * No system font is ever used: a character neither font has is drawn as an empty box (the renderer asks `covers()`
 * first), so a picture comes out the same on a desktop and on a server with no fonts at all.
 * For that the renderer needs the font's character map, read here from the WOFF files (zlib-compressed sfnt tables;
 * formats 4 and 12 of the cmap table, the two DejaVu has).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';

export type Face = 'regular' | 'bold' | 'italic' | 'boldItalic' | 'fallback';

const FILES: Record<Face, string> = {
  regular: 'dejavu-mono/files/dejavu-mono-latin-400-normal.woff',
  bold: 'dejavu-mono/files/dejavu-mono-latin-700-normal.woff',
  italic: 'dejavu-mono/files/dejavu-mono-latin-400-italic.woff',
  boldItalic: 'dejavu-mono/files/dejavu-mono-latin-700-italic.woff',
  fallback: 'unifontex/files/unifontex-latin-400-normal.woff',
};

/** The family names the faces are registered under with the canvas; nothing else is ever asked for. */
export const FONT_FAMILY = 'termhost-dejavu-mono';
export const FALLBACK_FAMILY = 'termhost-unifont';

/**
 * UnifontEX's metrics per em (head and hhea: 1024 units, ascent 896, descent 128). It is drawn on a grid of 16 rows
 * per em and 8 columns per cell, so at one em per cell row its glyphs fill a cell, or two for a wide character.
 */
export const FALLBACK_METRICS = { ascent: 896 / 1024, descent: 128 / 1024 } as const;

/**
 * DejaVu Sans Mono's metrics per em (from its hhea table: ascent 1901, descent 483, advance 1233 of 2048 units):
 * a cell is as tall as ascent plus descent and as wide as the advance.
 */
export const FONT_METRICS = { ascent: 1901 / 2048, descent: 483 / 2048, advance: 1233 / 2048 } as const;

const require = createRequire(import.meta.url);

export function fontPath(face: Face): string {
  return require.resolve(`@fontsource/${FILES[face]}`);
}

export function faceOf(bold: boolean, italic: boolean): Face {
  return bold ? (italic ? 'boldItalic' : 'bold') : italic ? 'italic' : 'regular';
}

/** Sorted, non-overlapping [first, last] code point ranges. */
type Ranges = Uint32Array;

const coverage = new Map<Face, Ranges>();

/** Does the face have a glyph for every code point of `text`? */
export function covers(face: Face, text: string): boolean {
  let ranges = coverage.get(face);
  if (!ranges) coverage.set(face, (ranges = readCmap(fs.readFileSync(fontPath(face)))));
  for (const ch of text) if (!inRanges(ranges, ch.codePointAt(0)!)) return false;
  return true;
}

function inRanges(r: Ranges, cp: number): boolean {
  let lo = 0;
  let hi = r.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < r[mid * 2]!) hi = mid - 1;
    else if (cp > r[mid * 2 + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

/** One sfnt table out of a WOFF file, inflated if stored compressed. */
function woffTable(woff: Buffer, tag: string): Buffer {
  if (woff.toString('latin1', 0, 4) !== 'wOFF') throw new Error('not a WOFF font');
  const count = woff.readUInt16BE(12);
  for (let i = 0; i < count; i++) {
    const at = 44 + i * 20;
    if (woff.toString('latin1', at, at + 4) !== tag) continue;
    const offset = woff.readUInt32BE(at + 4);
    const compressed = woff.readUInt32BE(at + 8);
    const original = woff.readUInt32BE(at + 12);
    const data = woff.subarray(offset, offset + compressed);
    return compressed < original ? zlib.inflateSync(data) : data;
  }
  throw new Error(`the font has no ${tag} table`);
}

/** The code points a font maps to glyphs, from its best Unicode cmap subtable (format 12, else format 4). */
export function readCmap(woff: Buffer): Ranges {
  const cmap = woffTable(woff, 'cmap');
  const n = cmap.readUInt16BE(2);
  let best: { format: number; offset: number } | undefined;
  for (let i = 0; i < n; i++) {
    const platform = cmap.readUInt16BE(4 + i * 8);
    const encoding = cmap.readUInt16BE(6 + i * 8);
    const offset = cmap.readUInt32BE(8 + i * 8);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = cmap.readUInt16BE(offset);
    if (format === 12 && best?.format !== 12) best = { format, offset };
    else if (format === 4 && !best) best = { format, offset };
  }
  if (!best) throw new Error('the font has no Unicode character map');
  const pairs: number[] = [];
  const add = (first: number, last: number) => {
    const end = pairs.length;
    if (end > 0 && pairs[end - 1]! + 1 >= first) pairs[end - 1] = Math.max(pairs[end - 1]!, last);
    else pairs.push(first, last);
  };
  const o = best.offset;
  if (best.format === 12) {
    const groups = cmap.readUInt32BE(o + 12);
    for (let g = 0; g < groups; g++) add(cmap.readUInt32BE(o + 16 + g * 12), cmap.readUInt32BE(o + 20 + g * 12));
  } else {
    const segs = cmap.readUInt16BE(o + 6) / 2;
    const ends = o + 14;
    const starts = ends + segs * 2 + 2;
    const deltas = starts + segs * 2;
    const rangeOffsets = deltas + segs * 2;
    for (let s = 0; s < segs; s++) {
      const end = cmap.readUInt16BE(ends + s * 2);
      const start = cmap.readUInt16BE(starts + s * 2);
      const delta = cmap.readInt16BE(deltas + s * 2);
      const ro = cmap.readUInt16BE(rangeOffsets + s * 2);
      if (start === 0xffff) continue;
      // A segment may still map some of its code points to glyph 0 (.notdef): only real glyphs count.
      let runStart = -1;
      for (let cp = start; cp <= end; cp++) {
        let glyph: number;
        if (ro === 0) glyph = (cp + delta) & 0xffff;
        else {
          const at = rangeOffsets + s * 2 + ro + (cp - start) * 2;
          glyph = cmap.readUInt16BE(at);
          if (glyph !== 0) glyph = (glyph + delta) & 0xffff;
        }
        if (glyph !== 0 && runStart < 0) runStart = cp;
        if (glyph === 0 && runStart >= 0) {
          add(runStart, cp - 1);
          runStart = -1;
        }
      }
      if (runStart >= 0) add(runStart, end);
    }
  }
  return Uint32Array.from(pairs);
}
