/**
 * Turns the measurements into the table printed at the end of `npm run bench` and into bench/out/results.json.
 * Targets are checked here, against the figures as measured; nothing is adjusted.
 */
import type { AgentTaskResult } from './agentTasks.js';
import type { TranscriptCost } from './transcripts.js';
import type { CommandResult, IntegrationCost } from './commands.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FanoutResult } from './fanout.js';
import { LATENCY_SHORT_WARMUP, type LatencyResult } from './latency.js';
import type { MemoryResult } from './memory.js';
import type { SnapshotResult } from './snapshot.js';
import { PICTURE_TARGETS, type PictureResult } from './pictures.js';
import type { WallCondition, WallResult } from './wall.js';
import { STARTUP_TARGET_MS, type StartupResult } from './startup.js';
import { round, type Load } from './stats.js';
import type { ThroughputResult } from './throughput.js';

/** The targets stated by the performance issue. */
export const TARGETS = {
  /** End-to-end throughput at or above tmux's, on every stream. */
  throughputRatioMin: 1,
  /** Keystroke-to-screen p50 over HTTP. */
  keystrokeP50MsMax: 0.5,
  /** In-process text snapshot of a 200x60 screen whose every row just changed (no cache can answer), median. */
  snapshotP50UsMax: 60,
} as const;

export interface Results {
  throughput: ThroughputResult[];
  latency: LatencyResult;
  memory: MemoryResult;
  snapshot: SnapshotResult;
  /** Pictures of a 200x50 screen over HTTP. */
  pictures: PictureResult;
  fanout: FanoutResult[];
  /** One CLI call: termhost ls against tmux ls. */
  startup: StartupResult;
  /** Plain-stream throughput with transcripts on vs off. */
  transcripts?: TranscriptCost;
  /** `true` round trips through POST .../commands and through tmux send-keys + wait-for. */
  commands?: CommandResult;
  /** Plain-stream throughput through bash with shell integration on vs off. */
  integration?: IntegrationCost;
  /** Everyday agent jobs through termhost's MCP tools and through a tmux driver: calls and context bytes. */
  agentTasks?: AgentTaskResult[];
  /** Keystroke latency of one session beside 50 busy ones, with and without a wall open on them. */
  wall?: WallResult;
}

export interface Environment {
  date: string;
  node: string;
  tmux: string;
  cpus: number;
  cpuModel: string;
  kernel: string;
  totalMemMiB: number;
  /** 1-minute load average when the run started: anything near the core count means the figures shared the CPU. */
  loadAvg1mAtStart: number;
  /** The termhost commit measured, and whether src/ had uncommitted changes (they are built and measured too). */
  commit: string;
  durationS: number;
}

type Better = 'higher' | 'lower';
interface Row {
  name: string;
  unit: string;
  better: Better;
  termhost: number;
  tmux?: number;
  target?: string;
  met?: boolean;
}

const LABEL: Record<string, string> = {
  plain: 'Throughput, plain log lines',
  colour: 'Throughput, colour on every word',
  redraw: 'Throughput, full-screen redraws',
};

