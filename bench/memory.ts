/**
 * Memory per idle session: how much a host's own process grows for each interactive shell it holds. Each host gets
 * a fresh process for this (a forked termhost daemon, a second tmux server), so earlier benchmarks' garbage and
 * allocator state do not blur the figure. Only the host's RSS counts: the shells are separate processes under both.
 *
 * Method for both: two sessions opened and closed untimed (loads code paths and terminfo once), baseline RSS, open
 * FIRST_SESSIONS shells at 200x50, wait until each shows its prompt and has been quiet, RSS again, then open more
 * up to TOTAL_SESSIONS and read RSS a third time. termhost's heap is collected (twice) before each reading.
 *
 * Two figures, because the first one is biased low for a garbage-collected host: after start-up V8 keeps heap pages
 * it has committed but no longer uses, and the first sessions fill those without any RSS growth (over repeated runs
 * the first-50 figure ranged from about 130 to 310 KiB while the JS heap grew by the same amount every time). The
 * marginal cost of sessions 51..150 is past that slack and is the figure to plan capacity with.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TermhostClient } from '../dist/client/TermhostClient.js';
import { TmuxServer } from './tmux.js';
import { sleep } from './stats.js';

/** The measurement: growth over the first 50 sessions. */
export const FIRST_SESSIONS = 50;
/** Sessions open at the marginal reading; the daemon child raises its session cap to allow them. */
export const TOTAL_SESSIONS = 150;
const COLS = 200;
const ROWS = 50;
/** A shell counts as idle once it printed its prompt and wrote nothing more for this long. */
const QUIET_MS = 200;
const PROMPT_DEADLINE_MS = 20_000;
/** The same shell under both hosts: no rc files, a one-character prompt, and no history file written at exit. */
const SHELL = ['bash', '--norc', '--noprofile'];
const SHELL_ENV = { PS1: '$ ', HISTFILE: '' };

export interface MemoryResult {
  firstSessions: number;
  totalSessions: number;
  termhostBaselineKiB: number;
  /** RSS growth over the first FIRST_SESSIONS sessions, per session. */
  termhostPerSessionKiB: number;
  /** RSS growth from FIRST_SESSIONS to TOTAL_SESSIONS sessions, per added session. */
  termhostMarginalKiB: number;
  /** V8 heap and external (Buffer, typed array) growth per session over all sessions: what the JS side accounts for. */
  termhostHeapPerSessionKiB: number;
  termhostExternalPerSessionKiB: number;
  tmuxBaselineKiB: number;
  tmuxPerSessionKiB: number;
  tmuxMarginalKiB: number;
  /** termhost / tmux over the first sessions; below 1 means termhost uses less. */
  ratio: number;
  /** termhost / tmux for the marginal sessions. */
  marginalRatio: number;
}

export function rssKiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

type ChildMessage =
  | { kind: 'ready'; address: string; token: string }
  | { kind: 'memory'; rssBytes: number; heapUsedBytes: number; externalBytes: number };

