import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Screen } from '../../protocol/http.js';
import { diffScreens } from './diff.js';

const screen = (lines: string[], over: Partial<Screen> = {}): Screen => ({
  seq: 10,
  cols: 20,
  rows: lines.length,
  lines,
  cursor: { x: 0, y: 0, visible: true },
  alt_screen: false,
  title: '',
  modes: { mouse: 'off', mouse_encoding: 'default', app_cursor_keys: false, bracketed_paste: false },
  exited: false,
  exit_code: null,
  exit_signal: null,
  exit_reason: null,
  last_output_at: null,
  shell_integration: 'unsupported',
  shell: { state: 'unknown', command_id: null, command: null, since: null, cwd: null, input_needed: null },
  ...over,
});

test('only rows whose text differs are reported, with their numbers', () => {
  const d = diffScreens(5, screen(['a', 'b', 'c']), screen(['a', 'B', 'c'], { seq: 12 }));
  assert.deepEqual(d.changes, [{ row: 1, text: 'B' }]);
  assert.equal(d.changed, true);
  assert.equal(d.full, false);
  assert.equal(d.seq, 12);
  assert.equal(d.since_seq, 5);
  assert.equal(d.lines, undefined);
});

for (const [what, over] of [
  ['cursor', { cursor: { x: 3, y: 0, visible: true } }],
  ['cursor visibility', { cursor: { x: 0, y: 0, visible: false } }],
  ['alternate screen', { alt_screen: true }],
  ['title', { title: 'vim' }],
  ['modes', { modes: { mouse: 'normal', mouse_encoding: 'sgr', app_cursor_keys: false, bracketed_paste: false } }],
  ['exit', { exited: true, exit_code: 0 }],
] as const) {
  test(`a change of ${what} alone counts as changed, with no rows`, () => {
    const d = diffScreens(1, screen(['x']), screen(['x'], over as Partial<Screen>));
    assert.equal(d.changed, true);
    assert.deepEqual(d.changes, []);
  });
}

test('identical screens are unchanged', () => {
  const d = diffScreens(1, screen(['x', 'y']), screen(['x', 'y']));
  assert.equal(d.changed, false);
  assert.deepEqual(d.changes, []);
});

test('an unknown earlier screen, or another size, gives the full screen', () => {
  for (const before of [undefined, screen(['x', 'y'], { cols: 30 }), screen(['x'])]) {
    const d = diffScreens(1, before, screen(['x', 'y']));
    assert.equal(d.full, true);
    assert.equal(d.changed, true);
    assert.deepEqual(d.lines, ['x', 'y']);
    assert.equal(d.changes, undefined);
  }
});

test('raw ANSI never rides along in a diff; highlights do when asked for', () => {
  const d = diffScreens(1, screen(['x']), screen(['y'], { raw: '\x1b[0m', highlights: [{ row: 0, col: 0, len: 1, text: 'y' }] }));
  assert.equal('raw' in d, false);
  assert.deepEqual(d.highlights, [{ row: 0, col: 0, len: 1, text: 'y' }]);
});