function rows(r: Results): Row[] {
  const t = TARGETS;
  const out: Row[] = r.throughput.map((x) => ({
    name: LABEL[x.workload] ?? x.workload,
    unit: 'MB/s',
    better: 'higher',
    termhost: x.termhostMBps,
    tmux: x.tmuxMBps,
    target: '>= tmux',
    met: x.ratio >= t.throughputRatioMin,
  }));
  const l = r.latency;
  const s = r.snapshot;
  out.push(
    { name: 'Keystroke->screen p50 (tmux: CLI)', unit: 'ms', better: 'lower', termhost: l.termhost.p50Ms, tmux: l.tmuxCli.p50Ms,
      target: `< ${t.keystrokeP50MsMax} ms`, met: l.termhost.p50Ms < t.keystrokeP50MsMax },
    { name: 'Keystroke->screen p50 (tmux: -C)', unit: 'ms', better: 'lower', termhost: l.termhost.p50Ms, tmux: l.tmuxControl.p50Ms },
    { name: `Keystroke->screen p50 after ${LATENCY_SHORT_WARMUP} warm-up samples only`, unit: 'ms', better: 'lower', termhost: l.termhostShortWarmup.p50Ms },
    { name: 'Keystroke->screen p95 (tmux: -C)', unit: 'ms', better: 'lower', termhost: l.termhost.p95Ms, tmux: l.tmuxControl.p95Ms },
    { name: 'Keystroke->screen p99 (tmux: -C)', unit: 'ms', better: 'lower', termhost: l.termhost.p99Ms, tmux: l.tmuxControl.p99Ms },
    { name: `Memory per idle bash, first ${r.memory.firstSessions}`, unit: 'KiB', better: 'lower',
      termhost: r.memory.termhostPerSessionKiB, tmux: r.memory.tmuxPerSessionKiB },
    { name: `Memory per idle bash, ${r.memory.firstSessions + 1}..${r.memory.totalSessions}`, unit: 'KiB', better: 'lower',
      termhost: r.memory.termhostMarginalKiB, tmux: r.memory.tmuxMarginalKiB },
    { name: 'Text snapshot 200x60 after every row changed, in-process p50', unit: 'us', better: 'lower',
      termhost: s.textFullChangeP50Us, target: `< ${t.snapshotP50UsMax} us`, met: s.textFullChangeP50Us < t.snapshotP50UsMax },
    { name: 'Text snapshot 200x60 after a one-row change, in-process p50', unit: 'us', better: 'lower',
      termhost: s.textUncachedP50Us, target: `< ${t.snapshotP50UsMax} us`, met: s.textUncachedP50Us < t.snapshotP50UsMax },
    { name: 'Text snapshot 200x60, unchanged screen (cached), in-process p50', unit: 'us', better: 'lower',
      termhost: s.textCachedP50Us },
    { name: 'Styled snapshot 200x60 after a one-row change, in-process p50', unit: 'us', better: 'lower',
      termhost: s.styledUncachedP50Us },
    { name: 'PNG 200x50 typical output after a change, HTTP p50', unit: 'ms', better: 'lower', termhost: r.pictures.typicalPngP50Ms,
      target: `< ${PICTURE_TARGETS.typicalPngP50MsMax} ms`, met: r.pictures.typicalPngP50Ms < PICTURE_TARGETS.typicalPngP50MsMax },
    { name: 'PNG 200x50 unchanged screen (cached), HTTP p50', unit: 'ms', better: 'lower', termhost: r.pictures.unchangedHttpP50Ms,
      target: `< ${PICTURE_TARGETS.unchangedP50MsMax} ms`, met: r.pictures.unchangedHttpP50Ms < PICTURE_TARGETS.unchangedP50MsMax },
    { name: 'PNG 200x50 every cell its own true colour, HTTP p50', unit: 'ms', better: 'lower', termhost: r.pictures.trueColourPngP50Ms,
      target: `< ${PICTURE_TARGETS.trueColourPngP50MsMax} ms`, met: r.pictures.trueColourPngP50Ms < PICTURE_TARGETS.trueColourPngP50MsMax },
    { name: 'SVG 200x50 typical output after a change, HTTP p50', unit: 'ms', better: 'lower', termhost: r.pictures.typicalSvgP50Ms },
    { name: 'Screen read after a change p50 (tmux: capture-pane CLI)', unit: 'us', better: 'lower', termhost: s.httpUncachedP50Us,
      tmux: s.tmuxCliP50Us },
    { name: 'Screen read after a change p50 (tmux: capture-pane -C)', unit: 'us', better: 'lower', termhost: s.httpUncachedP50Us,
      tmux: s.tmuxControlP50Us },
    { name: 'Screen read, unchanged screen p50 (tmux: capture-pane -C)', unit: 'us', better: 'lower', termhost: s.httpCachedP50Us,
      tmux: s.tmuxControlP50Us },
    { name: 'CLI start-up p50: termhost ls vs tmux ls', unit: 'ms', better: 'lower', termhost: r.startup.termhostLs.p50Ms,
      tmux: r.startup.tmuxLs.p50Ms, target: `< ${STARTUP_TARGET_MS} ms`, met: r.startup.termhostLs.p50Ms < STARTUP_TARGET_MS },
  );
  const c = r.commands;
  if (c) {
    out.push(
      { name: 'Command `true` round trip p50 (tmux: send-keys+wait-for+capture, CLI)', unit: 'ms', better: 'lower', termhost: c.termhost.p50Ms, tmux: c.tmuxCli.p50Ms },
      { name: 'Command `true` round trip p99 (tmux: CLI)', unit: 'ms', better: 'lower', termhost: c.termhost.p99Ms, tmux: c.tmuxCli.p99Ms },
      { name: 'Command `true` round trip p50 (tmux: -C)', unit: 'ms', better: 'lower', termhost: c.termhost.p50Ms, tmux: c.tmuxControl.p50Ms },
      { name: 'Command `true` round trip p99 (tmux: -C)', unit: 'ms', better: 'lower', termhost: c.termhost.p99Ms, tmux: c.tmuxControl.p99Ms },
    );
  }
  const i = r.integration;
  if (i) {
    out.push({ name: 'Plain stream through bash, shell integration on (vs off)', unit: 'MB/s', better: 'higher', termhost: i.withMBps });
  }
  const w = r.wall;
  if (w) {
    const n = w.sessions;
    out.push(
      { name: `Keystroke->screen p50, ${n} busy sessions, no wall`, unit: 'ms', better: 'lower', termhost: w.busy.latency.p50Ms },
      { name: `Keystroke->screen p99, ${n} busy sessions, no wall`, unit: 'ms', better: 'lower', termhost: w.busy.latency.p99Ms },
      { name: `Keystroke->screen p50, ${n} busy sessions, wall open on all`, unit: 'ms', better: 'lower', termhost: w.withWall.latency.p50Ms },
      { name: `Keystroke->screen p99, ${n} busy sessions, wall open on all`, unit: 'ms', better: 'lower', termhost: w.withWall.latency.p99Ms },
    );
  }
  return out;
}

