/** The replay ring holds the last N bytes by stream offset; resuming from any offset gives exactly the bytes after it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { OutputRing } from './OutputRing.js';

/** The plain model: every byte ever pushed, and the first offset still held, trimmed chunk by chunk as the ring does. */
class Model {
  chunks: Buffer[] = [];
  start = 0;
  constructor(private readonly capacity: number) {}
  push(c: Buffer) {
    if (c.length === 0) return;
    this.chunks.push(c);
    let bytes = this.chunks.reduce((n, x) => n + x.length, 0);
    while (this.chunks.length > 1 && bytes - this.chunks[0]!.length >= this.capacity) {
      const d = this.chunks.shift()!;
      bytes -= d.length;
      this.start += d.length;
    }
  }
  since(seq: number): Buffer | undefined {
    const all = Buffer.concat(this.chunks);
    if (seq < this.start || seq > this.start + all.length) return undefined;
    return all.subarray(seq - this.start);
  }
}

test('resuming from any offset gives exactly the held bytes after it, however chunks arrive and age out', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 64 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 3000 }), (capacity, sizes) => {
      const ring = new OutputRing(capacity);
      const model = new Model(capacity);
      let seq = 0;
      for (const [i, size] of sizes.entries()) {
        const chunk = Buffer.alloc(size, i % 251);
        ring.push(chunk);
        model.push(chunk);
        seq += size;
        if (i % 7 === 0) {
          assert.equal(ring.firstSeq, model.start);
          assert.equal(ring.endSeq, seq);
          for (const at of [model.start - 1, model.start, Math.floor((model.start + seq) / 2), seq, seq + 1]) {
            assert.deepEqual(ring.since(at), model.since(at));
          }
        }
      }
    }),
    { numRuns: 60 },
  );
});
