/**
 * A bound on how often one kind of line is logged: a flood of bad requests or sockets must not flood the log too.
 * Past `perWindow` lines in a window the rest are counted, and the count rides on the next line that is logged.
 */
export class LogThrottle {
  private windowStart = 0;
  private logged = 0;
  private unlogged = 0;

  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** undefined: say nothing this time; otherwise log, adding how many lines were held back before this one. */
  take(): { not_logged_before?: number } | undefined {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.logged = 0;
    }
    if (this.logged >= this.perWindow) {
      this.unlogged++;
      return undefined;
    }
    this.logged++;
    const held = this.unlogged;
    this.unlogged = 0;
    return held > 0 ? { not_logged_before: held } : {};
  }
}
