/**
 * The policy on one session's input path: who may write now (leases, the secret-input window), and who wrote last.
 * The session calls `authorize` before any byte reaches its write queue; rejections are values with stable codes.
 */
import { TermError, fail, type Result } from '../errors.js';
import { isHuman, type Actor } from './actor.js';
import { LeaseTable, type InputPolicy, type LeaseEvents } from './LeaseTable.js';
import { SecretWindow } from './SecretWindow.js';

export interface ControlOptions {
  inputPolicy: InputPolicy;
  /** Open a secret-input window by itself when the cursor line looks like a password prompt. */
  secretDetect: boolean;
}

export class SessionControl {
  readonly leases: LeaseTable;
  readonly secret: SecretWindow;
  lastInputBy: Actor | null = null;
  /** Epoch ms of the last accepted input. */
  lastInputAt: number | null = null;

  constructor(
    readonly options: ControlOptions,
    leaseEvents: LeaseEvents,
    private readonly now: () => number = Date.now,
  ) {
    this.leases = new LeaseTable(leaseEvents, now);
    this.secret = new SecretWindow(now);
  }

  authorize(actor: Actor, leaseId?: string): Result<void> {
    if (actor.kind === 'viewer') return fail(new TermError('forbidden', 'viewers cannot send input'));
    if (this.secret.active && !isHuman(actor)) {
      return fail(
        new TermError('secret_input_active', 'a person is typing a secret; only people may send input until they end the window', { refused: 'input' }, true),
      );
    }
    return this.leases.authorizeInput(actor, this.options.inputPolicy, leaseId);
  }

  accepted(actor: Actor): void {
    this.lastInputBy = { name: actor.name, kind: actor.kind };
    this.lastInputAt = this.now();
  }

  dispose(): void {
    this.leases.dispose();
  }
}

