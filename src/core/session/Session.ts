/**
 * One session: a PTY, its emulator, its output ring, its audience and its input policy. PTY bytes flow one way:
 * reader -> emulator -> (seq, ring, listeners). Input flows the other way, through the control policy (actor, lease,
 * secret window) and one bounded write queue. A dead process keeps its final screen until the session is disposed.
 *
 * While a secret-input window is open the emulator still consumes every byte, but nothing derived from the output
 * leaves: no output or parsed events, nothing in the ring, and session info frozen as it was when the window opened.
 */
import { Bounds } from '../../protocol/bounds.js';
import type { Screen, ScreenChanges, SessionInfo, Signalled } from '../../protocol/http.js';
import { SYSTEM_ACTOR, actorRef, type Actor } from '../control/actor.js';
import { LEASE_TTL_MAX_MS, LEASE_TTL_MIN_MS, type Lease, type LeaseMode } from '../control/LeaseTable.js';
import { requireRole, type ScopeTarget } from '../control/policy.js';
import { looksLikeSecretPrompt, type SecretState } from '../control/SecretWindow.js';
import { SessionControl, type ControlOptions } from '../control/SessionControl.js';
import { moderationNotice } from '../control/moderationNotice.js';
import type { ModerationAction, ModerationState } from '../../protocol/moderation.js';
import { Emulator } from '../emulator/Emulator.js';
import { TermError, fail, ok, type Result } from '../errors.js';
import { Emitter } from '../events/Emitter.js';
import { encodeInput, type InputItem } from '../input/batch.js';
import { encodeMouse, type MouseEvent } from '../input/mouse.js';
import { Limits } from '../limits.js';
import { SIGNALS, type PtyExit, type PtyProcess, type Signal } from '../pty/PtyProcess.js';
import { scrollbackLines, snapshotScreen } from '../snapshot/screen.js';
import { withStyledRows } from '../snapshot/styled.js';
import { cellGrid } from '../snapshot/cells.js';
import { PictureCache, layoutFor, type Picture, type PictureOptions, type PictureRenderer } from '../picture/index.js';
import { InputMarks, INPUT_MARKS_KEPT, type InputPoint } from './InputMarks.js';
import { validateSize } from './validateSpec.js';
import { Audience, type AttachedClient, type ClientRole } from './Audience.js';
import type { ExitReason, InputSource, ResolvedSpec, SessionEvents } from './types.js';
import { OutputRing } from './OutputRing.js';
import { SessionShell } from './SessionShell.js';
import { InputWatch } from './InputWatch.js';
import type { ShellPlan } from '../shell/integration.js';
import { ScreenHistory } from './ScreenHistory.js';
import { changesSince, type ChangesOptions } from './changes.js';
import { checkWaitCondition, compileWaitRegex, waitFor, type WaitCondition, type WaitOutcome } from './wait.js';
import { commandOutput, getCommand, listCommands, runCommand } from './commands.js';
import type { CommandOutputPage, CommandResult, CommandSummary, RunCommandRequest } from '../../protocol/http.js';

export type { AttachedClient, ClientRole, ExitReason, InputSource, ResolvedSpec, SessionEvents };

/** How a screen is asked for: text (default), raw (plus styled ANSI that repaints it), styled (plus styled spans). */
export interface ScreenOptions {
  format?: 'text' | 'raw' | 'styled';
  /** Add the runs drawn in inverse video. */
  highlights?: boolean;
}

/** An accepted input batch: items written, and the output offset at that moment (for `after_seq` waits). */
export interface SendOutcome {
  written: number;
  seq: number;
}

/** Scrollback lines a read returns when it does not say. */
export const DEFAULT_SCROLLBACK_READ_LINES = 100;

/** C0 controls but the line feed, DEL and C1 controls: what a banner may not hold. */
const BANNER_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

