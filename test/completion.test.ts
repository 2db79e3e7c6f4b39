/**
 * Shell completion for real: bash and zsh in tmux, with the script `termhost completion SHELL` prints loaded as the
 * user's rc file would, pressing Tab and reading the command line back.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoLeaks, BIN, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

const SOCKET = `termhost-completion-${process.pid}`;
let d: TestDaemon;
let bin: string;
let session: string;

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}
const lastLine = (w: string) => tmux('capture-pane', '-p', '-t', w).trimEnd().split('\n').at(-1) ?? '';

before(async () => {
  d = await startTestDaemon();
  // `termhost` on PATH, as an install puts it there.
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-completion-'));
  fs.symlinkSync(BIN, path.join(bin, 'termhost'));
  session = (await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } })).id;
  await waitText(d, session, '$');
  tmux('start-server', ';', 'set-option', '-g', 'exit-empty', 'off');
});
after(async () => {
  try {
    tmux('kill-server');
  } catch {
    /* already gone */
  }
  fs.rmSync(bin, { recursive: true, force: true });
  await d.stop();
  await assertNoLeaks();
});

/** A shell in a tmux window with termhost on PATH and the daemon in its environment, its completion loaded. */
async function shell(name: string, argv: string[], prompt: string, load: string[]): Promise<string> {
  const env = [`TERMHOST_ADDR=${d.address}`, `TERMHOST_TOKEN=${d.token}`, 'PS1=$ ', `HOME=${bin}`];
  // tmux keeps its own PATH over `-e PATH=...`, so PATH goes through env(1).
  tmux('new-session', '-d', '-s', name, '-x', '150', '-y', '20', ...env.flatMap((e) => ['-e', e]), 'env', `PATH=${bin}:${process.env.PATH}`, ...argv);
  await until(`the ${name} prompt`, () => lastLine(name) === prompt.trimEnd(), 10_000);
  for (const line of load) {
    tmux('send-keys', '-t', name, line, 'Enter');
  }
  tmux('send-keys', '-t', name, 'clear', 'Enter');
  await until(`${name} ready`, () => tmux('capture-pane', '-p', '-t', name).trim() === prompt.trim(), 10_000);
  return name;
}

/** Type `text`, press Tab, and wait for the command line to read `want`; then clear the line. */
async function completes(w: string, prompt: string, text: string, want: string): Promise<void> {
  tmux('send-keys', '-t', w, '-l', text);
  tmux('send-keys', '-t', w, 'Tab');
  await until(`"${text}<Tab>" to read "${want}"; it reads "${lastLine(w)}"`, () => lastLine(w) === `${prompt}${want}`.trimEnd(), 10_000);
  tmux('send-keys', '-t', w, 'C-u');
  await until('the line cleared', () => lastLine(w) === prompt.trimEnd(), 10_000);
}

test('bash completes commands, flags, flag values and session ids from the generated script', async () => {
  const w = await shell('bash', ['bash', '--norc', '--noprofile'], '$ ', ['eval "$(termhost completion bash)"']);
  await completes(w, '$ ', 'termhost att', 'termhost attach ');
  await completes(w, '$ ', 'termhost ls --js', 'termhost ls --json ');
  await completes(w, '$ ', 'termhost token create --role hu', 'termhost token create --role human ');
  await completes(w, '$ ', 'termhost screen ', `termhost screen ${session} `);
  await completes(w, '$ ', 'termhost --state-dir /tmp scrol', 'termhost --state-dir /tmp scrollback '); // after a global flag
  await completes(w, '$ ', 'termhost completion z', 'termhost completion zsh ');
});

test('zsh completes commands, flags and session ids from the generated script', async () => {
  const w = await shell('zsh', ['zsh', '-f'], '$ ', ['autoload -Uz compinit && compinit -u', 'source <(termhost completion zsh)']);
  await completes(w, '$ ', 'termhost att', 'termhost attach ');
  await completes(w, '$ ', 'termhost ls --js', 'termhost ls --json ');
  await completes(w, '$ ', 'termhost screen ', `termhost screen ${session} `);
});
