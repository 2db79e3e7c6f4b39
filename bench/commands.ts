/**
 * One call per command, and what shell integration costs.
 *
 * Round trip: `true` run COMMAND_SAMPLES times in one bash session, after COMMAND_WARMUP untimed runs.
 * - termhost: `POST /v1/sessions/{id}/commands {"command": "true"}` through the typed client (keep-alive); the answer
 *   carries the exit code and the command's own output.
 * - tmux, as libtmux-mcp runs a command: `send-keys 'true; tmux wait-for -S CH' Enter`, then `wait-for CH` (blocks
 *   until the shell signals it), then `capture-pane -p` to read what the command printed, each a tmux client process,
 *   as a script drives tmux. The same three commands through one control-mode client (`tmux -C`) are measured too,
 *   the nearest tmux gets to a keep-alive connection. Neither knows the exit status without more work (`echo $?`);
 *   termhost's answer has it.
 * Both shells are bash with an rc file that sets only a plain prompt; tmux's bash has no integration (it needs none).
 *
 * Integration cost: the plain 16 MiB stream through bash with integration (the default) and with
 * `"shell_integration": false`, in alternating runs: type `cat FILE; exit` at the prompt and time it until the exit
 * has been reported with every byte parsed. With integration the stream is a command's output: its lines are spooled
 * as they leave the scrollback and the whole output is kept for paging.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TermhostClient } from '../dist/client/TermhostClient.js';
import { median, nowMs, percentile } from './stats.js';
import { startBenchDaemon, waitExit, type BenchDaemon } from './termhost.js';
import type { TmuxControl, TmuxServer } from './tmux.js';
import type { Workload } from './workloads.js';

export const COMMAND_SAMPLES = 200;
export const COMMAND_WARMUP = 20;
export const INTEGRATION_RUNS = 5;
const COLS = 200;
const ROWS = 50;

export interface Percentiles {
  p50Ms: number;
  p99Ms: number;
}

export interface CommandResult {
  termhost: Percentiles;
  tmuxCli: Percentiles;
  tmuxControl: Percentiles;
  /** Every termhost answer said exited with code 0. */
  termhostAllExit0: boolean;
}

export interface IntegrationCost {
  withMBps: number;
  withoutMBps: number;
  /** with / without: 1.00 means free. */
  ratio: number;
  withRunsMs: number[];
  withoutRunsMs: number[];
  /** Every "with" run recorded the stream as one command with its whole output kept. */
  withOutputKept: boolean;
}

const stats = (ms: number[]): Percentiles => ({ p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99) });

/** A HOME whose .bashrc sets only a plain prompt, so neither host runs the machine's own rc files. */
function benchHome(dir: string): string {
  const home = fs.mkdtempSync(path.join(dir, 'home-'));
  fs.writeFileSync(path.join(home, '.bashrc'), "PS1='bench$ '\n");
  return home;
}

async function bashSession(client: TermhostClient, home: string, integration: boolean): Promise<string> {
  const s = await client.createSession({ command: ['bash'], env: { HOME: home }, cwd: home, cols: COLS, rows: ROWS, shell_integration: integration });
  const ready = await client.wait(s.id, { regex: '^bench\\$ ?$', timeout_ms: 10_000 });
  if (!ready.matched) throw new Error('bench: bash did not show its prompt');
  return s.id;
}

