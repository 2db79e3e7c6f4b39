/**
 * Keystroke-to-screen latency: type one character into a session running `cat` at 200x50 and read the screen until
 * the echo is on it. The echo comes from the kernel's line discipline (cat in cooked mode only reads whole lines),
 * so the figure is the host's own round trip: input request -> PTY write -> echo read -> emulator -> screen read.
 *
 * Every sample types one more 'x' and is done when the screen shows that many. The canonical-mode line buffer
 * holds 4095 characters, far more than the samples type, so no echo is ever dropped.
 */
import type { BenchDaemon } from './termhost.js';
import type { TmuxControl, TmuxServer } from './tmux.js';
import { mean, nowMs, percentile } from './stats.js';

export const LATENCY_WARMUP = 50;
export const LATENCY_SAMPLES = 200;
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

/** Run warmup + samples of one host; `type` sends one 'x', `read` returns the visible text. */
async function sampleLoop(type: () => Promise<unknown>, read: () => Promise<string>): Promise<LatencyFigures> {
  const times: number[] = [];
  const reads: number[] = [];
  let typed = 0;
  for (let i = 0; i < LATENCY_WARMUP + LATENCY_SAMPLES; i++) {
    const t0 = nowMs();
    await type();
    typed++;
    let n = 0;
    for (;;) {
      n++;
      if (countX(await read()) >= typed) break;
      if (nowMs() - t0 > SAMPLE_DEADLINE_MS) throw new Error(`echo of keystroke ${typed} never reached the screen`);
    }
    if (i >= LATENCY_WARMUP) {
      times.push(nowMs() - t0);
      reads.push(n);
    }
  }
  return {
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    p99Ms: percentile(times, 99),
    readsPerSample: mean(reads),
  };
}

async function termhostLatency(th: BenchDaemon): Promise<LatencyFigures> {
  const info = await th.client.createSession({ command: ['cat'], cols: COLS, rows: ROWS });
  try {
    await th.client.wait(info.id, { quiet_ms: 100, timeout_ms: 5000 });
    return await sampleLoop(
      () => th.client.input(info.id, [{ text: 'x' }]),
      async () => (await th.client.screen(info.id)).lines.join('\n'),
    );
  } finally {
    await th.client.deleteSession(info.id);
  }
}

async function tmuxLatency(tmux: TmuxServer, name: string, control: boolean): Promise<LatencyFigures> {
  await tmux.run('new-session', '-d', '-s', name, '-x', `${COLS}`, '-y', `${ROWS}`, 'cat');
  let ctl: TmuxControl | undefined;
  try {
    if (control) {
      ctl = await tmux.control(name);
      const size = (await ctl.command(`display-message -p -t ${name} '#{window_width}x#{window_height}'`)).join('');
      // A control client must not change the window size, or the two hosts would not render the same screen.
      if (size !== `${COLS}x${ROWS}`) throw new Error(`tmux window is ${size} under a control client`);
      const c = ctl;
      return await sampleLoop(
        () => c.command(`send-keys -t ${name} x`),
        async () => (await c.command(`capture-pane -p -t ${name}`)).join('\n'),
      );
    }
    return await sampleLoop(
      () => tmux.run('send-keys', '-t', name, 'x'),
      () => tmux.run('capture-pane', '-p', '-t', name),
    );
  } finally {
    await ctl?.close();
    await tmux.run('kill-session', '-t', name);
  }
}

export async function measureLatency(th: BenchDaemon, tmux: TmuxServer, log: (msg: string) => void): Promise<LatencyResult> {
  const termhost = await termhostLatency(th);
  log(`latency termhost p50 ${termhost.p50Ms.toFixed(3)} ms`);
  const tmuxCli = await tmuxLatency(tmux, 'latcli', false);
  log(`latency tmux cli p50 ${tmuxCli.p50Ms.toFixed(3)} ms`);
  const tmuxControl = await tmuxLatency(tmux, 'latctl', true);
  log(`latency tmux control p50 ${tmuxControl.p50Ms.toFixed(3)} ms`);
  return { termhost, tmuxCli, tmuxControl };
}
