/**
 * Fan-out: one session printing as fast as it can while 0, 1, 10 or 100 viewers watch it live over the attach
 * WebSocket. termhost only; tmux has no equivalent of a network viewer to compare against.
 *
 * The session runs `sh -c 'stty -echo; printf ready; read _; exec cat FILE'` with the plain 16 MiB stream at 200x50.
 * It waits at `read` until the viewers are attached (the viewers must be there before the first byte, or they would
 * join with a repaint instead of receiving the stream), then Enter releases `cat`. Echo is off, so the PTY delivers
 * exactly the file plus one CR per LF after the marker.
 *
 * - producer: the clock runs from just before the Enter request until `wait {exit: true}` returns, i.e. until the
 *   daemon has read and parsed every byte, as in throughput.ts (which also charges the session create);
 * - viewers: a child process (fanoutViewers.mjs) holding N AttachClients, bearer-authenticated, stream view. Each
 *   viewer's delivered throughput is its stdout bytes over the time from the Enter to its last stdout byte. A viewer
 *   is complete when its stdout frames are contiguous, add up to the session's final seq minus its hello seq, and the
 *   exit frame came; one that fell more than 4 MiB behind is closed by the daemon with 4008 and counted as dropped.
 *
 * The producer's time ends with the exit report, which lags the last byte by about 225 ms (node-pty's 200 ms socket
 * timer plus termhost's 25 ms settle; see throughput.ts), so the rate up to the last byte parsed is reported too.
 *
 * After every run the daemon's transcript writer is given time to put the run's output on disk (untimed), so its
 * leftover work does not slow the next run.
 *
 * Runs cycle through the viewer counts (0, 1, 10, 100, 0, 1, ...) so drift on the shared machine falls on all alike.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BenchDaemon } from './termhost.js';
import { waitExit } from './termhost.js';
import { LoadSampler, machineBusyShare, machineTicks, median, nowMs, type Load } from './stats.js';
import { FRAME_COLS, FRAME_ROWS, type Workload } from './workloads.js';

export const FANOUT_VIEWERS = [0, 1, 10, 100] as const;
/** Timed runs per viewer count; the producer figure is the median run. */
export const FANOUT_RUNS = 3;
/** The attach close code for a client that fell too far behind (docs/protocol.md). */
const CLOSE_SLOW_CONSUMER = 4008;
const MARKER = 'ready';
/** A run of 16 MiB to 100 viewers takes seconds; anything past this is a hang. */
const RUN_DEADLINE_MS = 180_000;
/** The daemon's load is sampled this often, so the load up to the last byte is known to within this. */
const LOAD_SAMPLE_MS = 10;
const VIEWERS_SCRIPT = fileURLToPath(new URL('./fanoutViewers.mjs', import.meta.url));

interface ViewerReport {
  helloSeq: number;
  bytes: number;
  frames: number;
  contiguous: boolean;
  firstAtMs: number;
  lastAtMs: number;
  exit: boolean;
  closeCode: number;
}

export interface FanoutResult {
  viewers: number;
  bytes: number;
  producerMs: number[];
  /** File MB/s of the median run (10^6 bytes per second). */
  producerMBps: number;
  /** producerMBps / the 0-viewer producerMBps. */
  relativeToNone: number;
  /** Median MB/s from the Enter to the last byte parsed (no exit report), and relative to 0 viewers. */
  producerStreamMBps: number;
  streamRelativeToNone: number;
  /** The daemon's load (stats.ts) in the median run, over the whole run and up to the last byte parsed. */
  daemonLoad: Load;
  daemonStreamLoad: Load;
  /** The viewer process's CPU from "ready" to "done" over the producer's wall time, median run. */
  viewerCpuShare: number;
  /**
   * Delivered MB/s per viewer, pooled over all runs: stdout bytes, i.e. the PTY stream, which is the file plus one CR
   * per LF (0.7% more than the file bytes the producer figure counts).
   */
  viewerMBps: { min: number; median: number; max: number } | null;
  /** Share of both cores busy (whole machine, kernel included) during the median run; 1 = both cores. */
  machineBusy: number;
  /** Viewers over all runs that got every byte, contiguous, and the exit frame. */
  complete: number;
  /** Viewers over all runs closed with 4008. */
  dropped: number;
  total: number;
}

/** One JSON line at a time from the viewer process; rejects if it exits first or takes past the run deadline. */
function lines(child: ChildProcess): () => Promise<{ kind: string }> {
  const queue: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  readline.createInterface({ input: child.stdout! }).on('line', (l) => (waiting ? (waiting(l), (waiting = undefined)) : queue.push(l)));
  child.on('exit', () => {
    ended = true;
    waiting?.(undefined);
  });
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const line =
      queue.shift() ??
      (ended
        ? undefined
        : await new Promise<string | undefined>((resolve, reject) => {
            waiting = resolve;
            timer = setTimeout(() => reject(new Error('viewer process: no reply before the run deadline')), RUN_DEADLINE_MS);
          }).finally(() => clearTimeout(timer)));
    if (line === undefined) throw new Error(`viewer process exited (${child.exitCode}) before replying`);
    return JSON.parse(line) as { kind: string };
  };
}