export class Session {
  readonly events = new Emitter<SessionEvents>();
  readonly emulator: Emulator;
  readonly ring = new OutputRing(Limits.replayRingBytes);
  readonly createdAt = new Date();
  readonly control: SessionControl;
  /** Screens served to clients, for "what changed since seq N". */
  readonly history = new ScreenHistory();
  /** Where recent input was typed, for waits that look only at what came after it. */
  private readonly inputMarks = new InputMarks();
  /** The shell's integration, prompts and commands, and whether its program waits for input. */
  readonly shell: SessionShell;
  /** When the terminal is looked at for a program waiting on it (after pauses, and when readers ask). */
  private readonly inputWatch: InputWatch;
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
  private frozen: { seq: number; lastOutput: Date | null; title: string; lastInputBy: Actor | null; untrustedMarks: number } | undefined;
  /** The prompt detector looks only at output that arrived since the last window closed. */
  private freshOutput = true;
  /** Recent pictures of the screen, per options, valid while the screen is unchanged. */
  private readonly pictures = new PictureCache<Picture>();
  /** Who started it (name and kind), for info and records. */
  readonly createdBy: Actor | undefined;
  /** What the scope rule (control/policy.ts `visible`) looks at: its id, labels and the credential that started it. */
  readonly scopeTarget: ScopeTarget;

