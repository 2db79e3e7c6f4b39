/**
 * Recordings to share (issue 16 section 5): a stored transcript drawn as an animated GIF by the same renderer as the
 * PNG screens, identical frames merged, with --idle-limit and --speed; through the route, the SDK and the CLI.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoLeaks, rawRequest, runBin, startTestDaemon, type TestDaemon } from './helpers.js';
import { assertSimilar, decodeGif, decodePng } from './picture-helpers.js';

let d: TestDaemon;
let id: string;
before(async () => {
  d = await startTestDaemon();
  // "one", then "two" 0.4 s later, then "two" drawn again over itself: three outputs, two distinct screens.
  const s = await d.client.createSession({ command: ['sh', '-c', 'printf one; sleep 0.4; printf "\\rtwo"; sleep 0.4; printf "\\rtwo"; sleep 0.4'], cols: 12, rows: 3 });
  id = s.id;
  await d.client.wait(id, { exit: true, timeout_ms: 10_000 });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

test('a known recording gives one frame per distinct screen, and its last frame is the final screen', async () => {
  const gif = await d.client.transcriptGif(id);
  assert.equal(gif.frames, 2, 'one, two (the second "two" is the same screen, merged)');
  const frames = decodeGif(gif.bytes);
  assert.equal(frames.length, 2);
  assert.ok(frames[0]!.delayMs >= 300 && frames[0]!.delayMs <= 520, `"one" shows for its 0.4 s: ${frames[0]!.delayMs} ms`);
  assert.equal(frames[1]!.delayMs, 2000, 'the last frame is held before the loop');
  // The same renderer: the last frame is the PNG of the final screen, up to the GIF's palette.
  const png = decodePng((await d.client.screenshot(id)).bytes);
  assertSimilar(frames[1]!, png, 'the last frame');
  assert.throws(() => assertSimilar(frames[0]!, png, 'the first frame'), /differ/, 'and the first frame is not');
});

test('--idle-limit caps the pauses and --speed plays faster (here: everything within one frame)', async () => {
  const capped = decodeGif((await d.client.transcriptGif(id, { idleLimit: 0.1 })).bytes);
  assert.equal(capped.length, 2);
  assert.ok(capped[0]!.delayMs <= 170, `the 0.4 s pause capped at 0.1 s: ${capped[0]!.delayMs} ms`);
  const fast = await d.client.transcriptGif(id, { speed: 100 });
  assert.equal(fast.frames, 1, 'at 100x every output falls in the same 1/30 s');
  assertSimilar(decodeGif(fast.bytes)[0]!, decodePng((await d.client.screenshot(id)).bytes), 'the one frame');
});

test('GIF options are bounded and belong to format=gif', async () => {
  const get = (q: string) => rawRequest(d.address, { path: `/v1/sessions/${id}/transcript?${q}`, headers: { authorization: `Bearer ${d.token}` } });
  for (const [q, words] of [
    ['format=gif&speed=0', /speed.*>= 0.1/],
    ['format=gif&speed=1000', /speed.*<= 100/],
    ['format=gif&scale=2', /scale.*>= 4/],
    ['format=gif&markers=1', /version and markers go with format=asciicast/],
    ['format=asciicast&speed=2', /speed goes with format=gif/],
  ] as const) {
    const r = await get(q);
    assert.equal(r.status, 400, `${q}: ${r.text}`);
    assert.match(r.json.error, words, q);
  }
  const ok = await get('format=gif&theme=light&scale=8');
  assert.equal(ok.status, 200);
  assert.equal(ok.headers['content-type'], 'image/gif');
});

test('termhost transcript ID --gif out.gif writes the animation; --speed needs --gif', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-gif-'));
  const env = { TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token };
  const out = path.join(dir, 'run.gif');
  const r = await runBin(['transcript', id, '--gif', out, '--idle-limit', '0.2', '--speed', '2'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`run\\.gif: 2 frames of ${id}`));
  assert.equal(decodeGif(fs.readFileSync(out)).length, 2);
  const bad = await runBin(['transcript', id, '--speed', '2'], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--speed goes with --gif/);
  fs.rmSync(dir, { recursive: true, force: true });
});