async function run(th: BenchDaemon, w: Workload, viewers: number) {
  const info = await th.client.createSession({
    command: ['sh', '-c', `stty -echo; printf ${MARKER}; read _; exec cat '${w.file}'`],
    cols: FRAME_COLS,
    rows: FRAME_ROWS,
  });
  let child: ChildProcess | undefined;
  try {
    // The marker comes after stty, so echo is off before the Enter is sent.
    const ready = await th.client.wait(info.id, { text: MARKER, timeout_ms: 10_000 });
    const startSeq = ready.screen.seq;
    let next: ReturnType<typeof lines> | undefined;
    if (viewers > 0) {
      const args = JSON.stringify({ address: th.daemon.address, token: th.client.token, session: info.id, viewers });
      const c = spawn(process.execPath, [VIEWERS_SCRIPT, args], { stdio: ['ignore', 'pipe', 'inherit'] });
      child = c;
      next = lines(c);
      if ((await next()).kind !== 'ready') throw new Error('viewer process: expected "ready"');
    }
    const m0 = machineTicks();
    const sampler = new LoadSampler(LOAD_SAMPLE_MS);
    const t0 = nowMs();
    let lastParsedAt = t0;
    const off = th.session(info.id).events.on('parsed', () => {
      lastParsedAt = nowMs();
      sampler.active();
    });
    await th.client.input(info.id, [{ text: '\r' }]);
    const screen = await waitExit(th.client, info.id, Date.now() + RUN_DEADLINE_MS);
    const ms = nowMs() - t0;
    off();
    const load = sampler.stop();
    const machineBusy = machineBusyShare(m0, machineTicks());
    const expected = startSeq + w.bytes + w.newlines;
    if (screen.seq !== expected) throw new Error(`fan-out ${viewers}: screen.seq ${screen.seq}, expected ${expected}`);
    let reports: ViewerReport[] = [];
    let viewerCpuMs = 0;
    if (next) {
      const done = (await next()) as unknown as { kind: string; cpuMs: number; viewers: ViewerReport[] };
      if (done.kind !== 'done') throw new Error('viewer process: expected "done"');
      reports = done.viewers;
      viewerCpuMs = done.cpuMs;
    }
    await th.settle();
    return { ms, streamMs: lastParsedAt - t0, t0, finalSeq: screen.seq, load, viewerCpuMs, machineBusy, reports };
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await th.client.deleteSession(info.id);
  }
}

export async function measureFanout(th: BenchDaemon, plain: Workload, log: (msg: string) => void): Promise<FanoutResult[]> {
  const acc = FANOUT_VIEWERS.map((viewers) => ({
    viewers,
    runs: [] as Array<{ ms: number; streamMs: number; load: { whole: Load; active: Load }; viewerCpuMs: number; machineBusy: number }>,
    viewerMBps: [] as number[],
    complete: 0,
    dropped: 0,
    total: 0,
  }));
  // Untimed: warms the attach send path (frame encoding, ws) the way throughput.ts's warm-up warms the parser.
  await run(th, plain, 1);
  for (let r = 0; r < FANOUT_RUNS; r++) {
    for (const a of acc) {
      const x = await run(th, plain, a.viewers);
      a.runs.push({ ms: x.ms, streamMs: x.streamMs, load: x.load, viewerCpuMs: x.viewerCpuMs, machineBusy: x.machineBusy });
      const complete = (v: ViewerReport) => v.contiguous && v.exit && v.bytes === x.finalSeq - v.helloSeq;
      for (const v of x.reports) {
        a.total++;
        if (v.closeCode === CLOSE_SLOW_CONSUMER) a.dropped++;
        if (complete(v)) a.complete++;
        if (v.bytes > 0) a.viewerMBps.push(v.bytes / 1e6 / ((v.lastAtMs - x.t0) / 1000));
      }
      const got = x.reports.length ? `, viewers ${x.reports.filter(complete).length}/${x.reports.length} complete` : '';
      log(`fan-out ${a.viewers} viewers run ${r + 1}: producer ${x.ms.toFixed(0)} ms${got}`);
    }
  }
  const results = acc.map((a): FanoutResult => {
    const mid = [...a.runs].sort((p, q) => p.ms - q.ms)[Math.floor(a.runs.length / 2)]!;
    return {
      viewers: a.viewers,
      bytes: plain.bytes,
      producerMs: a.runs.map((r) => r.ms),
      producerMBps: plain.bytes / 1e6 / (median(a.runs.map((r) => r.ms)) / 1000),
      relativeToNone: 0,
      producerStreamMBps: plain.bytes / 1e6 / (median(a.runs.map((r) => r.streamMs)) / 1000),
      streamRelativeToNone: 0,
      daemonLoad: mid.load.whole,
      daemonStreamLoad: mid.load.active,
      viewerCpuShare: mid.viewerCpuMs / mid.ms,
      machineBusy: mid.machineBusy,
      viewerMBps: a.viewerMBps.length
        ? { min: Math.min(...a.viewerMBps), median: median(a.viewerMBps), max: Math.max(...a.viewerMBps) }
        : null,
      complete: a.complete,
      dropped: a.dropped,
      total: a.total,
    };
  });
  const none = results.find((r) => r.viewers === 0)!;
  for (const r of results) {
    r.relativeToNone = r.producerMBps / none.producerMBps;
    r.streamRelativeToNone = r.producerStreamMBps / none.producerStreamMBps;
  }
  return results;
}
