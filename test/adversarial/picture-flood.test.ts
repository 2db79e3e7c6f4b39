/**
 * A flood of picture requests (issue 16 §1): each distinct picture is a job for the one picture worker, so a client
 * asking for many at once (different scales defeat the per-screen cache) could queue unbounded work and memory. Past
 * 64 waiting pictures the daemon answers 503 renderer_busy (retryable) at once, and the text screen, drawn on the event
 * loop, keeps answering meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertNoLeaks, rawRequest, startTestDaemon, type TestDaemon } from '../helpers.js';
import { printingSession } from '../picture-helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

test('120 pictures asked for at once: past the queue bound they are refused with 503 renderer_busy, and reads go on', async () => {
  const sessions = await Promise.all([0, 1, 2].map((i) => printingSession(d, `\\033[3${i + 1}mflood ${i}\\033[0m`, { cols: 100, rows: 30 }, `flood ${i}`)));
  const auth = { authorization: `Bearer ${d.token}` };
  // 40 scales (5..44, all within the pixel bound) x 3 sessions: 120 distinct pictures, none of which the cache can share.
  const asks = sessions.flatMap((s) => Array.from({ length: 40 }, (_, k) => `/v1/sessions/${s.id}/screen?format=png&scale=${k + 5}`));
  const flood = Promise.all(asks.map((p) => rawRequest(d.address, { path: p, headers: auth })));
  const text = await rawRequest(d.address, { path: `/v1/sessions/${sessions[0]!.id}/screen`, headers: auth });
  assert.equal(text.status, 200, 'the text screen answers during the flood');
  const answers = await flood;
  const statuses = answers.map((a) => a.status);
  assert.deepEqual([...new Set(statuses)].sort(), [200, 503], `only drawn or refused: ${[...new Set(statuses)]}`);
  const busy = answers.find((a) => a.status === 503)!;
  assert.equal(busy.json.code, 'renderer_busy');
  assert.equal(busy.json.retryable, true);
  assert.match(busy.json.error, /64 pictures are waiting to be drawn; try again shortly/);
  assert.ok(statuses.filter((s) => s === 200).length >= 64, 'the queue itself was served');
  for (const s of sessions) await d.client.deleteSession(s.id);
});
