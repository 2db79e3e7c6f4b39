/**
 * One child process in a PTY: spawn, read, bounded writes, resize, job-control signals to the terminal's foreground
 * group, the whole session ended with escalation, and a drained exit (ExitDrain.ts).
 *
 * What a spawn does besides forking: every fd of the daemon is sealed close-on-exec first and the new master right
 * after (fds.ts), so the program gets its own terminal and nothing else; the first process is born in the session's
 * cgroup where there is one and carries the session's tag (SessionProcesses.ts), so everything it starts can be found
 * and ended with it, by the daemon or, if the daemon is killed, by the watchdog.
 *
 * Exit detection: node-pty itself only acts on the exit through a 200 ms socket fallback while the drain holds our
 * slave fd open, so the exit is also detected directly: from node-pty's exit handler's first visible step, backed by
 * a liveness probe.
 */
import os from 'node:os';
import * as nodePty from 'node-pty';
import type { Signalled } from '../../protocol/http.js';
import { Limits } from '../limits.js';
import { ExitDrain } from './ExitDrain.js';
import { markCloexec, sealInheritedFds } from './fds.js';
import { signalForeground } from './foreground.js';
import { readTerminalEvidence, type TerminalEvidence } from './terminalEvidence.js';
import { PtyWriter } from './PtyWriter.js';
import { SESSION_TAG_ENV, SessionProcesses } from './SessionProcesses.js';

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
  private readonly procs: SessionProcesses;
  private readonly drain: ExitDrain;
  private dataListener: ((chunk: Buffer) => void) | undefined;
  private exitListener: ((exit: PtyExit) => void) | undefined;
  private exit: PtyExit | undefined;
  /** The whole session's end, once a kill has started it. */
  private ending: Promise<void> | undefined;
  private disposed = false;
  private exitProbe: NodeJS.Timeout | undefined;

  constructor(spec: PtySpawnSpec, maxQueuedInputBytes: number = Limits.inputQueueBytes) {
    this.procs = new SessionProcesses();
    try {
      sealInheritedFds();
      this.pty = this.procs.spawn(
        () =>
          nodePty.spawn(spec.file, spec.args, {
            name: spec.term,
            cols: spec.cols,
            rows: spec.rows,
            cwd: spec.cwd,
            env: { ...spec.env, [SESSION_TAG_ENV]: this.procs.tag },
            encoding: null,
          } as nodePty.IPtyForkOptions) as UnixPty,
      );
    } catch (err) {
      this.procs.release();
      throw err;
    }
    markCloexec(this.pty.fd);
    this.pid = this.pty.pid;
    this.procs.started(this.pid);
    this.writer = new PtyWriter(this.pty.fd, maxQueuedInputBytes);
    this.drain = new ExitDrain(this.pty.fd, this.pty.ptsName, (chunk) => this.dataListener?.(chunk));
    const socket = (this.pty as unknown as PtyInternals)._socket;
    const destroy = socket.destroy.bind(socket);
    const startDrain = () => this.drain.start(() => destroy());
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
      if (event === 'close' && !this.drain.started && childGone()) {
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
    this.pty.onData((data) => this.drain.data(data as unknown as Buffer));
    this.pty.onExit(({ exitCode, signal }) => {
      clearInterval(this.exitProbe);
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

  /** What the kernel says about the terminal now: foreground group, modes, who reads it; see terminalEvidence.ts. */
  evidence(): TerminalEvidence | undefined {
    if (this.disposed) return undefined;
    return readTerminalEvidence({ masterFd: this.pty.fd, slaveFd: this.drain.slave, ptsName: this.pty.ptsName, sessionPids: () => this.procs.pids() });
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

  /**
   * Send a signal to the terminal's foreground process group, as Ctrl-C would (foreground.ts); say which group got
   * it. null when the child has exited or nothing was left to receive it.
   */
  signal(sig: Signal): Signalled | null {
    if (this.exit) return null;
    return signalForeground(this.pty.fd, this.pid, sig);
  }

  /**
   * End the whole session: `sig` to every one of its processes, SIGKILL to whoever is left after the escalation
   * delay. Resolves with the child's exit once the child has exited and no process of the session is left.
   */
  kill(sig: Signal, escalateAfterMs: number = Limits.killEscalationMs): Promise<PtyExit> {
    if (this.ending) this.procs.signal(sig); // a second, perhaps harsher, request while the first is under way
    else this.ending = this.procs.end(sig, escalateAfterMs);
    const exited =
      this.exit !== undefined
        ? Promise.resolve(this.exit)
        : new Promise<PtyExit>((resolve) => {
            const prev = this.exitListener;
            this.exitListener = (exit) => {
              prev?.(exit);
              resolve(exit);
            };
          });
    const ending = this.ending;
    return Promise.all([exited, ending]).then(([exit]) => exit);
  }

  /** Free everything: the PTY master and our slave fd, timers, and every process of the session (SIGKILL). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearInterval(this.exitProbe);
    this.writer.close();
    this.procs.release();
    const release = this.drain.dispose();
    this.dataListener = undefined;
    if (release) release();
    else {
      try {
        this.pty.destroy();
      } catch {
        /* node-pty throws if the socket is already closed; the fd is freed either way */
      }
    }
  }
}

function signalName(signal: number): string {
  for (const [name, num] of Object.entries(os.constants.signals)) if (num === signal) return name;
  return `SIG${signal}`;
}
