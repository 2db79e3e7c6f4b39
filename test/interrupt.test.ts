/**
 * Interrupt interrupts: a signal sent through the API goes to the terminal's foreground process group, as Ctrl-C
 * does, not to the group of the program the session started. In a shell that is the running command; the shell,
 * which ignores SIGINT and SIGTERM, stays. The answer says which group got it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { runCli } from '../src/cli/main.js';
import { assertNoLeaks, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';
import { alive } from './adversarial/daemonProcess.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/** A bash session running `sleep 88` in the foreground; returns sleep's pid once it runs. */
async function shellRunningSleep() {
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } });
  await waitText(d, s.id, '$', 30_000);
  await d.client.input(s.id, [{ text: 'sleep 88' }, { key: 'Enter' }]);
  const sleepPid = await until('sleep 88 to run', () => {
    for (const name of fs.readFileSync(`/proc/${s.pid}/task/${s.pid}/children`, 'utf8').split(' ')) {
      if (name && fs.readFileSync(`/proc/${name}/cmdline`, 'utf8') === 'sleep\x0088\x00') return Number(name);
    }
    return undefined;
  }, 30_000);
  return { s, sleepPid };
}

/** After the command ended: the shell's prompt is back, and it reports the command's status. */
async function statusAfter(id: string): Promise<void> {
  await d.client.input(id, [{ text: 'echo "status=$?"' }, { key: 'Enter' }]);
}

const gone = (pid: number) => !alive(pid);

test('termhost signal ID INT ends the command running in a shell, the shell stays, and the answer names sleep', async () => {
  const { s, sleepPid } = await shellRunningSleep();
  let out = '';
  const code = await runCli(['signal', '--addr', d.address, '--token', d.token, s.id, 'INT'], { out: (x) => (out += x), err: (x) => (out += x) });
  assert.equal(code, 0, out);
  assert.equal(out, `SIGINT -> process group ${sleepPid} (sleep 88)\n`);
  await until('sleep to end', () => gone(sleepPid), 30_000);
  await statusAfter(s.id);
  await waitText(d, s.id, 'status=130', 30_000);
  assert.ok(gone(sleepPid));
  assert.equal((await d.client.getSession(s.id)).exited, false, 'the shell is still there');
  await d.client.deleteSession(s.id);
});

test('POST /signal sends TERM and INT to the foreground group and says so; at the prompt, that is the shell, which stays', async () => {
  const { s, sleepPid } = await shellRunningSleep();
  const answer = await d.client.signal(s.id, 'TERM');
  assert.deepEqual(answer.signalled, { pgid: sleepPid, leader_pid: sleepPid, command: 'sleep 88', signal: 'TERM' });
  assert.equal(answer.id, s.id, 'the rest of the answer is the session, as before');
  await until('sleep to end', () => gone(sleepPid), 30_000);
  await statusAfter(s.id);
  await waitText(d, s.id, 'status=143', 30_000);
  // Nothing in the foreground but the shell: it gets the signal, and ignores it as an interactive shell does.
  await until('the shell to be back in the foreground', async () => (await d.client.signal(s.id, 'INT')).signalled?.pgid === s.pid, 30_000);
  const info = await d.client.getSession(s.id);
  assert.equal(info.exited, false);
  await d.client.deleteSession(s.id);
});
