/**
 * Snapshot cost: producing the text of a 200x60 screen in which every cell holds a character.
 *
 * - in-process: `Session.screenNow()`, the function every screen read ends in (lines, cursor, modes, exit state),
 *   timed call by call; also `screenNow(true)`, which adds the styled-ANSI repaint;
 * - over HTTP: a full GET /v1/sessions/{id}/screen through the typed client (auth, routing, serialisation, both
 *   ends of a loopback connection);
 * - tmux: `capture-pane -p` of the same screen, through the CLI and through a control-mode client.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BenchDaemon } from './termhost.js';
import type { TmuxServer } from './tmux.js';
import { median, nowMs, percentile } from './stats.js';

export const SNAPSHOT_COLS = 200;
export const SNAPSHOT_ROWS = 60;
/** Warm-up calls let V8 optimise the snapshot path before it is timed. */
const INPROC_WARMUP = 500;
export const INPROC_ITERATIONS = 2000;
const HTTP_WARMUP = 200;
export const HTTP_ITERATIONS = 2000;
/** A tmux CLI call costs milliseconds (a process start); fewer samples give the same median. */
const TMUX_CLI_ITERATIONS = 200;

export interface SnapshotResult {
  inProcessTextP50Us: number;
  inProcessTextP95Us: number;
  inProcessRawP50Us: number;
  httpP50Us: number;
  httpP95Us: number;
  tmuxControlP50Us: number;
  tmuxCliP50Us: number;
}

/**
 * Words with no trailing newline after the last row: 60 rows of exactly 200 characters fill the screen, and the
 * cursor stays parked at the end of the last row instead of opening an empty row that would scroll one away.
 */
function writeScreenFile(dir: string): string {
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore'.split(' ');
  const rows: string[] = [];
  for (let y = 0; y < SNAPSHOT_ROWS; y++) {
    let row = `${String(y).padStart(2, '0')}:`;
    for (let i = y; row.length < SNAPSHOT_COLS; i++) row += ` ${words[i % words.length]}`;
    // A visible last cell: screen lines are right-trimmed, and a full row must read back as 200 characters.
    rows.push(`${row.slice(0, SNAPSHOT_COLS - 1)}|`);
  }
  const file = path.join(dir, 'screen.txt');
  fs.writeFileSync(file, rows.join('\n'));
  return file;
}

function isFull(lines: readonly string[]): boolean {
  return lines.length >= SNAPSHOT_ROWS && lines.slice(0, SNAPSHOT_ROWS).every((l) => l.length === SNAPSHOT_COLS);
}

/** Per-call times in microseconds of `fn`, after `warmup` untimed calls. */
async function timeCalls(warmup: number, iterations: number, fn: () => unknown): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const us: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = nowMs();
    await fn();
    us.push((nowMs() - t0) * 1000);
  }
  return us;
}

/** The same, for a synchronous function: no await between calls, so nothing but the call itself is timed. */
function timeSync(warmup: number, iterations: number, fn: () => unknown): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const us: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = nowMs();
    fn();
    us.push((nowMs() - t0) * 1000);
  }
  return us;
}

export async function measureSnapshot(
  th: BenchDaemon,
  tmux: TmuxServer,
  dir: string,
  log: (msg: string) => void,
): Promise<SnapshotResult> {
  const file = writeScreenFile(dir);
  // Keep the program alive after printing: the screen of a live session is the common case.
  const command = ['sh', '-c', `cat '${file}'; exec sleep 3600`];

  const info = await th.client.createSession({ command, cols: SNAPSHOT_COLS, rows: SNAPSHOT_ROWS });
  let inProcText: number[];
  let inProcRaw: number[];
  let http: number[];
  try {
    // The last row complete, not merely started: output can arrive split anywhere.
    const lastRow = `^${SNAPSHOT_ROWS - 1}:.{${SNAPSHOT_COLS - 4}}\\|$`;
    const ready = await th.client.wait(info.id, { regex: lastRow, timeout_ms: 10_000 });
    if (!isFull(ready.screen.lines)) throw new Error(`termhost snapshot screen is not full:\n${ready.screen.lines.join('\n')}`);
    const session = th.session(info.id);
    inProcText = timeSync(INPROC_WARMUP, INPROC_ITERATIONS, () => session.screenNow());
    inProcRaw = timeSync(INPROC_WARMUP / 5, INPROC_ITERATIONS / 4, () => session.screenNow(true));
    http = await timeCalls(HTTP_WARMUP, HTTP_ITERATIONS, () => th.client.screen(info.id));
  } finally {
    await th.client.deleteSession(info.id);
  }
  log(`snapshot termhost in-process p50 ${median(inProcText).toFixed(1)} us, http p50 ${median(http).toFixed(1)} us`);

  await tmux.run('new-session', '-d', '-s', 'snap', '-x', `${SNAPSHOT_COLS}`, '-y', `${SNAPSHOT_ROWS}`, ...command);
  let tmuxCtl: number[];
  let tmuxCli: number[];
  try {
    const deadline = Date.now() + 10_000;
    while (!isFull((await tmux.run('capture-pane', '-p', '-t', 'snap')).split('\n'))) {
      if (Date.now() > deadline) throw new Error('tmux snapshot screen never filled');
    }
    const ctl = await tmux.control('snap');
    try {
      tmuxCtl = await timeCalls(HTTP_WARMUP, HTTP_ITERATIONS, () => ctl.command('capture-pane -p -t snap'));
    } finally {
      await ctl.close();
    }
    tmuxCli = await timeCalls(10, TMUX_CLI_ITERATIONS, () => tmux.run('capture-pane', '-p', '-t', 'snap'));
  } finally {
    await tmux.run('kill-session', '-t', 'snap');
  }
  log(`snapshot tmux control p50 ${median(tmuxCtl).toFixed(1)} us, cli p50 ${median(tmuxCli).toFixed(1)} us`);

  return {
    inProcessTextP50Us: median(inProcText),
    inProcessTextP95Us: percentile(inProcText, 95),
    inProcessRawP50Us: median(inProcRaw),
    httpP50Us: median(http),
    httpP95Us: percentile(http, 95),
    tmuxControlP50Us: median(tmuxCtl),
    tmuxCliP50Us: median(tmuxCli),
  };
}
