/**
 * One CLI call, start to finish: `termhost ls` (a new Node process that loads the CLI and the client, asks the
 * daemon, prints, exits) against `tmux ls` (a C client asking its server), and `node -e 0`, the floor any Node CLI
 * stands on. Each is a fresh process per sample, spawned asynchronously so the daemon in this process keeps answering.
 * The target: `termhost ls` under 150 ms (median) on the bench machine.
 *
 * Run alone: `npm run build && node --import tsx bench/startup.ts` (its own daemon and tmux server).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median, nowMs, percentile } from './stats.js';
import { startBenchDaemon, type BenchDaemon } from './termhost.js';
import { TmuxServer } from './tmux.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

export const STARTUP_WARMUP = 3;
export const STARTUP_SAMPLES = 30;
/** The bar for `termhost ls`, median, in ms. */
export const STARTUP_TARGET_MS = 150;

export interface StartupResult {
  termhostLs: { p50Ms: number; p90Ms: number };
  tmuxLs: { p50Ms: number; p90Ms: number };
  nodeFloor: { p50Ms: number; p90Ms: number };
}

export async function measureStartup(th: BenchDaemon, tmux: TmuxServer, log: (m: string) => void): Promise<StartupResult> {
  const env = { ...process.env, TERMHOST_ADDR: th.daemon.address, TERMHOST_TOKEN: th.client.token };
  // Interleaved rounds, so a burst of load elsewhere on the machine lands on all three alike.
  const rounds = { termhostLs: [] as number[], tmuxLs: [] as number[], nodeFloor: [] as number[] };
  const cases: Array<[keyof typeof rounds, string, string[]]> = [
    ['termhostLs', process.execPath, [BIN, 'ls']],
    ['tmuxLs', 'tmux', ['-S', tmux.socket, 'ls']],
    ['nodeFloor', process.execPath, ['-e', '0']],
  ];
  for (let i = -STARTUP_WARMUP; i < STARTUP_SAMPLES; i++) {
    for (const [key, cmd, args] of cases) {
      const t0 = nowMs();
      await run(cmd, args, { env });
      if (i >= 0) rounds[key].push(nowMs() - t0);
    }
  }
  const stat = (ms: number[]) => ({ p50Ms: median(ms), p90Ms: percentile(ms, 90) });
  const r = { termhostLs: stat(rounds.termhostLs), tmuxLs: stat(rounds.tmuxLs), nodeFloor: stat(rounds.nodeFloor) };
  log(`start-up: termhost ls ${r.termhostLs.p50Ms.toFixed(0)} ms, tmux ls ${r.tmuxLs.p50Ms.toFixed(1)} ms, node -e 0 ${r.nodeFloor.p50Ms.toFixed(0)} ms (medians)`);
  return r;
}

// Alone: a daemon and a tmux server of its own, the three medians, and the target.
if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-bench-startup-'));
  const tmux = new TmuxServer(dir);
  const th = await startBenchDaemon(dir, { transcripts: false });
  try {
    await tmux.start(80, 24);
    const r = await measureStartup(th, tmux, (m) => process.stderr.write(`${m}\n`));
    const row = (name: string, x: { p50Ms: number; p90Ms: number }) => `${name.padEnd(12)} p50 ${x.p50Ms.toFixed(1).padStart(6)} ms   p90 ${x.p90Ms.toFixed(1).padStart(6)} ms`;
    process.stdout.write(
      [
        `load average ${os.loadavg()[0]!.toFixed(2)}, ${os.cpus().length} cores, node ${process.versions.node}`,
        row('termhost ls', r.termhostLs),
        row('tmux ls', r.tmuxLs),
        row('node -e 0', r.nodeFloor),
        `termhost/tmux ${(r.termhostLs.p50Ms / r.tmuxLs.p50Ms).toFixed(1)}x; over the Node floor ${(r.termhostLs.p50Ms - r.nodeFloor.p50Ms).toFixed(0)} ms; ` +
          `target < ${STARTUP_TARGET_MS} ms: ${r.termhostLs.p50Ms < STARTUP_TARGET_MS ? 'met' : 'NOT met'}`,
      ].join('\n') + '\n',
    );
  } finally {
    await th.stop();
    await tmux.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
