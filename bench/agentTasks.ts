/**
 * Agent tasks: everyday interactive jobs, done by a scripted agent through two drivers, counting what an LLM would
 * pay for: tool calls, and the bytes of text the tools return (its context).
 *
 *   termhost: its MCP tools over an in-memory MCP transport (session_create, send, wait_for, read_screen), waiting on
 *             the daemon for text, regexes and stable screens, never sleeping; reads return changes since the last.
 *   tmux:     a tmux-style driver as agents use one today (libtmux-mcp, shell scripts): send-keys, then capture-pane
 *             polled every POLL_MS until the expected text shows, each capture returning the whole pane.
 *
 * Both drive the same shell with the same keys; both are scripted to be exactly as smart (the tmux driver also looks
 * only below the line it typed on, so neither is fooled by an echo). Every task is checked afterwards (a file's
 * contents, git's index, the program's answer): a task that does not finish right is a failure, not a figure.
 * Run alone with `node --import tsx bench/agentTasks.ts`; `npm run bench` runs it too. AGENT_TASKS_ONLY=WORD runs the
 * tasks whose name holds WORD; AGENT_TASKS_SHOW=1 prints what each driver's agent reads.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Runtime, SYSTEM_ACTOR } from '../src/core/index.js';
import { RuntimeBackend } from '../src/mcp/RuntimeBackend.js';
import { createMcpServer } from '../src/mcp/server.js';
import { sleep } from './stats.js';
import { TmuxServer } from './tmux.js';

/** How often the tmux driver looks at the pane while it waits: what an agent's "sleep 0.5; capture" loop does. */
export const POLL_MS = 500;
/** AGENT_TASKS_SHOW=1: print every tool answer to stderr, to see what each driver's agent reads. */
const SHOW = process.env.AGENT_TASKS_SHOW === '1';
/** Any single wait in a task gives up after this long. */
const STEP_TIMEOUT_MS = 20_000;
const COLS = 100;
const ROWS = 30;

type Item = { text: string } | { key: string };
interface Until {
  text?: string;
  regex?: string;
  /** Look only below the line the last input was typed on (both drivers do). */
  afterInput?: boolean;
}

/** What an agent does: the same calls for both drivers, counted. */
interface Driver {
  readonly name: string;
  calls: number;
  bytes: number;
  start(cwd: string): Promise<void>;
  /** Type, and when `until` is given wait for it: what one step of a task is. */
  step(items: Item[], until?: Until): Promise<void>;
  /** Wait until the screen shows `until`; returns the screen text the agent now has. */
  wait(until: Until): Promise<string>;
  /** The screen as text, for checking the task afterwards; not counted (no agent call). */
  screenText(): Promise<string>;
  stop(): Promise<void>;
}

const shellCommand = ['bash', '--norc', '--noprofile'];
const shellEnv = { PS1: '$ ', TERM: 'xterm-256color', HISTFILE: '/dev/null', LANG: 'C.UTF-8' };
const PROMPT = '^\\$ ?$';

class TermhostDriver implements Driver {
  readonly name = 'termhost';
  calls = 0;
  bytes = 0;
  private client!: Client;
  private id = '';
  private runtime = new Runtime({ baseEnv: { ...process.env, ...shellEnv, HOME: os.tmpdir() } });