function nextMessage<K extends ChildMessage['kind']>(child: ChildProcess, kind: K): Promise<Extract<ChildMessage, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: ChildMessage) => {
      if (msg.kind !== kind) return;
      cleanup();
      resolve(msg as Extract<ChildMessage, { kind: K }>);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`memory daemon exited (${code}) while waiting for "${kind}"`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

async function termhostMemory(dir: string) {
  const script = fileURLToPath(new URL('./memoryDaemon.mjs', import.meta.url));
  const child = fork(script, [], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, TERMHOST_BENCH_DIR: dir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let client: TermhostClient | undefined;
  try {
    const ready = await nextMessage(child, 'ready');
    client = new TermhostClient({ address: ready.address, token: ready.token });
    const c = client;
    const openIdle = async (count: number): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        ids.push((await c.createSession({ command: SHELL, env: SHELL_ENV, cols: COLS, rows: ROWS })).id);
      }
      await Promise.all(
        ids.map(async (id) => {
          const prompt = await c.wait(id, { text: '$', timeout_ms: PROMPT_DEADLINE_MS });
          if (!prompt.matched) throw new Error(`termhost shell ${id} showed no prompt:\n${prompt.screen.lines.join('\n')}`);
          await c.wait(id, { quiet_ms: QUIET_MS, timeout_ms: PROMPT_DEADLINE_MS });
        }),
      );
      return ids;
    };
    const measure = async () => {
      child.send('gc');
      const m = await nextMessage(child, 'memory');
      return { ...m, rssKiB: rssKiB(child.pid!) };
    };

    for (const id of await openIdle(2)) await c.deleteSession(id);
    const before = await measure();
    await openIdle(FIRST_SESSIONS);
    const first = await measure();
    await openIdle(TOTAL_SESSIONS - FIRST_SESSIONS);
    const all = await measure();
    return {
      baselineKiB: before.rssKiB,
      perSessionKiB: (first.rssKiB - before.rssKiB) / FIRST_SESSIONS,
      marginalKiB: (all.rssKiB - first.rssKiB) / (TOTAL_SESSIONS - FIRST_SESSIONS),
      heapPerSessionKiB: (all.heapUsedBytes - before.heapUsedBytes) / 1024 / TOTAL_SESSIONS,
      externalPerSessionKiB: (all.externalBytes - before.externalBytes) / 1024 / TOTAL_SESSIONS,
    };
  } finally {
    client?.close();
    if (child.exitCode === null) {
      child.send('close');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }
}

async function tmuxMemory(dir: string) {
  const tmux = new TmuxServer(fs.mkdtempSync(`${dir}/tmux-mem-`));
  try {
    await tmux.start(COLS, ROWS);
    const pid = tmux.pid;
    const env = Object.entries(SHELL_ENV).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const openIdle = async (prefix: string, from: number, to: number) => {
      for (let i = from; i < to; i++) {
        await tmux.run('new-session', '-d', '-s', `${prefix}${i}`, '-x', `${COLS}`, '-y', `${ROWS}`, ...env, ...SHELL);
      }
      const deadline = Date.now() + PROMPT_DEADLINE_MS;
      for (let i = from; i < to; i++) {
        while (!(await tmux.run('capture-pane', '-p', '-t', `${prefix}${i}`)).startsWith('$')) {
          if (Date.now() > deadline) throw new Error(`tmux shell ${prefix}${i} showed no prompt`);
          await sleep(10);
        }
      }
      // The same quiet period termhost waits for, so neither host is measured mid-start-up.
      await sleep(QUIET_MS);
    };
    await openIdle('warm', 0, 2);
    for (let i = 0; i < 2; i++) await tmux.run('kill-session', '-t', `warm${i}`);
    const beforeKiB = rssKiB(pid);
    await openIdle('m', 0, FIRST_SESSIONS);
    const firstKiB = rssKiB(pid);
    await openIdle('m', FIRST_SESSIONS, TOTAL_SESSIONS);
    const allKiB = rssKiB(pid);
    return {
      baselineKiB: beforeKiB,
      perSessionKiB: (firstKiB - beforeKiB) / FIRST_SESSIONS,
      marginalKiB: (allKiB - firstKiB) / (TOTAL_SESSIONS - FIRST_SESSIONS),
    };
  } finally {
    await tmux.kill();
  }
}

export async function measureMemory(dir: string, log: (msg: string) => void): Promise<MemoryResult> {
  const th = await termhostMemory(dir);
  log(`memory termhost ${th.perSessionKiB.toFixed(0)} KiB/session, marginal ${th.marginalKiB.toFixed(0)} KiB`);
  const tm = await tmuxMemory(dir);
  log(`memory tmux ${tm.perSessionKiB.toFixed(1)} KiB/session, marginal ${tm.marginalKiB.toFixed(1)} KiB`);
  return {
    firstSessions: FIRST_SESSIONS,
    totalSessions: TOTAL_SESSIONS,
    termhostBaselineKiB: th.baselineKiB,
    termhostPerSessionKiB: th.perSessionKiB,
    termhostMarginalKiB: th.marginalKiB,
    termhostHeapPerSessionKiB: th.heapPerSessionKiB,
    termhostExternalPerSessionKiB: th.externalPerSessionKiB,
    tmuxBaselineKiB: tm.baselineKiB,
    tmuxPerSessionKiB: tm.perSessionKiB,
    tmuxMarginalKiB: tm.marginalKiB,
    ratio: th.perSessionKiB / tm.perSessionKiB,
    marginalRatio: th.marginalKiB / tm.marginalKiB,
  };
}
