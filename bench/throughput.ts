/**
 * Output throughput: how fast each host turns a program's output into an up-to-date screen. Both hosts run
 * `cat FILE` in a fresh 200x50 session; the clock runs from just before the create request until the host reports
 * the program finished with its output processed. Runs alternate between the hosts so drift (thermal, page cache,
 * other load) falls on both alike.
 *
 * A termhost run's time includes reporting the exit, which is not streaming: node-pty reports a child's exit only once
 * its read socket closes, and termhost holds the PTY slave open (so no output is lost at exit), so the socket closes on
 * node-pty's 200 ms fallback timer plus termhost's 25 ms settle. The run therefore also records when the last byte was
 * parsed, and the streaming rate up to that point is reported beside the end-to-end figure.
 *
 * The daemon also writes every session's output to its transcript, redacted, in a worker thread. That work may end
 * after the exit is reported; each termhost run waits for the transcript to be on disk (untimed, reported as the
 * transcript lag) before the next run, so leftover work never lands in a tmux run.
 *
 * Alongside the time, each run records where the time went, to tell "busy" from "waiting": termhost's event-loop
 * utilisation (the share of the run its one JS thread was not waiting in epoll), its process CPU (all threads: GC,
 * the thread pool), the mean size of a PTY read, the tmux server's CPU, and how busy the whole machine was.
 */
import type { BenchDaemon } from './termhost.js';
import { waitExit } from './termhost.js';
import type { TmuxServer } from './tmux.js';
import { LoadSampler, machineBusyShare, machineTicks, median, nowMs, processCpuMs, type Load } from './stats.js';
import { FRAME_COLS, FRAME_ROWS, type Workload } from './workloads.js';

/** Runs per host and stream; the median is reported, so one run disturbed by the machine does not decide. */
export const THROUGHPUT_RUNS = 5;
/**
 * Untimed runs per host and stream before the timed ones: V8 has to optimise xterm's parser for each kind of input,
 * and a native tmux has nothing comparable to warm up. The figures are steady-state throughput.
 */
export const THROUGHPUT_WARMUP_RUNS = 1;
/**
 * How often the termhost run samples the emulator's unparsed backlog (to see whether parsing keeps up) and its own
 * load (to know the load up to the last byte to within this).
 */
const SAMPLE_MS = 10;
/** A 16 MiB stream takes about a second; anything past this is a hang, not a slow run. */
const RUN_DEADLINE_MS = 120_000;

export interface ThroughputResult {
  workload: string;
  bytes: number;
  termhostMs: number[];
  tmuxMs: number[];
  /** Median MB/s (10^6 bytes per second of file content). */
  termhostMBps: number;
  tmuxMBps: number;
  /** termhost / tmux; above 1 means termhost is faster. */
  ratio: number;
  /** Largest backlog of bytes fed to xterm but not yet parsed, seen in any termhost run. */
  termhostMaxBacklogBytes: number;
  /** Every termhost run ended with screen.seq equal to the bytes the PTY delivered (file + one CR per LF). */
  termhostSeqChecked: boolean;
  /** Median MB/s from the create request to the last byte parsed, i.e. without the exit report. */
  termhostStreamMBps: number;
  /** Median ms from the last byte parsed to `wait {exit: true}` returning. */
  termhostExitLagMs: number;
  /** Median ms from the exit report until the transcript writer had the run's output on disk. */
  termhostTranscriptLagMs: number;
  /** Median over termhost runs of the daemon's load (see stats.ts) over the whole run, and up to the last byte parsed. */
  termhostLoad: Load;
  termhostStreamLoad: Load;
  /** Mean bytes per PTY read (per `output` event) over the termhost runs. */
  termhostMeanReadBytes: number;
  /** Median over tmux runs of the tmux server's CPU time over wall time. */
  tmuxCpuShare: number;
  /** Median share of both cores busy during the runs, per host (0..1; 0.5 = one core's worth). */
  termhostMachineBusy: number;
  tmuxMachineBusy: number;
}

interface RunStats {
  ms: number;
  cpuShare: number;
  machineBusy: number;
}

async function termhostRun(
  th: BenchDaemon,
  w: Workload,
): Promise<RunStats & { streamMs: number; transcriptLagMs: number; maxBacklog: number; load: { whole: Load; active: Load }; reads: number; readBytes: number }> {
  const m0 = machineTicks();
  const load = new LoadSampler(SAMPLE_MS);
  const t0 = nowMs();
  const info = await th.client.createSession({ command: ['cat', w.file], cols: FRAME_COLS, rows: FRAME_ROWS });
  const session = th.session(info.id);
  let maxBacklog = 0;
  const sampler = setInterval(() => {
    maxBacklog = Math.max(maxBacklog, session.emulator.pendingBytes);
  }, SAMPLE_MS);
  // Subscribed after the create returned, so the first read or two may be missed; only the mean size is used.
  let reads = 0;
  let readBytes = 0;
  let lastParsedAt = t0;
  const unsubscribe = [
    session.events.on('output', (chunk) => {
      reads++;
      readBytes += chunk.length;
    }),
    session.events.on('parsed', () => {
      lastParsedAt = nowMs();
      load.active();
    }),
  ];
  try {
    const screen = await waitExit(th.client, info.id, Date.now() + RUN_DEADLINE_MS);
    const ms = nowMs() - t0;
    const loads = load.stop();
    const machineBusy = machineBusyShare(m0, machineTicks());
    // The tty's onlcr output flag turns every LF that cat writes into CR LF before the host reads it.
    const expected = w.bytes + w.newlines;
    if (screen.seq !== expected) throw new Error(`termhost ${w.name}: screen.seq ${screen.seq}, expected ${expected}`);
    const transcriptLagMs = await th.settle();
    return {
      ms, streamMs: lastParsedAt - t0, transcriptLagMs, maxBacklog, load: loads, cpuShare: loads.whole.cpuShare, machineBusy,
      reads, readBytes,
    };
  } finally {
    for (const off of unsubscribe) off();
    load.stop();
    clearInterval(sampler);
    await th.client.deleteSession(info.id);
  }
}