  constructor(
    readonly id: string,
    readonly spec: ResolvedSpec,
    private readonly pty: PtyProcess,
    controlOptions: ControlOptions = { inputPolicy: 'auto', secretDetect: true },
    createdBy?: Actor,
    /** How the program was started: its shell integration, if any. */
    shellPlan?: ShellPlan,
    /** Draws pictures of the screen (the runtime's, shared by its sessions). */
    private readonly renderer?: PictureRenderer,
  ) {
    this.createdBy = createdBy && actorRef(createdBy);
    this.scopeTarget = { id, labels: spec.labels, owner: createdBy?.owner ?? null };
    const ev = this.events;
    this.control = new SessionControl(
      controlOptions,
      {
        acquired: (l) => ev.emit('leaseAcquired', l),
        released: (l, r) => ev.emit('leaseReleased', l, r),
        preempted: (l, by) => ev.emit('inputPreempted', l, by),
      },
      {
        sessionId: id,
        events: {
          changed: (change, actor, detail) => {
            ev.emit('moderation', change, actor, detail);
            this.audience.notify(moderationNotice(change, actor, detail, this.control.moderation.snapshot()));
          },
          expired: () => {
            // Nobody came: ended as by a request (reason closed), and recorded as the runtime's doing.
            this.control.moderation.announce('grace_expired', SYSTEM_ACTOR, {});
            ev.emit('audited', SYSTEM_ACTOR, 'session_ended', { signal: 'HUP', reason: 'no person attended within the grace period' });
            void this.kill('HUP');
          },
        },
      },
    );
    this.audience = new Audience({
      attached: (c) => {
        ev.emit('clientAttached', c);
        this.control.moderation.joined(c);
      },
      detached: (c) => {
        ev.emit('clientDetached', c);
        this.control.moderation.left(c);
      },
      banner: (m) => ev.emit('banner', m),
    });
    this.emulator = new Emulator({
      cols: spec.cols,
      rows: spec.rows,
      scrollback: spec.scrollback,
      onReply: (bytes) => this.pty.write(bytes),
      onTitle: (title) => !this.secretActive && ev.emit('title', title),
    });
    this.shell = new SessionShell(
      this.emulator,
      shellPlan ?? { integration: 'unsupported', shell: undefined, isShell: false, argv: spec.command, env: spec.env, nonce: undefined },
      ev,
      (bytes) => this.pty.write(bytes),
    );
    this.inputWatch = new InputWatch({
      evidence: () => this.pty.evidence(),
      lastActivityMs: () => Math.max(this.lastOutputMs ?? this.createdAt.getTime(), this.control.lastInputAt ?? 0),
      context: () => {
        const e = this.shell;
        return {
          commandRunning: e.tracker ? e.tracker.running?.started === true : undefined,
          isShell: e.isShell,
          leaderPid: this.pty.pid,
          cursorLine: this.emulator.textLeftOfCursor(),
        };
      },
      setInputNeeded: (needed) => this.shell.setInputNeeded(needed),
      inputNeeded: () => this.shell.inputNeeded,
      detects: this.control.options.secretDetect,
      window: () => (!this.secretActive ? 'none' : this.control.secret.openedByDetector ? 'auto' : 'manual'),
      openWindow: (reason) => this.startSecret(SYSTEM_ACTOR, reason),
      closeWindow: () => void this.endSecret(SYSTEM_ACTOR),
      unwrittenBytes: () => this.pty.queuedInputBytes,
      unparsedBytes: () => this.emulator.pendingBytes,
      exited: () => this.exitState !== undefined,
      shellReads: () => this.shell.tracker?.shellReads(),
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
      this.inputWatch.poke();
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
        // An ended session waits for nobody: its grace timer must not fire into the exited state.
        this.control.moderation.dispose();
        this.shell.processExited(exit.exitCode);
        this.inputWatch.poke();
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
    this.lookAtTerminal();
    const f = this.frozen;
    return {
      id: this.id,
      name: this.spec.name ?? null,
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
      shell_integration: this.shell.integration,
      shell: this.shell.state(),
      untrusted_marks: f ? f.untrustedMarks : this.shell.untrustedMarks,
      moderation: this.control.moderation.snapshot(),
    };
  }

  /**
   * A reader asks about the session: look at the terminal now (whether its program waits for input, whether a
   * detector's window may close), unless nothing happened since the last look.
   */
  lookAtTerminal(): void {
    this.inputWatch.refresh();
  }

  /** Whether anything derived from output may be read now: the one secret-window read rule. */
  readable(): Result<void> {
    if (!this.secretActive) return ok(undefined);
    const s = this.secretState;
    const who = s.input_received ? 'a person is typing a secret' : 'the session is waiting for a person to type a secret';
    return fail(
      new TermError('secret_input_active', `${who} (window opened by ${s.started_by?.name}: ${s.reason}); the screen is hidden until the window ends`, { secret_input: s }, true),
    );
  }

  /**
   * A look at the terminal, everything received so far parsed, and `readable()` both before and after: a window that
   * opened while the last bytes were being parsed hides them too. Every read of the screen (text or picture) goes through here.
   */
  private async parsedAndReadable(): Promise<Result<void>> {
    this.lookAtTerminal();
    const before = this.readable();
    if (!before.ok) return before;
    await this.emulator.whenParsed();
    return this.readable();
  }

  /**
   * The screen for an actor, with everything received so far parsed. Refused during a secret-input window, also
   * one that opened while the last bytes were being parsed.
   */
  async screen(actor: Actor, opts: ScreenOptions = {}): Promise<Result<Screen>> {
    void actor; // every role may read; the actor is here for the rule's sake and for scopes
    const readable = await this.parsedAndReadable();
    if (!readable.ok) return readable;
    const screen = this.screenNow(opts.format === 'raw', opts.highlights ?? false);
    return ok(opts.format === 'styled' ? withStyledRows(screen, this.emulator) : screen);
  }

  /**
   * The screen as a picture (PNG or SVG), for an actor: refused during a secret-input window exactly as `screen()`
   * is, also one that opened while the picture was being drawn. Drawn in the renderer's worker, and only when the
   * screen changed since the last picture with these options.
   */
  async picture(actor: Actor, opts: PictureOptions): Promise<Result<Picture>> {
    void actor; // every role may read, as with the text screen
    const readable = await this.parsedAndReadable();
    if (!readable.ok) return readable;
    const layout = layoutFor(this.cols, this.rows, opts);
    if (!layout.ok) return layout;
    const l = layout.value;
    const renderer = this.renderer;
    if (!renderer) return fail(new TermError('render_failed', 'this runtime draws no pictures'));
    const seq = this.parsedSeq;
    const version = this.emulator.generation;
    const key = `${opts.format} ${l.cellH} ${l.firstRow}-${l.lastRow} ${l.theme} ${l.cursor}`;
    const picture = await this.pictures.get(key, version, async () => {
      const drawn = await renderer.screen(cellGrid(this.emulator), l, opts.format);
      if (!drawn.ok) return drawn;
      const { width, height, cols, firstRow, lastRow, cellW: cellWidth, cellH: cellHeight } = l;
      return ok({ format: opts.format, bytes: drawn.value, width, height, seq, version, cols, firstRow, lastRow, cellWidth, cellHeight });
    });
    const still = this.readable();
    return still.ok ? picture : still;
  }
  /**
   * The screen as parsed right now, remembered as served at its seq; callers that need every received byte reflected
   * use `screen()`. Callers check `readable()` first.
   */
  screenNow(withRaw = false, withHighlights = false): Screen {
    const screen = this.peekScreen(withRaw, withHighlights);
    this.history.remember(screen);
    return screen;
  }

  /** The screen as parsed right now, not remembered: for looking without serving. Callers check `readable()` first. */
  peekScreen(withRaw = false, withHighlights = false): Screen {
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
        shell_integration: this.shell.integration,
        shell: this.shell.state(),
      },
      withRaw,
      withHighlights,
    );
  }

