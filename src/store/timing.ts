/**
 * When each part of a stored row was printed. A row merges up to a few seconds of output; beside its text it keeps
 * the times of the output chunks in it, so a replay shows the output with the rhythm it had.
 *
 * A row's times are pairs (offset, ms): from `offset` (code points into the row's stored text) on, the text arrived
 * `ms` milliseconds after the row's `at`. Text before the first offset arrived at `at`. Offsets and times never
 * decrease. On disk they are delta-encoded, each number the difference from the previous pair, as a comma-separated
 * list: `12,400,3,400` is (12, 400) and (15, 800). A row whose text all arrived at once stores nothing (NULL).
 *
 * Code points, not UTF-16 units or bytes, so offsets mean the same in every language a client is written in.
 */

/** Output chunks closer together than this share one time: the resolution of stored times, and the bound on their error. */
export const TIME_RESOLUTION_MS = 10;

export type TimePair = [offset: number, ms: number];

export function encodeTimes(pairs: readonly TimePair[]): string | null {
  if (pairs.length === 0) return null;
  const out: number[] = [];
  let offset = 0;
  let ms = 0;
  for (const [o, t] of pairs) {
    out.push(o - offset, t - ms);
    offset = o;
    ms = t;
  }
  return out.join(',');
}

/** The pairs of a stored times column; NULL (a row from before times were kept, or one written at once) is none. */
export function decodeTimes(stored: string | null): TimePair[] {
  if (!stored) return [];
  const nums = stored.split(',').map(Number);
  const pairs: TimePair[] = [];
  let offset = 0;
  let ms = 0;
  for (let i = 0; i + 1 < nums.length; i += 2) {
    offset += nums[i]!;
    ms += nums[i + 1]!;
    pairs.push([offset, ms]);
  }
  return pairs;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** UTF-16 indices into `text` (ascending) -> code point offsets. */
export function toCodePoints(text: string, indices: readonly number[]): number[] {
  if (!SURROGATE.test(text)) return [...indices];
  const out: number[] = [];
  let cp = 0;
  let i = 0;
  for (const want of indices) {
    for (; i < want && i < text.length; i++) if (!isLowSurrogateAfterHigh(text, i)) cp++;
    out.push(cp);
  }
  return out;
}

/** Code point offsets into `text` (ascending) -> UTF-16 indices. */
export function toUtf16(text: string, offsets: readonly number[]): number[] {
  if (!SURROGATE.test(text)) return offsets.map((o) => Math.min(o, text.length));
  const out: number[] = [];
  let cp = 0;
  let i = 0;
  for (const want of offsets) {
    while (cp < want && i < text.length) {
      i += isHighSurrogateWithLow(text, i) ? 2 : 1;
      cp++;
    }
    out.push(i);
  }
  return out;
}

function isHighSurrogateWithLow(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  const d = text.charCodeAt(i + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff;
}

function isLowSurrogateAfterHigh(text: string, i: number): boolean {
  return i > 0 && isHighSurrogateWithLow(text, i - 1);
}
