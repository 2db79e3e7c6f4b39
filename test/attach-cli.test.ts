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

test('on exit it prints the reason, and the status is the one a shell gives a signalled program (128 + SIGSEGV)', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'read x; kill -SEGV $$'] });
  const w = window('crash', 60, 10, `env PS1="outer$ " bash --norc --noprofile`);
  await paneHas(w, 'outer$');
  tmux('send-keys', '-t', w, `node ${BIN} attach ${s.id}; echo status=$?`, 'Enter');
  await until('attached', async () => (await d.client.getSession(s.id)).clients.viewers === 1, 8000);
  await d.client.input(s.id, [{ key: 'Enter' }]);
  await paneHas(w, `[session ${s.id} ended: crashed, SIGSEGV]`);
  await paneHas(w, 'status=139');
  await d.client.deleteSession(s.id);
});

test('when the program exits, its last screen stays on the terminal and attach exits with its status, as ssh does', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'read x; printf "\\033[1;31mlast-words\\033[0m\\nsecond line\\n"; exit 7'], cols: 60, rows: 10 });
  const w = window('final', 60, 10, `env PS1="outer$ " bash --norc --noprofile`);
  await paneHas(w, 'outer$');
  tmux('send-keys', '-t', w, `node ${BIN} attach ${s.id}; echo status=$?`, 'Enter');
  await until('attached', async () => (await d.client.getSession(s.id)).clients.viewers === 1, 8000);
  await d.client.input(s.id, [{ key: 'Enter' }]);
  await paneHas(w, 'status=7');
  assert.equal(tmux('display', '-p', '-t', w, '#{alternate_on}').trim(), '0', 'back on the main screen');
  const lines = pane(w).map((l) => l.trimEnd());
  const at = lines.indexOf('last-words');
  assert.ok(at >= 0, `the last screen is on the main screen:\n${lines.join('\n')}`);
  assert.deepEqual(lines.slice(at, at + 4), ['last-words', 'second line', `[session ${s.id} ended: completed, code 7]`, 'status=7']);
  assert.match(tmux('capture-pane', '-p', '-e', '-t', w), /\x1b\[(?:1;)?31mlast-words/, 'in its colours');
  await d.client.deleteSession(s.id);
});

test('on connect one line says whether you are read-only or driving, and how to detach', async () => {
  const id = await bash(40, 6);
  const viewer = window('connect-view', 80, 12, `env PS1="outer$ " bash --norc --noprofile`);
  await paneHas(viewer, 'outer$');
  tmux('send-keys', '-t', viewer, `node ${BIN} attach ${id}`, 'Enter');
  // In the render view the line sits in the spare bottom row, under the session's edge, while attached.
  const line = `[attached to ${id}: read-only (--write to type); C-] detaches]`;
  await until(`the connect line in the bottom row:\n${pane(viewer).join('\n')}`, () => tmux('display', '-p', '-t', viewer, '#{alternate_on}').trim() === '1' && pane(viewer)[11] === line, 8000);
  tmux('send-keys', '-t', viewer, 'C-]');
  await paneHas(viewer, `[detached from ${id}]`);
  assert.match(pane(viewer).join('\n'), /outer\$ node .*\n\[attached to \w+: read-only \(--write to type\); C-\] detaches\]\n\[detached from/, 'and stays above the detach line');

  const driver = window('connect-drive', 80, 12, `env PS1="outer$ " bash --norc --noprofile`);
  await paneHas(driver, 'outer$');
  tmux('send-keys', '-t', driver, `node ${BIN} attach -write --detach-key C-a ${id}`, 'Enter');
  await paneHas(driver, `[attached to ${id}: driving, your keys go to it; C-a detaches]`);
  tmux('send-keys', '-t', driver, 'C-a');
  await paneHas(driver, `[detached from ${id}]`);
  await d.client.deleteSession(id);
});

test('a session larger than your terminal is said once, with the way to fit it (--resize)', async () => {
  const id = await bash(120, 30);
  const w = window('small', 100, 12, `env PS1="outer$ " bash --norc --noprofile`);
  await paneHas(w, 'outer$');
  tmux('send-keys', '-t', w, `node ${BIN} attach ${id}`, 'Enter');
  await until('attached', async () => (await d.client.getSession(id)).clients.viewers === 1, 8000);
  await d.client.resize(id, 130, 35); // larger still: not said again
  await d.client.input(id, [{ text: 'echo after-resize' }, { key: 'Enter' }]);
  await paneHas(w, 'after-resize');
  tmux('send-keys', '-t', w, 'C-]');
  await paneHas(w, `[detached from ${id}]`);
  const text = tmux('capture-pane', '-p', '-J', '-S', '-50', '-t', w);
  const said = text.match(/larger than your terminal/g) ?? [];
  assert.equal(said.length, 1, text);
  assert.match(text, new RegExp(`\\[${id} is 120x30, larger than your terminal \\(100x12\\): lines will wrap or be cut; attach --resize makes it your size\\]`));
  await d.client.deleteSession(id);
});

test('render mode draws the session as a box with its edge at the top left of a larger window', async () => {
  // 45 characters wrap at the session's 30 columns; a raw stream would draw them as one row in an 80-column window.
  const s = await d.client.createSession({ command: ['sh', '-c', `printf "${'A'.repeat(45)}\\nthe end"; sleep 60`], cols: 30, rows: 6 });
  await waitText(d, s.id, 'the end');
  const w = window('render', 80, 20, `node ${BIN} attach ${s.id}`);
  await paneHas(w, 'the end');
  const lines = pane(w);
  const edge = (text: string) => `${text.padEnd(30)}\u2502`;
  assert.deepEqual(lines.slice(0, 7).map((l) => l.trimEnd()), [
    edge('A'.repeat(30)),
    edge('A'.repeat(15)),
    edge('the end'),
    edge(''),
    edge(''),
    edge(''),
    `${'\u2500'.repeat(30)}\u2518`,
  ]);
  assert.ok(lines.slice(7, 19).every((l) => l.trim() === ''), 'the area below the session is blank');
  assert.equal(tmux('display', '-p', '-t', w, '#{cursor_x},#{cursor_y}').trim(), '7,2', 'cursor placed as in the session');
  // Frames follow the session: a resize re-wraps the long line and the window is redrawn, edge and all.
  await d.client.resize(s.id, 40, 6);
  await until('the redraw after resize', () => pane(w)[0]!.trimEnd() === `${'A'.repeat(40)}\u2502`, 8000);
  tmux('send-keys', '-t', w, 'C-]');
  await d.client.deleteSession(s.id, 'KILL');
});
