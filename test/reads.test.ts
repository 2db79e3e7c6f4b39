/** Token-cheap reads: changes since a read (with long poll), stable_ms, highlights, and exit status in waits. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, rawRequest, startTestDaemon, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const node = (script: string) => [process.execPath, '-e', script];

async function bash(): Promise<string> {
  const info = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, cols: 60, rows: 10 });
  await waitText(d, info.id, '$');
  return info.id;
}

test('since_seq returns only the rows that changed, and changed:false when nothing did', async () => {
  const id = await bash();
  await d.client.input(id, [{ text: 'echo one' }, { key: 'Enter' }]);
  const first = await d.client.wait(id, { regex: '^one$', timeout_ms: 5000 });
  assert.ok(first.matched);
  const base = await d.client.screen(id);
  const same = await d.client.screenChanges(id, base.seq);
  assert.equal(same.changed, false);
  assert.equal(same.full, false);
  assert.deepEqual(same.changes, []);
  assert.equal(same.lines, undefined, 'no screen text when nothing changed');

  await d.client.input(id, [{ text: 'echo two' }, { key: 'Enter' }]);
  await d.client.wait(id, { regex: '^two\\n\\$', timeout_ms: 5000 });
  const delta = await d.client.screenChanges(id, base.seq);
  assert.equal(delta.changed, true);
  assert.equal(delta.full, false);
  assert.equal(delta.since_seq, base.seq);
  assert.ok(delta.seq > base.seq);
  // Rows 0..2 were "$ echo one", "one", "$ "; only row 2 onwards changed.
  assert.deepEqual(delta.changes, [
    { row: 2, text: '$ echo two' },
    { row: 3, text: 'two' },
    { row: 4, text: '$' },
  ]);
  assert.deepEqual(delta.cursor, { x: 2, y: 4, visible: true });
  // Chained: the answer's seq is itself a valid since_seq.
  const next = await d.client.screenChanges(id, delta.seq);
  assert.equal(next.changed, false);
  await d.client.deleteSession(id);
});

test('since_seq with wait_ms long-polls for the first change, and times out unchanged', async () => {
  const id = await bash();
  const base = await d.client.screen(id);
  const t0 = Date.now();
  const idle = await d.client.screenChanges(id, base.seq, { waitMs: 200 });
  assert.equal(idle.changed, false);
  assert.ok(Date.now() - t0 >= 150, 'waited for a change before answering');

  const pending = d.client.screenChanges(id, base.seq, { waitMs: 10_000 });
  await d.client.input(id, [{ text: 'echo polled' }, { key: 'Enter' }]);
  const got = await pending;
  assert.equal(got.changed, true);
  assert.equal(got.full, false);
  assert.ok(got.changes!.some((c) => c.row === 0 && c.text.startsWith('$ e')), JSON.stringify(got.changes));
  await d.client.deleteSession(id);
});

test('an unknown or pre-resize since_seq gets the full screen', async () => {
  const id = await bash();
  const base = await d.client.screen(id);
  const unknown = await d.client.screenChanges(id, base.seq + 99_999);
  assert.equal(unknown.full, true);
  assert.equal(unknown.changed, true);
  assert.equal(unknown.lines!.length, 10);
  assert.equal(unknown.changes, undefined);
  await d.client.resize(id, 50, 8);
  const resized = await d.client.screenChanges(id, base.seq);
  assert.equal(resized.full, true);
  assert.equal(resized.lines!.length, 8);
  assert.equal(resized.cols, 50);
  await d.client.deleteSession(id);
});

test('since_seq reads are refused with 423 during a secret-input window, like full reads', async () => {
  const id = await bash();
  const base = await d.client.screen(id);
  await d.client.secretAction(id, 'start', 'test');
  await assert.rejects(d.client.screenChanges(id, base.seq), (e: TermhostError) => e.status === 423 && e.code === 'secret_input_active');
  await d.client.deleteSession(id);
});

test('a long poll ends with 423 when a secret window opens while it waits', async () => {
  const id = await bash();
  const base = await d.client.screen(id);
  const pending = d.client.screenChanges(id, base.seq, { waitMs: 10_000 });
  // The poll is registered once the request reached the server; a changed:false answer would mean it had not waited.
  await d.client.secretAction(id, 'start', 'test');
  await assert.rejects(pending, (e: TermhostError) => e.status === 423);
  await d.client.deleteSession(id);
});

test('stable_ms matches a screen redrawn with the same text, where quiet_ms never does', async () => {
  const info = await d.client.createSession({
    command: node(`setInterval(() => process.stdout.write('\\r[ 12:00 ] working'), 20)`),
    cols: 40,
    rows: 5,
  });
  await waitText(d, info.id, 'working');
  const quiet = await d.client.wait(info.id, { quiet_ms: 300, timeout_ms: 900 });
  assert.equal(quiet.matched, false);
  assert.equal(quiet.reason, 'timeout');
  const t0 = Date.now();
  const stable = await d.client.wait(info.id, { stable_ms: 300, timeout_ms: 5000 });
  assert.equal(stable.matched, true);
  assert.equal(stable.reason, 'stable');
  assert.ok(Date.now() - t0 >= 250);
  await d.client.deleteSession(info.id);
});

test('stable_ms does not match while the text keeps changing', async () => {
  const info = await d.client.createSession({ command: node(`let n = 0; setInterval(() => process.stdout.write('\\rcount ' + n++), 20)`), cols: 40, rows: 5 });
  await waitText(d, info.id, 'count');
  const r = await d.client.wait(info.id, { stable_ms: 300, timeout_ms: 900 });
  assert.equal(r.matched, false);
  assert.equal(r.reason, 'timeout');
  await d.client.deleteSession(info.id);
});

test('highlights report inverse-video runs in terminal columns, wide characters counted twice', async () => {
  const info = await d.client.createSession({
    command: ['printf', '  first\\n\\033[7m> second  \\033[0m\\n漢字\\033[7mSel\\033[0m end\\n'],
    cols: 40,
    rows: 5,
  });
  await d.client.wait(info.id, { exit: true, timeout_ms: 5000 });
  const plain = await d.client.screen(info.id);
  assert.equal(plain.highlights, undefined, 'only on request');
  const s = await d.client.screen(info.id, { highlights: true });
  assert.deepEqual(s.highlights, [
    { row: 1, col: 0, len: 10, text: '> second  ' },
    { row: 2, col: 4, len: 3, text: 'Sel' },
  ]);
  await d.client.deleteSession(info.id);
});

test('a wait that ends because the process exited says so, with the exit code', async () => {
  const a = await d.client.createSession({ command: ['sh', '-c', 'echo bye; exit 3'] });
  const r = await d.client.wait(a.id, { exit: true, timeout_ms: 5000 });
  assert.equal(r.matched, true);
  assert.equal(r.reason, 'exit');
  assert.equal(r.exit_code, 3);
  assert.equal(r.exit_signal, null);
  // A text wait the process can no longer satisfy ends at the exit too, unmatched, with the code.
  const b = await d.client.createSession({ command: ['sh', '-c', 'exit 7'] });
  const r2 = await d.client.wait(b.id, { text: 'never printed', timeout_ms: 5000 });
  assert.equal(r2.matched, false);
  assert.equal(r2.reason, 'exit');
  assert.equal(r2.exit_code, 7);
  // A wait that matched on text does not carry exit fields.
  const c = await d.client.createSession({ command: ['sh', '-c', 'echo here; sleep 5'] });
  const r3 = await d.client.wait(c.id, { text: 'here', timeout_ms: 5000 });
  assert.equal(r3.reason, 'text');
  assert.equal('exit_code' in r3, false);
  for (const id of [a.id, b.id, c.id]) await d.client.deleteSession(id);
});

test('with highlights asked for, a selection that moves without any text change counts as a change', async () => {
  const info = await d.client.createSession({
    // Echo off, and the cursor put back where it was: the only visible change is which row is inverse.
    command: ['bash', '-c', "stty -echo; printf '\\033[7mfirst\\033[0m\\nsecond\\n'; read x; printf '\\033[1;1Hfirst\\033[2;1H\\033[7msecond\\033[0m\\033[3;1H'; sleep 30"],
    cols: 30,
    rows: 5,
  });
  await waitText(d, info.id, 'second');
  const before = await d.client.screen(info.id, { highlights: true });
  assert.deepEqual(before.highlights, [{ row: 0, col: 0, len: 5, text: 'first' }]);
  const pending = d.client.screenChanges(info.id, before.seq, { highlights: true, waitMs: 10_000 });
  await d.client.input(info.id, [{ key: 'Enter' }]);
  const moved = await pending;
  assert.equal(moved.changed, true);
  assert.deepEqual(moved.highlights, [{ row: 1, col: 0, len: 6, text: 'second' }]);
  assert.ok(!moved.changes!.some((c) => c.row === 0 || c.row === 1), 'no row text changed');
  await d.client.deleteSession(info.id);
});

test('wait_ms without since_seq is refused: a long poll needs a screen to compare with', async () => {
  const info = await d.client.createSession({ command: ['cat'] });
  const r = await rawRequest(d.address, { path: `/v1/sessions/${info.id}/screen?wait_ms=100`, headers: { authorization: `Bearer ${d.token}` } });
  assert.equal(r.status, 400);
  assert.equal(r.json.code, 'invalid_request');
  assert.match(r.json.error, /since_seq/);
  await d.client.deleteSession(info.id);
});
