/**
 * A cell grid as SVG: background runs as rects, each row's text as one <text> of <tspan> runs with every character
 * placed at its cell (an x per character), so the text stays selectable and sharp at any zoom and lines up whatever
 * monospace font the viewer has. Colours, bold, italic, underline and strikethrough as in the PNG; the cursor is a
 * block in the theme's cursor colour. Pure.
 */
import { ATTR, cellText, type CellGrid } from '../snapshot/cells.js';
import { cellColors, hexColor, paletteOf } from './colors.js';
import { cursorCell } from './raster.js';
import type { Layout } from './layout.js';

/** What the viewer uses: the bundled font's family first, then the monospace fonts people have. */
const FONT_STACK = "'DejaVu Sans Mono', 'Menlo', 'Consolas', 'Liberation Mono', monospace";

/** Characters XML cannot carry (C0 controls but tab, lone surrogates, U+FFFE/FFFF) become U+FFFD. */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeXml(s: string): string {
  return s.replace(NOT_XML, '\ufffd').replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

export function renderSvg(grid: CellGrid, layout: Layout): string {
  const { cellW, cellH, width, height } = layout;
  const pal = paletteOf(layout.theme);
  const cursorAt = cursorCell(grid, layout);
  const cols = grid.cols;
  const fontSize = +layout.fontSize.toFixed(2);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_STACK}" font-size="${fontSize}">`,
    `<rect class="background" width="${width}" height="${height}" fill="${hexColor(pal.bg)}"/>`,
  ];
  const rects: string[] = [];
  const rows: string[] = [];
  for (let row = layout.firstRow; row <= layout.lastRow; row++) {
    const y = (row - layout.firstRow) * cellH;
    let bgRun: { x: number; w: number; c: number } | undefined;
    const flushBg = () => {
      if (bgRun && bgRun.c !== pal.bg) rects.push(`<rect x="${bgRun.x}" y="${y}" width="${bgRun.w}" height="${cellH}" fill="${hexColor(bgRun.c)}"/>`);
      bgRun = undefined;
    };
    const spans: string[] = [];
    let run: { xs: number[]; text: string; style: string } | undefined;
    const flushRun = () => {
      if (run) spans.push(`<tspan x="${run.xs.join(' ')}"${run.style}>${escapeXml(run.text)}</tspan>`);
      run = undefined;
    };
    for (let col = 0; col < cols; col++) {
      const i = row * cols + col;
      const a = grid.attrs[i]!;
      if (a & ATTR.wideTail && col > 0) continue;
      const cells = a & ATTR.wide && col + 1 < cols ? 2 : 1;
      let [fg, bg] = cellColors(pal, grid.fg[i]!, grid.bg[i]!, a);
      if (i === cursorAt) [fg, bg] = [pal.cursorText, pal.cursor];
      const x = col * cellW;
      const w = cellW * cells;
      if (i === cursorAt) {
        flushBg();
        rects.push(`<rect class="cursor" x="${x}" y="${y}" width="${w}" height="${cellH}" fill="${hexColor(bg)}"/>`);
      } else if (bgRun && bgRun.c === bg) bgRun.w += w;
      else {
        flushBg();
        bgRun = { x, w, c: bg };
      }
      const ch = grid.chars[i]!;
      const visible = ch !== 0 && ch !== 0x20 && !(a & ATTR.invisible) && fg !== bg;
      const lines = a & (ATTR.underline | ATTR.strike) && fg !== bg;
      if (!visible && !lines) {
        flushRun();
        continue;
      }
      const deco = [a & ATTR.underline ? 'underline' : '', a & ATTR.strike ? 'line-through' : ''].filter(Boolean).join(' ');
      const style =
        ` fill="${hexColor(fg)}"` +
        (a & ATTR.bold ? ' font-weight="bold"' : '') +
        (a & ATTR.italic ? ' font-style="italic"' : '') +
        (deco ? ` text-decoration="${deco}"` : '');
      // One x per UTF-16 unit is how SVG places characters: a character of more than one unit (astral, or with
      // combining marks) gets a tspan of its own and one x.
      const text = visible ? cellText(grid, i) : ' '.repeat(cells);
      const single = text.length > cells;
      if (!run || run.style !== style || single) {
        flushRun();
        run = { xs: [], text: '', style };
      }
      // A wide character is centred across its two cells, as the PNG draws it. The viewer draws it from a font of
      // its own, where CJK and emoji glyphs are about one em wide.
      run.xs.push(cells === 2 && visible ? +(x + Math.max(0, w - fontSize) / 2).toFixed(2) : x);
      if (!visible && cells === 2) run.xs.push(x + cellW);
      run.text += text;
      if (single) flushRun();
    }
    flushBg();
    flushRun();
    if (spans.length > 0) rows.push(`<text y="${y + layout.baseline}" xml:space="preserve">${spans.join('')}</text>`);
  }
  out.push(`<g class="cells">${rects.join('')}</g>`);
  out.push(`<g class="text">${rows.join('\n')}</g>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
