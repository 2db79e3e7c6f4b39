/**
 * Small numeric helpers shared by the benchmarks: percentiles over samples, a high-resolution clock, and CPU
 * counters from /proc (Linux, like the rest of the benchmark). Percentiles use the nearest-rank method, so every
 * reported figure is a value that was actually measured.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

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

/**
 * CPU time in ms that process `pid` has used so far, all threads, user + system (10 ms resolution); with `tid`, that
 * one thread's (the main thread's tid is the pid).
 */
export function processCpuMs(pid: number, tid?: number): number {
  const stat = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
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

export interface Load {
  /** Event-loop utilisation: the share of the time this process's JS thread was not waiting for I/O. */
  loopBusy: number;
  /** This process's CPU time, all threads (workers, GC, thread pool), over wall time; 1 = one core. */
  cpuShare: number;
  /**
   * The JS thread's own CPU time over wall time. Below loopBusy, the thread was runnable or in a blocking call but
   * not on a core: waiting for a CPU that other threads and processes held.
   */
  mainCpuShare: number;
}

/**
 * The load of this process over a run, twice: over the whole run, and up to the last moment the run was still doing
 * the work of interest (`active()` calls, e.g. per parsed chunk; that moment is known to within `intervalMs`). The
 * second leaves out a quiet tail, such as waiting for an exit to be reported, that would dilute the first.
 */
export class LoadSampler {
  private readonly t0 = nowMs();
  private readonly elu0 = performance.eventLoopUtilization();
  private readonly cpu0 = process.cpuUsage();
  private readonly mainCpu0 = processCpuMs(process.pid, process.pid);
  private lastActiveAt = -Infinity;
  private lastSampleAt = this.t0;
  private activeLoad: Load = { loopBusy: 0, cpuShare: 0, mainCpuShare: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.timer = setInterval(() => {
      if (this.lastActiveAt > this.lastSampleAt) this.activeLoad = this.read();
      this.lastSampleAt = nowMs();
    }, intervalMs);
  }

  active(): void {
    this.lastActiveAt = nowMs();
  }

  /** Stop sampling; the whole-run load ends now. */
  stop(): { whole: Load; active: Load } {
    clearInterval(this.timer);
    const whole = this.read();
    return { whole, active: this.lastActiveAt > this.lastSampleAt ? whole : this.activeLoad };
  }

  private read(): Load {
    const cpu = process.cpuUsage(this.cpu0);
    const ms = nowMs() - this.t0;
    return {
      loopBusy: performance.eventLoopUtilization(this.elu0).utilization,
      cpuShare: (cpu.user + cpu.system) / 1000 / ms,
      mainCpuShare: (processCpuMs(process.pid, process.pid) - this.mainCpu0) / ms,
    };
  }
}
