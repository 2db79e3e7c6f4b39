/**
 * Attack: `kill -9` of the daemon left sessions running, held open by a HUP-ignoring session that held their
 * masters. A killed daemon can do nothing, so its watchdog (native/watchdog.c) does: when the daemon's end of its
 * pipe closes, every process of every session gets SIGHUP, and SIGKILL 3 s later. Checked with the per-session
 * cgroups and without them (TERMHOST_CGROUP=off), against the real daemon process.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { until } from '../helpers.js';
import { alive, fdsOf, startDaemonProcess } from './daemonProcess.js';

/** The watchdog that watches `daemonPid` (its first argument). */
function watchdogOf(daemonPid: number): number | undefined {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv[0]!.endsWith('/termhost_watchdog') && argv[1] === String(daemonPid)) return Number(name);
    } catch {
      /* exited while we looked */
    }
  }
  return undefined;
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]);
}

for (const mode of ['cgroup', 'no cgroup'] as const) {
  test(`${mode}: kill -9 of the daemon leaves no session process alive, HUP-ignoring ones included`, { timeout: 180_000 }, async () => {
    const daemon = await startDaemonProcess({ env: mode === 'cgroup' ? {} : { TERMHOST_CGROUP: 'off' } });
    try {
      const c = daemon.client;
      const sessions = [
        await c.createSession({ command: ['bash', '--norc', '--noprofile'] }),
        await c.createSession({ command: ['sleep', '1000'] }),
        // Ignores HUP, and so does the sleep it runs.
        await c.createSession({ command: ['bash', '-c', 'trap "" HUP; echo "pid=$$"; sleep 1000 & echo "pid=$!"; wait'] }),
        // Ignores HUP and never reads its terminal, so it never notices the hangup either.
        await c.createSession({ command: ['python3', '-c', 'import signal, time\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\nprint("pid=0", flush=True)\ntime.sleep(1000)'] }),
        // Has left the session's group and session.
        await c.createSession({ command: ['bash', '-c', 'setsid sleep 1000 & echo "pid=$!"; wait'] }),
      ];
      const pids = new Set(sessions.map((s) => s.pid));
      for (const s of sessions.slice(2)) {
        const lines = await until('the session to print its pids', async () => {
          const l = (await c.screen(s.id)).lines.filter((x) => /^pid=\d+$/.test(x));
          return l.length > 0 && l;
        }, 30_000);
        for (const l of lines) if (l !== 'pid=0') pids.add(Number(l.slice(4)));
      }
      const watchdog = await until('the watchdog to run', () => watchdogOf(daemon.pid), 30_000);
      // Its pipe and /dev/null, and no session master. (A /proc file it reads now and then may be open for a moment.)
      const held = fdsOf(watchdog).filter((fd) => {
        try {
          return !fs.readlinkSync(`/proc/${watchdog}/fd/${fd}`).startsWith('/proc/');
        } catch {
          return false; // closed while we looked: one of those moments
        }
      });
      assert.deepEqual(held, [0, 1, 2]);
      const rss = rssKiB(watchdog);
      assert.ok(rss < 4096, `the watchdog uses ${rss} KiB`);
      console.log(`# watchdog resident memory: ${rss} KiB`);
      assert.ok([...pids].every(alive));

      daemon.child.kill('SIGKILL');
      await until('every session process to be gone', () => [...pids].every((p) => !alive(p)), 30_000).catch(() => {
        assert.deepEqual([...pids].filter(alive), [], 'session processes still alive');
      });
      await until('the watchdog to exit, its work done', () => !alive(watchdog), 30_000);
    } finally {
      await daemon.stop();
    }
  });
}

test('the watchdog does not outlive a daemon that stops normally, and a daemon that never ran a session has none', { timeout: 180_000 }, async () => {
  const idle = await startDaemonProcess();
  assert.equal(watchdogOf(idle.pid), undefined);
  await idle.stop();

  const daemon = await startDaemonProcess();
  const s = await daemon.client.createSession({ command: ['sleep', '1000'] });
  const watchdog = await until('the watchdog to run', () => watchdogOf(daemon.pid), 30_000);
  await daemon.stop(); // SIGTERM: the daemon ends its sessions itself, then exits
  assert.equal(alive(s.pid), false);
  await until('the watchdog to exit', () => !alive(watchdog), 30_000);
});
