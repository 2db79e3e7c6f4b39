/**
 * Key items are claims about key presses. Before, `{"key": "\u202e"}` (the right-to-left override, which reorders
 * what a person sees) and other format, separator, private-use and unassigned code points were written to the PTY
 * as if typed. Now they are refused, nothing of the batch is written, and text or raw items still carry them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { TermhostError } from '../../src/client/TermhostClient.js';
import { encodeKey } from '../../src/core/index.js';
import { assertNoLeaks, hex, startProbe, startTestDaemon, type TestDaemon } from '../helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

test('invisible code points are refused as keys, suggest nothing, and the probe reads nothing of the batch', async () => {
  const probe = await startProbe(d);
  for (const ch of ['\u202e', '\u200b', '\u2066', '\u2028', '\u00a0', '\ue000', '\u0378', '\u{10ffff}']) {
    await assert.rejects(
      d.client.input(probe.id, [{ text: 'before' }, { key: ch }]),
      (e: TermhostError) => e.status === 400 && e.code === 'invalid_key' && e.body.index === 1,
      `U+${ch.codePointAt(0)!.toString(16)}`,
    );
  }
  // Nothing above was written: the next bytes the probe sees are this batch's.
  assert.equal(await probe.send([{ text: 'ok' }]), hex('ok'));
  // A caller who means the character sends it as text.
  assert.equal(await probe.send([{ text: '\u202e' }]), hex(Buffer.from('\u202e', 'utf8')));
  await d.client.deleteSession(probe.id, 'KILL');
});

test('a mistyped key name is refused with the closest name, over HTTP', async () => {
  const probe = await startProbe(d);
  await assert.rejects(d.client.input(probe.id, [{ key: 'Entr' }]), (e: TermhostError) => e.code === 'invalid_key' && e.body.did_you_mean === 'Enter' && /did you mean "Enter"/.test(e.message));
  // The spellings people type are keys: Return, ^C, Ctrl-C.
  assert.equal(await probe.send([{ key: 'Return' }, { key: '^C' }, { key: 'Ctrl-D' }]), hex('\r\x03\x04'));
  await d.client.deleteSession(probe.id, 'KILL');
});

test('random key names: the daemon either refuses the batch with a 400 or writes exactly the encoder\'s bytes', async () => {
  const probe = await startProbe(d);
  const name = fc.oneof(
    fc.constantFrom('Enter', 'Up', 'F5', 'C-a', 'M-x', 'S-Tab', 'C-M-Left', 'Return', '^C', 'Ctrl-c', 'Entr', 'C-', 'S-1', 'C-Enter'),
    fc.string({ maxLength: 6, unit: 'grapheme' }),
    fc.string({ maxLength: 3, unit: 'binary' }),
    fc.tuple(fc.constantFrom('', 'C-', 'M-', 'S-', 'C-M-'), fc.string({ minLength: 1, maxLength: 2, unit: 'binary' })).map(([p, k]) => p + k),
  );
  await fc.assert(
    fc.asyncProperty(name, async (key) => {
      const want = encodeKey(key, { appCursorKeys: false });
      if (!want.ok) {
        await assert.rejects(d.client.input(probe.id, [{ key }]), (e: TermhostError) => e.status === 400 && e.code === 'invalid_key');
        return;
      }
      // A marker after the key makes every accepted batch visible to the probe, even an empty key encoding.
      assert.equal(await probe.send([{ key }, { text: '|' }]), want.bytes.toString('hex') + hex('|'));
    }),
    { numRuns: 60 },
  );
  await d.client.deleteSession(probe.id, 'KILL');
});
