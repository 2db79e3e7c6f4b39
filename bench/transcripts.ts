/**
 * What transcripts cost: the plain 16 MiB stream through two termhost daemons, one with transcripts on (the default:
 * redacted and written to SQLite by a worker thread) and one with them off, in alternating runs. The bar is
 * "within 10%". Each run is timed from session create to the exit with every byte parsed, as in throughput.ts, and
 * the transcript writer is allowed to finish between runs so its leftover work does not land in the next one.
 */
import { SYSTEM_ACTOR } from '../dist/core/index.js';
import { startBenchDaemon, waitExit } from './termhost.js';
import { median, nowMs } from './stats.js';
import type { Workload } from './workloads.js';

export const TRANSCRIPT_RUNS = 5;
const COLS = 200;
const ROWS = 50;

export interface TranscriptCost {
  onMBps: number;
  offMBps: number;
  /** on / off: 1.00 means free, 0.90 is the 10% bar. */
  ratio: number;
  onRunsMs: number[];
  offRunsMs: number[];
  /** Every "on" run's record says its transcript is complete. */
  complete: boolean;
}

export async function measureTranscriptCost(dir: string, plain: Workload, log: (m: string) => void): Promise<TranscriptCost> {
  const on = await startBenchDaemon(dir, { transcripts: true });
  const off = await startBenchDaemon(dir, { transcripts: false });
  const onRunsMs: number[] = [];
  const offRunsMs: number[] = [];
  let complete = true;
  try {
    for (let run = -1; run < TRANSCRIPT_RUNS; run++) {
      for (const [d, into] of [[on, onRunsMs], [off, offRunsMs]] as const) {
        const t0 = nowMs();
        const s = await d.client.createSession({ command: ['cat', plain.file], cols: COLS, rows: ROWS });
        await waitExit(d.client, s.id, Date.now() + 120_000);
        const ms = nowMs() - t0;
        await d.client.deleteSession(s.id);
        await d.settle();
        if (d === on) complete &&= d.daemon.store.record(s.id, SYSTEM_ACTOR)?.transcript_complete === true;
        if (run >= 0) into.push(ms); // run -1 warms both up
      }
    }
  } finally {
    await on.stop();
    await off.stop();
  }
  const mbps = (ms: number) => plain.bytes / 1e6 / (ms / 1000);
  const onMBps = mbps(median(onRunsMs));
  const offMBps = mbps(median(offRunsMs));
  log(`transcripts: on ${onMBps.toFixed(1)} MB/s, off ${offMBps.toFixed(1)} MB/s (${(onMBps / offMBps).toFixed(2)}x)`);
  return { onMBps, offMBps, ratio: onMBps / offMBps, onRunsMs, offRunsMs, complete };
}
