/** Table tests for what an agent reads: row folding keeps row numbers and the cursor, and waits show only changes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changedRows, numberedRows, scrolledChanges } from './format.js';

const rows = (texts: string[]) => texts.map((text, row) => ({ row, text }));

const CASES: ReadonlyArray<readonly [string, string[], number, string]> = [
  ['a vim buffer: the ~ column folds into one line', ['hello', ...Array(28).fill('~'), '"x" 1L'], 0, '> 0 hello\n rows 1-28: ~\n 29 "x" 1L'],
  ['two identical rows stay as they are', ['a', 'b', 'b', 'c'], 3, ' 0 a\n 1 b\n 2 b\n>3 c'],
  ['three fold', ['a', 'b', 'b', 'b', 'c'], 4, ' 0 a\n rows 1-3: b\n>4 c'],
  ['the cursor row is never folded, and splits a run', ['x', 'x', 'x', 'x', 'x', 'x', 'x'], 3, ' rows 0-2: x\n>3 x\n rows 4-6: x'],
  ['blank rows in the middle fold as blank', ['top', '', '', '', 'bottom'], 0, '>0 top\n(rows 1-3 blank)\n 4 bottom'],
  ['a blank tail folds whatever its length', ['$ ls', 'a', ''], 0, '>0 $ ls\n 1 a\n(row 2 blank)'],
];
for (const [what, texts, cursor, want] of CASES) {
  test(`rows: ${what}`, () => assert.equal(numberedRows(rows(texts), cursor), want));
}

test('rows: changed rows keep their screen numbers and are not folded into other rows', () => {
  assert.equal(numberedRows([{ row: 5, text: 'x' }, { row: 9, text: 'x' }, { row: 10, text: 'x' }], 9, false), '  5 x\n> 9 x\n 10 x');
});

test('changedRows: only rows whose text differs; screens of another size are not compared', () => {
  assert.deepEqual(changedRows(['a', 'b', 'c'], ['a', 'B', 'c']), [{ row: 1, text: 'B' }]);
  assert.deepEqual(changedRows(['a'], ['a']), []);
  assert.equal(changedRows(['a', 'b'], ['a']), undefined);
  assert.equal(changedRows(undefined, ['a']), undefined);
});

test('scrolledChanges: three lines printed at the bottom of a full screen are three rows, not the whole screen', () => {
  const before = ['a', 'b', 'c', 'd', '$ seq 3'];
  const after = ['d', '$ seq 3', '1', '2', '$'];
  assert.deepEqual(scrolledChanges(before, after), {
    scrolled: 3,
    rows: [
      { row: 2, text: '1' },
      { row: 3, text: '2' },
      { row: 4, text: '$' },
    ],
  });
  assert.deepEqual(scrolledChanges(['a', 'b'], ['a', 'x']), { scrolled: 0, rows: [{ row: 1, text: 'x' }] });
});
