/**
 * The wall of 50 busy sessions: does another session stay quick to type into while a wall (/ui/wall) shows them all?
 *
 * WALL_SESSIONS sessions (80x24) each print a line every BUSY_LINE_MS, as builds and agents do, for the whole suite.
 * The keystroke round trip of one more session is measured exactly as latency.ts measures it (type one 'x' into
 * `cat` at 200x50, read the screen until the echo is there), in rounds that alternate between
 *   - busy: the 50 sessions print, nobody watches;
 *   - busy + wall: the same, with a wall open on all 50, every tile on screen (wallViewer.ts: the page's own event
 *     stream and tile fetching, in a child process of its own);
 * so that drift on the shared machine falls on both alike. An idle round (no busy sessions) comes first as the floor.
 * Each round also records the daemon's event-loop delay (monitorEventLoopDelay: the daemon runs in this process),
 * the pictures its renderer drew, and, with the wall, what the wall received and fetched.
 *
 * Run alone with `npm run build && node --import tsx bench/wall.ts`; `npm run bench` runs it after the fan-out.
 */
import crypto from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { figures, sampleRun, termhostCatSession, type LatencyFigures } from './latency.js';
import { machineBusyShare, machineTicks, nowMs, processCpuMs } from './stats.js';
import { startBenchDaemon, type BenchDaemon } from './termhost.js';

export const WALL_SESSIONS = 50;
/** How often each busy session prints a line (a build log's pace; 20 lines a second each, 1,000 in all). */
export const BUSY_LINE_MS = 50;
/** Keystroke samples before the measured ones: V8 warms the input path first (alone; `npm run bench` is warm already). */
export const WALL_WARMUP = 1000;
/** And once the busy sessions run: their programs start and settle into their pace. */
const BUSY_WARMUP = 200;
/** Alternating rounds of each condition, and the keystroke samples in each. */
export const WALL_ROUNDS = 4;
export const WALL_SAMPLES_PER_ROUND = 250;
/** Once the wall has drawn every tile, it runs this long before sampling starts: its steady state, not its start. */
const WALL_SETTLE_MS = 1000;
/**
 * A first wall runs this long, untimed, before the rounds: until V8 has optimised the picture path (route, cell grid,
 * the worker's SVG), the first seconds of the first wall a daemon serves cost several times the steady state, as
 * the first keystrokes do (latency.ts).
 */
const WALL_WARMUP_MS = 10_000;
const LABEL = 'bench=wall';
const VIEWER_SOURCE = fileURLToPath(new URL('./wallViewer.ts', import.meta.url));
const READY_DEADLINE_MS = 60_000;

export interface WallCondition {
  latency: LatencyFigures;
  /** The daemon's event-loop delay over the sampling, ms. */
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Pictures the renderer drew per second. */
  drawnPerS: number;
  /** Each round's own keystroke p99, ms: one round's outlier (another process's burst) shows here, not only in the pool. */
  roundP99Ms: number[];
  /** Time sampled, ms. */
  ms: number;
  /**
   * CPU of the daemon's process: its main thread (the event loop; the keystroke client shares it, alike in every
   * condition) and all its threads (picture worker, transcript writer), as shares of one core.
   */
  mainThreadCpuShare: number;
  processCpuShare: number;
  /** Share of both cores busy (whole machine). */
  machineBusy: number;
  samples: number;
}

export interface WallResult {
  sessions: number;
  busyLineMs: number;
  idle: WallCondition;
  busy: WallCondition;
  withWall: WallCondition;
  /** What the wall did, per second while sampling. */
  wall: { eventsPerS: number; fetchesPerS: number; picturesPerS: number; unchangedPerS: number; failed: number; kBPerS: number; viewerCpuShare: number };
}

interface Counts {
  events: number;
  fetched: number;
  pictures: number;
  unchanged: number;
  failed: number;
  bytes: number;
  cpuMs: number;
}

class Viewer {
  private readonly queue: string[] = [];
  private waiting: ((line: string) => void) | undefined;
  private constructor(private readonly child: ChildProcess) {
    readline.createInterface({ input: child.stdout! }).on('line', (l) => (this.waiting ? (this.waiting(l), (this.waiting = undefined)) : this.queue.push(l)));
  }

