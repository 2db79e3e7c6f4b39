/**
 * Every process of one session, not only the first one's process group: a session's programs can setsid, double
 * fork into daemons, or ignore SIGHUP, and each of them must still end with the session. Which processes belong is
 * decided by native/procs.c (a cgroup where we have one, an environment tag, the session id while its leader lives,
 * and descent from any of those), the same rule the watchdog applies after the daemon died.
 *
 * Ending a session: the polite signal to all of them, SIGKILL to whoever is left after the escalation delay, and done
 * once none is left. Checking costs a read of /proc, never a spawned process.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Limits } from '../limits.js';
import { bornInside, createSessionCgroup, removeSessionCgroup } from './cgroup.js';
import { native, type SessionIdentity } from './native.js';
import { Watchdog } from './Watchdog.js';

/** The environment variable that carries a session's tag into all its processes. */
export const SESSION_TAG_ENV = 'TERMHOST_SESSION_TAG';

/**
 * How often an ending session is checked for processes still alive: soon at first (most are gone within
 * milliseconds of the signal), then less often, since each check reads every process's /proc stat (about 1.4 ms for
 * 100 processes here).
 */
const SURVIVOR_POLL_FIRST_MS = 10;
const SURVIVOR_POLL_MAX_MS = 100;
/** After SIGKILL, how long to keep waiting for the processes to go (one in uninterruptible sleep may take a while). */
const KILL_WAIT_MS = 5000;
/** How long an emptied cgroup may take to become removable, checked at the poll interval. */
const CGROUP_REMOVE_TRIES = 50;

export class SessionProcesses {
  readonly tag = randomBytes(16).toString('hex');
  private cgroup: string | undefined;
  private leader: { pid: number; start: number } | undefined;
  private released = false;

  constructor() {
    this.cgroup = createSessionCgroup(this.tag);
    Watchdog.get().announce(this.tag, this.cgroup);
  }

  /** Run the fork so that the first process is born in the session's cgroup, if it has one. */
  spawn<T>(fork: () => T): T {
    if (!this.cgroup) return fork();
    const { value, placed } = bornInside(this.cgroup, fork);
    if (!placed) {
      removeSessionCgroup(this.cgroup);
      this.cgroup = undefined;
    }
    return value;
  }

  /** The first process exists: remember it with its start time, so a reused pid is never mistaken for it. */
  started(pid: number): void {
    const stat = native().procStat(pid);
    if (!stat) return; // it already exited: the cgroup and the tag still identify anything it left
    this.leader = { pid, start: stat.start };
    Watchdog.get().leader(this.tag, pid, stat.start);
  }

  get identity(): SessionIdentity {
    return { leader: this.leader?.pid, start: this.leader?.start, tag: this.tag, cgroup: this.cgroup };
  }

  /** Pids of the session's processes alive now. */
  pids(): number[] {
    return native().sessionPids(this.identity);
  }

  /** Signal every process of the session; SIGKILL also kills its cgroup at once. */
  signal(sig: string): number {
    const signo = os.constants.signals[`SIG${sig}` as keyof typeof os.constants.signals];
    return native().signalSession(this.identity, signo);
  }

  /**
   * The whole session's HUP-then-KILL: `sig` to every process, SIGKILL to those left after `escalateAfterMs`, and
   * resolve once none is left (or, after SIGKILL, at the latest after KILL_WAIT_MS).
   */
  end(sig: string, escalateAfterMs: number = Limits.killEscalationMs): Promise<void> {
    this.signal(sig);
    const started = Date.now();
    let killedAt = sig === 'KILL' ? started : 0;
    let pollMs = SURVIVOR_POLL_FIRST_MS;
    return new Promise((resolve) => {
      const check = () => {
        if (this.pids().length === 0) return resolve();
        const now = Date.now();
        if (!killedAt && now - started >= escalateAfterMs) {
          killedAt = now;
          pollMs = SURVIVOR_POLL_FIRST_MS; // they go at once now: look again soon
          this.signal('KILL');
        } else if (killedAt) {
          if (now - killedAt >= KILL_WAIT_MS) return resolve();
          this.signal('KILL'); // a process forked since the last scan (with no cgroup to catch it)
        }
        // Held (not unref'd): a shutdown that awaits this must not exit before it is done.
        const untilEscalation = killedAt ? pollMs : Math.max(1, started + escalateAfterMs - now);
        setTimeout(check, Math.min(pollMs, untilEscalation));
        pollMs = Math.min(pollMs * 2, SURVIVOR_POLL_MAX_MS);
      };
      setImmediate(check);
    });
  }

  /**
   * The session is over: SIGKILL anything still left, remove the cgroup (once the kernel has let its last process go)
   * and tell the watchdog to forget it. A cgroup that will not empty stays registered, so the watchdog cleans it up.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.pids().length) this.signal('KILL');
    const cgroup = this.cgroup;
    if (!cgroup) return Watchdog.get().forget(this.tag);
    let tries = 0;
    const remove = () => {
      if (removeSessionCgroup(cgroup)) return Watchdog.get().forget(this.tag);
      if (++tries < CGROUP_REMOVE_TRIES) setTimeout(remove, SURVIVOR_POLL_FIRST_MS * 2).unref();
    };
    remove();
  }
}
