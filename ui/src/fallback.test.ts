import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyBytes, type KeyLike } from './keys.js';
import { spanStyle } from './spans.js';
import { THEME, paletteColor } from './theme.js';

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, altKey: false, shiftKey: false, metaKey: false, ...mods });

test('the fallback renderer sends the bytes a terminal would for common keys', () => {
  for (const [ev, want] of [
    [key('a'), 'a'],
    [key('A', { shiftKey: true }), 'A'],
    [key('Enter'), '\r'],
    [key('Backspace'), '\x7f'],
    [key('c', { ctrlKey: true }), '\x03'],
    [key('x', { altKey: true }), '\x1bx'],
    [key('ArrowUp'), '\x1b[A'],
    [key('Tab', { shiftKey: true }), '\x1b[Z'],
    [key('Delete'), '\x1b[3~'],
    [key('c', { metaKey: true }), undefined],
    [key('F5'), undefined],
    [key('Shift', { shiftKey: true }), undefined],
  ] as const) {
    assert.equal(keyBytes(ev), want, JSON.stringify(ev));
  }
});

test('styled spans become CSS: palette and true colours, attributes, and inverse swapping the defaults', () => {
  assert.deepEqual(spanStyle({ text: 'x', fg: 1, bold: true }), { color: THEME.red, fontWeight: 'bold' });
  assert.deepEqual(spanStyle({ text: 'x', fg: '#123456', underline: true, strike: true }), { color: '#123456', textDecoration: 'underline line-through' });
  assert.deepEqual(spanStyle({ text: 'x', inverse: true }), { color: THEME.background, backgroundColor: THEME.foreground });
  assert.equal(paletteColor(16), '#000000');
  assert.equal(paletteColor(231), '#ffffff');
  assert.equal(paletteColor(232), '#080808');
  assert.equal(paletteColor(196), '#ff0000');
});