  static async start(script: string, th: BenchDaemon): Promise<Viewer> {
    const args = JSON.stringify({ address: th.daemon.address, token: th.client.token, label: LABEL });
    const v = new Viewer(spawn(process.execPath, [script, args], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const ready = (await v.next()) as { kind: string; tiles: number };
    if (ready.kind !== 'ready' || ready.tiles !== WALL_SESSIONS) throw new Error(`wall viewer: ${JSON.stringify(ready)}`);
    return v;
  }

  private async next(): Promise<Record<string, unknown>> {
    let timer: NodeJS.Timeout | undefined;
    const line =
      this.queue.shift() ??
      (await new Promise<string>((resolve, reject) => {
        this.waiting = resolve;
        timer = setTimeout(() => reject(new Error('wall viewer: no reply in time')), READY_DEADLINE_MS);
        this.child.once('exit', (code) => reject(new Error(`wall viewer exited (${code})`)));
      }).finally(() => clearTimeout(timer)));
    return JSON.parse(line) as Record<string, unknown>;
  }

  async counts(): Promise<Counts> {
    this.child.stdin!.write('counts\n');
    return (await this.next()) as unknown as Counts;
  }

  async stop(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin!.end();
    await exited;
  }
}

/** The page's code for the viewer, bundled for bare node. */
async function bundleViewer(dir: string): Promise<string> {
  const out = path.join(dir, 'wallViewer.mjs');
  await esbuild.build({ entryPoints: [VIEWER_SOURCE], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
  return out;
}

type Sample = { ms: number; reads: number };

/** One round of keystroke samples, with what the daemon did meanwhile; the raw samples pool into one percentile. */
async function condition(th: BenchDaemon, samples: number): Promise<{ c: WallCondition; ms: number; all: Sample[] }> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const drawn0 = th.daemon.manager.pictures.screensDrawn;
  const m0 = machineTicks();
  const [main0, proc0] = [processCpuMs(process.pid, process.pid), processCpuMs(process.pid)];
  const t0 = nowMs();
  loop.enable();
  const all = await sampleRun(samples, () => termhostCatSession(th));
  loop.disable();
  const ms = nowMs() - t0;
  const [main1, proc1] = [processCpuMs(process.pid, process.pid), processCpuMs(process.pid)];
  return {
    ms,
    all,
    c: {
      latency: figures(all),
      loopDelayP50Ms: loop.percentile(50) / 1e6,
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      loopDelayMaxMs: loop.max / 1e6,
      drawnPerS: ((th.daemon.manager.pictures.screensDrawn - drawn0) * 1000) / ms,
      roundP99Ms: [],
      ms,
      mainThreadCpuShare: (main1 - main0) / ms,
      processCpuShare: (proc1 - proc0) / ms,
      machineBusy: machineBusyShare(m0, machineTicks()),
      samples,
    },
  };
}

/** Rounds of one condition as one: latency from all their samples pooled, the loop's worst p99, the rest averaged. */
function merge(rounds: WallCondition[], pooled: Sample[]): WallCondition {
  const ms = rounds.reduce((a, c) => a + c.ms, 0);
  // Weighted by each round's length, so that a rate is the rate over all the time sampled.
  const avg = (f: (c: WallCondition) => number) => rounds.reduce((a, c) => a + f(c) * c.ms, 0) / ms;
  return {
    latency: figures(pooled),
    loopDelayP50Ms: avg((c) => c.loopDelayP50Ms),
    loopDelayP99Ms: Math.max(...rounds.map((c) => c.loopDelayP99Ms)),
    loopDelayMaxMs: Math.max(...rounds.map((c) => c.loopDelayMaxMs)),
    drawnPerS: avg((c) => c.drawnPerS),
    roundP99Ms: rounds.map((c) => c.latency.p99Ms),
    ms,
    mainThreadCpuShare: avg((c) => c.mainThreadCpuShare),
    processCpuShare: avg((c) => c.processCpuShare),
    machineBusy: avg((c) => c.machineBusy),
    samples: rounds.reduce((a, c) => a + c.samples, 0),
  };
}

export async function measureWall(th: BenchDaemon, dir: string, log: (msg: string) => void): Promise<WallResult> {
  const script = await bundleViewer(dir);
  await sampleRun(WALL_WARMUP, () => termhostCatSession(th));
  const idleRound = (await condition(th, WALL_SAMPLES_PER_ROUND * 2)).c;
  const idle = { ...idleRound, roundP99Ms: [idleRound.latency.p99Ms] };
  log(`wall: idle keystroke p50 ${idle.latency.p50Ms.toFixed(3)} ms, p99 ${idle.latency.p99Ms.toFixed(3)} ms`);
  const busyCode = ['import sys, time', 'i = 0', 'while True:', '    i += 1', `    sys.stdout.write('%08d compiling module %d of the build, warnings 0\\n' % (i, i % 977))`, '    sys.stdout.flush()', `    time.sleep(${BUSY_LINE_MS / 1000})`].join('\n');
  const [k, v] = LABEL.split('=') as [string, string];
  const ids: string[] = [];
  try {
    for (let i = 0; i < WALL_SESSIONS; i++) ids.push((await th.client.createSession({ command: ['python3', '-c', busyCode], cols: 80, rows: 24, labels: { [k]: v } })).id);
    // The busy programs start, and the input path meets their load, before anything is measured.
    await sampleRun(BUSY_WARMUP, () => termhostCatSession(th));
    const first = await Viewer.start(script, th);
    await new Promise((res) => setTimeout(res, WALL_WARMUP_MS));
    await first.stop();
    const busyRounds: WallCondition[] = [];
    const wallRounds: WallCondition[] = [];
    const pooled = { busy: [] as Sample[], wall: [] as Sample[] };
    const totals = { ms: 0, events: 0, fetched: 0, pictures: 0, unchanged: 0, failed: 0, bytes: 0, cpuMs: 0 };
    for (let r = 0; r < WALL_ROUNDS; r++) {
      const busy = await condition(th, WALL_SAMPLES_PER_ROUND);
      busyRounds.push(busy.c);
      pooled.busy.push(...busy.all);
      const viewer = await Viewer.start(script, th);
      try {
        await new Promise((res) => setTimeout(res, WALL_SETTLE_MS));
        const before = await viewer.counts();
        const withWall = await condition(th, WALL_SAMPLES_PER_ROUND);
        const after = await viewer.counts();
        wallRounds.push(withWall.c);
        pooled.wall.push(...withWall.all);
        totals.ms += withWall.ms;
        for (const key of ['events', 'fetched', 'pictures', 'unchanged', 'failed', 'bytes', 'cpuMs'] as const) totals[key] += after[key] - before[key];
      } finally {
        await viewer.stop();
      }
      log(`wall round ${r + 1}/${WALL_ROUNDS}: keystroke p99 busy ${busy.c.latency.p99Ms.toFixed(2)} ms, with the wall ${wallRounds.at(-1)!.latency.p99Ms.toFixed(2)} ms`);
    }
    const perS = (n: number) => (n * 1000) / totals.ms;
    const result: WallResult = {
      sessions: WALL_SESSIONS,
      busyLineMs: BUSY_LINE_MS,
      idle,
      busy: merge(busyRounds, pooled.busy),
      withWall: merge(wallRounds, pooled.wall),
      wall: {
        eventsPerS: perS(totals.events),
        fetchesPerS: perS(totals.fetched),
        picturesPerS: perS(totals.pictures),
        unchangedPerS: perS(totals.unchanged),
        failed: totals.failed,
        kBPerS: perS(totals.bytes) / 1000,
        viewerCpuShare: totals.cpuMs / totals.ms,
      },
    };
    log(
      `wall: keystroke p50/p99 busy ${result.busy.latency.p50Ms.toFixed(3)}/${result.busy.latency.p99Ms.toFixed(3)} ms, ` +
        `with the wall ${result.withWall.latency.p50Ms.toFixed(3)}/${result.withWall.latency.p99Ms.toFixed(3)} ms; ` +
        `wall ${result.wall.picturesPerS.toFixed(0)} pictures/s, ${result.wall.eventsPerS.toFixed(0)} events/s`,
    );
    return result;
  } finally {
    for (const id of ids) await th.client.deleteSession(id, 'KILL').catch(() => undefined);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `termhost-bench-wall-${crypto.randomBytes(3).toString('hex')}-`));
  const th = await startBenchDaemon(dir);
  try {
    process.stdout.write(`${JSON.stringify(await measureWall(th, dir, (m) => process.stderr.write(`${m}\n`)), null, 2)}\n`);
  } finally {
    await th.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
