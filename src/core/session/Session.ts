/**
 * One session: a PTY, its emulator and its output ring. PTY bytes flow one way: reader -> emulator -> (seq, ring,
 * listeners). Input flows the other way through one bounded write queue. A dead process keeps its final screen
 * until the session is disposed.
 */
import type { Screen, SessionInfo } from '../../protocol/http.js';
import { Emulator } from '../emulator/Emulator.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import { Emitter } from '../events/Emitter.js';
import { encodeMouse, type MouseEvent } from '../input/mouse.js';
import { Limits } from '../limits.js';
import type { PtyExit, PtyProcess, Signal } from '../pty/PtyProcess.js';
import { scrollbackLines, snapshotScreen } from '../snapshot/screen.js';
import { OutputRing } from './OutputRing.js';

export type ExitReason = 'completed' | 'crashed' | 'closed';

export interface ResolvedSpec {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  term: string;
  scrollback: number;
  labels: Record<string, string>;
}

export type SessionEvents = {
  /** Raw PTY bytes starting at stream offset `seq`, after the emulator has been fed them. */
  output: [chunk: Buffer, seq: number];
  /** The emulator has parsed output up to `seq`: the screen changed. */
  parsed: [seq: number];
  title: [title: string];
  resized: [cols: number, rows: number];
  /** The process ended and every byte it wrote is on the screen. */
  exit: [exit: PtyExit, reason: ExitReason];
  /** A notice for the people watching: text, never terminal bytes. */
  banner: [message: string];
  clientAttached: [client: AttachedClient];
  clientDetached: [client: AttachedClient];
  /** The session is being freed; listeners should let go. */
  disposed: [];
};

export type ClientRole = 'viewer' | 'driver';

/** A live attach client, as the runtime counts it (the transport lives in the server). */
export interface AttachedClient {
  readonly id: number;
  readonly role: ClientRole;
  detach(): void;
}

/** Banners published while nobody is attached are kept for later clients, up to this many (oldest dropped). */
export const MAX_RETAINED_BANNERS = 64;

export class Session {
  readonly events = new Emitter<SessionEvents>();
  readonly emulator: Emulator;
  readonly ring = new OutputRing(Limits.replayRingBytes);
  readonly createdAt = new Date();
  private seqBytes = 0;
  private lastOutput: Date | null = null;
  private exitState: { exit: PtyExit; reason: ExitReason } | undefined;
  private closing = false;
  private disposed = false;
  /** Signals termhost itself sent: an exit by one of them is not a crash. */
  private readonly signalsSent = new Set<string>();
  private readonly clients = new Set<AttachedClient>();
  private nextClientId = 1;
  private retained: string[] = [];

  constructor(
    readonly id: string,
    readonly spec: ResolvedSpec,
    private readonly pty: PtyProcess,
  ) {
    this.emulator = new Emulator({
      cols: spec.cols,
      rows: spec.rows,
      scrollback: spec.scrollback,
      onReply: (bytes) => this.pty.write(bytes),
      onTitle: (title) => this.events.emit('title', title),
    });
    this.emulator.onParsed(() => this.events.emit('parsed', this.parsedSeq));
    this.pty.onData((chunk) => {
      const seq = this.seqBytes;
      this.seqBytes += chunk.length;
      this.lastOutput = new Date();
      this.emulator.feed(chunk);
      this.ring.push(chunk);
      this.events.emit('output', chunk, seq);
    });
    this.pty.onExit((exit) => {
      void this.emulator.whenParsed().then(() => {
        const reason: ExitReason =
          this.closing || (exit.signal !== null && this.signalsSent.has(exit.signal))
            ? 'closed'
            : exit.signal !== null
              ? 'crashed'
              : 'completed';
        this.exitState = { exit, reason };
        this.events.emit('exit', exit, reason);
      });
    });
  }

  get pid(): number {
    return this.pty.pid;
  }

  /** Stream offset up to which the emulator has parsed: what the screen reflects. */
  get parsedSeq(): number {
    return this.seqBytes - this.emulator.pendingBytes;
  }

  /** Output bytes so far: the stream offset of the next byte. */
  get seq(): number {
    return this.seqBytes;
  }

  get exited(): boolean {
    return this.exitState !== undefined;
  }

  get exit(): { exit: PtyExit; reason: ExitReason } | undefined {
    return this.exitState;
  }

  get lastOutputAt(): Date | null {
    return this.lastOutput;
  }

  get cols(): number {
    return this.emulator.term.cols;
  }

  get rows(): number {
    return this.emulator.term.rows;
  }

