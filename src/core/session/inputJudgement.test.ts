import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TerminalEvidence } from '../pty/terminalEvidence.js';
import { judgeInputNeeded, secretPromptGone, type InputContext } from './inputJudgement.js';

const ev = (over: Partial<TerminalEvidence>): TerminalEvidence => ({ foreground: 200, icanon: true, echo: true, wait: 'read', unreadInput: 0, unreadOutput: 0, ...over });
const running: InputContext = { commandRunning: true, isShell: true, leaderPid: 100, cursorLine: 'Continue? [Y/n] ' };
const noIntegration: InputContext = { ...running, commandRunning: undefined };

for (const [name, e, ctx, want] of [
  ['canonical read with echo', ev({}), running, { kind: 'line', prompt: 'Continue? [Y/n]' }],
  ['canonical read without echo', ev({ echo: false }), running, { kind: 'password', prompt: 'Continue? [Y/n]' }],
  ['raw read', ev({ icanon: false, echo: false }), running, { kind: 'raw', prompt: 'Continue? [Y/n]' }],
  ['raw poll (a full-screen program)', ev({ icanon: false, wait: 'poll' }), running, { kind: 'raw', prompt: 'Continue? [Y/n]' }],
  ['canonical poll (a network client)', ev({ wait: 'poll' }), running, null],
  ['sleeping', ev({ wait: 'none' }), running, null],
  ['a line already typed and unread', ev({ unreadInput: 4 }), running, null],
  ['no foreground group', ev({ foreground: -1 }), running, null],
  ['unknown wait, echo off (sudo for a daemon that is not root)', ev({ wait: 'unknown', echo: false }), running, { kind: 'password', prompt: 'Continue? [Y/n]' }],
  ['unknown wait, echo on', ev({ wait: 'unknown' }), running, null],
  ['integrated shell at its prompt', ev({ icanon: false }), { ...running, commandRunning: false }, null],
  ['the shell itself reads for a running command (read builtin)', ev({ foreground: 100 }), running, { kind: 'line', prompt: 'Continue? [Y/n]' }],
  ['a shell without integration at its own prompt', ev({ foreground: 100 }), noIntegration, null],
  ['a program run directly, reading', ev({ foreground: 100 }), { ...noIntegration, isShell: false }, { kind: 'line', prompt: 'Continue? [Y/n]' }],
  ['a command under a shell without integration', ev({ foreground: 200 }), noIntegration, { kind: 'line', prompt: 'Continue? [Y/n]' }],
] as const) {
  test(`input needed: ${name}`, () => assert.deepEqual(judgeInputNeeded(e, ctx), want));
}

test('a cursor line of spaces ending in a character is judged in linear time', () => {
  // /\s+$/ backtracked over every space for every start: 4 ms per judgement at 1000 columns, judged at every pause.
  const ctx = { ...running, cursorLine: `${' '.repeat(999)}x` };
  const started = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) assert.equal(judgeInputNeeded(ev({}), ctx)?.prompt.length, 1000);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.ok(ms < 200, `200 judgements took ${ms.toFixed(0)} ms`);
});

for (const [name, e, line, unwritten, want] of [
  ['getpass still reading', ev({ echo: false }), 'Token: ', 0, false],
  ['getpass returned; the program computes', ev({ echo: true, wait: 'none' }), '', 0, true],
  ['the shell is back in its line editor', ev({ icanon: false, echo: false }), '$ ', 0, true],
  ['a retry prompt reads again', ev({ echo: false }), 'Retype password: ', 0, false],
  ['an echoed read under a password prompt', ev({}), 'Password: ', 0, false],
  ['an echoed read of something else (apt: [Y/n])', ev({}), 'Do you want to continue? [Y/n] ', 0, true],
  ['a typed line not read yet', ev({ wait: 'none', unreadInput: 7 }), '', 0, false],
  ['input not yet written to the terminal', ev({ wait: 'none' }), '', 3, false],
  ['unknown whether it reads (sudo, not root)', ev({ wait: 'unknown', echo: false }), '', 0, false],
  ['the terminal is closed', undefined, '', 0, true],
] as const) {
  test(`prompt gone: ${name}`, () => assert.equal(secretPromptGone(e, line, unwritten), want));
}
