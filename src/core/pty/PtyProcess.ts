/**
 * One child process in a PTY: spawn, read, bounded writes, resize, signals to the process group, kill with
 * escalation, and a drained exit.
 *
 * No output is lost at exit. On Linux, once the last slave fd closes, a read on the master can report EIO while
 * bytes are still on their way through the tty layer, and node-pty additionally destroys its read socket 200 ms after
 * the child exits (node-pty #72). So the host holds its own slave fd open: the master never sees EIO while the child's
 * last bytes are in flight. When node-pty learns of the exit it asks to destroy the socket; that request is held until
 * the master has been silent for a short settle time, then the slave is closed, the socket destroyed, and only then is
 * the exit reported. Everything the child wrote has been delivered to `onData` by then. Because node-pty itself only
 * acts on the exit through a 200 ms fallback, the exit is also detected directly: from node-pty's exit handler's first
 * visible step, backed by a liveness probe.
 */
import fs from 'node:fs';
import os from 'node:os';
import * as nodePty from 'node-pty';
import { Limits } from '../limits.js';
import { PtyWriter } from './PtyWriter.js';

export interface PtySpawnSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  term: string;
}

export interface PtyExit {
  exitCode: number | null;
  /** Name of the signal that ended the process, such as "SIGKILL", or null. */
  signal: string | null;
}

export type Signal = 'HUP' | 'TERM' | 'KILL' | 'INT' | 'QUIT' | 'USR1' | 'USR2';
export const SIGNALS: readonly Signal[] = ['HUP', 'TERM', 'KILL', 'INT', 'QUIT', 'USR1', 'USR2'];

/** How often a live child is checked for having exited (a kill(pid, 0), which costs next to nothing). */
const EXIT_PROBE_MS = 20;

/** node-pty's socket is private; this is the one place that reaches it (pinned by the no-loss-at-exit test). */
interface PtyInternals {
  _socket: { destroy: (...args: unknown[]) => unknown; on(event: 'newListener', listener: (event: string | symbol) => void): unknown };
}

/** The Unix side of node-pty has these; its public IPty type leaves them out. */
type UnixPty = nodePty.IPty & { readonly ptsName: string; readonly fd: number; destroy(): void };

export class PtyProcess {
  readonly pid: number;
  private readonly pty: UnixPty;
  private readonly writer: PtyWriter;
  private slaveFd: number | undefined;
  private dataListener: ((chunk: Buffer) => void) | undefined;
  private exitListener: ((exit: PtyExit) => void) | undefined;
  private exit: PtyExit | undefined;
  private lastDataAt = 0;
  private drainTimer: NodeJS.Timeout | undefined;
  private escalation: NodeJS.Timeout | undefined;
  private releaseSocket: (() => void) | undefined;
  private disposed = false;
  private exitProbe: NodeJS.Timeout | undefined;