  info(): SessionInfo {
    return {
      id: this.id,
      pid: this.pid,
      command: this.spec.command,
      cwd: this.spec.cwd,
      cols: this.cols,
      rows: this.rows,
      term: this.spec.term,
      title: this.emulator.title,
      labels: this.spec.labels,
      created_at: this.createdAt.toISOString(),
      exited: this.exited,
      exit_code: this.exitState?.exit.exitCode ?? null,
      exit_signal: this.exitState?.exit.signal ?? null,
      exit_reason: this.exitState?.reason ?? null,
      seq: this.seqBytes,
      clients: this.attachedClients,
      last_output_at: this.lastOutput?.toISOString() ?? null,
    };
  }

  /** The screen with everything received so far parsed. */
  async screen(withRaw = false): Promise<Screen> {
    await this.emulator.whenParsed();
    return this.screenNow(withRaw);
  }

  /** The screen as parsed right now; callers that need every received byte reflected use `screen()`. */
  screenNow(withRaw = false): Screen {
    const e = this.exitState?.exit;
    return snapshotScreen(
      this.emulator,
      {
        seq: this.parsedSeq,
        exited: this.exited,
        exit_code: e?.exitCode ?? null,
        exit_signal: e?.signal ?? null,
        last_output_at: this.lastOutput?.toISOString() ?? null,
      },
      withRaw,
    );
  }

  async scrollback(lines: number): Promise<{ lines: string[]; total: number }> {
    await this.emulator.whenParsed();
    return scrollbackLines(this.emulator, lines);
  }

  /** Write already-encoded bytes as one contiguous unit, or refuse them whole. */
  writeBytes(bytes: Buffer): Result<number> {
    if (this.exitState || this.pty.exited) {
      return fail(new TermError('session_exited', `session "${this.id}" has exited; it no longer takes input`));
    }
    this.emulator.armSyncParse();
    if (!this.pty.write(bytes)) {
      return fail(
        new TermError(
          'input_queue_full',
          `session "${this.id}" is not reading its input: ${this.pty.queuedInputBytes} bytes are already queued ` +
            `(limit ${Limits.inputQueueBytes})`,
          { queued_bytes: this.pty.queuedInputBytes },
          true,
        ),
      );
    }
    return ok(bytes.length);
  }

  mouse(ev: MouseEvent): Result<number> {
    const m = this.emulator.modes;
    if (m.mouse_encoding === 'sgr_pixels' && m.mouse !== 'off') {
      return fail(
        new TermError('mouse_mode_mismatch', 'the application asked for pixel mouse positions (?1016); termhost sends cell positions only', {
          modes: m,
        }),
      );
    }
    const encoding = m.mouse_encoding === 'sgr_pixels' ? 'sgr' : m.mouse_encoding;
    const encoded = encodeMouse(ev, { tracking: m.mouse, encoding }, { cols: this.cols, rows: this.rows });
    if (!encoded.ok) return fail(new TermError(encoded.code, encoded.error, { modes: m }));
    return this.writeBytes(encoded.bytes);
  }

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.emulator.resize(cols, rows);
    this.pty.resize(cols, rows);
    this.events.emit('resized', cols, rows);
  }

  signal(sig: Signal): void {
    this.signalsSent.add(`SIG${sig}`);
    this.pty.signal(sig);
  }

  /** Count a live client; whoever attaches calls `detach()` when the connection ends. */
  attachClient(role: ClientRole): AttachedClient {
    const client: AttachedClient = {
      id: this.nextClientId++,
      role,
      detach: () => {
        if (this.clients.delete(client)) this.events.emit('clientDetached', client);
      },
    };
    this.clients.add(client);
    this.events.emit('clientAttached', client);
    return client;
  }

  get attachedClients(): { viewers: number; drivers: number } {
    let viewers = 0;
    for (const c of this.clients) if (c.role === 'viewer') viewers++;
    return { viewers, drivers: this.clients.size - viewers };
  }

  /**
   * Publish a notice to attached clients. With nobody attached it is kept (up to 64) and replayed to every later
   * client, so a session that failed before anyone looked still explains itself.
   */
  publishBanner(message: string): void {
    if (this.clients.size > 0) {
      this.events.emit('banner', message);
      return;
    }
    this.retained.push(message);
    if (this.retained.length > MAX_RETAINED_BANNERS) this.retained.splice(0, this.retained.length - MAX_RETAINED_BANNERS);
  }

  get retainedBanners(): readonly string[] {
    return this.retained;
  }

  /** Signal the process group, escalate to SIGKILL after the grace period, and resolve once the exit is reported. */
  async kill(sig: Signal): Promise<void> {
    if (this.exitState) return;
    this.closing = true;
    this.signalsSent.add(`SIG${sig}`);
    this.signalsSent.add('SIGKILL');
    const exited = new Promise<void>((resolve) => {
      const off = this.events.on('exit', () => {
        off();
        resolve();
      });
    });
    void this.pty.kill(sig);
    await exited;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.events.emit('disposed');
    for (const c of [...this.clients]) c.detach();
    this.pty.dispose();
    this.emulator.dispose();
    this.ring.clear();
    this.events.clear();
  }
}
