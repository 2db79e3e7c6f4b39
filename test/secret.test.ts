/**
 * Secret-input windows end to end: a person types a secret while agents and viewers watch, and nothing derived from
 * the session's output leaves the runtime until a person closes the window.
 */
import { SYSTEM_ACTOR } from '../src/core/index.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import type { AttachEvent } from '../src/client/AttachClient.js';
import { assertNoLeaks, attachTo, nextMatching, sse, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let agent: TermhostClient;
let human: TermhostClient;
let humanToken: string;
let agentToken: string;
before(async () => {
  d = await startTestDaemon();
  agentToken = (await d.client.createToken('agent', 'agent')).token;
  humanToken = (await d.client.createToken('person', 'human')).token;
  agent = new TermhostClient({ address: d.address, token: agentToken });
  human = new TermhostClient({ address: d.address, token: humanToken });
});
after(async () => {
  agent.close();
  human.close();
  await d.stop();
  await assertNoLeaks();
});

/** People retry `end` while the session's output settles. */
async function endWindow(c: TermhostClient, id: string) {
  for (let i = 0; ; i++) {
    try {
      return await c.secretAction(id, 'end');
    } catch (e) {
      const err = e as TermhostError;
      if (err.code !== 'secret_input_settling' || i > 200) throw e;
      assert.equal(err.retryable, true);
      await new Promise((r) => setTimeout(r, Math.max(10, Number(err.body.retry_after_ms ?? 50))));
    }
  }
}

const SECRET = 'hunter2-topsecret';

/** Whether the session's terminal has echo off, read from the outside with stty on its tty. */
function sttyEchoOff(pid: number): boolean {
  try {
    const tty = fs.readlinkSync(`/proc/${pid}/fd/0`);
    return /(^|\s)-echo(\s|$)/.test(execFileSync('stty', ['-a', '-F', tty], { encoding: 'utf8' }));
  } catch {
    return false;
  }
}
const is423 = (e: TermhostError) => e.status === 423 && e.code === 'secret_input_active';

test('a person types a secret: no API read, event, attach frame or ring content ever contains it', async () => {
  const code = "import time\ns=input('Secret word: ')\nprint('\\x1b[2J\\x1b[H' + 'length %d' % len(s), flush=True)\ntime.sleep(60)";
  const s = await d.client.createSession({ command: ['python3', '-c', code], cols: 60, rows: 8 });
  await waitText(d, s.id, 'Secret word:');
  const seqBefore = (await d.client.getSession(s.id)).seq;
  const events = sse(d.address, d.token, { session: s.id });
  await events.next();
  const viewer = attachTo(d, s.id, { token: agentToken, role: 'viewer' });
  const seen: AttachEvent[] = [];
  const collect = (async () => {
    for await (const ev of viewer) seen.push(ev);
  })();
  await until('the viewer to join', () => seen.some((e) => e.kind === 'repaint'));

  // Any actor may raise the shield.
  const started = await agent.secretAction(s.id, 'start', 'asking a person for the secret word');
  assert.deepEqual([started.active, started.started_by, started.reason], [true, { name: 'agent', kind: 'agent' }, 'asking a person for the secret word']);
  await until('the viewer to learn the window is open', () => seen.some((e) => e.kind === 'state' && e.secret_input.active));

  for (const read of [() => agent.screen(s.id), () => agent.scrollback(s.id), () => agent.wait(s.id, { text: 'x', timeout_ms: 100 }), () => d.client.screen(s.id)]) {
    await assert.rejects(read(), is423);
  }
  await assert.rejects(agent.input(s.id, [{ text: 'guess' }]), (e: TermhostError) => e.status === 409 && e.code === 'secret_input_active');
  const info = await agent.getSession(s.id);
  assert.equal(info.secret_input, true);
  assert.equal(info.seq, seqBefore, 'session info is frozen: not even the echo length shows');

  const driver = attachTo(d, s.id, { token: humanToken, role: 'driver' });
  const driverSeen: AttachEvent[] = [];
  const driverCollect = (async () => {
    for await (const ev of driver) driverSeen.push(ev);
  })();
  await until('the driver to join', () => driverSeen.some((e) => e.kind === 'hello'));
  assert.ok(!driverSeen.some((e) => e.kind === 'repaint' || e.kind === 'stdout'), 'not even the person gets output during the window');
  driver.sendStdin(`${SECRET}\r`);
  // The API's view is frozen during the window, so the test looks inside the runtime for the echo.
  const live = () => d.manager.get(s.id, SYSTEM_ACTOR);
  await until('the program to take the secret', () => live().ok && (live() as { value: { seq: number } }).value.seq > seqBefore);

  await assert.rejects(agent.secretAction(s.id, 'end'), (e: TermhostError) => e.status === 403);
  const ended = await endWindow(human, s.id);
  assert.equal(ended.active, false);

  // What the program left on screen is visible again, and only that.
  const screen = await waitText(d, s.id, `length ${SECRET.length}`);
  assert.ok(!screen.lines.join('\n').includes(SECRET));
  await until('the viewer to get a fresh repaint', () => seen.some((e, i) => e.kind === 'repaint' && i > seen.findIndex((x) => x.kind === 'state' && !x.secret_input.active)));

  // A client resuming from before the window cannot get the window's bytes: the ring starts after it.
  const resumer = attachTo(d, s.id, { bearer: d.token, since_seq: seqBefore });
  const rHello = await nextMatching(resumer, 'hello');
  assert.notEqual(rHello.seq, seqBefore);
  const rPaint = await nextMatching(resumer, 'repaint');
  assert.ok(!rPaint.data.toString('latin1').includes(SECRET));
  resumer.close();

  viewer.close();
  driver.close();
  await collect;
  await driverCollect;
  const frames = [...seen, ...driverSeen].map((e) => ('data' in e ? e.data.toString('latin1') : JSON.stringify(e))).join('\n');
  assert.ok(!frames.includes(SECRET), 'no attach frame carries the secret');
  const evs: Array<Record<string, unknown>> = [];
  for (let e; (e = await events.nextEvent(300).catch(() => undefined)); ) evs.push(e);
  events.close();
  assert.ok(!JSON.stringify(evs).includes(SECRET));
  const start = evs.findIndex((e) => e.type === 'secret_input_started');
  const end = evs.findIndex((e) => e.type === 'secret_input_ended');
  assert.ok(start >= 0 && end > start);
  const during = evs.slice(start + 1, end).map((e) => e.type);
  assert.ok(!during.some((t) => t === 'output' || t === 'screen_changed' || t === 'title_changed'), `no output-derived events: ${during.join(',')}`);
  assert.ok(!during.some((t) => t === 'input_accepted' || t === 'input_rejected'), `no keystroke events either: ${during.join(',')}`);
  await d.client.deleteSession(s.id, 'KILL');
});

test('ending while output is still arriving is refused as settling, retryably', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'while :; do echo tick; sleep 0.02; done'] });
  await waitText(d, s.id, 'tick');
  await human.secretAction(s.id, 'start');
  await assert.rejects(human.secretAction(s.id, 'end'), (e: TermhostError) => {
    assert.equal(e.status, 409);
    assert.equal(e.code, 'secret_input_settling');
    assert.equal(e.retryable, true);
    return true;
  });
  assert.equal((await d.client.secretInput(s.id)).active, true, 'failing keeps it private');
  await d.client.signal(s.id, 'KILL');
  await endWindow(human, s.id);
  await d.client.deleteSession(s.id);
});