  private async tool(name: string, args: Record<string, unknown>) {
    this.calls++;
    const r = (await this.client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
    const text = r.content.map((c) => c.text ?? '').join('\n');
    this.bytes += Buffer.byteLength(text);
    if (SHOW) process.stderr.write(`--- termhost ${name} (${Buffer.byteLength(text)} bytes)\n${text}\n`);
    if (r.isError) throw new Error(`${name}: ${text}`);
    return { text, structured: r.structuredContent ?? {} };
  }

  async start(cwd: string) {
    const mcp = createMcpServer(new RuntimeBackend(this.runtime, { name: 'bench-agent', kind: 'agent' }, async () => {}, cwd, undefined, false));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(a);
    this.client = new Client({ name: 'bench', version: '0' });
    await this.client.connect(b);
    const made = await this.tool('session_create', { command: shellCommand, cwd, cols: COLS, rows: ROWS, env: shellEnv });
    this.id = String(made.structured.id);
    await this.wait({ regex: PROMPT });
  }

  /** One call: termhost's send waits for its condition itself (`until`). */
  async step(items: Item[], until?: Until) {
    if (!until) return void (await this.tool('send', { session: this.id, input: items }));
    const r = await this.tool('send', {
      session: this.id,
      input: items,
      until: { ...(until.text !== undefined ? { text: until.text } : {}), ...(until.regex !== undefined ? { regex: until.regex } : {}), timeout_ms: STEP_TIMEOUT_MS },
    });
    if (r.structured.matched !== true) throw new Error(`termhost: timed out waiting for ${JSON.stringify(until)}:\n${r.text}`);
  }

  async wait(until: Until) {
    const r = await this.tool('wait_for', {
      session: this.id,
      ...(until.text !== undefined ? { text: until.text } : {}),
      ...(until.regex !== undefined ? { regex: until.regex } : {}),
      ...(until.afterInput ? { after_input: true } : {}),
      timeout_ms: STEP_TIMEOUT_MS,
    });
    if (r.structured.matched !== true) throw new Error(`termhost: timed out waiting for ${JSON.stringify(until)}:\n${r.text}`);
    return r.text;
  }

  async screenText() {
    const s = this.runtime.sessions.get(this.id, SYSTEM_ACTOR);
    if (!s.ok) return '';
    const screen = await s.value.screen({ name: 'bench-check', kind: 'viewer' });
    return screen.ok ? screen.value.lines.join('\n') : '';
  }

  async stop() {
    await this.tool('session_kill', { session: this.id, signal: 'KILL' });
    await this.client.close();
    await this.runtime.close();
  }
}

class TmuxDriver implements Driver {
  readonly name = 'tmux';
  calls = 0;
  bytes = 0;
  private target = '';
  /** The last text typed, to find the line it was typed on. */
  private lastTyped = '';

  constructor(private readonly tmux: TmuxServer, private readonly index: number) {}

  private async tmuxCall(...args: string[]): Promise<string> {
    this.calls++;
    const out = await this.tmux.run(...args);
    this.bytes += Buffer.byteLength(out);
    if (SHOW) process.stderr.write(`--- tmux ${args[0]} (${Buffer.byteLength(out)} bytes)\n${out}\n`);
    return out;
  }

  async start(cwd: string) {
    this.target = `agent${this.index}`;
    const env = Object.entries(shellEnv).map(([k, v]) => `${k}=${v}`);
    await this.tmuxCall('new-session', '-d', '-s', this.target, '-x', String(COLS), '-y', String(ROWS), '-c', cwd, 'env', ...env, ...shellCommand);
    await this.wait({ regex: PROMPT });
  }

  async step(items: Item[], until?: Until) {
    await this.send(items);
    if (until) await this.wait(until);
  }

  async send(items: Item[]) {
    // One send-keys per item kind, as an agent would call a send_keys tool: literal text, then key names.
    for (const item of items) {
      if ('text' in item) {
        this.lastTyped = item.text;
        await this.tmuxCall('send-keys', '-t', this.target, '-l', item.text);
      } else await this.tmuxCall('send-keys', '-t', this.target, TMUX_KEYS[item.key] ?? item.key);
    }
  }

