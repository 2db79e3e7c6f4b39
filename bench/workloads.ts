/**
 * The three output streams the throughput benchmark replays with `cat`, generated deterministically (a seeded PRNG,
 * no clock, no environment) so every run and both hosts see byte-identical input.
 *
 * - plain:  log lines, mostly shorter than the 200-column screen, a few long enough to wrap;
 * - colour: an SGR colour change around every word, the worst case for attribute handling;
 * - redraw: htop-like full-screen frames at 200x50, every row cursor-addressed (CSI row;col H), coloured meters and
 *           process rows, erase-to-end-of-line, and a little UTF-8 (tree glyphs).
 *
 * No stream contains a terminal query (DA, DSR, ...), so neither host writes replies back to `cat`.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Each stream is exactly this long, so MB/s figures of the three are directly comparable. */
export const STREAM_BYTES = 16 * 1024 * 1024;
/** Screen size of the redraw frames; the hosts run at the same size. */
export const FRAME_COLS = 200;
export const FRAME_ROWS = 50;

export type WorkloadName = 'plain' | 'colour' | 'redraw';
export const WORKLOADS: readonly WorkloadName[] = ['plain', 'colour', 'redraw'];

export interface Workload {
  name: WorkloadName;
  file: string;
  bytes: number;
  /** Line feeds in the file: the tty's onlcr turns each into CR LF, so the PTY delivers `bytes + newlines` bytes. */
  newlines: number;
}

