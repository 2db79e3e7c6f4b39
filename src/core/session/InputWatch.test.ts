/**
 * InputWatch's timing rule, with a scripted host in place of a session: a program newly found waiting is reported
 * only when a second look, INPUT_CONFIRM_MS later, finds it waiting the same way with nothing read or written in
 * between. The race it closes is the kernel's (output in flight through the tty work queue), which no real program
 * can be made to lose on demand; the session tests cover the real terminals.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TerminalEvidence } from '../pty/terminalEvidence.js';
import type { InputNeeded } from '../shell/ShellTracker.js';
import { INPUT_PAUSE_MS, InputWatch, type InputWatchHost } from './InputWatch.js';
import type { InputContext } from './inputJudgement.js';

const LEADER = 100;
const reading = (foreground: number): TerminalEvidence => ({ foreground, icanon: false, echo: false, wait: 'read', unreadInput: 0, unreadOutput: 0 });

/** A host whose evidence and state the test scripts; it records what InputWatch reported and how often it looked. */
function scripted(initial: { evidence: TerminalEvidence; context: InputContext; activity: number }) {
  const state = { ...initial, reported: [] as Array<InputNeeded | null>, looks: 0, current: null as InputNeeded | null };
  const host: InputWatchHost = {
    evidence: () => {
      state.looks++;
      return state.evidence;
    },
    lastActivityMs: () => state.activity,
    context: () => state.context,
    setInputNeeded: (needed) => {
      state.current = needed;
      state.reported.push(needed);
    },
    inputNeeded: () => state.current,
    detects: false,
    window: () => 'none',
    openWindow: () => {},
    closeWindow: () => {},
    unwrittenBytes: () => 0,
    unparsedBytes: () => 0,
    exited: () => false,
    shellReads: () => {},
  };
  return { state, host };
}

async function until(what: string, fn: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const running: InputContext = { commandRunning: true, isShell: true, leaderPid: LEADER, cursorLine: '$ ' };

test('a wait seen once is not reported until a second look agrees', async () => {
  const { state, host } = scripted({ evidence: reading(200), context: { ...running, cursorLine: 'Press a key ' }, activity: Date.now() - INPUT_PAUSE_MS });
  const watch = new InputWatch(host);
  watch.refresh();
  assert.equal(state.looks, 1);
  assert.deepEqual(state.reported, [], 'nothing is said on the first look');
  await until('the second look', () => state.looks >= 2);
  assert.deepEqual(state.reported, [{ kind: 'raw', prompt: 'Press a key' }]);
  watch.dispose();
});

test('a shell caught reading with its D mark still on the way is never reported as waiting', async () => {
  // The first look: the shell itself reads raw, and the tracker still has the command running (its end mark is in
  // the kernel's work queue). Then the output lands: the activity time moves, and the tracker is at the prompt.
  const { state, host } = scripted({ evidence: reading(LEADER), context: running, activity: Date.now() - INPUT_PAUSE_MS });
  const watch = new InputWatch(host);
  watch.refresh();
  assert.deepEqual(state.reported, []);
  state.activity = Date.now();
  state.context = { ...running, commandRunning: false };
  watch.poke();
  await until('a look after the output', () => state.looks >= 2 && Date.now() - state.activity > INPUT_PAUSE_MS + 50);
  assert.ok(state.reported.every((r) => r === null), `never reported as waiting: ${JSON.stringify(state.reported)}`);
  watch.dispose();
});

test('activity between the two looks starts the count again', async () => {
  const { state, host } = scripted({ evidence: reading(200), context: running, activity: Date.now() - INPUT_PAUSE_MS });
  const watch = new InputWatch(host);
  watch.refresh();
  // Output between the looks (the evidence still says it reads): the second look is a first look again.
  state.activity = Date.now() - INPUT_PAUSE_MS + 1;
  await until('the second look', () => state.looks >= 2);
  assert.deepEqual(state.reported, [], 'activity in between: not yet');
  await until('the third look', () => state.looks >= 3);
  const reported: Array<InputNeeded | null> = state.reported;
  assert.equal(reported.length, 1);
  assert.equal(reported[0]?.kind, 'raw');
  watch.dispose();
});
