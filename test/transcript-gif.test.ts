/**
 * Recordings to share (issue 16 section 5): a stored transcript drawn as an animated GIF by the same renderer as the
 * PNG screens, identical frames merged, with --idle-limit and --speed; through the route, the SDK and the CLI.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoLeaks, rawRequest, runBin, startTestDaemon, until, type TestDaemon } from './helpers.js';
import { assertSimilar, decodeGif, decodePng } from './picture-helpers.js';

let d: TestDaemon;
let id: string;
/** A pause in the recording: the program prints its next screen only after input sent this long after the last one. */
const PAUSE_MS = 300;

before(async () => {
  d = await startTestDaemon();
  // "one", then "two", then "two" drawn again over itself: three outputs, two distinct screens. Each output waits for
  // a line of input that the test sends PAUSE_MS after it saw the one before, so the pauses are in the recording
  // however slowly the machine runs (the PTY cannot deliver an output before the input that causes it).
  const script = 'stty -echo; read a; printf one; read b; printf "\\rtwo"; read c; printf "\\rtwo"; read d';
  const s = await d.client.createSession({ command: ['sh', '-c', script], cols: 12, rows: 3 });
  id = s.id;
  await until('echo to be off', () => {
    try {
      const tty = fs.readlinkSync(`/proc/${s.pid}/fd/0`);
      return /(^|\s)-echo(\s|$)/.test(execFileSync('stty', ['-a', '-F', tty], { encoding: 'utf8' }));
    } catch {
      return false;
    }
  });
  let seq = (await d.client.getSession(id)).seq;
  for (let step = 0; step < 4; step++) {
    if (step > 0) {
      const before = seq;
      seq = await until('the next output', async () => {
        const now = (await d.client.getSession(id)).seq;
        return now > before ? now : undefined;
      });
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS)); // the recording's pause, not a synchronisation
    }
    await d.client.input(id, [{ key: 'Enter' }]);
  }
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
  assert.ok(frames[0]!.delayMs >= PAUSE_MS - 40, `"one" shows for at least its pause: ${frames[0]!.delayMs} ms`);
  assert.equal(frames[1]!.delayMs, 2000, 'the last frame is held before the loop');
  // The same renderer: the last frame is the PNG of the final screen, up to the GIF's palette.
  const png = decodePng((await d.client.screenshot(id)).bytes);
  assertSimilar(frames[1]!, png, 'the last frame');
  assert.throws(() => assertSimilar(frames[0]!, png, 'the first frame'), /differ/, 'and the first frame is not');
});

test('--idle-limit caps the pauses and --speed plays faster (here: everything within one frame)', async () => {
  const capped = decodeGif((await d.client.transcriptGif(id, { idleLimit: 0.1 })).bytes);
  assert.equal(capped.length, 2);
  assert.ok(capped[0]!.delayMs <= 170, `the pause capped at 0.1 s: ${capped[0]!.delayMs} ms`);
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
    ['format=gif&markers=1', /version, markers and audit go with format=asciicast/],
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
