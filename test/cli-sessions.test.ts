/**
 * The CLI side of finished sessions, waits after input and secret windows (issue 13 items 3, 8 and 11), run as a
 * user runs the built CLI against a real daemon.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TermhostClient } from '../src/client/TermhostClient.js';
import { BIN, assertNoLeaks, runBin, startTestDaemon, testHome, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let env: Record<string, string>;
before(async () => {
  d = await startTestDaemon();
  env = { TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token };
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});
const th = (args: string[]) => runBin(args, { env });

test('new --rm: the session leaves `ls` as soon as its program exits; prune frees the other exited ones', async () => {
  const rm = await th(['new', '--rm', '--', 'true']);
  assert.equal(rm.code, 0, rm.stderr);
  const rmId = rm.stdout.trim();
  await until('the --rm session to leave', async () => !(await d.client.listSessions()).some((s) => s.id === rmId));
  const kept = (await th(['new', '--', 'true'])).stdout.trim();
  await until('it exited', async () => (await d.client.getSession(kept)).exited);
  assert.ok((await th(['ls'])).stdout.includes(kept), 'an exited session is still listed');
  const pruned = await th(['prune']);
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.equal(pruned.stdout.trim(), kept);
  assert.ok(!(await th(['ls'])).stdout.includes(kept));
  assert.deepEqual(JSON.parse((await th(['prune', '--json'])).stdout), { removed: [] });
});

test('wait --after-input does not match the echo of the command just typed; a plain wait does', async () => {
  const id = (await th(['new', '--env', 'PS1=$ ', '--', 'bash', '--norc', '--noprofile'])).stdout.trim();
  await waitText(d, id, '$');
  // `head` (not bash's `read`) so the kernel can say when it reads; see the same story in sessions.test.ts.
  assert.equal((await th(['send', id, 'head -n1 >/dev/null; echo done', 'Enter'])).code, 0);
  assert.equal((await th(['wait', id, '--text', 'done', '--timeout', '3000'])).code, 0, 'the echo matches a plain wait');
  const early = await th(['wait', id, '--text', 'done', '--after-input', '--timeout', '500']);
  assert.equal(early.code, 1, `matched the echo: ${early.stdout}`);
  // An Enter typed before `head` reads may reach it as a bare CR (readline's raw mode), and it would wait on.
  assert.equal((await d.client.wait(id, { input_needed: true, timeout_ms: 15_000 })).matched, true, 'head waits for its line');
  await th(['send', id, 'y', 'Enter']);
  const late = await th(['wait', id, '--regex', '^done$', '--after-input', '--timeout', '5000']);
  assert.equal(late.code, 0, late.stdout + late.stderr);
  await d.client.deleteSession(id, 'KILL');
});

test('secret ID says a window waits for a person, and --end ends it from a terminal', async () => {
  const id = (await th(['new', '--', 'sh', '-c', 'printf "Password: "; stty -echo; read pw; stty echo; echo; echo got-it; sleep 30'])).stdout.trim();
  await until('the window to open', async () => (await d.client.getSession(id)).secret_input);
  const shown = await th(['secret', id]);
  assert.match(shown.stdout, /waiting for a person to type the secret \(termhost attach -write/);
  // A person types (here through the API with the admin token, a person) and ends the window from the CLI.
  await d.client.input(id, [{ text: 'hunter2' }, { key: 'Enter' }]);
  const ended = await th(['secret', id, '--end']);
  assert.equal(ended.code, 0, ended.stderr);
  assert.match(ended.stdout, /no secret-input window is open/);
  await waitText(d, id, 'got-it');
  // An agent cannot end one.
  const agent = await d.client.createToken('cli-agent', 'agent');
  const screen = new TermhostClient({ address: d.address, token: agent.token });
  await screen.secretAction(id, 'start', 'test');
  const refused = await runBin(['secret', id, '--end'], { env: { ...env, TERMHOST_TOKEN: agent.token } });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /only a person may end/);
  screen.close();
  await d.client.secretAction(id, 'end').catch(() => {});
  await d.client.deleteSession(id, 'KILL');
});

test('serve --exited-ttl frees exited sessions after that many seconds, keeping their records', async () => {
  const home = testHome();
  const stateDir = path.join(home, 'state');
  const child = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', '--state-dir', stateDir, '--exited-ttl', '1', '--log-level', 'warn'], {
    env: { ...process.env, HOME: home, TERMHOST_TOKEN: 'ttl-test-token' },
    stdio: 'ignore',
  });
  try {
    const address = await until('daemon.json', () => {
      try {
        return (JSON.parse(fs.readFileSync(path.join(stateDir, 'daemon.json'), 'utf8')) as { address: string }).address;
      } catch {
        return undefined;
      }
    }, 30_000);
    const c = new TermhostClient({ address, token: 'ttl-test-token' });
    const s = await c.createSession({ command: ['true'] });
    await until('it exited', async () => (await c.getSession(s.id)).exited);
    await until('it was freed', async () => ((await c.getSession(s.id)) as { live: boolean }).live === false, 10_000);
    c.close();
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(home, { recursive: true, force: true });
  }
});
