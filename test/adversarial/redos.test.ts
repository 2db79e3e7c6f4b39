/**
 * A regex wait must never stall the daemon. `^(a+)+$` against a line of 40 `a`s and a `!` backtracks for hours in
 * V8; before, one viewer's wait held every session and every client for as long as the match ran, and timeout_ms
 * could not stop a synchronous match. Matches now run off the event loop with a hard deadline.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError } from '../../src/client/TermhostClient.js';
import { assertNoLeaks, startTestDaemon, waitText, type TestDaemon } from '../helpers.js';
import { REGEX_MATCH_WALL_MAX_MS } from '../../src/core/regex/RegexMatcher.js';

let d: TestDaemon;
let viewer: TermhostClient;
before(async () => {
  d = await startTestDaemon();
  viewer = new TermhostClient({ address: d.address, token: (await d.client.createToken('watcher', 'viewer')).token });
});
after(async () => {
  viewer.close();
  await d.stop();
  await assertNoLeaks();
});

/** /health round trips while `during` runs, sampled back to back, in ms. */
async function healthTimes(during: Promise<unknown>): Promise<number[]> {
  let running = true;
  void during.finally(() => (running = false));
  const times: number[] = [];
  while (running) {
    const t = performance.now();
    const r = await fetch(`${d.url}/health`);
    await r.arrayBuffer();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

test('a catastrophic regex from a viewer is stopped at its deadline while the daemon keeps answering within 50 ms', async (t) => {
  const s = await d.client.createSession({ command: ['sh', '-c', `printf '%s!\\n' ${'a'.repeat(40)}; sleep 60`] });
  await waitText(d, s.id, 'aaaa!');
  // Eight at once, from the least privileged role: each must be stopped, none may hold the event loop.
  const attacks = Promise.all(
    Array.from({ length: 8 }, () =>
      viewer.wait(s.id, { regex: '^(a+)+$', timeout_ms: 30_000 }).then(
        () => assert.fail('a catastrophic regex matched or timed out instead of being stopped'),
        (e: TermhostError) => e,
      ),
    ),
  );
  const started = performance.now();
  const times = await healthTimes(attacks);
  const errors = await attacks;
  const elapsed = performance.now() - started;
  for (const e of errors) {
    assert.equal(e.status, 400);
    assert.equal(e.code, 'invalid_regex');
    assert.match(e.message, /stopped/);
  }
  const median = times[Math.floor(times.length / 2)]!;
  const worst = times[times.length - 1]!;
  t.diagnostic(`/health during the attack: ${times.length} requests, median ${median.toFixed(1)} ms, worst ${worst.toFixed(1)} ms`);
  assert.ok(times.length > 5, `only ${times.length} health checks ran`);
  // The typical answer stays within 50 ms. The worst one is bounded loosely, because other test files share these
  // two cores; a match on the event loop would hold it for hours (2^40 steps), not for a scheduling hiccup.
  assert.ok(median <= 50, `/health took ${median.toFixed(1)} ms (median) during the attack`);
  assert.ok(worst <= 1000, `/health took ${worst.toFixed(1)} ms during the attack`);
  // Eight matches one after the other, each stopped at 250 ms of CPU (plus a worker start), not hours. On a starved
  // machine each may take up to the wall-time cap instead, which still bounds the whole attack.
  assert.ok(elapsed < 8 * REGEX_MATCH_WALL_MAX_MS + 10_000, `the attack took ${elapsed} ms to be refused`);
  // The same session still answers an ordinary regex wait afterwards.
  assert.equal((await viewer.wait(s.id, { regex: 'a{40}!$', timeout_ms: 5000 })).matched, true);
  await d.client.deleteSession(s.id, 'KILL');
});

test('a regex that cannot compile is refused before the wait starts', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  await assert.rejects(viewer.wait(s.id, { regex: '(', timeout_ms: 1000 }), (e: TermhostError) => e.code === 'invalid_regex' && e.status === 400);
  await d.client.deleteSession(s.id, 'KILL');
});
