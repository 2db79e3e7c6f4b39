/**
 * One session: a PTY, its emulator, its output ring, its audience and its input policy. PTY bytes flow one way:
 * reader -> emulator -> (seq, ring, listeners). Input flows the other way, through the control policy (actor, lease,
 * secret window) and one bounded write queue. A dead process keeps its final screen until the session is disposed.
 *
 * While a secret-input window is open the emulator still consumes every byte, but nothing derived from the output
 * leaves: no output or parsed events, nothing in the ring, and session info frozen as it was when the window opened.
 */
import type { Screen, SessionInfo, Signalled } from '../../protocol/http.js';
import { SYSTEM_ACTOR, type Actor } from '../control/actor.js';
import { looksLikeSecretPrompt, type SecretState } from '../control/SecretWindow.js';
import { SessionControl, type ControlOptions } from '../control/SessionControl.js';
import { Emulator } from '../emulator/Emulator.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import { Emitter } from '../events/Emitter.js';
import { encodeInput, type InputItem } from '../input/batch.js';
import { encodeMouse, type MouseEvent } from '../input/mouse.js';
import { Limits } from '../limits.js';
import type { PtyExit, PtyProcess, Signal } from '../pty/PtyProcess.js';
import { scrollbackLines, snapshotScreen } from '../snapshot/screen.js';
import { Audience, type AttachedClient, type ClientRole } from './Audience.js';
import type { ExitReason, InputSource, ResolvedSpec, SessionEvents } from './types.js';
import { OutputRing } from './OutputRing.js';
import { ScreenHistory } from './ScreenHistory.js';
import { changesSince, type ChangesOptions } from './changes.js';
import { compileWaitRegex, waitFor, type WaitCondition, type WaitOutcome } from './wait.js';

export type { AttachedClient, ClientRole, ExitReason, InputSource, ResolvedSpec, SessionEvents };

export class Session {
  readonly events = new Emitter<SessionEvents>();
  readonly emulator: Emulator;
  readonly ring = new OutputRing(Limits.replayRingBytes);
  readonly createdAt = new Date();
  readonly control: SessionControl;
  /** Screens served to clients, for "what changed since seq N". */
  readonly history = new ScreenHistory();
  private readonly audience: Audience;
  private seqBytes = 0;
  /** Epoch ms of the last output byte; a number, not a Date, because it is set for every PTY read. */
  private lastOutputMs: number | null = null;
  private exitState: { exit: PtyExit; reason: ExitReason } | undefined;
  private closing = false;
  private disposed = false;
  /** Signals termhost itself sent: an exit by one of them is not a crash. */
  private readonly signalsSent = new Set<string>();
  /** What info() shows while a secret window is open. */
  private frozen: { seq: number; lastOutput: Date | null; title: string; lastInputBy: Actor | null } | undefined;
  /** The prompt detector looks only at output that arrived since the last window closed. */
  private freshOutput = true;