  /** The last `lines` lines that scrolled off the top, for an actor; hidden during a secret-input window. */
  async scrollback(actor: Actor, lines: number = DEFAULT_SCROLLBACK_READ_LINES): Promise<Result<{ lines: string[]; total: number }>> {
    void actor;
    if (!Number.isInteger(lines) || lines < 0 || lines > Bounds.scrollbackLinesMax) {
      return fail(new TermError('invalid_request', `lines must be an integer from 0 to ${Bounds.scrollbackLinesMax}`, { field: 'lines' }));
    }
    await this.emulator.whenParsed();
    const readable = this.readable();
    if (!readable.ok) return readable;
    return ok(scrollbackLines(this.emulator, lines));
  }

  /** Input from an actor: policy first (role, secret window, leases), then one contiguous write, or nothing. */
  input(actor: Actor, bytes: Buffer, opts: { leaseId?: string; source?: InputSource } = {}): Result<number> {
    const source = opts.source ?? 'api';
    const result = this.tryInput(actor, bytes, opts.leaseId);
    if (result.ok) {
      this.control.accepted(actor);
      this.inputWatch.poke();
      this.inputMarks.mark(this.seqBytes, this.emulator.markCursorLine(), this.emulator.cursorColumn, bytes.toString('utf8'));
      this.events.emit('inputAccepted', actor, source, bytes.length);
      // After the input is announced: what it answered (input_resumed) follows it.
      this.shell.noteInput(actor, bytes);
    } else this.events.emit('inputRejected', actor, source, result.error.code);
    return result;
  }

  /**
   * Text, key names, pastes and raw bytes, encoded for the application's current modes and written as one
   * contiguous write; the whole batch is refused if any item is invalid. Answers how many items were written and
   * the output offset at that moment: a wait with `after_seq` set to it looks only at what comes afterwards.
   */
  send(actor: Actor, items: readonly InputItem[], opts: { leaseId?: string; source?: InputSource } = {}): Result<SendOutcome> {
    if (!Array.isArray(items) || items.length > Bounds.inputItemsMax) {
      return fail(new TermError('invalid_request', `input must be an array of at most ${Bounds.inputItemsMax} items`, { field: 'input' }));
    }
    const modes = this.emulator.modes;
    const bytes = encodeInput(items, { appCursorKeys: modes.app_cursor_keys, bracketedPaste: modes.bracketed_paste });
    if (!bytes.ok) return bytes;
    const written = this.input(actor, bytes.value, opts);
    return written.ok ? ok({ written: items.length, seq: this.seqBytes }) : written;
  }

