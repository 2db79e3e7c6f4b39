/**
 * A bounded count of long-lived requests of one kind (attach sockets, event streams, pending waits): each holds
 * buffers, timers and listeners for as long as its client likes, so the daemon caps how many may be open at once.
 * `take` either returns the function that gives the slot back (safe to call more than once) or a retryable
 * `connection_limit` error naming the kind and the cap.
 */
import { TermError, fail, ok, type Result } from '../core/index.js';

export class Slots {
  private used = 0;

  constructor(
    readonly kind: 'attach_sockets' | 'event_streams' | 'waits',
    readonly max: number,
    private readonly what: string,
  ) {}

  get inUse(): number {
    return this.used;
  }

  take(): Result<() => void> {
    if (this.used >= this.max) {
      return fail(new TermError('connection_limit', `${this.max} ${this.what} are open, the daemon's limit; close one or try again later`, { limit: this.kind, max: this.max }, true));
    }
    this.used++;
    let given = false;
    return ok(() => {
      if (given) return;
      given = true;
      this.used--;
    });
  }
}