  async wait(until: Until) {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    const re = until.regex === undefined ? undefined : new RegExp(until.regex, 'm');
    for (;;) {
      const pane = await this.tmuxCall('capture-pane', '-p', '-t', this.target);
      const lines = pane.split('\n').map((l) => l.trimEnd());
      let from = 0;
      if (until.afterInput && this.lastTyped) {
        // The line it was typed on ends with its echo (Enter followed it).
        const at = lines.map((l) => l.endsWith(this.lastTyped.trimEnd())).lastIndexOf(true);
        from = at + 1;
      }
      const text = lines.slice(from).join('\n');
      if ((until.text !== undefined && text.includes(until.text)) || (re && re.test(text))) return pane;
      if (Date.now() > deadline) throw new Error(`tmux: timed out waiting for ${JSON.stringify(until)}:\n${pane}`);
      await sleep(POLL_MS);
    }
  }

  async screenText() {
    return this.tmux.run('capture-pane', '-p', '-t', this.target);
  }

  async stop() {
    await this.tmuxCall('kill-session', '-t', this.target);
  }
}

/** termhost's key names where tmux spells them otherwise. */
const TMUX_KEYS: Record<string, string> = { Escape: 'Escape', Enter: 'Enter', 'C-c': 'C-c', Down: 'Down', Up: 'Up' };

interface Task {
  name: string;
  /** Files the task needs, made fresh in its directory. */
  setup(dir: string): void;
  run(d: Driver, dir: string): Promise<void>;
  /** Throws unless the job was done right. */
  check(dir: string, lastScreen: string): void;
}

const typed = (line: string): Item[] => [{ text: line }, { key: 'Enter' }];
const PROMPT_AFTER: Until = { regex: PROMPT, afterInput: true };

const MENU = `import sys, termios, tty
items = ['apples', 'pears', 'plums', 'figs', 'limes']
sel = 0
def draw():
    sys.stdout.write('\\x1b[H\\x1b[2JPick one (arrows, Enter):\\r\\n')
    for i, it in enumerate(items):
        sys.stdout.write(('\\x1b[7m' if i == sel else '') + '  ' + it + '  \\x1b[0m\\r\\n')
    sys.stdout.flush()
fd = sys.stdin.fileno(); old = termios.tcgetattr(fd); tty.setraw(fd)
try:
    draw()
    while True:
        c = sys.stdin.read(1)
        if c == '\\r': break
        if c == '\\x1b':
            seq = sys.stdin.read(2)
            if seq == '[B': sel = min(sel + 1, len(items) - 1)
            if seq == '[A': sel = max(sel - 1, 0)
            draw()
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, old)
print('chose ' + items[sel])
`;

const SPINNER = `import sys, time
for i in range(40):
    sys.stdout.write('\\r' + '|/-\\\\'[i % 4] + ' building step %d/40' % (i + 1)); sys.stdout.flush(); time.sleep(0.05)
print('\\nBUILD OK')
`;

export const TASKS: Task[] = [
  {
    name: 'editor (vim: write and save a file)',
    setup: () => {},
    async run(d) {
      await d.step(typed('vim -u NONE -N -n notes.txt'), { text: '"notes.txt"', afterInput: true });
      await d.step([{ text: 'i' }, { text: 'Hello from an agent' }, { key: 'Escape' }, { text: ':wq' }, { key: 'Enter' }], PROMPT_AFTER);
    },
    check: (dir) => expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8') === 'Hello from an agent\n', 'notes.txt holds the line'),
  },
  {
    name: 'REPL (python3: an expression and a function)',
    setup: () => {},
    async run(d) {
      await d.step(typed('python3 -q'), { regex: '^>>> ?$', afterInput: true });
      await d.step(typed('6 * 7'), { regex: '^42$', afterInput: true });
      await d.step([...typed('def sq(x):'), ...typed('    return x * x'), { key: 'Enter' }], { regex: '^>>> ?$', afterInput: true });
      await d.step(typed('sq(12)'), { regex: '^144$', afterInput: true });
      await d.step(typed('exit()'), PROMPT_AFTER);
    },
    check: () => {},
  },
  {
    name: 'git add -p (stage one hunk of two)',
    setup(dir) {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
      git('init', '-q');
      git('config', 'user.email', 'bench@example.invalid');
      git('config', 'user.name', 'bench');
      fs.writeFileSync(path.join(dir, 'f.txt'), `${Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n')}\n`);
      git('add', 'f.txt');
      git('commit', '-q', '-m', 'start');
      const lines = fs.readFileSync(path.join(dir, 'f.txt'), 'utf8').split('\n');
      lines[1] = 'line 1 changed';
      lines[27] = 'line 27 changed';
      fs.writeFileSync(path.join(dir, 'f.txt'), lines.join('\n'));
    },
    async run(d) {
      await d.step(typed('git -c core.pager=cat -c color.ui=never add -p'), { text: 'Stage this hunk', afterInput: true });
      await d.step(typed('y'), { text: 'Stage this hunk', afterInput: true });
      await d.step(typed('n'), PROMPT_AFTER);
    },
    check(dir) {
      const staged = execFileSync('git', ['diff', '--cached'], { cwd: dir, encoding: 'utf8' });
      expect(staged.includes('+line 1 changed') && !staged.includes('+line 27 changed'), 'only the first hunk is staged');
    },
  },
  {
    name: 'menu (arrow keys to the third item)',
    setup: (dir) => fs.writeFileSync(path.join(dir, 'menu.py'), MENU),
    async run(d) {
      await d.step(typed('python3 menu.py'), { text: 'Pick one' });
      await d.step([{ key: 'Down' }, { key: 'Down' }, { key: 'Enter' }], { text: 'chose' });
    },
    check: (_dir, screen) => expect(screen.includes('chose plums'), 'the third item was chosen'),
  },
  {
    name: 'pager search (less, /needle)',
    setup: (dir) =>
      fs.writeFileSync(path.join(dir, 'big.txt'), Array.from({ length: 2000 }, (_, i) => (i === 1234 ? 'here is the needle, line 1234' : `filler line ${i}`)).join('\n')),
    async run(d) {
      await d.step(typed('less big.txt'), { text: 'filler line 0' });
      await d.step([{ text: '/needle' }, { key: 'Enter' }], { text: 'here is the needle' });
      await d.step([{ text: 'q' }], { regex: PROMPT });
    },
    check: () => {},
  },
  {
    name: 'prompt chain (three questions)',
    setup: (dir) =>
      fs.writeFileSync(path.join(dir, 'ask.sh'), 'read -p "Name? " n; read -p "Continue? [y/N] " c; read -p "How many? " k; echo "done $n $c $k"\n'),
    async run(d) {
      await d.step(typed('bash ask.sh'), { text: 'Name?' });
      await d.step(typed('alice'), { text: 'Continue? [y/N]' });
      await d.step(typed('y'), { text: 'How many?' });
      await d.step(typed('3'), { text: 'done alice y 3' });
    },
    check: (_dir, screen) => expect(screen.includes('done alice y 3'), 'every answer arrived'),
  },
  {
    name: 'spinner build (2 s of redraws, then the result)',
    setup: (dir) => fs.writeFileSync(path.join(dir, 'build.py'), SPINNER),
    async run(d) {
      await d.step(typed('python3 build.py'), { text: 'BUILD OK', afterInput: true });
    },
    check: (_dir, screen) => expect(screen.includes('BUILD OK'), 'the build finished'),
  },
  {
    name: 'Ctrl-C of a runaway loop',
    setup: () => {},
    async run(d) {
      // In a child sh, not the interactive bash: bash keeps looping when the interrupt lands as `sleep` exits on its own
      // (it takes that as the child having handled it), which a loaded machine makes likely; sh simply dies of it.
      await d.step(typed("sh -c 'while :; do echo tick; sleep 0.1; done'"), { text: 'tick', afterInput: true });
      await d.step([{ key: 'C-c' }], { regex: PROMPT });
      await d.step(typed('echo after-interrupt'), { regex: '^after-interrupt$', afterInput: true });
    },
    check: (_dir, screen) => expect(screen.includes('after-interrupt'), 'the shell is back after Ctrl-C'),
  },
];

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`task check failed: ${what}`);
}

