import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetOutput, pageOutput } from './outputBudget.js';

const lines = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n');

test('output within the budget comes whole', () => {
  assert.deepEqual(budgetOutput(Buffer.from('a\nb\n'), 16), { text: 'a\nb\n', truncated: false, total_bytes: 4, omitted_bytes: 0 });
});

test('output over the budget keeps head and tail, cut at line ends, around one line that says what is left out', () => {
  const out = lines(1000);
  const r = budgetOutput(out, 200, ': page it');
  assert.equal(r.truncated, true);
  const [head, note, tail] = [r.text.slice(0, r.text.indexOf('[...')), r.text.slice(r.text.indexOf('[...'), r.text.indexOf('...]\n') + 5), r.text.slice(r.text.indexOf('...]\n') + 5)];
  assert.ok(head.startsWith('line 1\nline 2\n') && head.endsWith('\n'));
  assert.ok(tail.endsWith('line 1000\n') && /^line \d+\n/.test(tail));
  assert.match(note, /^\[\.\.\. \d+ bytes \(\d+ lines\) left out: page it \.\.\.\]\n$/);
  assert.equal(Buffer.byteLength(head) + Buffer.byteLength(tail) + r.omitted_bytes, out.length);
  assert.ok(Buffer.byteLength(head) + Buffer.byteLength(tail) <= 200);
});

test('a budget never cuts a character in two, even with no line end near', () => {
  const out = Buffer.from('é'.repeat(5000));
  const r = budgetOutput(out, 101);
  assert.ok(!r.text.includes('\ufffd'));
  assert.equal(budgetOutput(out, 0).text.replace(/\[.*\]\n/, ''), '');
});

test('a budget of 0 or 1 byte keeps no head, also when the output has line ends', () => {
  for (const budget of [0, 1]) assert.match(budgetOutput(lines(1000), budget).text, /^\[\.\.\. \d+ bytes \(1000 lines\) left out \.\.\.\]\n$/);
});

test('pages put together are the whole output, at character boundaries', () => {
  const out = Buffer.from('ab€cd€€e\n'.repeat(100));
  for (const limit of [1, 2, 3, 7, 64, 10_000]) {
    let offset = 0;
    let all = '';
    for (;;) {
      const p = pageOutput(out, offset, limit);
      assert.ok(!p.output.includes('\ufffd'), `limit ${limit}`);
      all += p.output;
      if (p.eof) break;
      assert.ok(p.next_offset > offset);
      offset = p.next_offset;
    }
    assert.equal(all, out.toString(), `limit ${limit}`);
  }
  assert.deepEqual(pageOutput(out, 10_000, 10), { offset: out.length, next_offset: out.length, total_bytes: out.length, eof: true, output: '' });
});
