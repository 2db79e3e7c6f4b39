/**
 * `termhost attach` for real, inside tmux: a real terminal whose screen we read back with capture-pane.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoLeaks, ROOT, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

const SOCKET = `termhost-test-${process.pid}`;
const BIN = path.join(ROOT, 'dist', 'cli', 'main.js');
let d: TestDaemon;

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}
const pane = (target: string) => tmux('capture-pane', '-p', '-t', target).split('\n');
const paneHas = (target: string, text: string) => until(`"${text}" in tmux pane ${target}:\n${pane(target).join('\n')}`, () => pane(target).join('\n').includes(text), 8000);

/** A tmux window of the given size running `cmd` with the daemon's address and token in its environment. */
function window(name: string, cols: number, rows: number, cmd: string): string {
  tmux('new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), '-e', `TERMHOST_ADDR=${d.address}`, '-e', `TERMHOST_TOKEN=${d.token}`, cmd);
  return name;
}

before(async () => {
  d = await startTestDaemon();
  tmux('start-server', ';', 'set-option', '-g', 'exit-empty', 'off');
});
after(async () => {
  try {
    tmux('kill-server');
  } catch {
    /* already gone */
  }
  await d.stop();
  await assertNoLeaks();
});

async function bash(cols: number, rows: number) {
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: 'inner$ ' }, cols, rows });
  await waitText(d, s.id, 'inner$');
  return s.id;
}

test('the mirror shows the session screen and follows it live; a viewer types nothing', async () => {
  const id = await bash(60, 10);
  await d.client.input(id, [{ text: 'echo mirror-me' }, { key: 'Enter' }]);
  await waitText(d, id, 'mirror-me');
  const w = window('viewer', 60, 10, `node ${BIN} attach ${id}`);
  await paneHas(w, 'mirror-me');
  await d.client.input(id, [{ text: 'echo live-update' }, { key: 'Enter' }]);
  await paneHas(w, 'live-update');
  tmux('send-keys', '-t', w, 'echo nope', 'Enter');
  await d.client.input(id, [{ text: 'echo marker' }, { key: 'Enter' }]);
  const screen = await waitText(d, id, 'marker');
  assert.ok(!screen.lines.join('\n').includes('nope'), 'a read-only attach forwards no keystrokes');
  tmux('send-keys', '-t', w, 'C-]');
  await until('the viewer to detach', () => !tmux('list-sessions', '-F', '#{session_name}').split('\n').includes('viewer'), 8000);
  await d.client.deleteSession(id);
});

test('-write forwards keystrokes to the app', async () => {
  const id = await bash(70, 12);
  const w = window('writer', 70, 12, `node ${BIN} attach -write ${id}`);
  await paneHas(w, 'inner$');
  tmux('send-keys', '-t', w, 'echo typed-$((6*7))', 'Enter');
  await waitText(d, id, 'typed-42');
  await paneHas(w, 'typed-42');
  tmux('send-keys', '-t', w, 'C-]');
  await d.client.deleteSession(id);
});

test('C-] detaches and restores the terminal: cooked mode, cursor shown, main screen', async () => {
  const id = await bash(60, 10);
  await d.client.input(id, [{ text: 'printf "\\033[?25l"; echo hidden-cursor' }, { key: 'Enter' }]);
  await waitText(d, id, 'hidden-cursor');
  const w = window('shell', 60, 10, 'env PS1="outer$ " bash --norc --noprofile');
  await paneHas(w, 'outer$');
  tmux('send-keys', '-t', w, `node ${BIN} attach -write ${id}`, 'Enter');
  await paneHas(w, 'hidden-cursor');
  assert.equal(tmux('display', '-p', '-t', w, '#{alternate_on}').trim(), '1', 'the mirror runs on the alternate screen');
  tmux('send-keys', '-t', w, 'C-]');
  await paneHas(w, `[detached from ${id}]`);
  assert.equal(tmux('display', '-p', '-t', w, '#{alternate_on}').trim(), '0');
  assert.equal(tmux('display', '-p', '-t', w, '#{cursor_flag}').trim(), '1', 'cursor shown again');
  tmux('send-keys', '-t', w, 'echo back-$((1+1))', 'Enter');
  await paneHas(w, 'back-2');
  const info = await d.client.getSession(id);
  assert.equal(info.exited, false, 'detaching leaves the session running');
  await d.client.deleteSession(id);
});

test('on exit it prints the reason and code; a crashed session gives a non-zero status', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'read x; kill -SEGV $$'] });
  const w = window('crash', 60, 10, `env PS1="outer$ " bash --norc --noprofile`);
  await paneHas(w, 'outer$');
  tmux('send-keys', '-t', w, `node ${BIN} attach ${s.id}; echo status=$?`, 'Enter');
  await until('attached', async () => (await d.client.getSession(s.id)).clients.viewers === 1, 8000);
  await d.client.input(s.id, [{ key: 'Enter' }]);
  await paneHas(w, `[session ${s.id} ended: crashed, SIGSEGV]`);
  await paneHas(w, 'status=1');
  await d.client.deleteSession(s.id);
});

test('render mode draws the session as a box at the top left of a larger window', async () => {
  // 45 characters wrap at the session's 30 columns; a raw stream would draw them as one row in an 80-column window.
  const s = await d.client.createSession({ command: ['sh', '-c', `printf "${'A'.repeat(45)}\\nthe end"; sleep 60`], cols: 30, rows: 6 });
  await waitText(d, s.id, 'the end');
  const w = window('render', 80, 20, `node ${BIN} attach ${s.id}`);
  await paneHas(w, 'the end');
  const lines = pane(w);
  assert.deepEqual(lines.slice(0, 4).map((l) => l.trimEnd()), ['A'.repeat(30), 'A'.repeat(15), 'the end', '']);
  assert.ok(lines.slice(6, 20).every((l) => l.trim() === ''), 'the area below the session is blank');
  assert.equal(tmux('display', '-p', '-t', w, '#{cursor_x},#{cursor_y}').trim(), '7,2', 'cursor placed as in the session');
  // Frames follow the session: a resize re-wraps the long line and the window is redrawn.
  await d.client.resize(s.id, 40, 6);
  await until('the redraw after resize', () => pane(w)[0]!.trimEnd() === 'A'.repeat(40), 8000);
  tmux('send-keys', '-t', w, 'C-]');
  await d.client.deleteSession(s.id, 'KILL');
});