test('ending right after a keystroke is refused as settling, even for a program that never prints', async () => {
  // Echo off and no output at all: only the keystroke's timing can hold the window open for its possible echo.
  const s = await d.client.createSession({ command: ['sh', '-c', 'stty -echo; exec sleep 30'] });
  await until('echo to be off', () => sttyEchoOff(s.pid));
  assert.equal((await d.client.getSession(s.id)).seq, 0, 'the program printed nothing');
  await human.secretAction(s.id, 'start', 'typing');
  await human.input(s.id, [{ text: SECRET }, { key: 'Enter' }]);
  await assert.rejects(human.secretAction(s.id, 'end'), (e: TermhostError) => e.code === 'secret_input_settling' && e.retryable);
  await endWindow(human, s.id);
  assert.equal((await d.client.secretInput(s.id)).active, false);
  await d.client.deleteSession(s.id);
});

test('the detector opens a window by itself on a password prompt with echo off', async () => {
  const code = "import getpass,time\np=getpass.getpass('Password: ')\nprint('got %d characters' % len(p), flush=True)\ntime.sleep(60)";
  const s = await agent.createSession({ command: ['python3', '-c', code] });
  const state = await until('the detector to open a window', async () => {
    const st = await d.client.secretInput(s.id);
    return st.active ? st : undefined;
  });
  assert.deepEqual(state.started_by, { name: 'system', kind: 'system' });
  assert.match(state.reason ?? '', /Password:/);
  await assert.rejects(agent.screen(s.id), is423);
  const before = (d.manager.get(s.id, SYSTEM_ACTOR) as { value: { seq: number } }).value.seq;
  await human.input(s.id, [{ text: 'pw-12345' }, { key: 'Enter' }]);
  await until('the program to read it', () => (d.manager.get(s.id, SYSTEM_ACTOR) as { value: { seq: number } }).value.seq > before);
  await endWindow(human, s.id);
  const screen = await waitText(d, s.id, 'got 8 characters');
  assert.ok(!screen.lines.join('\n').includes('pw-12345'));
  assert.equal((await d.client.secretInput(s.id)).active, false, 'the old prompt line does not reopen it');
  await d.client.deleteSession(s.id, 'KILL');
});

test('the detector can be switched off per session and daemon-wide', async () => {
  const code = "import getpass\ngetpass.getpass('Password: ')";
  const s = await d.client.createSession({ command: ['python3', '-c', code], secret_detect: false });
  await waitText(d, s.id, 'Password:');
  assert.equal((await d.client.secretInput(s.id)).active, false);
  await d.client.deleteSession(s.id, 'KILL');
  const off = await startTestDaemon({ secretDetect: false });
  try {
    const t = await off.client.createSession({ command: ['python3', '-c', code] });
    await waitText(off, t.id, 'Password:');
    assert.equal((await off.client.secretInput(t.id)).active, false);
  } finally {
    await off.stop();
  }
});

test('prompts the detector recognises, and lines it leaves alone', async () => {
  const { looksLikeSecretPrompt } = await import('../src/core/index.js');
  for (const yes of ['[sudo] password for alice: ', 'Password:', 'Enter passphrase for key \'/home/a/.ssh/id_ed25519\': ', 'PIN: ', 'alice@host\'s password: ', 'New password: ', 'Retype new password:']) {
    assert.ok(looksLikeSecretPrompt(yes), yes);
  }
  for (const no of ['$ echo password: is set', 'password reset link sent', '$ ', 'Username: ', 'Enter the PIN code below']) {
    assert.ok(!looksLikeSecretPrompt(no), no);
  }
});
