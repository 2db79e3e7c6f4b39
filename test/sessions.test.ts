/**
 * Sessions as a user meets them over time: addressed by a name, ids a JSON client cannot mistake for numbers,
 * finished runs that do not block new ones, and waits that do not match the echo of what was just typed.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, attachTo, nextMatching, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ maxSessions: 2, exitedTtlMs: 1500 });
});
// One failure must not leave sessions that hold the small cap for the tests after it.
afterEach(async () => {
  for (const s of await d.client.listSessions()) if (!s.exited) await d.client.deleteSession(s.id, 'KILL').catch(() => {});
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const shell = (extra: Record<string, unknown> = {}) => d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, ...extra });

describe('names', () => {
  test('a session is addressed by its name wherever an id is accepted: info, input, waits, screen, attach, delete', async () => {
    const s = await shell({ name: 'build' });
    assert.equal(s.name, 'build');
    assert.equal((await d.client.getSession('build')).id, s.id);
    await d.client.input('build', [{ text: 'echo named-$((6*7))' }, { key: 'Enter' }]);
    assert.equal((await d.client.wait('build', { text: 'named-42', timeout_ms: 5000 })).matched, true);
    assert.ok((await d.client.screen('build')).lines.some((l) => l === 'named-42'));
    const conn = attachTo(d, 'build', { bearer: d.token });
    assert.equal((await nextMatching(conn, 'hello')).session.id, s.id);
    conn.close();
    // Names are unique among the sessions held, and free again once the session is gone.
    await assert.rejects(shell({ name: 'build' }), (e: TermhostError) => e.status === 409 && e.code === 'session_name_taken');
    await d.client.deleteSession('build');
    await assert.rejects(d.client.getSession('build'), (e: TermhostError) => e.status === 404);
    const again = await shell({ name: 'build' });
    await d.client.deleteSession(again.id);
  });

  test('a name must start with a letter, so it can never read as a number or an id', async () => {
    for (const name of ['123', '-x', 'a b', 'x'.repeat(65), 'é']) {
      await assert.rejects(shell({ name }), (e: TermhostError) => e.status === 400 && e.code === 'invalid_request', name);
    }
  });

  test('session ids always start with a letter (some MCP clients turn "81837311" into a number)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const s = await d.client.createSession({ command: ['true'] });
      ids.push(s.id);
      await d.client.deleteSession(s.id).catch(() => {});
    }
    for (const id of ids) {
      assert.match(id, /^[a-z][0-9a-f]{7}$/);
      assert.ok(Number.isNaN(Number(id)), id);
    }
  });
});

describe('exited sessions', () => {
  test('finished runs do not count toward --max-sessions: two `true` runs do not block a third session', async () => {
    const a = await d.client.createSession({ command: ['true'] });
    const b = await d.client.createSession({ command: ['true'] });
    await until('both exited', async () => (await d.client.getSession(a.id)).exited && (await d.client.getSession(b.id)).exited);
    const c = await d.client.createSession({ command: ['sleep', '30'] });
    const e = await d.client.createSession({ command: ['sleep', '30'] });
    // The cap is on running sessions: a third running one is refused.
    await assert.rejects(d.client.createSession({ command: ['sleep', '30'] }), (err: TermhostError) => err.status === 503 && err.code === 'session_limit');
    await d.client.deleteSession(c.id, 'KILL');
    await d.client.deleteSession(e.id, 'KILL');
  });

  test('an exited session keeps its final screen for --exited-ttl, then leaves; its record stays', async () => {
    const s = await d.client.createSession({ command: ['sh', '-c', 'echo last-words; exit 3'] });
    const done = await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
    assert.equal(done.exit_code, 3);
    assert.ok(done.screen.lines.includes('last-words'));
    assert.equal((await d.client.getSession(s.id)).live, true);
    // Freed after the TTL (1.5 s in this daemon): the id then answers with the stored record.
    // (The SDK types getSession as SessionInfo; once freed the answer is a record, live: false.)
    await until('the session to be freed', async () => ((await d.client.getSession(s.id)) as { live: boolean }).live === false, 10_000);
    const record = await d.client.getSession(s.id);
    assert.equal(record.exit_code, 3);
    assert.ok(!(await d.client.listSessions()).some((x) => x.id === s.id));
  });

  test('remove_on_exit frees a session as soon as it exits; prune frees every exited one now', async () => {
    const quick = await d.client.createSession({ command: ['true'], remove_on_exit: true });
    await until('the --rm session to leave', async () => !(await d.client.listSessions()).some((x) => x.id === quick.id));
    const a = await d.client.createSession({ command: ['true'] });
    const live = await d.client.createSession({ command: ['sleep', '30'] });
    await until('a exited', async () => (await d.client.getSession(a.id)).exited);
    const { removed } = await d.client.prune();
    assert.deepEqual(removed, [a.id]);
    const ids = (await d.client.listSessions()).map((x) => x.id);
    assert.ok(!ids.includes(a.id) && ids.includes(live.id));
    await d.client.deleteSession(live.id, 'KILL');
  });
});

describe('waits after input', () => {
  /**
   * Until `head` is blocked on the terminal, bash's readline may still have it in raw mode without ICRNL: an Enter
   * typed then arrives as a bare CR, and `head` (canonical again) waits for a newline that never comes. Under load
   * that window is wide (it failed CI once), so the answer to `head` waits for the kernel's word that it is reading.
   */
  const readWaiting = async (id: string) => {
    const w = await d.client.wait(id, { input_needed: true, timeout_ms: 15_000 });
    assert.equal(w.matched, true, `read never waited for input:\n${w.screen.lines.join('\n')}`);
  };

  test('the pitfall: a wait for "done" right after typing `echo done` matches the echo, unless it looks after the input', async () => {
    const s = await shell();
    await waitText(d, s.id, '$');
    // `head` holds the command back, so only the echo of the typed line says "done" for now.
    const typed = await d.client.input(s.id, [{ text: 'head -n1 >/dev/null; echo done' }, { key: 'Enter' }]);
    assert.equal(typeof typed.seq, 'number');
    const naive = await d.client.wait(s.id, { text: 'done', timeout_ms: 3000 });
    assert.equal(naive.matched, true, 'the echo matches a plain wait: that is the pitfall');
    const early = await d.client.wait(s.id, { text: 'done', after_seq: typed.seq, timeout_ms: 500 });
    assert.equal(early.matched, false, early.screen.lines.join('\n'));
    await readWaiting(s.id);
    await d.client.input(s.id, [{ text: 'y' }, { key: 'Enter' }]);
    const real = await d.client.wait(s.id, { text: 'done', after_seq: typed.seq, timeout_ms: 5000 });
    assert.equal(real.matched, true);
    // after_input is the same, for the last input sent (here the `y`): the output line comes after it.
    const last = await d.client.wait(s.id, { regex: '^done$', after_input: true, timeout_ms: 5000 });
    assert.equal(last.matched, true);
    await d.client.deleteSession(s.id);
  });

  test('after_seq that is not the seq of a recent input is refused with a hint', async () => {
    const s = await shell();
    await assert.rejects(
      d.client.wait(s.id, { text: 'x', after_seq: 987654, timeout_ms: 100 }),
      (e: TermhostError) => e.status === 400 && e.code === 'invalid_request' && /seq an input answer returned/.test(e.message),
    );
    await d.client.deleteSession(s.id);
  });

  test('output that scrolls off still counts: after_seq follows the line as the screen scrolls', async () => {
    const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, rows: 5 });
    await waitText(d, s.id, '$');
    const typed = await d.client.input(s.id, [{ text: 'head -n1 >/dev/null; echo marker-here; seq 1 20' }, { key: 'Enter' }]);
    await readWaiting(s.id);
    await d.client.input(s.id, [{ key: 'Enter' }]);
    // The last line of `seq` (not the echo's "20"): by then marker-here has scrolled off the screen.
    assert.equal((await d.client.wait(s.id, { regex: '^20$', after_seq: typed.seq, timeout_ms: 15_000 })).matched, true);
    const r = await d.client.wait(s.id, { text: 'marker-here', after_seq: typed.seq, timeout_ms: 5000 });
    assert.equal(r.matched, true, r.screen.lines.join('\n'));
    assert.ok(!r.screen.lines.some((l) => l.includes('marker-here')), 'the line has scrolled off the 5-row screen');
    await d.client.deleteSession(s.id);
  });
});