function fmt(v: number | undefined): string {
  if (v === undefined) return '-';
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(3);
}

const pct = (share: number) => `${(share * 100).toFixed(0)}%`;
const loadText = (l: Load) => `${pct(l.loopBusy)} / ${pct(l.mainCpuShare)} / ${pct(l.cpuShare)}`;

/** Fixed-width columns: the first `left` columns padded on the right, the rest (numbers) on the left. */
function textTable(header: string[], body: string[][], left: (i: number) => boolean): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (left(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)];
}

/** Fan-out: producer throughput against viewer count, what each viewer got, and where the CPU went. */
function fanoutTable(f: readonly FanoutResult[]): string[] {
  const header = ['viewers', 'producer MB/s', 'vs 0', 'to last byte', 'vs 0', 'viewer MB/s min', 'median', 'max', 'complete',
    'dropped 4008', 'daemon loop / JS / process', 'viewer CPU', 'both cores'];
  const body = f.map((x) => [
    String(x.viewers),
    fmt(x.producerMBps),
    `${x.relativeToNone.toFixed(2)}x`,
    fmt(x.producerStreamMBps),
    `${x.streamRelativeToNone.toFixed(2)}x`,
    x.viewerMBps ? fmt(x.viewerMBps.min) : '-',
    x.viewerMBps ? fmt(x.viewerMBps.median) : '-',
    x.viewerMBps ? fmt(x.viewerMBps.max) : '-',
    x.total ? `${x.complete}/${x.total}` : '-',
    x.total ? String(x.dropped) : '-',
    loadText(x.daemonStreamLoad),
    x.total ? pct(x.viewerCpuShare) : '-',
    pct(x.machineBusy),
  ]);
  const runs = f[0]?.producerMs.length ?? 0;
  return [
    `Fan-out: plain stream (${((f[0]?.bytes ?? 0) / 1024 / 1024).toFixed(0)} MiB) to N stream viewers in a child process; ` +
      `median of ${runs} runs, viewers pooled over all runs; daemon event loop busy / JS thread CPU / process CPU up to ` +
      `the last byte, CPU as a share of one core, "both cores" of the whole machine`,
    ...textTable(header, body, (i) => i === 0),
  ];
}