  constructor(
    readonly id: string,
    readonly spec: ResolvedSpec,
    private readonly pty: PtyProcess,
    controlOptions: ControlOptions = { inputPolicy: 'auto', secretDetect: true },
    /** Who started it, for records. */
    readonly createdBy?: Actor,
  ) {
    const ev = this.events;
    this.control = new SessionControl(controlOptions, {
      acquired: (l) => ev.emit('leaseAcquired', l),
      released: (l, r) => ev.emit('leaseReleased', l, r),
      preempted: (l, by) => ev.emit('inputPreempted', l, by),
    });
    this.audience = new Audience({
      attached: (c) => ev.emit('clientAttached', c),
      detached: (c) => ev.emit('clientDetached', c),
      banner: (m) => ev.emit('banner', m),
    });
    this.emulator = new Emulator({
      cols: spec.cols,
      rows: spec.rows,
      scrollback: spec.scrollback,
      onReply: (bytes) => this.pty.write(bytes),
      onTitle: (title) => !this.secretActive && ev.emit('title', title),
    });
    this.emulator.onParsed(() => {
      if (this.secretActive) return;
      this.detectSecretPrompt();
      if (!this.secretActive) ev.emit('parsed', this.parsedSeq);
    });
    this.pty.onData((chunk) => {
      const seq = this.seqBytes;
      this.seqBytes += chunk.length;
      this.lastOutputMs = Date.now();
      // Decided before feeding: the chunk that shows a password prompt opens the window while it is parsed, and it
      // is still pre-window output that everyone may see.
      const hidden = this.secretActive;
      this.emulator.feed(chunk);
      if (hidden) return;
      this.freshOutput = true;
      this.ring.push(chunk);
      ev.emit('output', chunk, seq);
    });
    this.pty.onExit((exit) => {
      void this.emulator.whenParsed().then(() => {
        const reason: ExitReason =
          this.closing || (exit.signal !== null && this.signalsSent.has(exit.signal)) ? 'closed' : exit.signal !== null ? 'crashed' : 'completed';
        this.exitState = { exit, reason };
        ev.emit('exit', exit, reason);
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
    return this.lastOutputMs === null ? null : new Date(this.lastOutputMs);
  }

  get cols(): number {
    return this.emulator.term.cols;
  }

  get rows(): number {
    return this.emulator.term.rows;
  }

  get secretActive(): boolean {
    return this.control.secret.active;
  }

  get secretState(): SecretState {
    return this.control.secret.snapshot;
  }

  info(): SessionInfo {
    const f = this.frozen;
    return {
      id: this.id,
      live: true,
      pid: this.pid,
      command: this.spec.command,
      cwd: this.spec.cwd,
      cols: this.cols,
      rows: this.rows,
      term: this.spec.term,
      title: f ? f.title : this.emulator.title,
      labels: this.spec.labels,
      created_at: this.createdAt.toISOString(),
      exited: this.exited,
      exit_code: this.exitState?.exit.exitCode ?? null,
      exit_signal: this.exitState?.exit.signal ?? null,
      exit_reason: this.exitState?.reason ?? null,
      seq: f ? f.seq : this.seqBytes,
      clients: this.audience.counts,
      last_output_at: (f ? f.lastOutput : this.lastOutputAt)?.toISOString() ?? null,
      input_policy: this.control.options.inputPolicy,
      secret_input: this.secretActive,
      last_input_by: f ? f.lastInputBy : this.control.lastInputBy,
      created_by: this.createdBy ?? null,
      transcript: this.spec.transcript,
    };
  }

  /** Whether anything derived from output may be read now. */
  readable(): Result<void> {
    if (!this.secretActive) return ok(undefined);
    const s = this.secretState;
    return fail(
      new TermError('secret_input_active', `a person is typing a secret (window opened by ${s.started_by?.name}: ${s.reason}); the screen is hidden until they end it`, { secret_input: s }, true),
    );
  }

  /** The screen with everything received so far parsed. Callers check `readable()` first. */
  async screen(withRaw = false, withHighlights = false): Promise<Screen> {
    await this.emulator.whenParsed();
    return this.screenNow(withRaw, withHighlights);
  }

  /**
   * The screen as parsed right now, remembered as served at its seq; callers that need every received byte reflected
   * use `screen()`.
   */
  screenNow(withRaw = false, withHighlights = false): Screen {
    const screen = this.peekScreen(withRaw, withHighlights);
    this.history.remember(screen);
    return screen;
  }

  /** The screen as parsed right now, not remembered: for looking without serving. */
  peekScreen(withRaw = false, withHighlights = false): Screen {
    if (this.secretActive) throw new TermError('secret_input_active', 'the screen is hidden while a secret-input window is open');
    const e = this.exitState?.exit;
    return snapshotScreen(
      this.emulator,
      {
        seq: this.parsedSeq,
        exited: this.exited,
        exit_code: e?.exitCode ?? null,
        exit_signal: e?.signal ?? null,
        exit_reason: this.exitState?.reason ?? null,
        last_output_at: this.lastOutputAt?.toISOString() ?? null,
      },
      withRaw,
      withHighlights,
    );
  }

  async scrollback(lines: number): Promise<{ lines: string[]; total: number }> {
    await this.emulator.whenParsed();
    if (this.secretActive) throw new TermError('secret_input_active', 'the scrollback is hidden while a secret-input window is open');
    return scrollbackLines(this.emulator, lines);
  }

  /** Input from an actor: policy first (role, secret window, leases), then one contiguous write, or nothing. */
  input(actor: Actor, bytes: Buffer, opts: { leaseId?: string; source?: InputSource } = {}): Result<number> {
    const source = opts.source ?? 'api';
    const result = this.tryInput(actor, bytes, opts.leaseId);
    if (result.ok) {
      this.control.accepted(actor);
      this.events.emit('inputAccepted', actor, source);
    } else this.events.emit('inputRejected', actor, source, result.error.code);
    return result;
  }

  /**
   * Text, key names, pastes and raw bytes, encoded for the application's current modes and written as one
   * contiguous write; the whole batch is refused if any item is invalid. Returns the number of items written.
   */
  send(actor: Actor, items: readonly InputItem[], opts: { leaseId?: string; source?: InputSource } = {}): Result<number> {
    const modes = this.emulator.modes;
    const bytes = encodeInput(items, { appCursorKeys: modes.app_cursor_keys, bracketedPaste: modes.bracketed_paste });
    if (!bytes.ok) return bytes;
    const written = this.input(actor, bytes.value, opts);
    return written.ok ? ok(items.length) : written;
  }

  /** Wait for text, a regex, quiet, a stable screen or exit; see waitFor. */
  async wait(cond: WaitCondition, signal?: AbortSignal): Promise<Result<WaitOutcome>> {
    const regex = cond.regex === undefined ? undefined : compileWaitRegex(cond.regex);
    if (regex && !regex.ok) return regex;
    return waitFor(this, cond, regex?.value, signal);
  }

  /** What changed since the screen served at `sinceSeq`, optionally waiting for a change; see changesSince. */
  changesSince(sinceSeq: number, opts: ChangesOptions = {}): ReturnType<typeof changesSince> {
    return changesSince(this, sinceSeq, opts);
  }

  private tryInput(actor: Actor, bytes: Buffer, leaseId?: string): Result<number> {
    if (this.exitState || this.pty.exited) {
      return fail(new TermError('session_exited', `session "${this.id}" has exited; it no longer takes input`));
    }
    const allowed = this.control.authorize(actor, leaseId);
    if (!allowed.ok) return allowed;
    if (!this.pty.write(bytes)) {
      return fail(
        new TermError(
          'input_queue_full',
          `session "${this.id}" is not reading its input: ${this.pty.queuedInputBytes} bytes are already queued (limit ${Limits.inputQueueBytes})`,
          { queued_bytes: this.pty.queuedInputBytes },
          true,
        ),
      );
    }
    return ok(bytes.length);
  }

  mouse(actor: Actor, ev: MouseEvent, leaseId?: string): Result<number> {
    const m = this.emulator.modes;
    const encoding = m.mouse_encoding === 'sgr_pixels' ? 'sgr' : m.mouse_encoding;
    const encoded = encodeMouse(ev, { tracking: m.mouse, encoding }, { cols: this.cols, rows: this.rows });
    if (!encoded.ok) return fail(new TermError(encoded.code, encoded.error, { modes: m }));
    // Checked after the event itself, so a malformed event is reported as malformed whatever the modes.
    if (m.mouse_encoding === 'sgr_pixels') {
      return fail(new TermError('mouse_mode_mismatch', 'the application asked for pixel mouse positions (?1016); termhost sends cell positions only', { modes: m }));
    }
    return this.input(actor, encoded.bytes, { leaseId, source: 'mouse' });
  }

  /** Open a secret-input window; any actor may. Returns false if one was already open. */
  startSecret(actor: Actor, reason: string): boolean {
    if (!this.control.secret.start(actor, reason)) return false;
    this.frozen = { seq: this.seqBytes, lastOutput: this.lastOutputAt, title: this.emulator.title, lastInputBy: this.control.lastInputBy };
    this.events.emit('secretStarted', actor, reason);
    return true;
  }

  /** Close the window: people only, and only once output has settled. Clients then repaint from the emulator. */
  endSecret(actor: Actor): Result<void> {
    const wasActive = this.secretActive;
    const lastActivity = Math.max(this.lastOutputMs ?? -Infinity, this.control.lastInputAt ?? -Infinity);
    const ended = this.control.secret.end(actor, Number.isFinite(lastActivity) ? lastActivity : null);
    if (!ended.ok || !wasActive) return ended;
    this.frozen = undefined;
    this.freshOutput = false;
    // Bytes from inside the window never entered the ring, so no resume may span it.
    this.ring.resetAt(this.seqBytes);
    this.events.emit('secretEnded', actor);
    this.events.emit('parsed', this.parsedSeq);
    return ended;
  }

  private detectSecretPrompt(): void {
    if (!this.control.options.secretDetect || !this.freshOutput || this.exitState) return;
    const line = this.emulator.textLeftOfCursor();
    if (looksLikeSecretPrompt(line)) this.startSecret(SYSTEM_ACTOR, `password prompt detected: "${line.trim().slice(-80)}"`);
  }

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.emulator.resize(cols, rows);
    this.history.clear();
    this.pty.resize(cols, rows);
    this.events.emit('resized', cols, rows);
  }

  /** Signal the terminal's foreground process group (the PTY layer decides which); says which group got it. */
  signal(sig: Signal): Signalled | null {
    this.signalsSent.add(`SIG${sig}`);
    return this.pty.signal(sig);
  }

  attachClient(role: ClientRole, actor: Actor): AttachedClient {
    return this.audience.attach(role, actor);
  }

  get attachedClients(): { viewers: number; drivers: number } {
    return this.audience.counts;
  }

  publishBanner(message: string): void {
    this.audience.publish(message);
  }

  get retainedBanners(): readonly string[] {
    return this.audience.retainedBanners;
  }

  /**
   * End every process of the session (the PTY layer's rule), escalating to SIGKILL after the grace period; resolve
   * once the exit is reported and nothing of the session is left. After the program's own exit, what it left behind
   * still gets the same treatment.
   */
  async kill(sig: Signal): Promise<void> {
    if (this.exitState) return void (await this.pty.kill(sig));
    this.closing = true;
    this.signalsSent.add(`SIG${sig}`).add('SIGKILL');
    const exited = new Promise<void>((resolve) => {
      const off = this.events.on('exit', () => (off(), resolve()));
    });
    await Promise.all([exited, this.pty.kill(sig)]);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.events.emit('disposed');
    this.audience.detachAll();
    this.control.dispose();
    this.pty.dispose();
    this.emulator.dispose();
    this.ring.clear();
    this.events.clear();
  }
}
