/**
 * The last few screens a session served, by the seq they reflect, so a client can ask "what changed since the
 * screen you gave me at seq N". Bounded by count; a resize forgets everything (the same seq may now look different).
 */
import type { Screen } from '../../protocol/http.js';

/** Screens remembered per session. Enough for several agents polling the same session; older asks get a full screen. */
export const SCREEN_HISTORY_ENTRIES = 16;

export class ScreenHistory {
  private readonly bySeq = new Map<number, Screen>();

  constructor(private readonly max = SCREEN_HISTORY_ENTRIES) {}

  remember(screen: Screen): void {
    const { raw: _raw, ...kept } = screen; // highlights stay: they tell selection moves apart
    this.bySeq.delete(screen.seq);
    this.bySeq.set(screen.seq, kept);
    if (this.bySeq.size > this.max) this.bySeq.delete(this.bySeq.keys().next().value as number);
  }

  get(seq: number): Screen | undefined {
    return this.bySeq.get(seq);
  }

  clear(): void {
    this.bySeq.clear();
  }
}
