/**
 * Memory per idle session: how much a host's own process grows for each interactive shell it holds. Each host gets
 * a fresh process for this (a forked termhost daemon, a second tmux server), so earlier benchmarks' garbage and
 * allocator state do not blur the figure. Only the host's RSS counts: the shells are separate processes under both.
 *
 * Method for both: one session opened and closed untimed (loads code paths and terminfo once), baseline RSS, open
 * SESSIONS shells at 200x50, wait until each shows its prompt and has been quiet, RSS again; the difference over
 * SESSIONS is the per-session cost. termhost's heap is collected (twice) before each reading.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TermhostClient } from '../dist/client/TermhostClient.js';
import { TmuxServer } from './tmux.js';
import { sleep } from './stats.js';

export const MEMORY_SESSIONS = 150;
const COLS = 200;
const ROWS = 50;
/** A shell counts as idle once it printed its prompt and wrote nothing more for this long. */
const QUIET_MS = 200;
const PROMPT_DEADLINE_MS = 20_000;
/** The same shell under both hosts: no rc files, a one-character prompt, and no history file written at exit. */
const SHELL = ['bash', '--norc', '--noprofile'];
const SHELL_ENV = { PS1: '$ ', HISTFILE: '' };

export interface MemoryResult {
  sessions: number;
  termhostBaselineKiB: number;
  termhostPerSessionKiB: number;
  /** V8 heap and external (Buffer, typed array) growth per session: the part of the RSS growth that is JS objects. */
  termhostHeapPerSessionKiB: number;
  termhostExternalPerSessionKiB: number;
  tmuxBaselineKiB: number;
  tmuxPerSessionKiB: number;
  /** termhost / tmux; below 1 means termhost uses less. */
  ratio: number;
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
  const script = fileURLToPath(new URL('./memoryDaemon.ts', import.meta.url));
  const child = fork(script, [], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
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
    await openIdle(MEMORY_SESSIONS);
    const after = await measure();
    return {
      baselineKiB: before.rssKiB,
      perSessionKiB: (after.rssKiB - before.rssKiB) / MEMORY_SESSIONS,
      heapPerSessionKiB: (after.heapUsedBytes - before.heapUsedBytes) / 1024 / MEMORY_SESSIONS,
      externalPerSessionKiB: (after.externalBytes - before.externalBytes) / 1024 / MEMORY_SESSIONS,
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
    const pid = await tmux.serverPid();
    const env = Object.entries(SHELL_ENV).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const openIdle = async (prefix: string, count: number) => {
      for (let i = 0; i < count; i++) {
        await tmux.run('new-session', '-d', '-s', `${prefix}${i}`, '-x', `${COLS}`, '-y', `${ROWS}`, ...env, ...SHELL);
      }
      const deadline = Date.now() + PROMPT_DEADLINE_MS;
      for (let i = 0; i < count; i++) {
        while (!(await tmux.run('capture-pane', '-p', '-t', `${prefix}${i}`)).startsWith('$')) {
          if (Date.now() > deadline) throw new Error(`tmux shell ${prefix}${i} showed no prompt`);
          await sleep(10);
        }
      }
      // The same quiet period termhost waits for, so neither host is measured mid-start-up.
      await sleep(QUIET_MS);
    };
    await openIdle('warm', 2);
    for (let i = 0; i < 2; i++) await tmux.run('kill-session', '-t', `warm${i}`);
    const beforeKiB = rssKiB(pid);
    await openIdle('m', MEMORY_SESSIONS);
    const afterKiB = rssKiB(pid);
    return { baselineKiB: beforeKiB, perSessionKiB: (afterKiB - beforeKiB) / MEMORY_SESSIONS };
  } finally {
    await tmux.kill();
  }
}

export async function measureMemory(dir: string, log: (msg: string) => void): Promise<MemoryResult> {
  const th = await termhostMemory(dir);
  log(`memory termhost ${th.perSessionKiB.toFixed(0)} KiB/session (baseline ${th.baselineKiB} KiB)`);
  const tm = await tmuxMemory(dir);
  log(`memory tmux ${tm.perSessionKiB.toFixed(0)} KiB/session (baseline ${tm.baselineKiB} KiB)`);
  return {
    sessions: MEMORY_SESSIONS,
    termhostBaselineKiB: th.baselineKiB,
    termhostPerSessionKiB: th.perSessionKiB,
    termhostHeapPerSessionKiB: th.heapPerSessionKiB,
    termhostExternalPerSessionKiB: th.externalPerSessionKiB,
    tmuxBaselineKiB: tm.baselineKiB,
    tmuxPerSessionKiB: tm.perSessionKiB,
    ratio: th.perSessionKiB / tm.perSessionKiB,
  };
}