export async function measureCommands(th: BenchDaemon, tmux: TmuxServer, dir: string, log: (m: string) => void): Promise<CommandResult> {
  const home = benchHome(dir);
  const id = await bashSession(th.client, home, true);
  const termhostMs: number[] = [];
  let allExit0 = true;
  for (let i = -COMMAND_WARMUP; i < COMMAND_SAMPLES; i++) {
    const t0 = nowMs();
    const r = await th.client.run(id, 'true', { timeoutMs: 10_000 });
    const ms = nowMs() - t0;
    allExit0 &&= r.status === 'exited' && r.exit_code === 0;
    if (i >= 0) termhostMs.push(ms);
  }
  await th.client.deleteSession(id);
  log(`commands: termhost p50 ${median(termhostMs).toFixed(2)} ms`);

  await tmux.run('new-session', '-d', '-s', 'cmds', '-x', `${COLS}`, '-y', `${ROWS}`, 'env', `HOME=${home}`, 'bash');
  await waitForPrompt(tmux);
  const target = 'cmds';
  const cliMs: number[] = [];
  for (let i = -COMMAND_WARMUP; i < COMMAND_SAMPLES; i++) {
    const channel = `th-bench-${i + COMMAND_WARMUP}`;
    const t0 = nowMs();
    await tmux.run('send-keys', '-t', target, `true; tmux -S ${tmux.socket} wait-for -S ${channel}`, 'Enter');
    await tmux.run('wait-for', channel);
    await tmux.run('capture-pane', '-p', '-t', target);
    if (i >= 0) cliMs.push(nowMs() - t0);
  }
  log(`commands: tmux CLI p50 ${median(cliMs).toFixed(2)} ms`);
  const control: TmuxControl = await tmux.control(target);
  const controlMs: number[] = [];
  try {
    for (let i = -COMMAND_WARMUP; i < COMMAND_SAMPLES; i++) {
      const channel = `th-bench-c${i + COMMAND_WARMUP}`;
      const t0 = nowMs();
      await control.command(`send-keys -t ${target} 'true; tmux -S ${tmux.socket} wait-for -S ${channel}' Enter`);
      await control.command(`wait-for ${channel}`);
      await control.command(`capture-pane -p -t ${target}`);
      if (i >= 0) controlMs.push(nowMs() - t0);
    }
  } finally {
    await control.close();
    await tmux.run('kill-session', '-t', target);
  }
  log(`commands: tmux -C p50 ${median(controlMs).toFixed(2)} ms`);
  return { termhost: stats(termhostMs), tmuxCli: stats(cliMs), tmuxControl: stats(controlMs), termhostAllExit0: allExit0 };
}

async function waitForPrompt(tmux: TmuxServer): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await tmux.run('capture-pane', '-p', '-t', 'cmds')).includes('bench$')) {
    if (Date.now() > deadline) throw new Error('bench: tmux bash did not show its prompt');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function measureIntegrationCost(dir: string, plain: Workload, log: (m: string) => void): Promise<IntegrationCost> {
  const th = await startBenchDaemon(dir);
  const home = benchHome(dir);
  const withRunsMs: number[] = [];
  const withoutRunsMs: number[] = [];
  let withOutputKept = true;
  try {
    for (let run = -1; run < INTEGRATION_RUNS; run++) {
      for (const integration of [true, false]) {
        const id = await bashSession(th.client, home, integration);
        const t0 = nowMs();
        await th.client.input(id, [{ text: `cat ${plain.file}; exit` }, { key: 'Enter' }]);
        await waitExit(th.client, id, Date.now() + 120_000);
        const ms = nowMs() - t0;
        if (integration) {
          const [cmd] = await th.client.commands(id);
          withOutputKept &&= cmd !== undefined && cmd.status === 'exited' && cmd.output_bytes > plain.bytes * 0.9;
        }
        await th.client.deleteSession(id);
        await th.settle();
        if (run >= 0) (integration ? withRunsMs : withoutRunsMs).push(ms);
      }
    }
  } finally {
    await th.stop();
  }
  const mbps = (ms: number) => plain.bytes / 1e6 / (ms / 1000);
  const withMBps = mbps(median(withRunsMs));
  const withoutMBps = mbps(median(withoutRunsMs));
  log(`integration: with ${withMBps.toFixed(1)} MB/s, without ${withoutMBps.toFixed(1)} MB/s (${(withMBps / withoutMBps).toFixed(2)}x)`);
  return { withMBps, withoutMBps, ratio: withMBps / withoutMBps, withRunsMs, withoutRunsMs, withOutputKept };
}
