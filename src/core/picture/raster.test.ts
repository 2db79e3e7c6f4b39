/**
 * The two painters give the same pixels: a screen drawn in palette indices, expanded through its palette, equals the
 * same screen drawn in RGB; and a screen with more than 256 colours is refused by the indexed painter (the RGB one
 * then draws it).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Emulator } from '../emulator/Emulator.js';
import { cellGrid } from '../snapshot/cells.js';
import { GlyphAtlas } from './GlyphAtlas.js';
import { layoutFor } from './layout.js';
import { PALETTE_MAX, rasterize, rasterizeIndexed } from './raster.js';

async function gridOf(bytes: string, cols = 40, rows = 6) {
  const emu = new Emulator({ cols, rows, scrollback: 0, onReply: () => {} });
  emu.feed(Buffer.from(bytes));
  await emu.whenParsed();
  const grid = cellGrid(emu);
  emu.dispose();
  const layout = layoutFor(cols, rows, {});
  assert.ok(layout.ok);
  return { grid, layout: layout.value, atlas: new GlyphAtlas(layout.value) };
}

for (const [name, bytes] of [
  ['plain text', 'hello, world\r\nsecond line'],
  ['colours and attributes', '\x1b[1;31mbold red\x1b[0m \x1b[2;4;32mdim underlined\x1b[0m \x1b[7;3minverse italic\x1b[0m \x1b[9mstrike\x1b[0m'],
  ['256 and true colour', '\x1b[38;5;208morange\x1b[48;2;10;20;30m on navy \x1b[0m\u2500\u252c\u2500 \u4e2d'],
] as const) {
  test(`indexed and RGB drawings of ${name} are the same pixels`, async () => {
    const { grid, layout, atlas } = await gridOf(bytes);
    const rgb = rasterize(grid, layout, atlas);
    const ix = rasterizeIndexed(grid, layout, atlas);
    assert.ok(ix, 'fits in a palette');
    for (let y = 0; y < layout.height; y++) {
      for (let x = 0; x < layout.width; x++) {
        const p = ix.data[y * ix.stride + 1 + x]! * 3;
        const at = y * rgb.stride + 1 + x * 3;
        const got: number[] = [ix.palette[p]!, ix.palette[p + 1]!, ix.palette[p + 2]!];
        const want = [rgb.data[at], rgb.data[at + 1], rgb.data[at + 2]];
        if (got.some((v, k) => v !== want[k])) assert.fail(`pixel ${x},${y}: indexed ${got}, RGB ${want}`);
      }
    }
  });
}

test('a screen of more than 256 colours is left to the RGB painter', async () => {
  let s = '';
  for (let i = 0; i < 300; i++) s += `\x1b[48;2;${i % 256};${Math.floor(i / 256)};7m `;
  const { grid, layout, atlas } = await gridOf(s, 40, 8);
  assert.equal(rasterizeIndexed(grid, layout, atlas), undefined);
  assert.ok(PALETTE_MAX === 256);
  assert.equal(rasterize(grid, layout, atlas).width, layout.width);
});