export interface AgentTaskResult {
  task: string;
  scenario: Scenario;
  termhost: { calls: number; bytes: number; ms: number };
  tmux: { calls: number; bytes: number; ms: number };
}

/**
 * How the terminal looks when a task begins. `fresh`: a new shell, an empty screen. `in use`: the screen is full of
 * earlier output, as it is in a terminal an agent has been working in; then each whole-pane read costs its full size.
 */
export type Scenario = 'fresh' | 'in use';

async function runOne(task: Task, driver: Driver, root: string, scenario: Scenario): Promise<{ calls: number; bytes: number; ms: number }> {
  const dir = fs.mkdtempSync(path.join(root, `${driver.name}-`));
  task.setup(dir);
  const t0 = Date.now();
  await driver.start(dir);
  if (scenario === 'in use') await driver.step(typed("seq -f 'earlier output, line %g of a long listing' 1 60"), { text: 'line 60 of a long listing', afterInput: true });
  // Counted from the shell's first prompt: starting a session costs both the same one call.
  const [c0, b0] = [driver.calls, driver.bytes];
  await task.run(driver, dir);
  const counted = { calls: driver.calls - c0, bytes: driver.bytes - b0, ms: Date.now() - t0 };
  task.check(dir, await driver.screenText());
  await driver.stop();
  return counted;
}