  /** Wait for text, a regex, quiet, a stable screen, a prompt or exit; see waitFor. Bounds are checked here. */
  async wait(actor: Actor, cond: WaitCondition, signal?: AbortSignal): Promise<Result<WaitOutcome>> {
    void actor;
    this.lookAtTerminal();
    const checked = checkWaitCondition(cond);
    if (!checked.ok) return checked;
    if (cond.prompt && !this.shell.tracker) {
      return fail(
        new TermError('no_shell_integration', `session "${this.id}" cannot report its prompt: its shell has no integration (${this.shell.integration})`, {
          field: 'prompt',
          hint: 'wait with a regex for the prompt instead, such as "[$#] ?$"',
        }),
      );
    }
    const regex = cond.regex === undefined ? undefined : compileWaitRegex(cond.regex);
    if (regex && !regex.ok) return regex;
    let afterRow: (() => InputPoint) | undefined;
    if (cond.after_seq !== undefined || cond.after_input) {
      const at = cond.after_input ? this.inputMarks.last : this.inputMarks.rowAt(cond.after_seq!);
      if (at === undefined) {
        return fail(
          new TermError(
            'invalid_request',
            cond.after_input
              ? 'after_input: nothing was typed into this session yet'
              : `after_seq ${cond.after_seq} is not the seq of a recent input; use the seq an input answer returned (the last ${INPUT_MARKS_KEPT} are remembered)`,
            { field: cond.after_input ? 'after_input' : 'after_seq' },
          ),
        );
      }
      const seq = at.seq;
      afterRow = () => this.inputMarks.rowAt(seq) ?? { seq, row: -1, col: 0, typed: '' };
    }
    return waitFor(this, cond, regex?.value, signal, afterRow);
  }

  /**
   * Type a command at the shell's prompt for an actor that may drive the session, and answer when it ends, needs
   * input, or `timeout_ms` passes (it keeps running then); see commands.ts.
   */
  run(actor: Actor, req: RunCommandRequest, signal?: AbortSignal): Promise<Result<CommandResult>> {
    const allowed = requireRole(actor, 'agent', 'running a command');
    if (!allowed.ok) return Promise.resolve(allowed);
    return runCommand(this, actor, req, signal);
  }

  /** A command by id, for an actor; with `waitMs`, a long poll until it ends or needs input. */
  command(actor: Actor, id: string, opts: { waitMs?: number; maxOutputBytes?: number } = {}, signal?: AbortSignal): Promise<Result<CommandResult>> {
    void actor; // every role may read what ran; the output is the same text the screen showed
    return getCommand(this, id, opts, signal);
  }

  /** The last commands the shell ran, typed by anyone, oldest first. */
  commands(actor: Actor): Result<CommandSummary[]> {
    void actor;
    return listCommands(this);
  }

  /** A page of a command's whole output, by byte offset. */
  commandOutput(actor: Actor, id: string, offset?: number, limit?: number): Result<CommandOutputPage> {
    void actor;
    return commandOutput(this, id, offset, limit);
  }

  /** What changed since the screen served at `sinceSeq`, optionally waiting for a change; see changesSince. */
  async changes(actor: Actor, sinceSeq: number, opts: ChangesOptions = {}): Promise<Result<ScreenChanges>> {
    void actor;
    if (!Number.isInteger(sinceSeq) || sinceSeq < 0) return fail(new TermError('invalid_request', 'since_seq must be a non-negative integer', { field: 'since_seq' }));
    if (opts.waitMs !== undefined && (!Number.isInteger(opts.waitMs) || opts.waitMs < 0 || opts.waitMs > Bounds.waitMsMax)) {
      return fail(new TermError('invalid_request', `wait_ms must be an integer from 0 to ${Bounds.waitMsMax}`, { field: 'wait_ms' }));
    }
    return changesSince(this, sinceSeq, opts);
  }

  /** Resize the terminal for an actor that may drive it; the application gets SIGWINCH. */
  resize(actor: Actor, cols: number, rows: number): Result<void> {
    const allowed = requireRole(actor, 'agent', 'resizing a session');
    if (!allowed.ok) return allowed;
    const size = validateSize(cols, rows);
    if (!size.ok) return size;
    if (size.value.cols !== this.cols || size.value.rows !== this.rows) this.events.emit('audited', actor, 'resized', { cols: size.value.cols, rows: size.value.rows });
    this.resizeNow(size.value.cols, size.value.rows);
    return ok(undefined);
  }

