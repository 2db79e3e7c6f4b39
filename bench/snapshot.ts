/**
 * Snapshot cost: producing the text of a 200x60 screen in which every cell holds a character.
 *
 * The screen text is cached per screen generation (bumped by every parse and resize), so reading an unchanged screen
 * costs a cache lookup and an array copy. After a change, only the rows xterm reported changed are read again, so a
 * one-row change costs one row and a screen that scrolled or was redrawn costs all 60. All three are measured, and
 * the target applies to the last: a screen worth reading has usually just changed, often all of it.
 *
 * - in-process: `Session.screenNow()`, the function every screen read ends in (lines, cursor, modes, exit state),
 *   timed call by call, on the unchanged screen (cached), after a one-row change before every call, and after a
 *   redraw of every row before every call; also `screenNow(true)` after a one-row change, which adds the styled-ANSI
 *   repaint;
 * - over HTTP: a full GET /v1/sessions/{id}/screen through the typed client (auth, routing, serialisation, both
 *   ends of a loopback connection), unchanged and after a change;
 * - tmux: `capture-pane -p` of the same screen, through the CLI and through a control-mode client. tmux has no such
 *   cache: every capture renders the grid.
 *
 * The change is made in-process and untimed: the last row (or every row) is rewritten in place (cursor-addressed, so
 * nothing scrolls) by feeding the bytes straight to the session's emulator, which parses them synchronously and bumps
 * the generation. Only the snapshot call or request after it is on the clock.
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
  /** `screenNow()` on an unchanged screen: the generation cache answers. */
  textCachedP50Us: number;
  textCachedP95Us: number;
  /** `screenNow()` right after a one-row change: that row is read from xterm again. */
  textUncachedP50Us: number;
  textUncachedP95Us: number;
  /** `screenNow()` right after every row changed: all 60 rows are read from xterm again. */
  textFullChangeP50Us: number;
  textFullChangeP95Us: number;
  /** `screenNow(true)` right after a one-row change. */
  styledUncachedP50Us: number;
  httpCachedP50Us: number;
  httpUncachedP50Us: number;
  httpUncachedP95Us: number;
  tmuxControlP50Us: number;
  tmuxCliP50Us: number;
}

/**
 * Words with no trailing newline after the last row: 60 rows of exactly 200 characters fill the screen, and the
 * cursor stays parked at the end of the last row instead of opening an empty row that would scroll one away.
 */
function writeScreenFile(dir: string): string {
  const rows: string[] = [];
  for (let y = 0; y < SNAPSHOT_ROWS; y++) rows.push(screenRow(y, 0));
  const file = path.join(dir, 'screen.txt');
  fs.writeFileSync(file, rows.join('\n'));
  return file;
}

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore'.split(' ');

/** Row `y` of the screen, exactly SNAPSHOT_COLS characters; `shift` starts it at a later word, for a changed row. */
function screenRow(y: number, shift: number): string {
  let row = `${String(y).padStart(2, '0')}:`;
  for (let i = y + shift; row.length < SNAPSHOT_COLS; i++) row += ` ${WORDS[i % WORDS.length]}`;
  // A visible last cell: screen lines are right-trimmed, and a full row must read back as 200 characters.
  return `${row.slice(0, SNAPSHOT_COLS - 1)}|`;
}

/**
 * Two rewrites of the last row, alternated so that every one changes the screen: cursor to the row's start, then a
 * full row. The cursor ends parked at the end of the row again, as after the `cat`, so nothing ever scrolls.
 */
function lastRowRewrites(): Buffer[] {
  const y = SNAPSHOT_ROWS - 1;
  return [1, 2].map((shift) => Buffer.from(`\x1b[${SNAPSHOT_ROWS};1H${screenRow(y, shift)}`));
}

/** Two redraws of the whole screen, alternated; each row cursor-addressed, the cursor parked where `cat` left it. */
function screenRewrites(): Buffer[] {
  return [1, 2].map((shift) => {
    let out = '';
    for (let y = 0; y < SNAPSHOT_ROWS; y++) out += `\x1b[${y + 1};1H${screenRow(y, shift)}`;
    return Buffer.from(out);
  });
}

function isFull(lines: readonly string[]): boolean {
  return lines.length >= SNAPSHOT_ROWS && lines.slice(0, SNAPSHOT_ROWS).every((l) => l.length === SNAPSHOT_COLS);
}