/** The wall suite's conditions beside each other: what the daemon's loop and CPU did, and what the wall cost. */
function wallLine(w: WallResult): string {
  const c = (name: string, x: WallCondition) =>
    `${name}: keystroke p50 ${fmt(x.latency.p50Ms)} / p99 ${fmt(x.latency.p99Ms)} ms (rounds ${x.roundP99Ms.map(fmt).join(', ')}), loop delay p99 ${fmt(x.loopDelayP99Ms)} ms, ` +
    `main thread ${pct(x.mainThreadCpuShare)}, process ${pct(x.processCpuShare)}, both cores ${pct(x.machineBusy)}`;
  return [
    `Wall: ${w.sessions} sessions each printing a line every ${w.busyLineMs} ms; keystrokes into one more, as above (${w.withWall.samples} samples per condition, rounds alternating)`,
    c('  idle (no busy sessions)', w.idle),
    c('  busy, no wall', w.busy),
    c('  busy, wall open on all', w.withWall),
    `  the wall: ${w.wall.eventsPerS.toFixed(0)} events/s, ${w.wall.picturesPerS.toFixed(0)} pictures/s drawn and fetched (${w.withWall.drawnPerS.toFixed(0)}/s drawn), ` +
      `${w.wall.unchangedPerS.toFixed(1)}/s unchanged (304), ${w.wall.failed} refused, ${w.wall.kBPerS.toFixed(0)} kB/s of SVG, viewer CPU ${pct(w.wall.viewerCpuShare)}`,
  ].join('\n');
}

/** The table as fixed-width text; the ratio is always termhost/tmux, and the "better" column says which way is good. */
export function formatTable(r: Results, env: Environment): string {
  const s = r.snapshot;
  const header = ['Benchmark', 'unit', 'better', 'termhost', 'tmux', 'termhost/tmux', 'target', 'met'];
  const body = rows(r).map((x) => [
    x.name,
    x.unit,
    x.better,
    fmt(x.termhost),
    fmt(x.tmux),
    x.tmux === undefined ? '-' : `${(x.termhost / x.tmux).toFixed(2)}x`,
    x.target ?? '',
    x.met === undefined ? '' : x.met ? 'yes' : 'NO',
  ]);
  return [
    `termhost ${env.commit} vs ${env.tmux}: ${env.cpus} cores (${env.cpuModel}), node ${env.node}, ${env.kernel}; ` +
      `load average ${env.loadAvg1mAtStart.toFixed(2)} at start`,
    ...textTable(header, body, (i) => i === 0 || i >= 6),
    '',
    `termhost screen reads per keystroke sample: ${r.latency.termhost.readsPerSample.toFixed(2)} ` +
      `(after ${LATENCY_SHORT_WARMUP} warm-up samples only: ${r.latency.termhostShortWarmup.readsPerSample.toFixed(2)}, ` +
      `p95 ${fmt(r.latency.termhostShortWarmup.p95Ms)} ms); ` +
      `tmux CLI ${r.latency.tmuxCli.readsPerSample.toFixed(2)}, -C ${r.latency.tmuxControl.readsPerSample.toFixed(2)}`,
    `termhost largest unparsed backlog during throughput runs: ` +
      r.throughput.map((x) => `${x.workload} ${(x.termhostMaxBacklogBytes / 1024).toFixed(0)} KiB`).join(', '),
    `termhost to the last byte parsed, without the exit report: ` +
      r.throughput.map((x) => `${x.workload} ${fmt(x.termhostStreamMBps)} MB/s (${(x.termhostStreamMBps / x.tmuxMBps).toFixed(2)}x tmux)`).join(', ') +
      `; exit reported ${r.throughput.map((x) => x.termhostExitLagMs.toFixed(0)).join(' / ')} ms after the last byte`,
    `termhost transcript on disk after the exit report: ` +
      r.throughput.map((x) => `${x.workload} ${x.termhostTranscriptLagMs.toFixed(0)} ms`).join(', '),
    `termhost event loop busy / JS thread CPU / process CPU, whole run -> to the last byte: ` +
      r.throughput.map((x) => `${x.workload} ${loadText(x.termhostLoad)} -> ${loadText(x.termhostStreamLoad)}`).join(', ') +
      `; mean PTY read ${r.throughput.map((x) => (x.termhostMeanReadBytes / 1024).toFixed(1)).join(' / ')} KiB`,
    `tmux server CPU during throughput runs: ` + r.throughput.map((x) => `${x.workload} ${pct(x.tmuxCpuShare)}`).join(', ') +
      `; both cores busy, termhost / tmux runs: ` +
      r.throughput.map((x) => `${x.workload} ${pct(x.termhostMachineBusy)} / ${pct(x.tmuxMachineBusy)}`).join(', '),
    `termhost JS-side growth per idle session: V8 heap ${r.memory.termhostHeapPerSessionKiB.toFixed(1)} KiB, ` +
      `external (buffers, typed arrays) ${r.memory.termhostExternalPerSessionKiB.toFixed(1)} KiB`,
    `CLI start-up p90: termhost ls ${fmt(r.startup.termhostLs.p90Ms)} ms, tmux ls ${fmt(r.startup.tmuxLs.p90Ms)} ms; ` +
      `node -e 0 (the floor of any Node CLI) p50 ${fmt(r.startup.nodeFloor.p50Ms)} ms, p90 ${fmt(r.startup.nodeFloor.p90Ms)} ms`,
    `termhost pictures: typical PNG p95 ${fmt(r.pictures.typicalPngP95Ms)} ms, ${(r.pictures.typicalPngBytes / 1024).toFixed(0)} KiB; ` +
      `true colour p95 ${fmt(r.pictures.trueColourPngP95Ms)} ms, ${(r.pictures.trueColourPngBytes / 1024).toFixed(0)} KiB; ` +
      `unchanged in-process ${fmt(r.pictures.unchangedInProcessP50Us)} us`,
    `termhost snapshot p95: text after every row changed ${fmt(s.textFullChangeP95Us)} us, after a one-row change ` +
      `${fmt(s.textUncachedP95Us)} us, cached ${fmt(s.textCachedP95Us)} us; ` +
      `HTTP after a change ${fmt(s.httpUncachedP95Us)} us`,
    ...(r.integration
      ? [
          `shell integration on vs off (plain stream through bash, median of ${r.integration.withRunsMs.length}): ` +
            `${fmt(r.integration.withMBps)} vs ${fmt(r.integration.withoutMBps)} MB/s = ${r.integration.ratio.toFixed(2)}x; ` +
            `the stream kept whole as one command's output: ${r.integration.withOutputKept}`,
        ]
      : []),
    ...(r.commands ? [`every termhost command answer said exited 0: ${r.commands.termhostAllExit0}`] : []),
    '',
    ...fanoutTable(r.fanout),
    ...(r.wall ? ['', wallLine(r.wall)] : []),
  ].join('\n');
}

