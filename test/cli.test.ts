/**
 * The CLI against a real daemon: each command through runCli (argument parsing -> typed client -> HTTP -> PTY), and
 * the installed bin once end to end, reading the address and token from the environment.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { runCli } from '../src/cli/main.js';
import { assertNoLeaks, ROOT, startTestDaemon, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (s) => (out += s),
    err: (s) => (err += s),
  });
  return { code, out, err };
}

/** Global flags go before the positional payload so `send` and `new` do not treat them as text or argv. */
async function run(cmd: string, ...rest: string[]) {
  return cli(cmd, '--addr', d.address, '--token', d.token, ...rest);
}

test('new, send, wait, screen, scrollback, resize, ls, signal and kill', async () => {
  const created = await run('new', '-cols', '70', '-rows', '12', '-env', 'PS1=$ ', '-label', 'who=cli', '--', 'bash', '--norc', '--noprofile');
  assert.equal(created.code, 0, created.err);
  const id = created.out.trim();
  assert.match(id, /^[a-z][0-9a-f]{7}$/);
  assert.equal((await run('send', id, 'echo one two', 'Enter')).code, 0);
  const waited = await run('wait', id, '--text', 'one two', '--timeout', '5000');
  assert.equal(waited.code, 0, waited.out + waited.err);
  const screen = await run('screen', id);
  assert.match(screen.out, /^\$ echo one two\none two\n\$\n$/);
  const json = JSON.parse((await run('screen', id, '--json')).out);
  assert.equal(json.cols, 70);
  const raw = await run('screen', id, '--raw');
  assert.ok(raw.out.includes('one two'));
  assert.equal((await run('send', '-l', id, 'Enter')).code, 0); // literal: the word "Enter"
  await waitText(d, id, '$ Enter');
  assert.equal((await run('send', id, 'C-u')).code, 0);
  assert.equal((await run('resize', id, '90x20')).out.trim(), '90x20');
  assert.equal((await d.client.getSession(id)).cols, 90);
  const ls = await run('ls');
  assert.match(ls.out, new RegExp(`^${id}\\t-\\t\\d+\\t90x20\\trunning\\tbash --norc --noprofile\\twho=cli$`, 'm'));
  assert.equal((await run('send', id, 'for i in $(seq 1 30); do echo s$i; done', 'Enter')).code, 0);
  await waitText(d, id, 's30');
  assert.match((await run('scrollback', id, '-n', '2')).out, /^s\d+\ns\d+\n$/);
  assert.equal((await run('signal', id, 'INT')).code, 0);
  assert.equal((await run('kill', id, '--signal', 'KILL')).code, 0);
  const gone = await run('screen', id);
  assert.equal(gone.code, 1);
  assert.match(gone.err, /no session .* \[session_not_found\]/);
});

test('errors print the server message and exit non-zero; usage errors exit 2', async () => {
  const id = (await run('new', '--', 'sleep', '30')).out.trim();
  const notKey = await run('send', id, 'C-Enter');
  assert.equal(notKey.code, 2);
  assert.match(notKey.err, /not a key/);
  const mouse = await run('mouse', id, 'click', '3,4');
  assert.equal(mouse.code, 1);
  assert.match(mouse.err, /mouse_not_enabled/);
  const waitMiss = await run('wait', id, '--text', 'nope', '--timeout', '50');
  assert.equal(waitMiss.code, 1);
  assert.match(waitMiss.out, /not matched: timeout/);
  assert.equal((await run('resize', id, 'big')).code, 2);
  assert.equal((await run('bogus')).code, 2);
  const badToken = await cli('ls', '--addr', d.address, '--token', 'wrong');
  assert.equal(badToken.code, 1);
  assert.match(badToken.err, /unauthorized/);
  await run('kill', id);
});

test('the termhost bin works from the environment (TERMHOST_ADDR, TERMHOST_TOKEN)', async () => {
  const bin = path.join(ROOT, 'dist', 'cli', 'main.js');
  const env = { ...process.env, TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token };
  const exec = promisify(execFile);
  const { stdout } = await exec(process.execPath, [bin, 'new', 'sh', '-c', 'echo from-bin; sleep 30'], { env });
  const id = stdout.trim();
  await waitText(d, id, 'from-bin');
  const screen = await exec(process.execPath, [bin, 'screen', id], { env });
  assert.equal(screen.stdout, 'from-bin\n');
  await exec(process.execPath, [bin, 'kill', id], { env });
  const failed = await exec(process.execPath, [bin, 'screen', id], { env }).catch((e: { code: number; stderr: string }) => e);
  assert.equal((failed as { code: number }).code, 1);
});

test('wait --stable matches a screen that keeps redrawing the same text', async () => {
  const created = await run('new', '--', process.execPath, '-e', "setInterval(() => process.stdout.write('\\r[ spinner ] same'), 20)");
  const id = created.out.trim().split(/\s+/)[0];
  const r = await run('wait', id, '--stable', '300', '--timeout', '5000');
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /^matched: stable/);
  assert.equal((await run('kill', id)).code, 0);
});
