/**
 * A private tmux server for the comparison: its own socket in the bench's temp dir, no user config (-f /dev/null),
 * run as a child of the benchmark and killed at the end. Commands go either through the tmux CLI (one client process
 * per command, as a script would drive tmux) or through one persistent control-mode client (`tmux -C`), the nearest
 * tmux equivalent of an HTTP client with a keep-alive connection.
 */
import { execFile, spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sleep } from './stats.js';

const execFileP = promisify(execFile);

/** tmux's default is 2000; termhost's default scrollback is 1000 lines, and both hosts should keep the same history. */
export const TMUX_HISTORY_LINES = 1000;

/** How long the foreground server may take to create its socket, and to exit after kill-server. */
const SERVER_START_WAIT_MS = 5000;
const SERVER_EXIT_WAIT_MS = 5000;

export class TmuxServer {
  readonly socket: string;
  /**
   * The server runs in the foreground (-D) as our child instead of daemonising: its pid is known, we reap it, and
   * no orphaned server can outlive the benchmark.
   */
  private server: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(dir: string) {
    this.socket = path.join(dir, 'tmux.sock');
  }

  static async version(): Promise<string> {
    return (await execFileP('tmux', ['-V'])).stdout.trim();
  }

  get pid(): number {
    if (this.server?.pid === undefined) throw new Error('tmux server is not running');
    return this.server.pid;
  }

  /**
   * Start the server with a session that lives for the whole run, so the first measured command does not pay for
   * anything one-off (a foreground server does not exit when empty, but the first session has its own set-up costs).
   */
  async start(cols: number, rows: number): Promise<void> {
    const server = spawn('tmux', ['-S', this.socket, '-f', '/dev/null', '-D'], { stdio: 'ignore' });
    this.server = server;
    this.exited = new Promise((resolve) => server.once('exit', () => resolve()));
    const deadline = Date.now() + SERVER_START_WAIT_MS;
    while (!fs.existsSync(this.socket)) {
      if (server.exitCode !== null || Date.now() > deadline) throw new Error('tmux server did not start');
      await sleep(10);
    }
    await this.run('new-session', '-d', '-s', 'keep', '-x', `${cols}`, '-y', `${rows}`, 'cat');
    await this.run('set-option', '-g', 'history-limit', `${TMUX_HISTORY_LINES}`);
  }

  /** One tmux command through a fresh client process; resolves with its stdout. */
  async run(...args: string[]): Promise<string> {
    return (await execFileP('tmux', ['-S', this.socket, ...args], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  }

  /** Kill the server and everything in it, and wait until it has exited; harmless when it is already gone. */
  async kill(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server && server.exitCode === null && server.signalCode === null) {
      try {
        await this.run('kill-server');
      } catch {
        /* the server is already on its way out; the exit wait below covers it */
      }
      const timer = setTimeout(() => server.kill('SIGKILL'), SERVER_EXIT_WAIT_MS);
      await this.exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.socket, { force: true });
  }

  /** A control-mode client attached to `target`; close it when done. */
  async control(target: string): Promise<TmuxControl> {
    const c = new TmuxControl(spawn('tmux', ['-S', this.socket, '-C', 'attach-session', '-t', target], { stdio: 'pipe' }));
    await c.ready;
    return c;
  }
}

/**
 * A tmux control-mode client. Every command answers with one `%begin ... %end` (or `%error`) block, in order, so
 * replies are matched to commands first-in first-out; notifications (`%output`, `%session-changed`, ...) that arrive
 * between blocks are ignored.
 */
export class TmuxControl {
  /** Resolves when the reply block to the attach command itself has arrived. */
  readonly ready: Promise<void>;
  private readonly pending: Array<{ resolve: (lines: string[]) => void; reject: (err: Error) => void }> = [];
  private block: string[] | undefined;
  private partial = '';
  private exited = false;

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.ready = new Promise((resolve, reject) => this.pending.push({ resolve: () => resolve(), reject }));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => this.onText(text));
    child.on('exit', () => {
      this.exited = true;
      for (const p of this.pending.splice(0)) p.reject(new Error('tmux control client exited'));
    });
  }

  /** Send one command line; resolves with the lines of its reply, rejects on `%error`. */
  command(line: string): Promise<string[]> {
    if (this.exited) return Promise.reject(new Error('tmux control client exited'));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.child.stdin.write(line + '\n');
    });
  }

  /** Detach: an empty line ends a control client; kill it if it does not go. */
  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end('\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await gone;
    clearTimeout(timer);
  }

  private onText(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) {
      if (this.block) {
        if (line.startsWith('%end ') || line.startsWith('%error ')) {
          const body = this.block;
          this.block = undefined;
          const waiter = this.pending.shift();
          if (line.startsWith('%end ')) waiter?.resolve(body);
          else waiter?.reject(new Error(`tmux: ${body.join(' ')}`));
        } else this.block.push(line);
      } else if (line.startsWith('%begin ')) this.block = [];
    }
  }
}
