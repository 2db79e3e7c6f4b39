import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCwd, parseMark } from './marks.js';

const N = 'f00dcafe';

for (const [payload, want] of [
  [`A;th=${N}`, { kind: 'A', status: null }],
  [`B;th=${N}`, { kind: 'B', status: null }],
  [`C;th=${N}`, { kind: 'C', status: null }],
  [`D;0;th=${N}`, { kind: 'D', status: 0 }],
  [`D;130;th=${N}`, { kind: 'D', status: 130 }],
  [`D;th=${N}`, { kind: 'D', status: null }],
  ['D;0', 'untrusted'],
  ['A', 'untrusted'],
  ['D;0;th=forged', 'untrusted'],
  [`D;0;th=${N}x`, 'untrusted'],
  [`D;0;TH=${N}`, 'untrusted'],
  [`D;0;th=${N};${'x'.repeat(300)}`, 'untrusted'],
  [`P;k=i;th=${N}`, undefined],
  ['', undefined],
] as const) {
  test(`mark ${JSON.stringify(payload.slice(0, 40))}`, () => assert.deepEqual(parseMark(payload, N), want));
}

for (const [payload, want] of [
  ['file://host/tmp', '/tmp'],
  ['file:///home/a%20b', '/home/a b'],
  ['file://h/%25x', '/%x'],
  ['file://h/a%0Ab', undefined],
  ['file://h/%E0%A4%A', undefined],
  ['http://h/tmp', undefined],
  ['file://nohostpath', undefined],
] as const) {
  test(`cwd ${JSON.stringify(payload)}`, () => assert.equal(parseCwd(payload), want));
}
