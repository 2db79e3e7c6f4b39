/**
 * A cell's colours as a picture shows them: theme defaults, the 16 ANSI colours, the 256-colour palette and true
 * colour, with bold drawn in the bright colours (as xterm.js does by default), dim halfway to the background, inverse
 * swapping the two and invisible drawing the text in the background colour. Pure; colours are 0xrrggbb numbers.
 */
import { THEMES, paletteColor, type ThemeName } from '../../protocol/theme.js';
import { ATTR, DEFAULT_COLOR, RGB_COLOR } from '../snapshot/cells.js';

export interface Palette {
  fg: number;
  bg: number;
  cursor: number;
  cursorText: number;
  /** The 256 palette colours. */
  colors: Uint32Array;
}

const rgb = (hex: string) => parseInt(hex.slice(1), 16);

const palettes = new Map<ThemeName, Palette>();

export function paletteOf(name: ThemeName): Palette {
  let p = palettes.get(name);
  if (!p) {
    const t = THEMES[name];
    const colors = new Uint32Array(256);
    for (let i = 0; i < 256; i++) colors[i] = rgb(paletteColor(i, t));
    palettes.set(name, (p = { fg: rgb(t.foreground), bg: rgb(t.background), cursor: rgb(t.cursor), cursorText: rgb(t.cursorAccent), colors }));
  }
  return p;
}

/** Halfway between two colours, channel by channel. */
export function mix(a: number, b: number, t: number): number {
  const ch = (s: number) => Math.round(((a >> s) & 255) * (1 - t) + ((b >> s) & 255) * t) << s;
  return ch(16) | ch(8) | ch(0);
}

function resolve(p: Palette, word: number, fallback: number, bright: boolean): number {
  if (word === DEFAULT_COLOR) return fallback;
  if (word >= RGB_COLOR) return word & 0xffffff;
  return p.colors[bright && word < 8 ? word + 8 : word]!;
}

/** [foreground, background] of a cell with these colour words and attributes. */
export function cellColors(p: Palette, fgWord: number, bgWord: number, attrs: number): [number, number] {
  let fg = resolve(p, fgWord, p.fg, (attrs & ATTR.bold) !== 0);
  let bg = resolve(p, bgWord, p.bg, false);
  if (attrs & ATTR.inverse) [fg, bg] = [bg, fg];
  if (attrs & ATTR.dim) fg = mix(fg, bg, 0.5);
  if (attrs & ATTR.invisible) fg = bg;
  return [fg, bg];
}

export function hexColor(c: number): string {
  return `#${c.toString(16).padStart(6, '0')}`;
}