/** mulberry32: tiny, fast, and good enough to vary text; the point is determinism, not statistical quality. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the quick brown fox jumps over lazy dog request response handler worker queue cache miss hit retry timeout ' +
  'connection socket buffer stream session terminal screen cursor render frame update index commit branch merge ' +
  'build test deploy error warning info debug trace user admin token lease schema route server client pipeline'
).split(' ');
const LEVELS = ['INFO ', 'DEBUG', 'WARN ', 'ERROR', 'TRACE'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
const USERS = ['root', 'www-data', 'postgres', 'alice', 'bob', 'systemd+', 'nobody'];
const COMMANDS = ['/usr/bin/node server.js', 'postgres: writer process', 'nginx: worker process', '/sbin/init splash',
  'bash --login', 'htop', 'python3 -m http.server', 'tmux new-session', '/usr/lib/systemd/systemd-journald'];

function* plainUnits(rand: () => number): Generator<string> {
  for (let i = 0; ; i++) {
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const ms = String(i % 1000).padStart(3, '0');
    const sec = String(Math.floor(i / 1000) % 60).padStart(2, '0');
    let line =
      `2024-03-01T12:${String(Math.floor(i / 60000) % 60).padStart(2, '0')}:${sec}.${ms}Z ${pick(LEVELS)} ` +
      `[worker-${Math.floor(rand() * 16)}] ${pick(METHODS)} /api/v1/${pick(WORDS)}/${Math.floor(rand() * 1e6)} ` +
      `status=${pick([200, 200, 200, 201, 304, 404, 500])} dur=${(rand() * 250).toFixed(1)}ms`;
    const extra = rand() < 0.05 ? 30 + Math.floor(rand() * 40) : Math.floor(rand() * 12);
    for (let w = 0; w < extra; w++) line += ` ${pick(WORDS)}`;
    yield line + '\n';
  }
}

function* colourUnits(rand: () => number): Generator<string> {
  for (;;) {
    const words = 8 + Math.floor(rand() * 20);
    let line = '';
    for (let w = 0; w < words; w++) {
      const word = WORDS[Math.floor(rand() * WORDS.length)]!;
      const r = rand();
      // A mix of the forms real programs emit: 256-colour, basic colour with bold, and truecolour.
      const byte = () => Math.floor(rand() * 256);
      const sgr = r < 0.5 ? `38;5;${byte()}` : r < 0.85 ? `1;${31 + Math.floor(rand() * 7)}` : `38;2;${byte()};${byte()};${byte()}`;
      line += `\x1b[${sgr}m${word}\x1b[0m `;
    }
    yield line + '\n';
  }
}

function meter(rand: () => number, width: number): string {
  const used = Math.floor(rand() * width);
  const green = Math.floor(used * 0.7);
  return `\x1b[1;34m[\x1b[0;32m${'|'.repeat(green)}\x1b[31m${'|'.repeat(used - green)}\x1b[0m${' '.repeat(width - used)}` +
    `\x1b[1;30m${(rand() * 100).toFixed(1).padStart(5)}%\x1b[1;34m]\x1b[0m`;
}

function* redrawUnits(rand: () => number): Generator<string> {
  const half = Math.floor(FRAME_COLS / 2) - 12;
  for (let frame = 0; ; frame++) {
    let out = '\x1b[?25l\x1b[H';
    for (let row = 1; row <= 4; row++) {
      out += `\x1b[${row};1H\x1b[0;36m${String(row * 2 - 1).padStart(3)}\x1b[0m${meter(rand, half)}`;
      out += `\x1b[${row};${FRAME_COLS / 2 + 1}H\x1b[0;36m${String(row * 2).padStart(3)}\x1b[0m${meter(rand, half)}\x1b[K`;
    }
    out += `\x1b[5;1H\x1b[0;36mMem\x1b[0m${meter(rand, half)}`;
    out += `\x1b[5;${FRAME_COLS / 2 + 1}H\x1b[0;36mSwp\x1b[0m${meter(rand, half)}\x1b[K`;
    out += `\x1b[6;1H\x1b[K\x1b[6;3HTasks: \x1b[1m${100 + (frame % 50)}\x1b[0m, load average: \x1b[1m${rand().toFixed(2)}\x1b[0m`;
    const header = '    PID USER       PRI  NI  VIRT   RES   SHR S CPU% MEM%   TIME+  Command';
    out += `\x1b[7;1H\x1b[30;42m${header.padEnd(FRAME_COLS)}\x1b[0m`;
    for (let row = 8; row < FRAME_ROWS; row++) {
      const pid = String(1 + Math.floor(rand() * 99999)).padStart(7);
      const user = USERS[Math.floor(rand() * USERS.length)]!.padEnd(9);
      const cpu = (rand() * 100).toFixed(1).padStart(5);
      const tree = rand() < 0.3 ? '├─ ' : rand() < 0.1 ? '└─ ' : '';
      const cmd = `${tree}${COMMANDS[Math.floor(rand() * COMMANDS.length)]!} --id=${Math.floor(rand() * 1e5)}`;
      const selected = row === 8 + (frame % (FRAME_ROWS - 9));
      out += `\x1b[${row};1H${selected ? '\x1b[30;46m' : ''}${pid} \x1b[${selected ? '' : '0;'}33m${user}\x1b[0m  20   0 ` +
        `\x1b[1m${Math.floor(rand() * 9000)}M\x1b[0m ${String(Math.floor(rand() * 900)).padStart(4)}M  12M \x1b[32mS\x1b[0m ` +
        `\x1b[1;31m${cpu}\x1b[0m  0.${Math.floor(rand() * 10)}  1:${String(Math.floor(rand() * 60)).padStart(2, '0')}.00 ` +
        `\x1b[${rand() < 0.2 ? '1;32' : '0;37'}m${cmd}\x1b[0m\x1b[K`;
    }
    const keys = ['Help', 'Setup', 'Search', 'Filter', 'Tree', 'SortBy', 'Nice -', 'Nice +', 'Kill', 'Quit'];
    out += `\x1b[${FRAME_ROWS};1H` + keys.map((k, i) => `\x1b[0mF${i + 1}\x1b[30;46m${k.padEnd(6)}`).join('') + '\x1b[0m\x1b[K';
    yield out;
  }
}

const GENERATORS: Record<WorkloadName, (rand: () => number) => Generator<string>> = {
  plain: plainUnits,
  colour: colourUnits,
  redraw: redrawUnits,
};

/**
 * Write one stream of exactly STREAM_BYTES. Whole units (lines, frames) are written until the next would not fit;
 * the remainder is filled with short plain lines, so no escape sequence or UTF-8 character is cut in half.
 */
export function writeWorkload(name: WorkloadName, dir: string): Workload {
  const rand = prng(0x7e2b0 + WORKLOADS.indexOf(name));
  const file = path.join(dir, `${name}.txt`);
  const fd = fs.openSync(file, 'w');
  let total = 0;
  let newlines = 0;
  let batch: string[] = [];
  const flush = () => {
    fs.writeSync(fd, batch.join(''));
    batch = [];
  };
  try {
    for (const unit of GENERATORS[name](rand)) {
      const len = Buffer.byteLength(unit);
      if (total + len > STREAM_BYTES) break;
      batch.push(unit);
      total += len;
      for (let i = unit.indexOf('\n'); i !== -1; i = unit.indexOf('\n', i + 1)) newlines++;
      if (batch.length >= 256) flush();
    }
    let rest = STREAM_BYTES - total;
    while (rest > 0) {
      const n = Math.min(rest, 100);
      const filler = n === 1 ? '\n' : '.'.repeat(n - 1) + '\n';
      batch.push(filler);
      newlines++;
      rest -= n;
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  const bytes = fs.statSync(file).size;
  if (bytes !== STREAM_BYTES) throw new Error(`workload ${name}: wrote ${bytes} bytes, expected ${STREAM_BYTES}`);
  return { name, file, bytes, newlines };
}
