/** ALiS frames as bytes: the layouts asciinema-player reads, and where output may be cut. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeAlisFrame, encodeAlisFrame, utf8CompleteLength, type AlisFrame } from './alis.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

for (const [name, frame, want] of [
  ['reset', { type: 'reset', lastId: 0, timeUs: 300, cols: 80, rows: 24, init: 'hi' }, '01' + '00' + 'ac02' + '50' + '18' + '00' + '02' + '6869'],
  ['output', { type: 'output', id: 1, relUs: 5, data: new Uint8Array([0x41]) }, '6f' + '01' + '05' + '01' + '41'],
  ['resize', { type: 'resize', id: 2, relUs: 0, cols: 200, rows: 50 }, '72' + '02' + '00' + 'c801' + '32'],
  ['exit', { type: 'exit', id: 3, relUs: 1, status: 2 }, '78' + '03' + '01' + '02'],
  ['eot', { type: 'eot' }, '04'],
] as const) {
  test(`an ALiS ${name} frame has the documented bytes and decodes back`, () => {
    const bytes = encodeAlisFrame(frame as AlisFrame);
    assert.equal(hex(bytes), want);
    const back = decodeAlisFrame(bytes);
    assert.ok(back.ok);
    assert.deepEqual(back.frame, frame);
  });
}

test('times past 32 bits (a stream older than 71 minutes) survive the varint', () => {
  const timeUs = 5 * 3600 * 1_000_000;
  const back = decodeAlisFrame(encodeAlisFrame({ type: 'reset', lastId: 9, timeUs, cols: 1, rows: 1, init: '' }));
  assert.ok(back.ok && back.frame.type === 'reset' && back.frame.timeUs === timeUs);
});

test('truncated and unknown frames are errors, never exceptions', () => {
  assert.equal(decodeAlisFrame(new Uint8Array([0x6f, 0x01])).ok, false);
  assert.equal(decodeAlisFrame(new Uint8Array([0x6f, 0x01, 0x00, 0x05, 0x41])).ok, false);
  assert.equal(decodeAlisFrame(new Uint8Array([0x99])).ok, false);
  assert.equal(decodeAlisFrame(new Uint8Array([])).ok, false);
});

for (const [bytes, complete] of [
  ['41', 1],
  ['41c3', 1], // é cut after its lead byte
  ['41c3a9', 3],
  ['41e282', 1], // € cut after two of three bytes
  ['41e282ac', 4],
  ['f09f98', 0], // 😀 cut after three of four
  ['f09f9880', 4],
  ['4180', 2], // a stray continuation byte is not held back
  ['41ff', 2], // nor a byte that is never UTF-8
] as const) {
  test(`output ${bytes} may be cut after ${complete} bytes`, () => {
    assert.equal(utf8CompleteLength(Buffer.from(bytes, 'hex')), complete);
  });
}
