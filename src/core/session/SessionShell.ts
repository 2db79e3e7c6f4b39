/**
 * The shell side of one session: its integration (active, off, unsupported), the tracker of its prompts and commands
 * when active, and whether its foreground program waits on the terminal for input.
 *
 * Everything the tracker learns comes from the output (its marks), so while a secret-input window is open it is held
 * back like the output itself: command events wait for the window to end, and readers see the shell as it was when
 * the window opened. Whether a program waits for input comes from the kernel, not the output; it is not published
 * during a window either, because its flips would give away the rhythm of the typing.
 */
import type { ShellState } from '../../protocol/http.js';
import type { Actor } from '../control/actor.js';
import type { Emulator } from '../emulator/Emulator.js';
import type { Emitter } from '../events/Emitter.js';
import type { ShellPlan, ShellIntegration } from '../shell/integration.js';
import { SECRET_PLACEHOLDER } from '../shell/OutputCapture.js';
import { ShellTracker, type CommandRecord, type InputNeeded } from '../shell/ShellTracker.js';
import type { SessionEvents } from './types.js';

/** Input that answers a line read: a line end, or an abort (Ctrl-C, Ctrl-D). Keystrokes before it answer nothing. */
function completesLine(bytes: Buffer): boolean {
  return bytes.includes(0x0d) || bytes.includes(0x0a) || bytes.includes(0x03) || bytes.includes(0x04);
}

export class SessionShell {
  readonly integration: ShellIntegration;
  readonly tracker: ShellTracker | undefined;
  /** The program is a shell (of any kind): without integration, a shell waiting at its prompt is not "input needed". */
  readonly isShell: boolean;
  private waiting: InputNeeded | null = null;
  private waitingSince = Date.now();
  /** The shell as readers saw it when a secret-input window opened, and the command events held back since. */
  private frozen: { state: ShellState; openedAt: number } | undefined;
  private held: Array<() => void> = [];

  constructor(
    emu: Emulator,
    plan: ShellPlan,
    private readonly events: Emitter<SessionEvents>,
    /** Bytes termhost itself writes to the PTY (clearing a line fish refused). */
    write: (bytes: Buffer) => void,
  ) {
    this.integration = plan.integration;
    this.isShell = plan.isShell;
    if (plan.integration !== 'active' || !plan.shell || !plan.nonce) return;
    this.tracker = new ShellTracker(emu, plan.nonce, plan.shell, {
      changed: () => events.emit('shellChanged'),
      started: (rec) => this.emitOrHold(() => events.emit('commandStarted', rec)),
      finished: (rec) => {
        // fish keeps a line it refused in its editor; termhost typed it, so termhost clears it (Ctrl-C at a prompt).
        if (rec.rejected && plan.shell === 'fish') write(Buffer.from([0x03]));
        this.emitOrHold(() => events.emit('commandFinished', rec));
      },
    });
  }

  get untrustedMarks(): number {
    return this.tracker?.untrustedMarks ?? 0;
  }

  /** What the foreground program waits for, if it waits on the terminal. */
  get inputNeeded(): InputNeeded | null {
    return this.waiting;
  }

  /** Epoch ms the window opened, while one is open. */
  get secretOpenedAt(): number | undefined {
    return this.frozen?.openedAt;
  }

  state(): ShellState {
    if (this.frozen) return { ...this.frozen.state, input_needed: this.waiting };
    const t = this.tracker;
    const rec = t?.running;
    const base = { cwd: t?.cwd ?? null, input_needed: this.waiting };
    if (this.waiting && (!t || rec)) {
      return { ...base, state: 'input_needed', command_id: rec?.id ?? null, command: rec?.command ?? null, since: new Date(this.waitingSince).toISOString() };
    }
    if (!t) return { ...base, state: 'unknown', command_id: null, command: null, since: null };
    return {
      ...base,
      state: t.state === 'input_needed' ? 'running' : t.state,
      command_id: rec?.id ?? null,
      command: rec?.command ?? null,
      since: new Date(rec ? rec.startedAt : t.since).toISOString(),
    };
  }

  /** The kernel's verdict (see InputProbe): what the program waits for, or null. */
  setInputNeeded(needed: InputNeeded | null): void {
    // The prompt is the cursor's line: inside a window that is the window's text (what a program printed, what a
    // person typed with echo on), so readers learn only that the program waits, and how.
    if (needed && this.frozen) needed = { ...needed, prompt: SECRET_PLACEHOLDER };
    const was = this.waiting;
    if ((was === null && needed === null) || (was && needed && was.kind === needed.kind)) return;
    this.waiting = needed;
    this.waitingSince = Date.now();
    this.tracker?.setInputNeeded(needed);
    this.events.emit('inputNeeded', this.tracker?.running, needed !== null);
    this.events.emit('shellChanged');
  }

  /** Input was accepted from `actor`: it may answer what the program waited for. */
  noteInput(actor: Actor, bytes: Buffer): void {
    this.tracker?.noteInput(actor);
    if (this.waiting && (this.waiting.kind === 'raw' || completesLine(bytes))) this.setInputNeeded(null);
  }

  secretOpened(): void {
    this.frozen = { state: this.state(), openedAt: Date.now() };
    this.tracker?.secretOpened();
  }

  /** The window closed: the tracker reads the output again; call `releaseHeld` once the end has been announced. */
  secretClosed(): void {
    this.frozen = undefined;
    this.tracker?.secretClosed();
  }

  /** The command events held back during the window, in order. */
  releaseHeld(): void {
    const held = this.held;
    this.held = [];
    for (const emit of held) emit();
    this.events.emit('shellChanged');
  }

  processExited(code: number | null): void {
    this.tracker?.processExited(code);
    this.setInputNeeded(null);
  }

  /** A record as readers may see it: a command that ended inside an open window still looks as it did before. */
  visibleEnd(rec: CommandRecord): boolean {
    if (rec.endedAt === null) return false;
    return this.frozen === undefined || rec.endedAt < this.frozen.openedAt;
  }

  dispose(): void {
    this.tracker?.dispose();
    this.held = [];
  }

  private emitOrHold(emit: () => void): void {
    if (this.frozen) this.held.push(emit);
    else emit();
  }
}
