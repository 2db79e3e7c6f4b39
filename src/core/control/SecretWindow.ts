/**
 * The secret-input window of one session: while it is open, a person types something that must not be seen, and
 * nothing derived from the session's output leaves the runtime (the session enforces that; this holds the state).
 *
 * Anyone may open it: raising the shield is always safe, and a prompt detector must be able to. Only a person may
 * close it, and only once the session has been quiet for the settle time, both ways: no output, and no input (a
 * keystroke just sent may still be echoed), so the echo of what was typed, still on its way through the PTY, is not
 * released. Until then closing fails with a retryable `secret_input_settling`.
 */
import { TermError, fail, ok, type Result } from '../errors.js';
import { actorRef, isHuman, type Actor } from './actor.js';

/** Output and input must have been silent this long before a window may close. */
export const SECRET_SETTLE_MS = 250;

export interface SecretState {
  active: boolean;
  since: string | null;
  reason: string | null;
  started_by: Actor | null;
  /** A person has typed into the window: until then it is waiting for one. */
  input_received: boolean;
}

const CLOSED: SecretState = { active: false, since: null, reason: null, started_by: null, input_received: false };

export class SecretWindow {
  private state: SecretState = { ...CLOSED };

  constructor(private readonly now: () => number = Date.now) {}

  get active(): boolean {
    return this.state.active;
  }

  get snapshot(): SecretState {
    return { ...this.state };
  }

  /** Returns false when a window was already open (starting again changes nothing). */
  start(actor: Actor, reason: string): boolean {
    if (this.state.active) return false;
    this.state = { active: true, since: new Date(this.now()).toISOString(), reason, started_by: actorRef(actor), input_received: false };
    return true;
  }

  /** A person's input was accepted while the window is open. */
  noteInput(): void {
    if (this.state.active) this.state.input_received = true;
  }

  /** Whether the prompt detector opened the window (the runtime itself), so it may also close it (InputWatch). */
  get openedByDetector(): boolean {
    return this.state.active && this.state.started_by?.kind === 'system';
  }

  /**
   * `lastActivityAt`: epoch ms of the session's last output byte or accepted input, whichever is later. People end
   * any window; the runtime itself (`system`) only one its detector opened, once that prompt is gone.
   */
  end(actor: Actor, lastActivityAt: number | null): Result<void> {
    if (!this.state.active) return ok(undefined);
    if (!isHuman(actor) && !(actor.kind === 'system' && this.openedByDetector)) {
      return fail(new TermError('forbidden', 'only a person may end a secret-input window; an agent that could end it could then read the screen'));
    }
    const quietFor = lastActivityAt === null ? Infinity : this.now() - lastActivityAt;
    if (quietFor < SECRET_SETTLE_MS) {
      return fail(
        new TermError('secret_input_settling', `the session had output or input ${Math.round(quietFor)} ms ago; retry once it has been quiet for ${SECRET_SETTLE_MS} ms`, { retry_after_ms: SECRET_SETTLE_MS - quietFor }, true),
      );
    }
    this.state = { ...CLOSED };
    return ok(undefined);
  }
}

/**
 * Lines that ask for something secret, matched against the cursor's row (text left of the cursor). Kept narrow:
 * a false positive hides the screen from agents until a person looks, a false negative shows a prompt they should
 * hand over anyway.
 */
const PROMPTS: RegExp[] = [
  /\[sudo\] password for [^:]{1,64}:\s*$/i,
  /\bpass(word|phrase)( for [^:]{1,200})?:\s*$/i,
  /\benter passphrase( for [^:]{1,200})?:\s*$/i,
  /\b(pin|passcode|otp|one-time (pass)?code)( for [^:]{1,100})?:\s*$/i,
  /\b(new|current|old|retype( new)?) password:\s*$/i,
];

/** Every prompt above ends in a colon and optional whitespace; most lines do not, and this rules them out at once. */
const ENDS_LIKE_A_PROMPT = /:\s*$/;

export function looksLikeSecretPrompt(cursorLine: string): boolean {
  const line = cursorLine.slice(-300);
  // This runs after every parsed chunk of output.
  if (!ENDS_LIKE_A_PROMPT.test(line)) return false;
  return PROMPTS.some((re) => re.test(line));
}
