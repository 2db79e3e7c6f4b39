/** Stored output times: the delta encoding round-trips, and code point offsets survive characters outside the BMP. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeTimes, encodeTimes, toCodePoints, toUtf16, type TimePair } from './timing.js';

for (const [pairs, stored] of [
  [[], null],
  [[[12, 400]], '12,400'],
  [[[12, 400], [15, 800], [15, 810]], '12,400,3,400,0,10'],
] as Array<[TimePair[], string | null]>) {
  test(`times ${JSON.stringify(pairs)} are stored as ${JSON.stringify(stored)} and read back`, () => {
    assert.equal(encodeTimes(pairs), stored);
    assert.deepEqual(decodeTimes(stored), pairs);
  });
}

test('code point offsets and UTF-16 indices convert both ways, emoji included', () => {
  const text = 'a😀b€😀c';
  // UTF-16: a=0, 😀=1-2, b=3, €=4, 😀=5-6, c=7
  assert.deepEqual(toCodePoints(text, [0, 1, 3, 4, 5, 7, 8]), [0, 1, 2, 3, 4, 5, 6]);
  assert.deepEqual(toUtf16(text, [0, 1, 2, 3, 4, 5, 6]), [0, 1, 3, 4, 5, 7, 8]);
  assert.deepEqual(toCodePoints('plain', [2, 4]), [2, 4]);
  assert.deepEqual(toUtf16('plain', [2, 9]), [2, 5], 'an offset past the end is the end');
});