  /**
   * Send a signal for an actor, to the terminal's foreground process group as Ctrl-C does (the PTY layer decides
   * which); answers which group got it. There must still be a process to receive it.
   */
  signal(actor: Actor, sig: Signal): Result<Signalled | null> {
    const allowed = requireRole(actor, 'agent', 'signalling a session');
    if (!allowed.ok) return fail(allowed.error);
    if (!SIGNALS.includes(sig)) return fail(new TermError('invalid_request', `signal must be one of ${SIGNALS.join(', ')}`, { field: 'signal' }));
    if (this.exited) return fail(new TermError('session_exited', `session "${this.id}" has exited; there is no process to signal`));
    this.signalsSent.add(`SIG${sig}`);
    this.events.emit('audited', actor, 'signalled', { signal: sig });
    return ok(this.pty.signal(sig));
  }

  /** Take (or, with `leaseId`, renew) an input lease. */
  acquireLease(actor: Actor, mode: LeaseMode, ttlMs: number, leaseId?: string): Result<Lease> {
    const allowed = requireRole(actor, 'agent', 'taking an input lease');
    if (!allowed.ok) return fail(allowed.error);
    if (mode !== 'shared' && mode !== 'exclusive') return fail(new TermError('invalid_request', 'mode must be "shared" or "exclusive"', { field: 'mode' }));
    if (!Number.isInteger(ttlMs) || ttlMs < LEASE_TTL_MIN_MS || ttlMs > LEASE_TTL_MAX_MS) {
      return fail(new TermError('invalid_request', `ttl_ms must be an integer from ${LEASE_TTL_MIN_MS} to ${LEASE_TTL_MAX_MS}`, { field: 'ttl_ms' }));
    }
    return this.control.leases.acquire(actor, mode, ttlMs, leaseId);
  }

  releaseLease(actor: Actor, leaseId: string): Result<Lease> {
    const allowed = requireRole(actor, 'agent', 'releasing an input lease');
    if (!allowed.ok) return fail(allowed.error);
    return this.control.leases.release(actor, leaseId);
  }

  leases(): Lease[] {
    return this.control.leases.list();
  }

  /** Start (anyone: raising the shield is always safe) or end (people only, once quiet) a secret-input window. */
  secretAction(actor: Actor, action: 'start' | 'end', reason?: string): Result<SecretState> {
    if (action === 'start') {
      if (reason !== undefined && reason.length > Bounds.secretReasonCharsMax) {
        return fail(new TermError('invalid_request', `reason must be at most ${Bounds.secretReasonCharsMax} characters`, { field: 'reason' }));
      }
      this.startSecret(actor, reason ?? `started by ${actor.name}`);
      return ok(this.secretState);
    }
    if (action !== 'end') return fail(new TermError('invalid_request', 'action must be "start" or "end"', { field: 'action' }));
    const ended = this.endSecret(actor);
    return ended.ok ? ok(this.secretState) : ended;
  }

  /** Who must be present for agents to type, who is, and whether agent input is paused. */
  get moderation(): ModerationState {
    return this.control.moderation.snapshot();
  }

