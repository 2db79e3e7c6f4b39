/**
 * Small numeric helpers shared by the benchmarks: percentiles over samples and a high-resolution clock.
 * Percentiles use the nearest-rank method, so every reported figure is a value that was actually measured.
 */

/** Nanosecond clock as a number of milliseconds; monotonic, unaffected by wall-clock changes. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The p-th percentile (0..100) by nearest rank. Throws on an empty sample set: a benchmark that measured nothing is a bug. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('percentile of an empty sample set');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) throw new Error('mean of an empty sample set');
  return samples.reduce((a, b) => a + b, 0) / samples.length;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Round for display and JSON: enough digits to compare runs, not so many that noise looks like signal. */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
