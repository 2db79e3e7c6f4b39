/**
 * `npm run bench`: termhost against tmux on the same machine, in the same run, at 200x50.
 *
 *   workloads (16 MiB streams) -> throughput -> keystroke latency -> snapshot cost   (termhost daemon in this process)
 *                              -> picture cost: 200x50 PNG, typical / unchanged / every cell true colour
 *                              -> fan-out to 0/1/10/100 attach viewers    (same daemon; viewers in a child process)
 *                              -> the wall: keystrokes beside 50 busy sessions, wall open or not (same daemon)
 *                              -> one call per command: `true` x200        (same daemon; tmux send-keys + wait-for)
 *                              -> shell integration on vs off, 16 MiB      (a fresh daemon)
 *                              -> CLI start-up: termhost ls vs tmux ls    (a fresh process per call)
 *                              -> memory per idle session                          (fresh daemon process, fresh tmux)
 *   -> table on stdout, bench/out/results.json
 *
 * Everything lives in one temp dir (streams, state dirs, tmux sockets); the tmux servers, termhost sessions, the
 * child daemon and the dir are removed at the end, also when a benchmark fails or the run is interrupted.
 * Progress goes to stderr so stdout carries only the table.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LATENCY_CLI_SAMPLES, LATENCY_SAMPLES, LATENCY_SHORT_WARMUP, LATENCY_WARMUP, measureLatency } from './latency.js';
import { FIRST_SESSIONS, TOTAL_SESSIONS, measureMemory } from './memory.js';
import { FANOUT_RUNS, FANOUT_VIEWERS, measureFanout } from './fanout.js';
import { environment, formatTable, writeJson, type Results } from './report.js';
import { HTTP_ITERATIONS, INPROC_ITERATIONS, SNAPSHOT_COLS, SNAPSHOT_ROWS, measureSnapshot } from './snapshot.js';
import { PICTURE_ITERATIONS, measurePictures } from './pictures.js';
import { BUSY_LINE_MS, WALL_ROUNDS, WALL_SAMPLES_PER_ROUND, WALL_SESSIONS, measureWall } from './wall.js';
import { nowMs } from './stats.js';
import { startBenchDaemon, type BenchDaemon } from './termhost.js';
import { THROUGHPUT_RUNS, THROUGHPUT_WARMUP_RUNS, measureThroughput } from './throughput.js';
import { STARTUP_SAMPLES, STARTUP_WARMUP, measureStartup } from './startup.js';
import { TRANSCRIPT_RUNS, measureTranscriptCost } from './transcripts.js';
import { POLL_MS, formatAgentTasks, measureAgentTasks } from './agentTasks.js';
import { COMMAND_SAMPLES, COMMAND_WARMUP, INTEGRATION_RUNS, measureCommands, measureIntegrationCost } from './commands.js';
import { TMUX_HISTORY_LINES, TmuxServer } from './tmux.js';
import { FRAME_COLS, FRAME_ROWS, STREAM_BYTES, WORKLOADS, writeWorkload } from './workloads.js';

const RESULTS_FILE = fileURLToPath(new URL('./out/results.json', import.meta.url));

const started = nowMs();
const loadAtStart = os.loadavg()[0]!;

/** The commit under test; `npm run bench` builds the working tree, so uncommitted source changes are measured too. */
function commitUnderTest(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const dirty = git('status', '--porcelain', '--', 'src', 'package.json', 'package-lock.json') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' + uncommitted src changes' : ''}`;
  } catch {
    return 'unknown commit';
  }
}
const commit = commitUnderTest();
const log = (msg: string) => process.stderr.write(`[bench ${((nowMs() - started) / 1000).toFixed(1).padStart(5)} s] ${msg}\n`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), `termhost-bench-${process.pid}-`));
const tmux = new TmuxServer(dir);
let th: BenchDaemon | undefined;
let cleaned: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    try {
      await th?.stop();
    } finally {
      await tmux.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  })();
  return cleaned;
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  const tmuxVersion = await TmuxServer.version();
  if (loadAtStart > os.cpus().length / 2) log(`load average ${loadAtStart.toFixed(2)}: other work is running; figures will be low`);
  log(`writing ${WORKLOADS.length} streams of ${STREAM_BYTES / 1024 / 1024} MiB to ${dir}`);
  const workloads = WORKLOADS.map((name) => writeWorkload(name, dir));

  await tmux.start(FRAME_COLS, FRAME_ROWS);
  th = await startBenchDaemon(dir);
  log(`termhost on ${th.daemon.address}, ${tmuxVersion} on ${tmux.socket}`);

  const throughput = await measureThroughput(th, tmux, workloads, log);
  const latency = await measureLatency(th, tmux, log);
  const snapshot = await measureSnapshot(th, tmux, dir, log);
  const pictures = await measurePictures(th, log);
  const fanout = await measureFanout(th, workloads.find((w) => w.name === 'plain')!, log);
  const wall = await measureWall(th, dir, log);
  const commands = await measureCommands(th, tmux, dir, log);
  const startup = await measureStartup(th, tmux, log);
  await th.stop();
  th = undefined;
  const transcripts = await measureTranscriptCost(dir, workloads.find((w) => w.name === 'plain')!, log);
  const integration = await measureIntegrationCost(dir, workloads.find((w) => w.name === 'plain')!, log);
  const memory = await measureMemory(dir, log);
  const agentTasks = await measureAgentTasks(log);

  const results: Results = { throughput, latency, memory, snapshot, pictures, fanout, startup, commands, integration, wall };
  const env = environment(tmuxVersion, (nowMs() - started) / 1000, { loadAvg1mAtStart: loadAtStart, commit });
  writeJson(RESULTS_FILE, { ...results, transcripts, agentTasks }, env, {
    screen: `${FRAME_COLS}x${FRAME_ROWS}`,
    streamBytes: STREAM_BYTES,
    throughputRuns: THROUGHPUT_RUNS,
    throughputWarmupRuns: THROUGHPUT_WARMUP_RUNS,
    latencyWarmup: LATENCY_WARMUP,
    latencySamples: LATENCY_SAMPLES,
    latencyShortWarmup: LATENCY_SHORT_WARMUP,
    latencyTmuxCliWarmupAndSamples: [LATENCY_SHORT_WARMUP, LATENCY_CLI_SAMPLES],
    memorySessions: { first: FIRST_SESSIONS, total: TOTAL_SESSIONS },
    snapshotScreen: `${SNAPSHOT_COLS}x${SNAPSHOT_ROWS}`,
    snapshotInProcessIterations: INPROC_ITERATIONS,
    snapshotHttpIterations: HTTP_ITERATIONS,
    pictureIterations: PICTURE_ITERATIONS,
    fanoutViewers: FANOUT_VIEWERS,
    fanoutRuns: FANOUT_RUNS,
    fanoutStream: 'plain',
    wallSessions: WALL_SESSIONS,
    wallBusyLineMs: BUSY_LINE_MS,
    wallRoundsAndSamplesPerRound: [WALL_ROUNDS, WALL_SAMPLES_PER_ROUND],
    commandSamples: COMMAND_SAMPLES,
    commandWarmup: COMMAND_WARMUP,
    integrationRuns: INTEGRATION_RUNS,
    startupWarmupAndSamples: [STARTUP_WARMUP, STARTUP_SAMPLES],
    tmuxHistoryLimit: TMUX_HISTORY_LINES,
    termhostScrollback: 'default (1000 lines)',
    agentTaskTmuxPollMs: POLL_MS,
  });
  process.stdout.write(formatTable(results, env) + '\n');
  process.stdout.write(
    `\nTranscripts on vs off (plain stream, median of ${TRANSCRIPT_RUNS}): ${transcripts.onMBps.toFixed(1)} vs ` +
      `${transcripts.offMBps.toFixed(1)} MB/s = ${transcripts.ratio.toFixed(2)}x (target >= 0.90x: ${transcripts.ratio >= 0.9 ? 'met' : 'NOT met'}); ` +
      `every transcript complete: ${transcripts.complete}\n`,
  );
  process.stdout.write(`\n${formatAgentTasks(agentTasks)}\n`);
  log(`done in ${env.durationS.toFixed(0)} s; results in ${path.relative(process.cwd(), RESULTS_FILE)}`);
} catch (err) {
  process.exitCode = 1;
  log(`failed: ${(err as Error).stack ?? err}`);
} finally {
  await cleanup();
}
