/** Mouse events as the application reads them, for every tracking mode and both encodings; refusals never write. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostError } from '../src/client/TermhostClient.js';
import type { MouseRequest } from '../src/protocol/http.js';
import { assertNoLeaks, hex, startProbe, startTestDaemon, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const legacy = (b: number, x: number, y: number) => `\x1b[M${String.fromCharCode(32 + b, 33 + x, 33 + y)}`;
const SIZE = { cols: 120, rows: 40 };

async function refused(id: string, ev: MouseRequest, status: number, code: string) {
  await assert.rejects(d.client.mouse(id, ev), (err: TermhostError) => {
    assert.equal(err.status, status);
    assert.equal(err.code, code);
    return true;
  });
}

test('with no tracking enabled a click is refused with 409 and the current modes', async () => {
  const probe = await startProbe(d, [], [], SIZE);
  await assert.rejects(d.client.mouse(probe.id, { type: 'click', x: 1, y: 1 }), (err: TermhostError) => {
    assert.equal(err.status, 409);
    assert.equal(err.code, 'mouse_not_enabled');
    assert.deepEqual(err.body.modes, { mouse: 'off', mouse_encoding: 'default', app_cursor_keys: false, bracketed_paste: false });
    return true;
  });
  // Nothing reached the app: the next group it reports is the next request's.
  assert.equal(await probe.send([{ text: 'k' }]), hex('k'));
});

test('normal tracking (?1000) with legacy encoding: click is press + release(3) as X10 bytes', async () => {
  const probe = await startProbe(d, [1000], [], SIZE);
  assert.equal((await d.client.screen(probe.id)).modes.mouse, 'normal');
  await d.client.mouse(probe.id, { type: 'click', button: 'left', x: 10, y: 3 });
  assert.equal(await probe.next(), hex(legacy(0, 10, 3) + legacy(3, 10, 3)));
  await d.client.mouse(probe.id, { type: 'press', button: 'right', x: 0, y: 0, modifiers: ['ctrl'] });
  assert.equal(await probe.next(), hex(legacy(2 + 16, 0, 0)));
  await d.client.mouse(probe.id, { type: 'scroll', button: 'wheel-down', x: 5, y: 5 });
  assert.equal(await probe.next(), hex(legacy(65, 5, 5)));
  await refused(probe.id, { type: 'drag', x: 1, y: 1 }, 409, 'mouse_mode_mismatch');
  await refused(probe.id, { type: 'move', x: 1, y: 1 }, 409, 'mouse_mode_mismatch');
});

test('SGR encoding (?1006): press, release with the button, wheel, modifiers', async () => {
  const probe = await startProbe(d, [1000, 1006], [], SIZE);
  assert.equal((await d.client.screen(probe.id)).modes.mouse_encoding, 'sgr');
  await d.client.mouse(probe.id, { type: 'click', button: 'middle', x: 100, y: 30 });
  assert.equal(await probe.next(), hex('\x1b[<1;101;31M\x1b[<1;101;31m'));
  await d.client.mouse(probe.id, { type: 'scroll', button: 'wheel-up', x: 0, y: 0, modifiers: ['shift'] });
  assert.equal(await probe.next(), hex('\x1b[<68;1;1M'));
  await d.client.mouse(probe.id, { type: 'release', button: 'right', x: 2, y: 2, modifiers: ['alt'] });
  assert.equal(await probe.next(), hex('\x1b[<10;3;3m'));
});

test('button-event tracking (?1002) carries drags but not bare motion', async () => {
  const probe = await startProbe(d, [1002, 1006], [], SIZE);
  assert.equal((await d.client.screen(probe.id)).modes.mouse, 'button_event');
  await d.client.mouse(probe.id, { type: 'drag', button: 'left', x: 7, y: 8 });
  assert.equal(await probe.next(), hex('\x1b[<32;8;9M'));
  await refused(probe.id, { type: 'move', x: 1, y: 1 }, 409, 'mouse_mode_mismatch');
});

test('any-event tracking (?1003) carries motion with no button', async () => {
  const probe = await startProbe(d, [1003, 1006], [], SIZE);
  assert.equal((await d.client.screen(probe.id)).modes.mouse, 'any_event');
  await d.client.mouse(probe.id, { type: 'move', x: 3, y: 4 });
  assert.equal(await probe.next(), hex('\x1b[<35;4;5M'));
});

test('X10 tracking (?9) takes presses only', async () => {
  const probe = await startProbe(d, [9], [], SIZE);
  assert.equal((await d.client.screen(probe.id)).modes.mouse, 'x10');
  await d.client.mouse(probe.id, { type: 'press', x: 4, y: 2 });
  assert.equal(await probe.next(), hex(legacy(0, 4, 2)));
  for (const type of ['release', 'click', 'drag', 'move'] as const) await refused(probe.id, { type, x: 1, y: 1 }, 409, 'mouse_mode_mismatch');
  await refused(probe.id, { type: 'scroll', button: 'wheel-up', x: 1, y: 1 }, 409, 'mouse_mode_mismatch');
});

test('coordinates outside the screen or malformed are a 400, whatever the modes', async () => {
  const probe = await startProbe(d, [1000, 1006], [], SIZE);
  await refused(probe.id, { type: 'click', x: 120, y: 0 }, 400, 'invalid_mouse');
  await refused(probe.id, { type: 'click', x: 0, y: 40 }, 400, 'invalid_mouse');
  await refused(probe.id, { type: 'click', x: -1, y: 0 }, 400, 'invalid_request');
  await refused(probe.id, { type: 'scroll', x: 0, y: 0 }, 400, 'invalid_mouse');
  await refused(probe.id, { type: 'wiggle' as never, x: 0, y: 0 }, 400, 'invalid_request');
  assert.equal(await probe.send([{ text: 'z' }]), hex('z'));
});
