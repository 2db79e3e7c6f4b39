/**
 * The daemon's watchdog (native/watchdog.c): a small process that ends every session's processes when the daemon
 * dies, SIGKILL included, since a killed daemon cannot do it itself. Started once per process, at the first session;
 * told about each session as it starts and ends, through a pipe whose end of file means the daemon is gone.
 *
 * What it costs: one process of about 1 MiB resident memory (measured in test/adversarial/daemon-kill.test.ts), no
 * timers in the daemon, and one short line written per session start and end. If it cannot be started (the addon was
 * not built), sessions still work; they only lose this guarantee, and a warning says so once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { Limits } from '../limits.js';
import { cgroupRoot } from './cgroup.js';
import { sealInheritedFds } from './fds.js';
import { WATCHDOG_PATH } from './native.js';

interface Registered {
  cgroup?: string;
  leader?: { pid: number; start: number };
}

export class Watchdog {
  private static instance: Watchdog | undefined;
  private child: ChildProcess | undefined;
  private broken = false;
  private warned = false;
  private readonly sessions = new Map<string, Registered>();

  static get(): Watchdog {
    Watchdog.instance ??= new Watchdog();
    return Watchdog.instance;
  }

  /** The running watchdog's pid, or undefined when there is none. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A session is about to start: from now on it is ended with the daemon. */
  announce(tag: string, cgroup: string | undefined): void {
    this.sessions.set(tag, { cgroup });
    this.send(`S ${tag} ${cgroup ?? '-'}\n`);
  }

  leader(tag: string, pid: number, start: number): void {
    const s = this.sessions.get(tag);
    if (!s) return;
    s.leader = { pid, start };
    this.send(`P ${tag} ${pid} ${start}\n`);
  }

  /** The daemon has ended the session itself (and removed its cgroup). */
  forget(tag: string): void {
    if (!this.sessions.delete(tag)) return;
    this.send(`E ${tag}\n`);
  }

  private send(line: string): void {
    if (!this.child && !this.start()) return;
    this.child!.stdin!.write(line);
  }

  /** Start it and tell it every session still registered (after a watchdog that died, too). */
  private start(): boolean {
    if (this.broken) return false;
    if (!fs.existsSync(WATCHDOG_PATH)) return this.fail(`${WATCHDOG_PATH} is missing`);
    // It closes every other fd itself, but nothing of ours may reach it even for that moment.
    sealInheritedFds();
    let child: ChildProcess;
    try {
      child = spawn(WATCHDOG_PATH, [String(process.pid), String(Limits.killEscalationMs), cgroupRoot()?.dir ?? '-'], {
        stdio: ['pipe', 'ignore', 'ignore'],
        env: {}, // nothing of the daemon's environment (its token may be there)
        detached: true, // its own session: a signal to the daemon's group or terminal must not take it along
      });
    } catch (err) {
      return this.fail((err as Error).message);
    }
    this.child = child;
    child.on('error', (err) => this.lost(child, err.message));
    child.stdin!.on('error', (err) => this.lost(child, err.message)); // EPIPE: it died; the next session restarts it
    child.unref();
    (child.stdin as unknown as { unref(): void }).unref();
    child.on('exit', () => this.lost(child, 'it exited'));
    for (const [tag, s] of this.sessions) {
      child.stdin!.write(`S ${tag} ${s.cgroup ?? '-'}\n`);
      if (s.leader) child.stdin!.write(`P ${tag} ${s.leader.pid} ${s.leader.start}\n`);
    }
    return true;
  }

  private lost(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.warn(`the session watchdog stopped (${why}); restarting it at the next session`);
  }

  private fail(why: string): false {
    this.broken = true;
    this.warn(`cannot start the session watchdog (${why}): sessions will not be ended if the daemon is killed`);
    return false;
  }

  private warn(message: string): void {
    if (this.warned) return;
    this.warned = true;
    process.emitWarning(`termhost: ${message}`, { code: 'TERMHOST_WATCHDOG' });
  }
}
