/**
 * One child process in a PTY: spawn, read, bounded writes, resize, signals to the process group, kill with
 * escalation, and a drained exit.
 *
 * No output is lost at exit. On Linux, once the last slave fd closes, a read on the master can report EIO while
 * bytes are still on their way through the tty layer, and node-pty additionally destroys its read socket 200 ms after
 * the child exits (node-pty #72). So the host holds its own slave fd open: the master never sees EIO while the child's
 * last bytes are in flight. When node-pty learns of the exit it asks to destroy the socket; that request is held until
 * the end of the child's output has come out of the master (see below), then the slave is closed, the socket
 * destroyed, and only then is the exit reported. Everything the child wrote has been delivered to `onData` by then.
 * Because node-pty itself only acts on the exit through a 200 ms fallback, the exit is also detected directly: from
 * node-pty's exit handler's first visible step, backed by a liveness probe.
 *
 * How the end of the child's output is recognised: silence alone is not proof. On a loaded machine the kernel moves
 * bytes from the slave to the master in deferred work, which can lag by tens of milliseconds. So once the child has
 * exited, the host writes a random end marker into its own slave fd. The tty layer keeps order, so when the marker
 * comes out of the master every byte the child wrote has come out before it; the marker itself is cut from the
 * stream. Silence, confirmed by a direct read of the master, is only the fallback, for the rare case the marker
 * cannot be written (output stopped with ^S).
 */
import { randomBytes } from 'node:crypto';
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
  /** The end marker written after the exit, and stream bytes held back because they may be its beginning. */
  private endMarker: Buffer | undefined;
  private heldBack: Buffer = Buffer.alloc(0);

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
      // Non-blocking: writing the end marker must never stall the daemon, even if the child stopped output (^S).
      this.slaveFd = fs.openSync(this.pty.ptsName, fs.constants.O_RDWR | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK);
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
    this.pty.onData((data) => this.handleData(data as unknown as Buffer));
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
   * After the exit: write the end marker and release the socket once it comes back out of the master, or, if it
   * cannot be written, once the master has been silent for the settle time and a direct read finds nothing. Either
   * way at most exitDrainMaxMs. The silence check runs in a timer and is confirmed in setImmediate, after the poll
   * phase, so bytes already waiting are read first.
   */
  private awaitDrain(startedAt: number): void {
    if (this.writeEndMarker()) {
      // The socket delivers the marker in the normal course; reading the master directly as well covers an event loop
      // too busy to get round to it.
      const poll = () => {
        this.drainTimer = undefined;
        setImmediate(() => {
          if (this.disposed || !this.endMarker) return; // finished meanwhile
          if (Date.now() - startedAt >= Limits.exitDrainMaxMs) return this.finishDrain();
          this.readWaiting();
          if (this.endMarker) this.drainTimer = setTimeout(poll, Limits.exitDrainQuietMs);
        });
      };
      this.drainTimer = setTimeout(poll, Limits.exitDrainQuietMs);
      return;
    }
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
        this.finishDrain();
      });
    };
    this.drainTimer = setTimeout(check, Limits.exitDrainQuietMs);
  }

  /** Upper-case hex: untouched by any output processing a program can set (OPOST, ONLCR, OLCUC). */
  private writeEndMarker(): boolean {
    if (this.slaveFd === undefined) return false;
    const marker = Buffer.from(`TERMHOST-END-${randomBytes(12).toString('hex').toUpperCase()}`, 'latin1');
    try {
      const written = fs.writeSync(this.slaveFd, marker);
      if (written < marker.length) {
        // Only part of it fits: look for that part, which is still unique enough at this length.
        if (written < 16) return false;
        this.endMarker = marker.subarray(0, written);
        return true;
      }
      this.endMarker = marker;
      return true;
    } catch {
      return false; // EAGAIN (output stopped) or the pts is gone: fall back to silence
    }
  }

  /** Forward drained bytes, holding back a possible start of the marker, and finish when the marker has come out. */
  private scanForMarker(data: Buffer): void {
    const marker = this.endMarker!;
    const buf = this.heldBack.length ? Buffer.concat([this.heldBack, data]) : data;
    const at = buf.indexOf(marker);
    if (at >= 0) {
      this.heldBack = Buffer.alloc(0);
      if (at > 0) this.dataListener?.(buf.subarray(0, at));
      // Whatever follows came from a process still holding the terminal after the child exited.
      if (at + marker.length < buf.length) this.dataListener?.(buf.subarray(at + marker.length));
      this.finishDrain();
      return;
    }
    const keep = Math.min(buf.length, marker.length - 1);
    if (buf.length > keep) this.dataListener?.(buf.subarray(0, buf.length - keep));
    this.heldBack = Buffer.from(buf.subarray(buf.length - keep));
  }

  private finishDrain(): void {
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = undefined;
    if (this.disposed || !this.releaseSocket) return;
    if (this.heldBack.length) {
      const rest = this.heldBack;
      this.heldBack = Buffer.alloc(0);
      this.dataListener?.(rest);
    }
    this.endMarker = undefined;
    this.closeSlave();
    const release = this.releaseSocket;
    release();
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
    this.handleData(buf.subarray(0, n));
    return true;
  }

  /** Every byte from the master, read by the socket or directly, goes through here, in the order it was read. */
  private handleData(data: Buffer): void {
    this.lastDataAt = Date.now();
    if (this.endMarker) this.scanForMarker(data);
    else this.dataListener?.(data);
  }

}

function signalName(signal: number): string {
  for (const [name, num] of Object.entries(os.constants.signals)) if (num === signal) return name;
  return `SIG${signal}`;
}
