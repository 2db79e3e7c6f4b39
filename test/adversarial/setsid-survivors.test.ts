/**
 * Attack: a session's programs leave its process group, and DELETE, which signalled only that group, left them
 * running: `setsid sleep & sleep` survived 83 times out of 83, and so does any double-forked daemon. Now DELETE ends
 * every process of the session, with the same HUP, then SIGKILL 3 s later, for all of them. Checked with the
 * per-session cgroup (where the machine allows one, as here) and without it (TERMHOST_CGROUP=off, the fallback).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TermhostClient } from '../../src/client/TermhostClient.js';
import { assertNoLeaks, startTestDaemon, until, type TestDaemon } from '../helpers.js';
import { alive, startDaemonProcess, type DaemonProcess } from './daemonProcess.js';

let d: TestDaemon;
let fallback: DaemonProcess;
before(async () => {
  d = await startTestDaemon();
  fallback = await startDaemonProcess({ env: { TERMHOST_CGROUP: 'off' } });
});
after(async () => {
  await fallback.stop();
  await d.stop();
  await assertNoLeaks();
});

/** Start `command`, whose output includes lines `pid=N`; return the session and those pids once all are printed. */
async function sessionWithPids(client: TermhostClient, command: string[], count: number) {
  const s = await client.createSession({ command, cols: 100, rows: 20 });
  const pids = await until(
    `${count} pids on screen`,
    async () => {
      const lines = (await client.screen(s.id)).lines.filter((l) => /^pid=\d+$/.test(l));
      return lines.length >= count && lines.map((l) => Number(l.slice(4)));
    },
    30_000,
  );
  assert.ok(pids.every(alive));
  return { s, pids };
}

/** A daemon-style program: fork, setsid, fork again, the middle one exits, stdio goes to /dev/null; it ignores HUP. */
const DOUBLE_FORK = [
  'python3',
  '-c',
  [
    'import os, signal, sys, time',
    'if os.fork() == 0:',
    '    os.setsid()',
    '    if os.fork() == 0:',
    '        signal.signal(signal.SIGHUP, signal.SIG_IGN)',
    '        print(f"pid={os.getpid()}", flush=True)',
    '        null = os.open("/dev/null", os.O_RDWR)',
    '        for fd in (0, 1, 2): os.dup2(null, fd)',
    '        time.sleep(1000)',
    '    os._exit(0)',
    'print(f"pid={os.getpid()}", flush=True)',
    'time.sleep(1000)',
  ].join('\n'),
];

for (const mode of ['cgroup', 'no cgroup'] as const) {
  const client = () => (mode === 'cgroup' ? d.client : fallback.client);

  test(`${mode}: DELETE ends a setsid child along with the shell (setsid sleep & sleep)`, async () => {
    const { s, pids } = await sessionWithPids(client(), ['bash', '-c', 'setsid sleep 1000 & echo "pid=$!"; sleep 1000 & echo "pid=$!"; wait'], 2);
    await client().deleteSession(s.id);
    for (const pid of [s.pid, ...pids]) assert.equal(alive(pid), false, `pid ${pid} survived`);
  });

  test(`${mode}: DELETE ends a double-forked daemon that ignores HUP, with SIGKILL after the 3 s grace`, { timeout: 60_000 }, async () => {
    const { s, pids } = await sessionWithPids(client(), DOUBLE_FORK, 2);
    const daemonPid = pids.find((p) => p !== s.pid)!;
    const started = Date.now();
    await client().deleteSession(s.id);
    const took = Date.now() - started;
    assert.equal(alive(daemonPid), false, 'the daemon survived');
    assert.ok(took >= 2900, `SIGKILL came after ${took} ms, before the grace period was over`);
  });
}

test('a program that exited by itself does not take its leftovers with it until DELETE, which ends them too', async () => {
  // The program exits only once its child has left the session (a pipe says so), so the hangup the kernel sends to
  // the terminal's group at the program's exit cannot reach the child before it has left.
  const leave = [
    'import os',
    'r, w = os.pipe()',
    'pid = os.fork()',
    'if pid == 0:',
    '    os.setsid(); os.write(w, b"x"); os.execvp("sleep", ["sleep", "1000"])',
    'os.read(r, 1)',
    'print(f"pid={pid}", flush=True)',
  ].join('\n');
  const { s, pids } = await sessionWithPids(d.client, ['python3', '-c', leave], 1);
  await until('the program to exit', async () => (await d.client.getSession(s.id)).exited, 30_000);
  assert.ok(alive(pids[0]!), 'the background job outlives the program, as it would in any terminal');
  await d.client.deleteSession(s.id);
  assert.equal(alive(pids[0]!), false);
});