/** Per-call times in microseconds of `fn`, after `warmup` untimed calls; `before` runs untimed ahead of every call. */
async function timeCalls(warmup: number, iterations: number, fn: () => unknown, before = () => {}): Promise<number[]> {
  for (let i = 0; i < warmup; i++) {
    before();
    await fn();
  }
  const us: number[] = [];
  for (let i = 0; i < iterations; i++) {
    before();
    const t0 = nowMs();
    await fn();
    us.push((nowMs() - t0) * 1000);
  }
  return us;
}

/** The same, for a synchronous function: no await between calls, so nothing but the call itself is timed. */
function timeSync(warmup: number, iterations: number, fn: () => unknown, before = () => {}): number[] {
  for (let i = 0; i < warmup; i++) {
    before();
    fn();
  }
  const us: number[] = [];
  for (let i = 0; i < iterations; i++) {
    before();
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
  let cached: number[];
  let uncached: number[];
  let fullChange: number[];
  let styled: number[];
  let httpCached: number[];
  let httpUncached: number[];
  try {
    // The last row complete, not merely started: output can arrive split anywhere.
    const lastRow = `^${SNAPSHOT_ROWS - 1}:.{${SNAPSHOT_COLS - 4}}\\|$`;
    const ready = await th.client.wait(info.id, { regex: lastRow, timeout_ms: 10_000 });
    if (!isFull(ready.screen.lines)) throw new Error(`termhost snapshot screen is not full:\n${ready.screen.lines.join('\n')}`);
    const session = th.session(info.id);
    const emu = session.emulator;
    const rewrites = lastRowRewrites();
    let n = 0;
    const changeRow = () => {
      const before = emu.generation;
      emu.feed(rewrites[n++ % rewrites.length]!);
      // Parsed during feed (nothing was pending), so the next read must render again; otherwise this times the cache.
      if (emu.generation === before) throw new Error('snapshot: feeding a row did not change the screen generation');
    };
    const screens = screenRewrites();
    let m = 0;
    const changeScreen = () => {
      const before = emu.generation;
      emu.feed(screens[m++ % screens.length]!);
      if (emu.generation === before) throw new Error('snapshot: feeding a screen did not change the screen generation');
    };
    const read = () => session.screenNow();
    cached = timeSync(INPROC_WARMUP, INPROC_ITERATIONS, read);
    uncached = timeSync(INPROC_WARMUP, INPROC_ITERATIONS, read, changeRow);
    fullChange = timeSync(INPROC_WARMUP, INPROC_ITERATIONS, read, changeScreen);
    const redrawn = session.screenNow().lines;
    if (!isFull(redrawn) || redrawn[0] !== screenRow(0, 1 + ((m - 1) % screens.length))) {
      throw new Error(`termhost snapshot screen after the redraws is not as fed:\n${redrawn.join('\n')}`);
    }
    styled = timeSync(INPROC_WARMUP / 5, INPROC_ITERATIONS / 4, () => session.screenNow(true), changeRow);
    httpCached = await timeCalls(HTTP_WARMUP, HTTP_ITERATIONS, () => th.client.screen(info.id));
    httpUncached = await timeCalls(HTTP_WARMUP, HTTP_ITERATIONS, () => th.client.screen(info.id), changeRow);
    const last = session.screenNow().lines;
    if (!isFull(last) || last[SNAPSHOT_ROWS - 1] !== screenRow(SNAPSHOT_ROWS - 1, 1 + ((n - 1) % rewrites.length))) {
      throw new Error(`termhost snapshot screen after the row rewrites is not as fed:\n${last.join('\n')}`);
    }
  } finally {
    await th.client.deleteSession(info.id);
  }
  log(
    `snapshot termhost in-process p50 cached ${median(cached).toFixed(1)} us, after a one-row change ${median(uncached).toFixed(1)} us, ` +
      `after every row changed ${median(fullChange).toFixed(1)} us; ` +
      `http p50 cached ${median(httpCached).toFixed(1)} us, after a change ${median(httpUncached).toFixed(1)} us`,
  );

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
    textCachedP50Us: median(cached),
    textCachedP95Us: percentile(cached, 95),
    textUncachedP50Us: median(uncached),
    textUncachedP95Us: percentile(uncached, 95),
    textFullChangeP50Us: median(fullChange),
    textFullChangeP95Us: percentile(fullChange, 95),
    styledUncachedP50Us: median(styled),
    httpCachedP50Us: median(httpCached),
    httpUncachedP50Us: median(httpUncached),
    httpUncachedP95Us: percentile(httpUncached, 95),
    tmuxControlP50Us: median(tmuxCtl),
    tmuxCliP50Us: median(tmuxCli),
  };
}
