/**
 * Keystroke-to-screen latency: type one character into a session running `cat` at 200x50 and read the screen until
 * the echo is on it. The echo comes from the kernel's line discipline (cat in cooked mode only reads whole lines),
 * so the figure is the host's own round trip: input request -> PTY write -> echo read -> emulator -> screen read.
 *
 * Every sample types one more 'x' and is done when the screen shows that many. The canonical-mode line buffer holds
 * 4095 characters, so a session takes at most 2000 keystrokes before the next one (fresh `cat`) takes over.
 *
 * Warm-up. termhost is JavaScript on both ends of the request, and V8 needs a few thousand requests before the HTTP
 * path (client, fastify, the session) is optimised and its compiler threads stop competing for the machine's two
 * cores; until then the kernel's echo, which needs a CPU for its tty worker, is late too. A daemon serves requests
 * for hours, so the figure of record comes after WARMUP samples. The figure after only SHORT_WARMUP samples (the
 * method before) is kept beside it. tmux -C gets the same warm-up; the tmux CLI starts processes for every command,
 * has nothing to warm, and takes 20-30 ms a sample, so it gets the short one.
 */
import type { BenchDaemon } from './termhost.js';
import type { TmuxControl, TmuxServer } from './tmux.js';
import { mean, nowMs, percentile } from './stats.js';

/** Warm-up samples before the measured ones: termhost and tmux -C. */
export const LATENCY_WARMUP = 3000;
export const LATENCY_SAMPLES = 1000;
/** The earlier method's warm-up, kept as a second figure; and what the tmux CLI gets. */
export const LATENCY_SHORT_WARMUP = 50;
export const LATENCY_CLI_SAMPLES = 200;
/** `cat` in cooked mode holds 4095 characters of a line; a new session takes over well before that. */
const KEYSTROKES_PER_SESSION = 2000;
const COLS = 200;
const ROWS = 50;
/** A sample still missing its echo after this long means the session is broken. */
const SAMPLE_DEADLINE_MS = 5000;

export interface LatencyFigures {
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** Screen reads per sample, on average; 1 means the echo was always there on the first read. */
  readsPerSample: number;
}

export interface LatencyResult {
  termhost: LatencyFigures;
  /** termhost after only LATENCY_SHORT_WARMUP samples: samples SHORT_WARMUP..SHORT_WARMUP + CLI_SAMPLES of the run. */
  termhostShortWarmup: LatencyFigures;
  /** tmux driven by one client process per command (send-keys, capture-pane), as a shell script would. */
  tmuxCli: LatencyFigures;
  /** tmux driven through one persistent control-mode client: no process start per command. */
  tmuxControl: LatencyFigures;
}

function countX(text: string): number {
  let n = 0;
  for (let i = text.indexOf('x'); i !== -1; i = text.indexOf('x', i + 1)) n++;
  return n;
}

/** One sample: type one 'x' and read until the screen shows `typed` of them; returns ms and the reads it took. */
async function sample(type: () => Promise<unknown>, read: () => Promise<string>, typed: number): Promise<{ ms: number; reads: number }> {
  const t0 = nowMs();
  await type();
  let n = 0;
  for (;;) {
    n++;
    if (countX(await read()) >= typed) break;
    if (nowMs() - t0 > SAMPLE_DEADLINE_MS) throw new Error(`echo of keystroke ${typed} never reached the screen`);
  }
  return { ms: nowMs() - t0, reads: n };
}

export function figures(samples: ReadonlyArray<{ ms: number; reads: number }>): LatencyFigures {
  const times = samples.map((x) => x.ms);
  return {
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    p99Ms: percentile(times, 99),
    readsPerSample: mean(samples.map((x) => x.reads)),
  };
}

/**
 * `total` samples of one host, on as many fresh sessions as the line buffer needs; `open` starts a session and returns
 * how to type into it and read it, plus how to close it.
 */
