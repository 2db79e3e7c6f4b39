/** Table tests for what an agent reads: row folding keeps row numbers and the cursor, and waits show only changes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changedRows, formatWait, numberedRows, scrolledChanges, YOUR_INPUT } from './format.js';
import type { WaitResult } from '../protocol/http.js';

const rows = (texts: string[]) => texts.map((text, row) => ({ row, text }));

const CASES: ReadonlyArray<readonly [string, string[], number, string]> = [
  ['a vim buffer: the ~ column folds into one line', ['hello', ...Array(28).fill('~'), '"x" 1L'], 0, '>0 hello\nrows 1-28: ~\n29 "x" 1L'],
  ['two identical rows stay as they are', ['a', 'b', 'b', 'c'], 3, '0 a\n1 b\n2 b\n>3 c'],
  ['three fold', ['a', 'b', 'b', 'b', 'c'], 4, '0 a\nrows 1-3: b\n>4 c'],
  ['the cursor row is never folded, and splits a run', ['x', 'x', 'x', 'x', 'x', 'x', 'x'], 3, 'rows 0-2: x\n>3 x\nrows 4-6: x'],
  ['blank rows in the middle fold as blank', ['top', '', '', '', 'bottom'], 0, '>0 top\n(rows 1-3 blank)\n4 bottom'],
  ['a blank tail folds whatever its length', ['$ ls', 'a', ''], 0, '>0 $ ls\n1 a\n(row 2 blank)'],
  ['rows counting up fold with both ends shown', ['$ seq', 'item 7 ok', 'item 8 ok', 'item 9 ok', 'item 10 ok', '$'], 5, '0 $ seq\nrows 1-4: item 7 ok … item 10 ok\n>5 $'],
  ['two counting rows stay as they are', ['n 1', 'n 2', 'x'], 2, '0 n 1\n1 n 2\n>2 x'],
  ['a count that skips, or pads with zeros, does not fold', ['n 1', 'n 3', 'n 4', 'n 05'], 3, '0 n 1\n1 n 3\n2 n 4\n>3 n 05'],
  ['a counting run ends at a row that does not count on', ['a 1', 'a 2', 'a 3', 'b 4'], 3, 'rows 0-2: a 1 … a 3\n>3 b 4'],
];
for (const [what, texts, cursor, want] of CASES) {
  test(`rows: ${what}`, () => assert.equal(numberedRows(rows(texts), cursor), want));
}

test('rows: changed rows keep their screen numbers and are not folded into other rows', () => {
  assert.equal(numberedRows([{ row: 5, text: 'x' }, { row: 9, text: 'x' }, { row: 10, text: 'x' }], 9, false), '5 x\n>9 x\n10 x');
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

const screen = (lines: string[], cursor: { x: number; y: number; visible?: boolean }, extra: Partial<WaitResult['screen']> = {}) =>
  ({
    lines,
    cursor: { visible: true, ...cursor },
    cols: 20,
    rows: lines.length,
    seq: 9,
    alt_screen: false,
    modes: { mouse: 'off' },
    title: '',
    exited: false,
    ...extra,
  }) as unknown as WaitResult['screen'];
const waited = (s: WaitResult['screen'], matched = true): WaitResult => ({ matched, reason: matched ? 'text' : 'timeout', screen: s }) as unknown as WaitResult;

const WAITS: ReadonlyArray<readonly [string, WaitResult, { seq: number; lines: string[]; typed?: string[] } | undefined, string]> = [
  ['a first wait is the whole screen, which opens with its size', waited(screen(['$ ', '', ''], { x: 2, y: 0 })), undefined, '20x3\n>0 $ \n(rows 1-2 blank)'],
  ['a cursor inside its row is said by its column', waited(screen(['$ abc', '', ''], { x: 3, y: 0 })), undefined, '20x3; cursor col 3\n>0 $ abc\n(rows 1-2 blank)'],
  ['a full-screen app and a hidden cursor are said', waited(screen(['', '~', '"f" [New]'], { x: 0, y: 0, visible: false }, { alt_screen: true })), undefined, '20x3; cursor hidden; full-screen app\n>0\n1 ~\n2 "f" [New]'],
  ['a wait that did not match says so first', waited(screen(['$ ', '', ''], { x: 2, y: 0 }), false), undefined, 'not matched (timeout); 20x3\n>0 $ \n(rows 1-2 blank)'],
  ['after a read: only the changed rows, no size line, and a blank cursor row', waited(screen(['$ ls', 'a b', '', ''], { x: 0, y: 2 })), { seq: 1, lines: ['$', '', '', ''] }, '0 $ ls\n1 a b\n>2'],
  ['the echo of a long text item typed since the read stands as one marker', waited(screen(['$ echo a-long-argument-here', 'a-long-argument-here', '$', ''], { x: 2, y: 2 })), { seq: 1, lines: ['$', '', '', ''], typed: ['echo a-long-argument-here'] }, `0 $ ${YOUR_INPUT}\n1 a-long-argument-here\n>2 $ `],
  ['an echo that differs from what was typed is shown as it is', waited(screen(['$ echo a-long-argument-there', '$', '', ''], { x: 2, y: 1 })), { seq: 1, lines: ['$', '', '', ''], typed: ['echo a-long-argument-here'] }, '0 $ echo a-long-argument-there\n>1 $ '],
  ['a scroll is said on the notes line, and only the new row is shown', waited(screen(['b', '$ x', '$'], { x: 1, y: 2 })), { seq: 1, lines: ['a', 'b', '$ x'] }, 'scrolled up 1\n>2 $'],
  ['nothing changed: the cursor is said', waited(screen(['$', '', ''], { x: 2, y: 0 })), { seq: 1, lines: ['$', '', ''] }, 'no change; cursor 0,2'],
];
for (const [what, r, last, want] of WAITS) {
  test(`wait: ${what}`, () => assert.equal(formatWait('s1', r, last), want));
}
