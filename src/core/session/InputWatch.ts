/**
 * When a session's terminal is looked at: once output and input have paused for INPUT_PAUSE_MS, and when a reader
 * asks. Never per PTY read: output only arms one timer if none is armed, and a stream of output keeps pushing the
 * look back. Each look reads the kernel's evidence (terminalEvidence.ts) and acts on it:
 *
 * - whether the program waits for input, and of which kind (inputJudgement.ts);
 * - a line read with echo off opens a secret-input window (when the session detects prompts);
 * - a window the detector opened closes by itself once its prompt is gone, what was typed has been read, and the
 *   session has been quiet for the settle time both ways, as a person's `end` would require: nothing typed during
 *   the window is released, and the ring never resumes across it.
 */
import { SECRET_SETTLE_MS } from '../control/SecretWindow.js';
import type { TerminalEvidence } from '../pty/terminalEvidence.js';
import type { InputNeeded } from '../shell/ShellTracker.js';
import { judgeInputNeeded, secretPromptGone, type InputContext } from './inputJudgement.js';

/** How long output and input must pause before the terminal is looked at. */
export const INPUT_PAUSE_MS = 100;

/** How soon to look again when the program's last output is still on its way to the screen. */
const OUTPUT_SETTLE_MS = 10;

/** A reader's look is skipped when the last one is this recent and nothing happened since. */
const REFRESH_FRESH_MS = 20;

/**
 * A program newly found waiting is reported only when a second look this much later finds it waiting the same way,
 * with nothing read or written in between. What a program writes reaches the master's buffer through the kernel's
 * tty work queue, not at once: a program that prints and then reads (a shell drawing its next prompt, after its D
 * mark) can be caught reading while its last output is in no buffer a look can count. On a loaded machine that gap
 * is long enough to be seen: a finished `(exit 3)` in zsh was once reported as waiting for a key.
 */
export const INPUT_CONFIRM_MS = 30;

export interface InputWatchHost {
  evidence(): TerminalEvidence | undefined;
  /** Epoch ms of the last output byte or accepted input. */
  lastActivityMs(): number;
  context(): InputContext;
  setInputNeeded(needed: InputNeeded | null): void;
  /** What was last reported (input may have cleared it since). */
  inputNeeded(): InputNeeded | null;
  /** Whether the session opens windows by itself on password prompts. */
  readonly detects: boolean;
  /** 'none', a window the detector opened ('auto'), or one a person or agent opened ('manual'). */
  window(): 'none' | 'auto' | 'manual';
  openWindow(reason: string): void;
  /** Close the detector's window; it may still refuse (settling). */
  closeWindow(): void;
  /** Input termhost has accepted but not yet written to the PTY. */
  unwrittenBytes(): number;
  /** Output read from the PTY that the emulator has not parsed yet. */
  unparsedBytes(): number;
  exited(): boolean;
  /** The shell itself waits on the terminal, with nothing typed left unread or unwritten. */
  shellReads(): void;
}

export class InputWatch {
  private timer: NodeJS.Timeout | undefined;
  private lastLookAt = 0;
  private disposed = false;
  /** A wait seen once and not yet reported: its kind, and the session's last activity when it was seen. */
  private unconfirmed: { kind: InputNeeded['kind']; activity: number } | undefined;

  constructor(private readonly host: InputWatchHost) {}

  /** Output or input happened: look once things pause. */
  poke(): void {
    if (this.timer || this.disposed) return;
    this.arm(INPUT_PAUSE_MS);
  }

  /**
   * A reader asks: look now, if the session has paused (otherwise the pause's own look is on its way) and anything
   * happened since the last look. Right after input the kernel may not have acted on it yet (a Ctrl-C not yet
   * delivered, a line not yet read): a look then would report the wait the input just answered.
   */
  refresh(): void {
    if (this.disposed) return;
    const now = Date.now();
    const last = this.host.lastActivityMs();
    if (now - last < INPUT_PAUSE_MS) return;
    if (now - this.lastLookAt < REFRESH_FRESH_MS && last < this.lastLookAt) return;
    this.look();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.tick();
    }, ms);
    this.timer.unref();
  }

  private tick(): void {
    if (this.disposed) return;
    const quiet = Date.now() - this.host.lastActivityMs();
    if (quiet < INPUT_PAUSE_MS) return this.arm(INPUT_PAUSE_MS - quiet);
    this.look();
  }

  private look(): void {
    const host = this.host;
    this.lastLookAt = Date.now();
    const e = host.exited() ? undefined : host.evidence();
    if (e && (e.unreadOutput > 0 || host.unparsedBytes() > 0)) {
      // The program printed and then read (a prompt, then getpass): judge once its output is on the screen, so the
      // prompt is known and a prompt detector has seen it.
      if (!this.timer) this.arm(OUTPUT_SETTLE_MS);
      return;
    }
    const ctx = host.context();
    if (e && ctx.isShell && e.foreground === ctx.leaderPid && e.unreadInput === 0 && host.unwrittenBytes() === 0 && (e.wait === 'read' || e.wait === 'poll')) {
      host.shellReads();
    }
    const needed = e ? judgeInputNeeded(e, ctx) : null;
    if (needed && host.inputNeeded()?.kind !== needed.kind) {
      const activity = host.lastActivityMs();
      const seen = this.unconfirmed;
      if (!seen || seen.kind !== needed.kind || seen.activity !== activity) {
        this.unconfirmed = { kind: needed.kind, activity };
        if (this.timer) clearTimeout(this.timer);
        this.arm(INPUT_CONFIRM_MS);
        return;
      }
    }
    this.unconfirmed = undefined;
    if (needed?.kind === 'password' && host.detects && host.window() === 'none') {
      // Before the window opens, so readers of the window's frozen state learn what it waits for.
      host.setInputNeeded(needed);
      host.openWindow(`the terminal reads a line with echo off: ${JSON.stringify(needed.prompt.slice(-80))}`);
    } else host.setInputNeeded(needed);
    if (host.window() !== 'auto') return;
    if (!secretPromptGone(e, ctx.cursorLine, host.unwrittenBytes()) && !host.exited()) return;
    const quiet = Date.now() - host.lastActivityMs();
    if (quiet < SECRET_SETTLE_MS) {
      // Settle first, then look again: the prompt may come back (a retry) before the window may close.
      if (this.timer) clearTimeout(this.timer);
      this.arm(SECRET_SETTLE_MS - quiet);
      return;
    }
    host.closeWindow();
  }
}