export async function measureAgentTasks(log: (m: string) => void = () => {}): Promise<AgentTaskResult[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-agent-tasks-'));
  const tmux = new TmuxServer(root);
  await tmux.start(COLS, ROWS);
  const results: AgentTaskResult[] = [];
  try {
    let n = 0;
    for (const scenario of ['in use', 'fresh'] as const) {
      for (const task of TASKS.filter((t) => t.name.includes(process.env.AGENT_TASKS_ONLY ?? ''))) {
        log(`agent task (${scenario} terminal): ${task.name}`);
        const th = await runOne(task, new TermhostDriver(), root, scenario);
        const tm = await runOne(task, new TmuxDriver(tmux, n++), root, scenario);
        results.push({ task: task.name, scenario, termhost: th, tmux: tm });
      }
    }
  } finally {
    await tmux.kill();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return results;
}

export function formatAgentTasks(results: AgentTaskResult[]): string {
  const pad = (s: string, n: number) => s.padEnd(n);
  const rows = results.map((r) => {
    const callRatio = r.termhost.calls / r.tmux.calls;
    const byteRatio = r.termhost.bytes / r.tmux.bytes;
    const met = callRatio <= 0.5 && byteRatio <= 0.5 ? 'met' : 'NOT met';
    return `${pad(r.scenario, 7)} ${pad(r.task, 46)} ${String(r.termhost.calls).padStart(5)} ${String(r.tmux.calls).padStart(5)} ${callRatio.toFixed(2).padStart(6)}  ${String(r.termhost.bytes).padStart(7)} ${String(r.tmux.bytes).padStart(7)} ${byteRatio.toFixed(2).padStart(6)}  ${met}`;
  });
  return [
    `Agent tasks: calls and context bytes (tool text) per task; tmux driver polls capture-pane every ${POLL_MS} ms. Target: at most half of both.`,
    `${pad('screen', 7)} ${pad('task', 46)} ${'calls'.padStart(5)} ${'tmux'.padStart(5)} ${'ratio'.padStart(6)}  ${'bytes'.padStart(7)} ${'tmux'.padStart(7)} ${'ratio'.padStart(6)}`,
    ...rows,
  ].join('\n');
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await measureAgentTasks((m) => process.stderr.write(`${m}\n`));
  process.stdout.write(`${formatAgentTasks(results)}\n`);
}
