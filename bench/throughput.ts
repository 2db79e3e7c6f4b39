/**
 * Output throughput: how fast each host turns a program's output into an up-to-date screen. Both hosts run
 * `cat FILE` in a fresh 200x50 session; the clock runs from just before the create request until the host reports
 * the program finished with its output processed. Runs alternate between the hosts so drift (thermal, page cache,
 * other load) falls on both alike.
 */
import type { BenchDaemon } from './termhost.js';
import { waitExit } from './termhost.js';
import type { TmuxServer } from './tmux.js';
import { median, nowMs } from './stats.js';
import { FRAME_COLS, FRAME_ROWS, type Workload } from './workloads.js';

/** Runs per host and stream; the median is reported, so one run disturbed by the machine does not decide. */
export const THROUGHPUT_RUNS = 5;
/**
 * Untimed runs per host and stream before the timed ones: V8 has to optimise xterm's parser for each kind of input,
 * and a native tmux has nothing comparable to warm up. The figures are steady-state throughput.
 */
export const THROUGHPUT_WARMUP_RUNS = 1;
/** How often the termhost run samples the emulator's unparsed backlog, to see whether parsing keeps up. */
const BACKLOG_SAMPLE_MS = 10;
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
}

async function termhostRun(th: BenchDaemon, w: Workload): Promise<{ ms: number; maxBacklog: number }> {
  const t0 = nowMs();
  const info = await th.client.createSession({ command: ['cat', w.file], cols: FRAME_COLS, rows: FRAME_ROWS });
  const session = th.session(info.id);
  let maxBacklog = 0;
  const sampler = setInterval(() => {
    maxBacklog = Math.max(maxBacklog, session.emulator.pendingBytes);
  }, BACKLOG_SAMPLE_MS);
  try {
    const screen = await waitExit(th.client, info.id, Date.now() + RUN_DEADLINE_MS);
    const ms = nowMs() - t0;
    // The tty's onlcr output flag turns every LF that cat writes into CR LF before the host reads it.
    const expected = w.bytes + w.newlines;
    if (screen.seq !== expected) throw new Error(`termhost ${w.name}: screen.seq ${screen.seq}, expected ${expected}`);
    return { ms, maxBacklog };
  } finally {
    clearInterval(sampler);
    await th.client.deleteSession(info.id);
  }
}

/**
 * tmux reports the end through `wait-for`: the pane's command signals a channel after cat exits, and the client
 * waiting on it returns. tmux remembers a signal that arrives before anyone waits, so the order cannot race.
 */
async function tmuxRun(tmux: TmuxServer, w: Workload, n: number): Promise<number> {
  const channel = `tp-done-${n}`;
  const t0 = nowMs();
  await tmux.run(
    'new-session', '-d', '-s', `tp${n}`, '-x', `${FRAME_COLS}`, '-y', `${FRAME_ROWS}`,
    `cat '${w.file}'; tmux -S '${tmux.socket}' wait-for -S ${channel}`,
  );
  await tmux.run('wait-for', channel);
  return nowMs() - t0;
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
  }));
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
      const t = await termhostRun(th, w);
      r.termhostMs.push(t.ms);
      r.termhostMaxBacklogBytes = Math.max(r.termhostMaxBacklogBytes, t.maxBacklog);
      r.tmuxMs.push(await tmuxRun(tmux, w, n++));
      log(`throughput ${w.name} run ${run + 1}: termhost ${t.ms.toFixed(0)} ms, tmux ${r.tmuxMs.at(-1)!.toFixed(0)} ms`);
    }
  }
  for (const r of results) {
    r.termhostMBps = r.bytes / 1e6 / (median(r.termhostMs) / 1000);
    r.tmuxMBps = r.bytes / 1e6 / (median(r.tmuxMs) / 1000);
    r.ratio = r.termhostMBps / r.tmuxMBps;
  }
  return results;
}
