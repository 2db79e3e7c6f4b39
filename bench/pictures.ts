/**
 * Picture cost: a 200x50 screen drawn as PNG (and SVG) through the whole path a client sees: GET .../screen?format=png
 * over HTTP, the route, the secret-window check, the cell grid, the picture worker (glyph atlas, pixel copy, deflate)
 * and the bytes back. Three screens, as the pictures issue states its targets:
 *
 * - typical output: a build log with coloured words, dim timestamps, a test summary and an inverse status bar,
 *   redrawn (one row, untimed) before every timed request so the cache cannot answer;
 * - the same screen unchanged: the per-screen picture cache answers (over HTTP, and in-process `Session.picture`);
 * - every cell its own true-colour foreground and background, the whole screen redrawn before every request: the most
 *   colours a glyph atlas and deflate can meet.
 *
 * The change is made in-process and untimed by feeding bytes to the session's emulator, as the snapshot benchmark does.
 * Run alone with `npm run build && node --import tsx bench/pictures.ts`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SYSTEM_ACTOR } from '../dist/core/index.js';
import { startBenchDaemon, type BenchDaemon } from './termhost.js';
import { median, nowMs, percentile } from './stats.js';

export const PICTURE_COLS = 200;
export const PICTURE_ROWS = 50;
const WARMUP = 10;
export const PICTURE_ITERATIONS = 100;
const CACHED_ITERATIONS = 500;

/** The targets the pictures issue states. */
export const PICTURE_TARGETS = { typicalPngP50MsMax: 50, unchangedP50MsMax: 1, trueColourPngP50MsMax: 100 } as const;

export interface PictureResult {
  /** PNG of the typical screen after a one-row change, over HTTP. */
  typicalPngP50Ms: number;
  typicalPngP95Ms: number;
  typicalPngBytes: number;
  /** SVG of the same, for comparison. */
  typicalSvgP50Ms: number;
  /** The unchanged screen again: over HTTP (bytes included), and in-process. */
  unchangedHttpP50Ms: number;
  unchangedInProcessP50Us: number;
  /** PNG of a screen where every cell has its own true-colour foreground and background, redrawn every time. */
  trueColourPngP50Ms: number;
  trueColourPngP95Ms: number;
  trueColourPngBytes: number;
}

const rgb = (r: number, g: number, b: number) => `${r};${g};${b}`;

/** A build log: what a terminal typically holds. Row `y`, variant `v` (to make a changed row differ). */
function typicalRow(y: number, v: number): string {
  const stamp = `\x1b[2m12:${String(10 + (y % 50)).padStart(2, '0')}:${String((y * 7 + v) % 60).padStart(2, '0')}\x1b[0m `;
  const kinds = [
    `\x1b[1;31merror\x1b[0m src/core/session/Session${y}.ts:${y + 10}:5 - TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.`,
    `\x1b[32m PASS \x1b[0m test/pictures.test.ts (${(y * 0.37 + v).toFixed(2)} s) \x1b[36m${y} tests\x1b[0m, all of them green and accounted for`,
    `\x1b[33mwarning\x1b[0m: unused variable \x1b[1m\`cells_${y}\`\x1b[0m in function draw_row, line ${y * 3}; prefix it with an underscore to silence this`,
    `    at Object.<anonymous> (/home/user/project/node_modules/some-library/dist/index.js:${y * 11}:${v + 3}) \x1b[90m[internal]\x1b[0m`,
    `\x1b[38;5;39m==>\x1b[0m Compiling module ${y} of ${PICTURE_ROWS} [\x1b[38;2;80;200;120m${'#'.repeat(y % 30)}\x1b[0m${'.'.repeat(30 - (y % 30))}] ${Math.round((y / PICTURE_ROWS) * 100)}%`,
  ];
  return (stamp + kinds[y % kinds.length]!).slice(0, 400);
}

function typicalScreen(): string {
  let out = '\x1b[2J';
  for (let y = 0; y < PICTURE_ROWS - 1; y++) out += `\x1b[${y + 1};1H${typicalRow(y, 0)}`;
  out += `\x1b[${PICTURE_ROWS};1H\x1b[7m ${'termhost build: 3 errors, 12 warnings, 200 tests passed'.padEnd(PICTURE_COLS - 2)} \x1b[0m`;
  return out;
}

