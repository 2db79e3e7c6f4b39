/**
 * `termhost run ID -- COMMAND` behaves like `ssh host cmd`: it prints the command's own output (all of it, not the
 * screen) and exits with the command's exit status; `termhost commands ID` lists what ran. Through the installed bin,
 * as a user types it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { assertNoLeaks, ROOT, startTestDaemon, type TestDaemon } from './helpers.js';
import { makeShellHome, type ShellHome } from './shellHome.js';

const execFileP = promisify(execFile);
const BIN = path.join(ROOT, 'dist', 'cli', 'main.js');

let d: TestDaemon;
let home: ShellHome;
let id: string;
before(async () => {
  d = await startTestDaemon();
  home = makeShellHome();
  id = (await d.client.createSession({ command: ['bash'], env: home.env, cwd: home.dir })).id;
});
after(async () => {
  await d.stop();
  home.remove();
  await assertNoLeaks();
});

/** The bin as a subprocess: its stdout, stderr and exit status. */
async function termhost(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await execFileP(process.execPath, [BIN, ...argv], { env: { ...process.env, TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}

test("run prints the command's output and exits with its status, like ssh host cmd", async () => {
  const ok = await termhost('run', id, '--', 'echo', 'hello;', 'echo', 'world');
  assert.deepEqual([ok.code, ok.out, ok.err], [0, 'hello\nworld\n', '']);
  const failed = await termhost('run', id, 'ls /no/such/dir 2>&1; exit_with() { return 7; }; exit_with');
  assert.equal(failed.code, 7);
  assert.match(failed.out, /No such file or directory/);
  const quoted = await termhost('run', id, '--', "printf '%s\\n' 'a  b'");
  assert.equal(quoted.out, 'a  b\n');
});

test('run prints the whole output, not a budget of it', async () => {
  const r = await termhost('run', id, '--', 'seq', '1', '200000');
  assert.equal(r.code, 0);
  assert.equal(r.out.length, Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join('').length);
  assert.ok(r.out.startsWith('1\n2\n') && r.out.endsWith('199999\n200000\n'));
});

test('run says when the command waits for input, and when --timeout passes first', async () => {
  const asks = await termhost('run', id, '--', "read -p 'Proceed? ' x; echo got-$x");
  assert.equal(asks.code, 125);
  assert.match(asks.err, /waits for input \(line\): "Proceed\?"/);
  await d.client.input(id, [{ text: 'y' }, { key: 'Enter' }]);
  await d.client.wait(id, { prompt: true, timeout_ms: 10_000 });
  const slow = await termhost('run', '--timeout', '300', id, '--', 'sleep 2');
  assert.equal(slow.code, 124);
  assert.match(slow.err, /still running after --timeout 300 ms/);
  await d.client.wait(id, { prompt: true, timeout_ms: 10_000 });
});

test('commands lists what ran, tab-separated; --json gives the records', async () => {
  const r = await termhost('commands', id);
  assert.equal(r.code, 0);
  const rows = r.out.trim().split('\n').map((l) => l.split('\t'));
  const hello = rows.find((row) => row[6] === 'echo hello; echo world')!;
  assert.deepEqual([hello[1], hello[2], hello[5]], ['exited', '0', home.dir]);
  assert.ok(rows.some((row) => row[2] === '7'));
  const json = JSON.parse((await termhost('commands', id, '--json')).out) as Array<{ id: string; exit_code: number | null }>;
  assert.equal(json.length, rows.length);
});

test('a session without integration is a clear error', async () => {
  const sh = await d.client.createSession({ command: ['dash'] });
  const r = await termhost('run', sh.id, '--', 'true');
  assert.equal(r.code, 1);
  assert.match(r.err, /cannot run commands: "dash" is not a shell termhost integrates with/);
  await d.client.deleteSession(sh.id);
});
