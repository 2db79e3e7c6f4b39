/**
 * At most one call per interval, and never a change left unreported: the first poke after a quiet period calls at
 * once, later pokes within the interval make one call at its end. A burst therefore costs two calls, and the last
 * state is always reported. The owner disposes of it (`cancel`) with whatever it reports about.
 */
export class Coalescer {
  private timer: NodeJS.Timeout | undefined;
  private lastAt = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly fire: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Something changed: report it now, or at the end of the current interval. */
  poke(): void {
    if (this.timer) return;
    const wait = this.intervalMs - (this.now() - this.lastAt);
    if (wait <= 0) this.run();
    else this.timer = setTimeout(() => this.run(), wait);
  }

  /** Report a pending change now (the last word before an end); nothing when none is pending. */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.run();
  }

  /** Drop a pending change unreported. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.timer = undefined;
    this.lastAt = this.now();
    this.fire();
  }
}