  constructor(spec: PtySpawnSpec, maxQueuedInputBytes: number = Limits.inputQueueBytes) {
    this.pty = nodePty.spawn(spec.file, spec.args, {
      name: spec.term,
      cols: spec.cols,
      rows: spec.rows,
      cwd: spec.cwd,
      env: spec.env,
      encoding: null,
    } as nodePty.IPtyForkOptions) as UnixPty;
    this.pid = this.pty.pid;
    this.writer = new PtyWriter(this.pty.fd, maxQueuedInputBytes);
    try {
      this.slaveFd = fs.openSync(this.pty.ptsName, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
    } catch {
      // Without our slave fd the exit path still works, only without the no-loss guarantee; this happens only if the
      // child already exited and the pts vanished, in which case there is nothing left in flight anyway.
      this.slaveFd = undefined;
    }
    const socket = (this.pty as unknown as PtyInternals)._socket;
    const destroy = socket.destroy.bind(socket);
    const startDrain = () => {
      if (this.releaseSocket) return; // drain in progress
      this.releaseSocket = () => destroy();
      this.awaitDrain(Date.now());
    };
    socket.destroy = () => {
      startDrain();
      return socket;
    };
    // node-pty learns of the exit only through its 200 ms socket fallback while we hold the slave open. Its waitpid
    // thread reaps the child at once, though, and its exit handler then does one visible thing right away: it adds a
    // 'close' listener to the socket (to report the exit once the socket closes). That is the earliest sign of the
    // exit; it is trusted only once the child is confirmed gone. A cheap liveness probe backs it up.
    const childGone = () => {
      try {
        process.kill(this.pid, 0);
        return false;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'ESRCH';
      }
    };
    socket.on('newListener', (event) => {
      if (event === 'close' && !this.releaseSocket && childGone()) {
        clearInterval(this.exitProbe);
        startDrain();
      }
    });
    this.exitProbe = setInterval(() => {
      if (childGone()) {
        clearInterval(this.exitProbe);
        startDrain();
      }
    }, EXIT_PROBE_MS);
    this.exitProbe.unref();
    this.pty.onData((data) => {
      this.lastDataAt = Date.now();
      this.dataListener?.(data as unknown as Buffer);
    });
    this.pty.onExit(({ exitCode, signal }) => {
      clearInterval(this.exitProbe);
      this.clearEscalation();
      this.writer.close();
      this.exit = { exitCode: signal ? null : exitCode, signal: signal ? signalName(signal) : null };
      this.exitListener?.(this.exit);
    });
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.dataListener = listener;
  }

  /** Called once, after every byte the child wrote has gone to `onData`. */
  onExit(listener: (exit: PtyExit) => void): void {
    this.exitListener = listener;
  }

  get exited(): PtyExit | undefined {
    return this.exit;
  }

  get queuedInputBytes(): number {
    return this.writer.queuedBytes;
  }

  /** Queue bytes for the child as one contiguous write; false when the bounded queue cannot take them. */
  write(bytes: Buffer): boolean {
    if (this.exit) return false;
    return this.writer.enqueue(bytes);
  }

  resize(cols: number, rows: number): void {
    try {
      this.pty.resize(cols, rows);
    } catch {
      /* the child already exited; resizing a dead PTY is harmless */
    }
  }

  /** Send a signal to the child's whole process group (node-pty makes the child a session and group leader). */
  signal(sig: Signal): void {
    if (this.exit) return;
    try {
      process.kill(-this.pid, `SIG${sig}`);
    } catch {
      try {
        process.kill(this.pid, `SIG${sig}`);
      } catch {
        /* already gone: the exit event is on its way */
      }
    }
  }

  /** Signal the group, then SIGKILL it if the child is still alive after the escalation delay. Resolves on exit. */
  kill(sig: Signal, escalateAfterMs: number = Limits.killEscalationMs): Promise<PtyExit> {
    if (this.exit) return Promise.resolve(this.exit);
    return new Promise((resolve) => {
      const prev = this.exitListener;
      this.exitListener = (exit) => {
        prev?.(exit);
        resolve(exit);
      };
      this.signal(sig);
      if (sig !== 'KILL' && this.escalation === undefined) {
        this.escalation = setTimeout(() => {
          this.escalation = undefined;
          this.signal('KILL');
        }, escalateAfterMs);
      }
    });
  }

  /** Free everything: the PTY master and our slave fd, timers, and the child (SIGKILL if it is still running). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearInterval(this.exitProbe);
    this.clearEscalation();
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.writer.close();
    if (!this.exit) this.signal('KILL');
    this.closeSlave();
    this.dataListener = undefined;
    if (this.releaseSocket) this.releaseSocket();
    else {
      try {
        this.pty.destroy();
      } catch {
        /* node-pty throws if the socket is already closed; the fd is freed either way */
      }
    }
  }

  private clearEscalation(): void {
    if (this.escalation) clearTimeout(this.escalation);
    this.escalation = undefined;
  }

  private closeSlave(): void {
    if (this.slaveFd === undefined) return;
    try {
      fs.closeSync(this.slaveFd);
    } catch {
      /* already closed */
    }
    this.slaveFd = undefined;
  }

  /**
   * Wait until the master has been silent for the settle time, then release the socket. The silence check runs in a
   * timer and is confirmed in setImmediate, which comes after the poll phase: if the event loop was busy and bytes were
   * waiting, the poll phase reads them first and the check sees fresh data. Before releasing, the master is read once
   * more directly: a kernel slow to move the child's last bytes (a busy machine) must not lose them to the timer.
   */
  private awaitDrain(startedAt: number): void {
    const check = () => {
      this.drainTimer = undefined;
      setImmediate(() => {
        if (this.disposed) return;
        const quietFor = Date.now() - this.lastDataAt;
        const overdue = Date.now() - startedAt >= Limits.exitDrainMaxMs;
        if (quietFor < Limits.exitDrainQuietMs && !overdue) {
          this.drainTimer = setTimeout(check, Limits.exitDrainQuietMs - quietFor);
          return;
        }
        if (this.readWaiting() && !overdue) {
          this.drainTimer = setTimeout(check, Limits.exitDrainQuietMs);
          return;
        }
        this.closeSlave();
        this.releaseSocket?.();
      });
    };
    this.drainTimer = setTimeout(check, Limits.exitDrainQuietMs);
  }

  /**
   * One read of the master, straight from the fd, delivered as the socket would have; true if there was anything.
   * The fd is non-blocking, so an empty master answers EAGAIN; Linux moves bytes still queued inside the tty layer to
   * the reader before it answers that. Reading here cannot reorder output: everything the socket read earlier was
   * delivered synchronously when it was read. One read only: a process still writing (a pipeline member that outlived
   * the child) must not hold the event loop; the caller waits and asks again.
   */
  private readWaiting(): boolean {
    const buf = Buffer.allocUnsafe(64 * 1024);
    let n = 0;
    try {
      n = fs.readSync(this.pty.fd, buf, 0, buf.length, null);
    } catch {
      // EAGAIN: nothing left. EIO or EBADF: the master is gone, so there is nothing to read either.
      return false;
    }
    if (n <= 0) return false;
    this.lastDataAt = Date.now();
    this.dataListener?.(buf.subarray(0, n));
    return true;
  }

}

function signalName(signal: number): string {
  for (const [name, num] of Object.entries(os.constants.signals)) if (num === signal) return name;
  return `SIG${signal}`;
}