/** Every cell its own true-colour foreground and background; `v` shifts the colours so each redraw differs. */
function trueColourScreen(v: number): string {
  let out = '';
  for (let y = 0; y < PICTURE_ROWS; y++) {
    out += `\x1b[${y + 1};1H`;
    for (let x = 0; x < PICTURE_COLS; x++) {
      const fg = rgb((x * 5 + v) & 255, (y * 9 + x) & 255, (x * y + v * 3) & 255);
      const bg = rgb((255 - x) & 255, (y * 5 + v) & 255, (x * 3 + y) & 255);
      out += `\x1b[38;2;${fg}m\x1b[48;2;${bg}m${String.fromCharCode(33 + ((x + y + v) % 94))}`;
    }
  }
  return `${out}\x1b[0m`;
}

async function timeCalls(warmup: number, iterations: number, fn: () => Promise<unknown>, before = () => {}): Promise<number[]> {
  for (let i = 0; i < warmup; i++) {
    before();
    await fn();
  }
  const ms: number[] = [];
  for (let i = 0; i < iterations; i++) {
    before();
    const t0 = nowMs();
    await fn();
    ms.push(nowMs() - t0);
  }
  return ms;
}

export async function measurePictures(th: BenchDaemon, log: (msg: string) => void): Promise<PictureResult> {
  const info = await th.client.createSession({ command: ['sh', '-c', 'exec sleep 3600'], cols: PICTURE_COLS, rows: PICTURE_ROWS });
  try {
    const session = th.session(info.id);
    const emu = session.emulator;
    const feed = (s: string) => {
      const before = emu.generation;
      emu.feed(Buffer.from(s));
      if (emu.generation === before) throw new Error('pictures: feeding did not change the screen generation');
    };
    feed(typicalScreen());
    let n = 0;
    // One row rewritten in place, alternating between two variants so every one is a change.
    const changeRow = () => feed(`\x1b[20;1H\x1b[2K${typicalRow(19, 1 + (n++ % 2))}`);
    const png = () => th.client.screenshot(info.id);
    const typical = await timeCalls(WARMUP, PICTURE_ITERATIONS, png, changeRow);
    const typicalBytes = (await png()).bytes.length;
    const svg = await timeCalls(WARMUP, PICTURE_ITERATIONS, () => th.client.screenshot(info.id, { format: 'svg' }), changeRow);
    await png();
    const unchanged = await timeCalls(WARMUP, CACHED_ITERATIONS, png);
    const inProcess = await timeCalls(WARMUP, CACHED_ITERATIONS, () => session.picture(SYSTEM_ACTOR, { format: 'png' }));
    let m = 0;
    const trueColour = await timeCalls(WARMUP, PICTURE_ITERATIONS, png, () => feed(trueColourScreen(m++)));
    const trueColourBytes = (await png()).bytes.length;
    const r: PictureResult = {
      typicalPngP50Ms: median(typical),
      typicalPngP95Ms: percentile(typical, 95),
      typicalPngBytes: typicalBytes,
      typicalSvgP50Ms: median(svg),
      unchangedHttpP50Ms: median(unchanged),
      unchangedInProcessP50Us: median(inProcess) * 1000,
      trueColourPngP50Ms: median(trueColour),
      trueColourPngP95Ms: percentile(trueColour, 95),
      trueColourPngBytes: trueColourBytes,
    };
    log(
      `pictures 200x50: typical PNG p50 ${r.typicalPngP50Ms.toFixed(1)} ms (${(typicalBytes / 1024).toFixed(0)} KiB), SVG ${r.typicalSvgP50Ms.toFixed(1)} ms; ` +
        `unchanged ${r.unchangedHttpP50Ms.toFixed(2)} ms over HTTP, ${r.unchangedInProcessP50Us.toFixed(1)} us in-process; ` +
        `true colour PNG p50 ${r.trueColourPngP50Ms.toFixed(1)} ms (${(trueColourBytes / 1024).toFixed(0)} KiB)`,
    );
    return r;
  } finally {
    await th.client.deleteSession(info.id);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `termhost-bench-pictures-${crypto.randomBytes(3).toString('hex')}-`));
  const th = await startBenchDaemon(dir);
  try {
    process.stdout.write(`${JSON.stringify(await measurePictures(th, (m) => process.stderr.write(`${m}\n`)), null, 2)}\n`);
  } finally {
    await th.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
