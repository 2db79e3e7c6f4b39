/** Real programs driven over HTTP the way an agent would: bash, vim, less and python3's REPL. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoLeaks, startTestDaemon, until, waitRegex, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let work: string;
before(async () => {
  d = await startTestDaemon();
  work = fs.mkdtempSync(path.join(d.stateDir, 'work-'));
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const quietEnv = { PS1: '$ ', HOME: '', INPUTRC: '/dev/null', LANG: 'C.UTF-8' };

/** The command name of the foreground job of the terminal whose session leader is `pid` (tpgid, /proc/PID/stat). */
function foregroundCommand(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const tpgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[5]);
    return fs.readFileSync(`/proc/${tpgid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

test('type into bash and read the output', async () => {
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], cwd: work, env: quietEnv, cols: 100, rows: 30 });
  await waitRegex(d, s.id, '^\\$$');
  await d.client.input(s.id, [{ text: 'for i in 1 2 3; do echo "row $((i * 11))"; done' }, { key: 'Enter' }]);
  const screen = await waitText(d, s.id, 'row 33');
  const start = screen.lines.findIndex((l) => l.startsWith('$ for i'));
  assert.deepEqual(screen.lines.slice(start, start + 5), ['$ for i in 1 2 3; do echo "row $((i * 11))"; done', 'row 11', 'row 22', 'row 33', '$']);
  // C-c is a real interrupt, not text
  await d.client.input(s.id, [{ text: 'sleep 30' }, { key: 'Enter' }]);
  // Only once sleep runs as the foreground job does C-c interrupt it. Sooner, bash gets the SIGINT, or its child
  // between taking the terminal and exec'ing sleep, with bash's handler still installed.
  await until('sleep in the foreground', () => foregroundCommand(s.pid) === 'sleep');
  await d.client.input(s.id, [{ key: 'C-c' }]);
  await d.client.input(s.id, [{ text: 'echo after-$?' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'after-130');
  await d.client.deleteSession(s.id);
});

test('edit a file in vim and save it', async () => {
  const file = path.join(work, 'notes.txt');
  const s = await d.client.createSession({ command: ['vim', '-u', 'NONE', '-N', '-n', file], cwd: work, env: quietEnv, cols: 80, rows: 24 });
  const first = await waitRegex(d, s.id, 'notes.txt" \\[New');
  assert.equal(first.alt_screen, true);
  await d.client.input(s.id, [{ key: 'i' }, { text: 'hello from termhost' }, { key: 'Enter' }, { text: 'second line' }, { key: 'Escape' }]);
  await waitText(d, s.id, 'second line');
  // Arrow keys must be understood by vim in whatever cursor mode it chose.
  await d.client.input(s.id, [{ key: 'Up' }, { key: 'Home' }, { text: 'x' }]);
  await waitText(d, s.id, 'ello from termhost');
  await d.client.input(s.id, [{ text: ':wq' }, { key: 'Enter' }]);
  const done = await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  assert.equal(done.screen.exit_code, 0);
  assert.equal(done.screen.alt_screen, false);
  assert.equal(fs.readFileSync(file, 'utf8'), 'ello from termhost\nsecond line\n');
  await d.client.deleteSession(s.id);
});

test('page through less', async () => {
  const file = path.join(work, 'long.txt');
  fs.writeFileSync(file, Array.from({ length: 200 }, (_, i) => `line ${String(i + 1).padStart(3, '0')}`).join('\n') + '\n');
  const s = await d.client.createSession({ command: ['less', file], cwd: work, env: { ...quietEnv, LESS: '' }, cols: 80, rows: 10 });
  let screen = await waitText(d, s.id, 'line 009');
  assert.equal(screen.lines[0], 'line 001');
  await d.client.input(s.id, [{ key: 'Space' }]);
  screen = await waitText(d, s.id, 'line 018');
  assert.equal(screen.lines[0], 'line 010');
  await d.client.input(s.id, [{ key: 'G' }]);
  screen = await waitText(d, s.id, 'line 200');
  await d.client.input(s.id, [{ key: 'g' }]);
  screen = await waitRegex(d, s.id, '^line 001$');
  await d.client.input(s.id, [{ text: '/line 150' }, { key: 'Enter' }]);
  screen = await waitRegex(d, s.id, '^line 150');
  await d.client.input(s.id, [{ key: 'q' }]);
  const done = await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  assert.equal(done.screen.exit_code, 0);
  await d.client.deleteSession(s.id);
});

test('evaluate an expression in the python3 REPL', async () => {
  const s = await d.client.createSession({ command: ['python3', '-q'], cwd: work, env: { ...quietEnv, PYTHONSTARTUP: '' }, cols: 80, rows: 24 });
  await waitRegex(d, s.id, '^>>>$');
  await d.client.input(s.id, [{ text: 'sum(i * i for i in range(10))' }, { key: 'Enter' }]);
  // The next prompt too: readline puts the terminal in raw mode before it prints it. A C-d sent earlier meets the
  // canonical line discipline, which stores it as an end-of-file mark that reads as a NUL once raw mode is on.
  const screen = await waitRegex(d, s.id, '^285\\n>>>$');
  assert.ok(screen.lines.includes('>>> sum(i * i for i in range(10))'));
  await d.client.input(s.id, [{ key: 'C-d' }]);
  const done = await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  assert.equal(done.matched, true);
  assert.equal(done.screen.exit_code, 0);
  await d.client.deleteSession(s.id);
  await until('sessions gone', async () => (await d.client.listSessions()).length === 0);
});
