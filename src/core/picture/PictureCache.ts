/**
 * A session's recent pictures, one per set of options, each valid for one emulator generation (bumped by every parse
 * and resize): a second request for an unchanged screen is answered from here without drawing anything, and requests
 * that arrive while a picture is being drawn share that one drawing. Failures are not kept.
 */
import type { Result } from '../errors.js';

/** Option sets kept per session: a full-size picture, a wall tile, an agent's scaled copy, and a spare. */
export const PICTURES_PER_SESSION = 4;

export class PictureCache<T> {
  private readonly entries = new Map<string, { generation: number; value: Promise<Result<T>> }>();

  get(key: string, generation: number, make: () => Promise<Result<T>>): Promise<Result<T>> {
    const hit = this.entries.get(key);
    if (hit && hit.generation === generation) {
      // Most recently used last, so the oldest option set is the one dropped.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    this.entries.delete(key);
    if (this.entries.size >= PICTURES_PER_SESSION) this.entries.delete(this.entries.keys().next().value!);
    const value = make().then((r) => {
      if (!r.ok && this.entries.get(key)?.value === value) this.entries.delete(key);
      return r;
    });
    this.entries.set(key, { generation, value });
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
