/**
 * The policy on one session's input path: who may write now (leases, the secret-input window), and who wrote last.
 * The session calls `authorize` before any byte reaches its write queue; rejections are values with stable codes.
 */
import { TermError, fail, type Result } from '../errors.js';
import { isHuman, type Actor } from './actor.js';
import { LeaseTable, type InputPolicy, type LeaseEvents } from './LeaseTable.js';
import { Moderation, type ModerationEvents, type ModerationOptions } from './Moderation.js';
import { SecretWindow } from './SecretWindow.js';

/**
 * Input that aborts a prompt: Ctrl-C (interrupt) or Ctrl-D (end of input), alone. Aborting is the safe direction, so
 * an agent may send it during a secret-input window: otherwise a prompt nobody will answer strands the session.
 */
export const ABORT_BYTES: ReadonlySet<number> = new Set([0x03, 0x04]);

function isAbort(bytes: Buffer): boolean {
  return bytes.length === 1 && ABORT_BYTES.has(bytes[0]!);
}

export interface ControlOptions {
  inputPolicy: InputPolicy;
  /** Open a secret-input window by itself when the cursor line looks like a password prompt. */
  secretDetect: boolean;
  /** A person must be attached as driver for agents to type (see Moderation.ts); default not required. */
  moderation?: ModerationOptions;
}

export class SessionControl {
  readonly leases: LeaseTable;
  readonly secret: SecretWindow;
  readonly moderation: Moderation;
  lastInputBy: Actor | null = null;
  /** Epoch ms of the last accepted input. */
  lastInputAt: number | null = null;

  constructor(
    readonly options: ControlOptions,
    leaseEvents: LeaseEvents,
    moderation: { sessionId: string; events: ModerationEvents },
    private readonly now: () => number = Date.now,
  ) {
    this.leases = new LeaseTable(leaseEvents, now);
    this.secret = new SecretWindow(now);
    this.moderation = new Moderation(options.moderation ?? { required: false, graceMs: 0 }, moderation.sessionId, moderation.events, now);
  }

  /** `bytes` is the encoded input: during a secret-input window an agent may still abort the prompt. */
  authorize(actor: Actor, leaseId?: string, bytes?: Buffer): Result<void> {
    if (actor.kind === 'viewer') return fail(new TermError('forbidden', 'viewers cannot send input', { needed_role: 'agent' }));
    // Before the secret window's abort exception: a moderated session takes nothing from agents while nobody attends.
    const moderated = this.moderation.authorize(actor);
    if (!moderated.ok) return moderated;
    if (this.secret.active && !isHuman(actor) && !(bytes && isAbort(bytes))) {
      const waiting = !this.secret.snapshot.input_received;
      return fail(
        new TermError(
          'secret_input_active',
          `${waiting ? 'the session is waiting for a person to type a secret' : 'a person is typing a secret'}; only people may send input until the window ends, but an agent may abort the prompt with C-c or C-d, or a signal`,
          { refused: 'input', secret_input: this.secret.snapshot },
          true,
        ),
      );
    }
    return this.leases.authorizeInput(actor, this.options.inputPolicy, leaseId);
  }

  accepted(actor: Actor): void {
    this.lastInputBy = { name: actor.name, kind: actor.kind };
    this.lastInputAt = this.now();
    if (isHuman(actor)) this.secret.noteInput();
  }

  dispose(): void {
    this.moderation.dispose();
    this.leases.dispose();
  }
}

