/**
 * Attack: every session used to inherit every earlier session's PTY master (node-pty 1.1.0 leaves masters
 * inheritable), and the daemon's own inherited fds. A program in session B could then read session A's output and
 * type into A, past A's lease and secret-input window. Now a session holds its own terminal as 0, 1 and 2, and
 * nothing else, however many sessions came before and whatever the daemon inherited.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { assertNoLeaks, startTestDaemon, until, waitText, type TestDaemon } from '../helpers.js';
import { alive, fdsOf, sleeping, startDaemonProcess } from './daemonProcess.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ maxSessions: 30 });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/** Wait until pid sleeps in `sleep`, then read its fds and where they point. */
async function fdsOnceSleeping(pid: number): Promise<Record<number, string>> {
  await until(`${pid} to sleep`, () => sleeping(pid), 30_000);
  return Object.fromEntries(fdsOf(pid).map((fd) => [fd, fs.readlinkSync(`/proc/${pid}/fd/${fd}`)]));
}

test('after 20 other sessions were started, a session holds only its own terminal as 0, 1 and 2', async () => {
  const others = [];
  for (let i = 0; i < 20; i++) others.push(await d.client.createSession({ command: ['sleep', '300'] }));
  const s = await d.client.createSession({ command: ['sleep', '300'] });
  const fds = await fdsOnceSleeping(s.pid);
  assert.deepEqual(Object.keys(fds), ['0', '1', '2'], JSON.stringify(fds));
  assert.match(fds[0]!, /^\/dev\/pts\/\d+$/);
  assert.ok(fds[1] === fds[0] && fds[2] === fds[0], 'all three are its own terminal');
  // And so do the earlier ones: none holds a later session's terminal either.
  for (const o of others) assert.deepEqual(Object.keys(await fdsOnceSleeping(o.pid)), ['0', '1', '2']);
  await Promise.all([...others, s].map((x) => d.client.deleteSession(x.id, 'KILL')));
});

test("session B cannot read or write session A's master: no fd of it reaches B, and A never runs B's command", async () => {
  const a = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: 'A$ ' } });
  await waitText(d, a.id, 'A$', 30_000);
  // A person holds A exclusively: nobody else may type into it.
  const lease = await d.client.acquireLease(a.id, 'exclusive', 60_000);
  // B looks for any PTY master among its fds and types a command into each one it finds.
  const attack = [
    'import os',
    'found = []',
    "for fd in sorted(int(f) for f in os.listdir('/proc/self/fd')):",
    '    try: target = os.readlink(f"/proc/self/fd/{fd}")',
    '    except OSError: continue',
    "    if 'ptmx' in target:",
    '        found.append(fd)',
    "        os.write(fd, b'echo INJECTED\\r')",
    "print('masters found:', len(found), flush=True)",
  ].join('\n');
  const b = await d.client.createSession({ command: ['python3', '-c', attack] });
  await waitText(d, b.id, 'masters found: 0', 30_000);
  // A still answers its lease holder, and has not run anything it was not given.
  await d.client.input(a.id, [{ text: 'echo STILL-MINE' }, { key: 'Enter' }], { leaseId: lease.lease_id });
  const screen = await waitText(d, a.id, 'STILL-MINE', 30_000);
  assert.ok(!screen.lines.some((l) => l.includes('INJECTED')), screen.lines.join('\n'));
  await d.client.deleteSession(a.id, 'KILL');
  await d.client.deleteSession(b.id, 'KILL');
});

test('fds the daemon inherited from whoever started it never reach its sessions', { timeout: 180_000 }, async () => {
  // A parent that hands the daemon two open files, as a wrapper script or a service manager might. Node marks the
  // first few fds it inherits close-on-exec by itself (about 3 to 15), but not those past a gap: 40 leaked before.
  const file = fs.openSync('/dev/null', 'r');
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'ignore', 'pipe', ...new Array<'ignore'>(38).fill('ignore')];
  stdio[3] = stdio[40] = file;
  const daemon = await startDaemonProcess({ stdio });
  fs.closeSync(file);
  try {
    assert.ok(fdsOf(daemon.pid).includes(3) && fdsOf(daemon.pid).includes(40), 'the daemon did inherit them');
    const s = await daemon.client.createSession({ command: ['sleep', '300'] });
    assert.deepEqual(Object.keys(await fdsOnceSleeping(s.pid)), ['0', '1', '2']);
    await daemon.client.deleteSession(s.id, 'KILL');
    assert.equal(alive(s.pid), false);
  } finally {
    await daemon.stop();
  }
});