  /**
   * A moderator's action: pause or resume agent input, revoke an agent's lease, or end the session (reason closed).
   * People only (human or admin credentials), whether attached or not: the one rule for every edge.
   */
  async moderate(actor: Actor, action: ModerationAction, leaseId?: string): Promise<Result<ModerationState>> {
    const allowed = requireRole(actor, 'human', 'moderating a session');
    if (!allowed.ok) return allowed;
    const m = this.control.moderation;
    switch (action) {
      case 'pause':
        m.pause(actor);
        break;
      case 'resume':
        m.resume(actor);
        break;
      case 'revoke': {
        if (typeof leaseId !== 'string') return fail(new TermError('invalid_request', 'revoke needs the lease_id of the agent lease to end', { field: 'lease_id' }));
        const revoked = this.control.leases.revoke(leaseId);
        if (!revoked.ok) return revoked;
        m.announce('lease_revoked', actor, { lease_id: leaseId, agent: revoked.value.actor.name });
        break;
      }
      case 'end': {
        if (this.exited) return fail(new TermError('session_exited', `session "${this.id}" has already ended`));
        m.announce('ended', actor, {});
        this.events.emit('audited', actor, 'session_ended', { signal: 'HUP' });
        await this.kill('HUP');
        break;
      }
      default:
        return fail(new TermError('invalid_request', 'action must be one of pause, resume, revoke, end', { field: 'action' }));
    }
    return ok(m.snapshot());
  }

  /** A notice for the people watching, from an actor that may drive the session. */
  banner(actor: Actor, message: string): Result<void> {
    const allowed = requireRole(actor, 'agent', 'posting a banner');
    if (!allowed.ok) return allowed;
    if (typeof message !== 'string' || message.length < 1 || message.length > Bounds.bannerCharsMax) {
      return fail(new TermError('invalid_request', `message must be 1 to ${Bounds.bannerCharsMax} characters`, { field: 'message' }));
    }
    // A banner reaches people's own terminals (termhost attach prints it): an escape in it could set their clipboard
    // (OSC 52), retitle the window or draw a fake line. Plain text and line breaks only.
    if (BANNER_CONTROL.test(message)) {
      return fail(new TermError('invalid_request', 'message must be plain text: no control characters or escape sequences (line breaks are fine)', { field: 'message' }));
    }
    // Said with its author, so no banner can pass for termhost's own notices ("agent input paused by ...").
    this.audience.publish(`banner from ${actorRef(actor).name} (${actor.kind}): ${message}`);
    return ok(undefined);
  }

  private tryInput(actor: Actor, bytes: Buffer, leaseId?: string): Result<number> {
    if (this.exitState || this.pty.exited) {
      return fail(new TermError('session_exited', `session "${this.id}" has exited; it no longer takes input`));
    }
    const allowed = this.control.authorize(actor, leaseId, bytes);
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
    // The role first: a viewer learns nothing about the modes from a refusal.
    const allowed = requireRole(actor, 'agent', 'sending mouse events');
    if (!allowed.ok) return fail(allowed.error);
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
    this.frozen = {
      seq: this.seqBytes,
      lastOutput: this.lastOutputAt,
      title: this.emulator.title,
      lastInputBy: this.control.lastInputBy,
      untrustedMarks: this.shell.untrustedMarks,
    };
    this.shell.secretOpened();
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
    this.shell.secretClosed();
    this.events.emit('secretEnded', actor);
    this.shell.releaseHeld();
    this.events.emit('parsed', this.parsedSeq);
    return ended;
  }

  private detectSecretPrompt(): void {
    if (!this.control.options.secretDetect || !this.freshOutput || this.exitState) return;
    const line = this.emulator.textLeftOfCursor();
    if (looksLikeSecretPrompt(line)) this.startSecret(SYSTEM_ACTOR, `password prompt detected: "${line.trim().slice(-80)}"`);
  }

  /** Resize without a policy check: for the runtime's own use (an attach driver's size is checked by its frame). */
  private resizeNow(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.emulator.resize(cols, rows);
    this.history.clear();
    this.pty.resize(cols, rows);
    this.events.emit('resized', cols, rows);
  }

  attachClient(role: ClientRole, actor: Actor): AttachedClient {
    return this.audience.attach(role, actor);
  }

  get attachedClients(): { viewers: number; drivers: number } {
    return this.audience.counts;
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
    this.inputMarks.dispose();
    this.shell.dispose();
    this.inputWatch.dispose();
    this.pty.dispose();
    this.emulator.dispose();
    this.pictures.clear();
    this.ring.clear();
    this.events.clear();
  }
}