/**
 * tmux reports the end through `wait-for`: the pane's command signals a channel after cat exits, and the client
 * waiting on it returns. tmux remembers a signal that arrives before anyone waits, so the order cannot race.
 */
async function tmuxRun(tmux: TmuxServer, w: Workload, n: number): Promise<RunStats> {
  const channel = `tp-done-${n}`;
  const m0 = machineTicks();
  const cpu0 = processCpuMs(tmux.pid);
  const t0 = nowMs();
  await tmux.run(
    'new-session', '-d', '-s', `tp${n}`, '-x', `${FRAME_COLS}`, '-y', `${FRAME_ROWS}`,
    `cat '${w.file}'; tmux -S '${tmux.socket}' wait-for -S ${channel}`,
  );
  await tmux.run('wait-for', channel);
  const ms = nowMs() - t0;
  return { ms, cpuShare: (processCpuMs(tmux.pid) - cpu0) / ms, machineBusy: machineBusyShare(m0, machineTicks()) };
}

export async function measureThroughput(
  th: BenchDaemon,
  tmux: TmuxServer,
  workloads: readonly Workload[],
  log: (msg: string) => void,
): Promise<ThroughputResult[]> {
  const results: ThroughputResult[] = workloads.map((w) => ({
    workload: w.name,
    bytes: w.bytes,
    termhostMs: [],
    tmuxMs: [],
    termhostMBps: 0,
    tmuxMBps: 0,
    ratio: 0,
    termhostMaxBacklogBytes: 0,
    termhostSeqChecked: true,
    termhostStreamMBps: 0,
    termhostExitLagMs: 0,
    termhostTranscriptLagMs: 0,
    termhostLoad: { loopBusy: 0, cpuShare: 0, mainCpuShare: 0 },
    termhostStreamLoad: { loopBusy: 0, cpuShare: 0, mainCpuShare: 0 },
    termhostMeanReadBytes: 0,
    tmuxCpuShare: 0,
    termhostMachineBusy: 0,
    tmuxMachineBusy: 0,
  }));
  const samples = workloads.map(() => ({ streamMs: [] as number[], exitLagMs: [] as number[], transcriptLagMs: [] as number[], loads: [] as Array<{ whole: Load; active: Load }>, tmuxCpu: [] as number[],
    machine: [] as number[], tmuxMachine: [] as number[], reads: 0, readBytes: 0 }));
  let n = 0;
  for (let run = 0; run < THROUGHPUT_WARMUP_RUNS; run++) {
    for (const w of workloads) {
      await termhostRun(th, w);
      await tmuxRun(tmux, w, n++);
    }
  }
  log(`throughput warm-up done (${THROUGHPUT_WARMUP_RUNS} untimed run per host and stream)`);
  for (let run = 0; run < THROUGHPUT_RUNS; run++) {
    for (const [i, w] of workloads.entries()) {
      const r = results[i]!;
      const s = samples[i]!;
      const t = await termhostRun(th, w);
      r.termhostMs.push(t.ms);
      r.termhostMaxBacklogBytes = Math.max(r.termhostMaxBacklogBytes, t.maxBacklog);
      s.streamMs.push(t.streamMs);
      s.exitLagMs.push(t.ms - t.streamMs);
      s.transcriptLagMs.push(t.transcriptLagMs);
      s.loads.push(t.load);
      s.machine.push(t.machineBusy);
      s.reads += t.reads;
      s.readBytes += t.readBytes;
      const x = await tmuxRun(tmux, w, n++);
      r.tmuxMs.push(x.ms);
      s.tmuxCpu.push(x.cpuShare);
      s.tmuxMachine.push(x.machineBusy);
      log(`throughput ${w.name} run ${run + 1}: termhost ${t.ms.toFixed(0)} ms (event loop ${(t.load.whole.loopBusy * 100).toFixed(0)}% busy, ${(t.load.active.loopBusy * 100).toFixed(0)}% to the last byte), ` +
        `tmux ${x.ms.toFixed(0)} ms`);
    }
  }
  for (const [i, r] of results.entries()) {
    const s = samples[i]!;
    r.termhostMBps = r.bytes / 1e6 / (median(r.termhostMs) / 1000);
    r.tmuxMBps = r.bytes / 1e6 / (median(r.tmuxMs) / 1000);
    r.ratio = r.termhostMBps / r.tmuxMBps;
    r.termhostStreamMBps = r.bytes / 1e6 / (median(s.streamMs) / 1000);
    r.termhostExitLagMs = median(s.exitLagMs);
    r.termhostTranscriptLagMs = median(s.transcriptLagMs);
    const loadMedian = (pick: (l: { whole: Load; active: Load }) => Load): Load => ({
      loopBusy: median(s.loads.map((l) => pick(l).loopBusy)),
      cpuShare: median(s.loads.map((l) => pick(l).cpuShare)),
      mainCpuShare: median(s.loads.map((l) => pick(l).mainCpuShare)),
    });
    r.termhostLoad = loadMedian((l) => l.whole);
    r.termhostStreamLoad = loadMedian((l) => l.active);
    r.termhostMeanReadBytes = s.readBytes / s.reads;
    r.tmuxCpuShare = median(s.tmuxCpu);
    r.termhostMachineBusy = median(s.machine);
    r.tmuxMachineBusy = median(s.tmuxMachine);
  }
  return results;
}
