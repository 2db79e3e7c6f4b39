/** Frame decoding: direction rules, bounds, and objects rebuilt field by field. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BinaryTag, decodeClientFrame, decodeServerFrame, encodeServerFrame, MAX_FRAME_BYTES } from './attach.js';

const text = (o: unknown) => Buffer.from(typeof o === 'string' ? o : JSON.stringify(o));

test('client frames decode into fresh objects with only known fields', () => {
  const d = decodeClientFrame(text('{"kind":"auth","role":"driver","__proto__":{"admin":true},"extra":1,"cols":80,"rows":24}'), false);
  assert.ok(d.ok);
  assert.deepEqual(d.frame, { kind: 'auth', role: 'driver', cols: 80, rows: 24 });
  assert.equal(Object.getPrototypeOf(d.frame), Object.prototype);
  assert.equal((d.frame as unknown as Record<string, unknown>).admin, undefined);
});

test('wrong-direction, unknown and malformed frames are refused with a reason', () => {
  for (const [raw, why] of [
    ['{"kind":"stdout","seq":0,"data":""}', /server to client/],
    ['{"kind":"exit"}', /server to client/],
    ['{"kind":"launch"}', /unknown frame kind/],
    ['{"kind":', /not valid JSON/],
    ['[1,2]', /JSON object/],
    ['{"kind":"resize","cols":0,"rows":10}', /1\.\.1000/],
    ['{"kind":"resize","cols":1001,"rows":10}', /1\.\.1000/],
    ['{"kind":"auth","role":"worker"}', /viewer" or "driver/],
    ['{"kind":"auth","since_seq":-1}', /non-negative/],
    [JSON.stringify({ kind: 'auth', token: 'x'.repeat(4097) }), /4096/],
  ] as const) {
    const d = decodeClientFrame(text(raw), false);
    assert.ok(!d.ok, raw);
    assert.match(d.error, why);
  }
  const wrongTag = decodeClientFrame(Buffer.from([BinaryTag.stdout, 1, 2]), true);
  assert.ok(!wrongTag.ok);
  const big = decodeClientFrame(Buffer.alloc(MAX_FRAME_BYTES + 1), true);
  assert.ok(!big.ok);
});

test('stdin arrives as a binary frame or as base64 JSON, unchanged', () => {
  const bytes = Buffer.from([0x1b, 0x5b, 0x41, 0x00, 0xff]);
  const bin = decodeClientFrame(Buffer.concat([Buffer.from([BinaryTag.stdin]), bytes]), true);
  assert.ok(bin.ok && bin.frame.kind === 'stdin');
  assert.deepEqual(bin.frame.data, bytes);
  const json = decodeClientFrame(text({ kind: 'stdin', data: bytes.toString('base64') }), false);
  assert.ok(json.ok && json.frame.kind === 'stdin');
  assert.deepEqual(json.frame.data, bytes);
});

test('server frames round-trip, terminal bytes in binary with their position', () => {
  const out = encodeServerFrame({ kind: 'stdout', seq: 2 ** 40 + 5, data: Buffer.from('hi') });
  assert.equal(out.binary, true);
  const back = decodeServerFrame(out.data as Buffer, true);
  assert.deepEqual(back, { ok: true, frame: { kind: 'stdout', seq: 2 ** 40 + 5, data: Buffer.from('hi') } });
  const exit = encodeServerFrame({ kind: 'exit', code: 3, signal: null, reason: 'completed' });
  assert.equal(exit.binary, false);
  assert.deepEqual(decodeServerFrame(Buffer.from(exit.data as string), false), {
    ok: true,
    frame: { kind: 'exit', code: 3, signal: null, reason: 'completed' },
  });
});