export async function sampleRun(
  total: number,
  open: () => Promise<{ type: () => Promise<unknown>; read: () => Promise<string>; close: () => Promise<void> }>,
): Promise<Array<{ ms: number; reads: number }>> {
  const out: Array<{ ms: number; reads: number }> = [];
  while (out.length < total) {
    const s = await open();
    try {
      for (let typed = 1; typed <= KEYSTROKES_PER_SESSION && out.length < total; typed++) out.push(await sample(s.type, s.read, typed));
    } finally {
      await s.close();
    }
  }
  return out;
}

/** A fresh `cat` session at 200x50 to type into and read, as every termhost keystroke sample uses (wall.ts too). */
export async function termhostCatSession(th: BenchDaemon) {
  const info = await th.client.createSession({ command: ['cat'], cols: COLS, rows: ROWS });
  await th.client.wait(info.id, { quiet_ms: 100, timeout_ms: 5000 });
  return {
    type: () => th.client.input(info.id, [{ text: 'x' }]),
    read: async () => (await th.client.screen(info.id)).lines.join('\n'),
    close: () => th.client.deleteSession(info.id),
  };
}

async function termhostLatency(th: BenchDaemon): Promise<{ warm: LatencyFigures; short: LatencyFigures }> {
  const all = await sampleRun(LATENCY_WARMUP + LATENCY_SAMPLES, () => termhostCatSession(th));
  return {
    warm: figures(all.slice(LATENCY_WARMUP)),
    short: figures(all.slice(LATENCY_SHORT_WARMUP, LATENCY_SHORT_WARMUP + LATENCY_CLI_SAMPLES)),
  };
}

async function tmuxLatency(tmux: TmuxServer, name: string, control: boolean): Promise<LatencyFigures> {
  let round = 0;
  const warmup = control ? LATENCY_WARMUP : LATENCY_SHORT_WARMUP;
  const all = await sampleRun(warmup + (control ? LATENCY_SAMPLES : LATENCY_CLI_SAMPLES), async () => {
    const target = `${name}${round++}`;
    await tmux.run('new-session', '-d', '-s', target, '-x', `${COLS}`, '-y', `${ROWS}`, 'cat');
    let ctl: TmuxControl | undefined;
    const close = async () => {
      await ctl?.close();
      await tmux.run('kill-session', '-t', target);
    };
    try {
      if (!control) {
        return { type: () => tmux.run('send-keys', '-t', target, 'x'), read: () => tmux.run('capture-pane', '-p', '-t', target), close };
      }
      ctl = await tmux.control(target);
      const size = (await ctl.command(`display-message -p -t ${target} '#{window_width}x#{window_height}'`)).join('');
      // A control client must not change the window size, or the two hosts would not render the same screen.
      if (size !== `${COLS}x${ROWS}`) throw new Error(`tmux window is ${size} under a control client`);
      const c = ctl;
      return {
        type: () => c.command(`send-keys -t ${target} x`),
        read: async () => (await c.command(`capture-pane -p -t ${target}`)).join('\n'),
        close,
      };
    } catch (err) {
      await close();
      throw err;
    }
  });
  return figures(all.slice(warmup));
}

export async function measureLatency(th: BenchDaemon, tmux: TmuxServer, log: (msg: string) => void): Promise<LatencyResult> {
  const { warm: termhost, short: termhostShortWarmup } = await termhostLatency(th);
  log(`latency termhost p50 ${termhost.p50Ms.toFixed(3)} ms (after ${LATENCY_SHORT_WARMUP} warm-up samples: ${termhostShortWarmup.p50Ms.toFixed(3)} ms)`);
  const tmuxCli = await tmuxLatency(tmux, 'latcli', false);
  log(`latency tmux cli p50 ${tmuxCli.p50Ms.toFixed(3)} ms`);
  const tmuxControl = await tmuxLatency(tmux, 'latctl', true);
  log(`latency tmux control p50 ${tmuxControl.p50Ms.toFixed(3)} ms`);
  return { termhost, termhostShortWarmup, tmuxCli, tmuxControl };
}
