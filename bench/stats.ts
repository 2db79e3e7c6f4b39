/**
 * Small numeric helpers shared by the benchmarks: percentiles over samples, a high-resolution clock, and CPU
 * counters from /proc (Linux, like the rest of the benchmark). Percentiles use the nearest-rank method, so every
 * reported figure is a value that was actually measured.
 */
import fs from 'node:fs';

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

/** Kernel clock ticks per second in /proc (USER_HZ); 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

/** CPU time in ms that process `pid` has used so far, all threads, user + system (10 ms resolution). */
export function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/** Busy and total CPU ticks of the whole machine, all cores (idle and iowait count as not busy). */
export function machineTicks(): { busy: number; total: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

/** Share of all cores that was busy between two machineTicks() readings, 0..1. */
export function machineBusyShare(a: { busy: number; total: number }, b: { busy: number; total: number }): number {
  return b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0;
}