/** Deep-round every number so the JSON diff between two runs shows changes, not float noise. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return round(value, 4);
  if (Array.isArray(value)) return value.map(rounded);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]));
  return value;
}

export function writeJson(file: string, r: Results, env: Environment, config: Record<string, unknown>): void {
  const t = TARGETS;
  const targets = {
    throughputAtOrAboveTmux: Object.fromEntries(r.throughput.map((x) => [x.workload, x.ratio >= t.throughputRatioMin])),
    keystrokeP50Under0_5Ms: r.latency.termhost.p50Ms < t.keystrokeP50MsMax,
    textSnapshotAfterChangeUnder60Us: r.snapshot.textUncachedP50Us < t.snapshotP50UsMax,
    textSnapshotAfterFullChangeUnder60Us: r.snapshot.textFullChangeP50Us < t.snapshotP50UsMax,
    typicalPngUnder50Ms: r.pictures.typicalPngP50Ms < PICTURE_TARGETS.typicalPngP50MsMax,
    unchangedPngUnder1Ms: r.pictures.unchangedHttpP50Ms < PICTURE_TARGETS.unchangedP50MsMax,
    trueColourPngUnder100Ms: r.pictures.trueColourPngP50Ms < PICTURE_TARGETS.trueColourPngP50MsMax,
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(rounded({ environment: env, config, targets, results: r }), null, 2) + '\n');
}

export function environment(
  tmuxVersion: string,
  durationS: number,
  run: { loadAvg1mAtStart: number; commit: string },
): Environment {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    node: process.version,
    tmux: tmuxVersion,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    kernel: `${os.type()} ${os.release()}`,
    totalMemMiB: Math.round(os.totalmem() / 1024 / 1024),
    ...run,
    durationS,
  };
}
