/**
 * "Waiting for input" from the kernel, not from timers: a command blocked reading the terminal answers at once with
 * the kind (line, password, raw) and the prompt; a sleeping or silently working command never does, however long it
 * is quiet. A password read opens a secret-input window, which closes by itself once the prompt is gone and the line
 * has been read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TermhostClient, type TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, sse, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';
import { SHELLS, makeShellHome, type ShellHome, type TestShell } from './shellHome.js';

let d: TestDaemon;
let home: ShellHome;
let person: TermhostClient;
let agent: TermhostClient;
before(async () => {
  d = await startTestDaemon();
  home = makeShellHome();
  person = new TermhostClient({ address: d.address, token: (await d.client.createToken('alice', 'human')).token });
  agent = new TermhostClient({ address: d.address, token: (await d.client.createToken('bot', 'agent')).token });
});
after(async () => {
  person.close();
  agent.close();
  await d.stop();
  home.remove();
  await assertNoLeaks();
});

const READ_LINE: Record<TestShell, string> = {
  bash: "read -p 'Continue? [Y/n] ' x; echo answered-$x",
  zsh: "read 'x?Continue? [Y/n] '; echo answered-$x",
  fish: "read -P 'Continue? [Y/n] ' x; echo answered-$x",
};
const GETPASS = "python3 -c 'import getpass; print(\"got\", len(getpass.getpass(\"Token for the vault: \")))'";

async function shellSession(shell: TestShell, client: TermhostClient = d.client) {
  return client.createSession({ command: [shell], env: home.env, cols: 80, rows: 24 });
}

for (const shell of SHELLS) {
  describe(`${shell}: commands that wait for input`, () => {
    test("read -p 'Continue? [Y/n] ' answers input_needed (line, or raw for fish's own line editor) at once; the answer goes on", async () => {
      const s = await shellSession(shell);
      const t0 = Date.now();
      const r = await d.client.run(s.id, READ_LINE[shell], { timeoutMs: 30_000 });
      assert.equal(r.status, 'input_needed');
      // fish's `read` is its own line editor in raw mode; the kernel says so.
      assert.deepEqual(r.input_needed, { kind: shell === 'fish' ? 'raw' : 'line', prompt: 'Continue? [Y/n]' });
      assert.ok(Date.now() - t0 < 10_000, 'long before the timeout');
      assert.equal((await d.client.getSession(s.id)).shell.state, 'input_needed');
      await d.client.input(s.id, [{ text: 'y' }, { key: 'Enter' }]);
      const done = await d.client.command(s.id, r.id, { waitMs: 10_000 });
      assert.deepEqual([done.status, done.exit_code], ['exited', 0]);
      assert.match(done.output, /answered-y\n$/);
      await d.client.deleteSession(s.id);
    });

    test("python's getpass, with a prompt that does not say password, is a password prompt and opens the window", async () => {
      const s = await shellSession(shell);
      const r = await d.client.run(s.id, GETPASS, { timeoutMs: 30_000 });
      assert.equal(r.status, 'input_needed');
      assert.deepEqual(r.input_needed, { kind: 'password', prompt: 'Token for the vault:' });
      assert.equal(r.secret_input, true);
      const info = await d.client.getSession(s.id);
      assert.equal(info.secret_input, true);
      assert.match((await d.client.secretInput(s.id)).reason!, /echo off/);
      await person.input(s.id, [{ text: 'hunter2' }, { key: 'Enter' }]);
      // Nobody ends the window: once the line is read and the prompt gone, it closes by itself.
      const done = await d.client.command(s.id, r.id, { waitMs: 15_000 });
      assert.deepEqual([done.status, done.exit_code, done.secret_input], ['exited', 0, false]);
      assert.match(done.output, /^Token for the vault: ?\[secret input: hidden by termhost\]/);
      assert.doesNotMatch(done.output, /hunter2/);
      assert.equal((await d.client.getSession(s.id)).secret_input, false);
      await d.client.deleteSession(s.id);
    });

    test('less is raw input; sleep 5 and a build silent for 3 s are never input_needed', async () => {
      const s = await shellSession(shell);
      const events = sse(d.address, d.token, { session: s.id });
      await events.next();
      const pager = await d.client.run(s.id, 'less /etc/passwd', { timeoutMs: 30_000 });
      assert.equal(pager.status, 'input_needed');
      assert.equal(pager.input_needed!.kind, 'raw');
      await d.client.input(s.id, [{ text: 'q' }]);
      assert.equal((await d.client.command(s.id, pager.id, { waitMs: 10_000 })).status, 'exited');
      const sleep = await d.client.run(s.id, 'sleep 5', { timeoutMs: 2000 });
      assert.equal(sleep.status, 'running');
      await d.client.input(s.id, [{ key: 'C-c' }]);
      assert.equal((await d.client.command(s.id, sleep.id, { waitMs: 10_000 })).exit_code, 130);
      const build = await d.client.run(s.id, "python3 -c 'import time; time.sleep(3); print(\"built\")'", { timeoutMs: 30_000 });
      assert.deepEqual([build.status, build.exit_code, build.output], ['exited', 0, 'built\n']);
      // The events of the whole story: input was needed for the pager only.
      const seen: Array<Record<string, unknown>> = [];
      for (;;) {
        const e = await events.nextEvent(10_000);
        seen.push(e!);
        if (e!.type === 'command_finished' && e!.command_id === build.id) break;
      }
      events.close();
      const needed = seen.filter((e) => e.type === 'input_needed');
      assert.deepEqual(needed.map((e) => [e.command_id, e.kind]), [[pager.id, 'raw']]);
      assert.ok(seen.some((e) => e.type === 'input_resumed' && e.command_id === pager.id));
      const finished = seen.filter((e) => e.type === 'command_finished').map((e) => [e.command_id, e.exit_code]);
      assert.deepEqual(finished, [[pager.id, 0], [sleep.id, 130], [build.id, 0]]);
      assert.ok(seen.every((e) => !('command' in e) && !('prompt' in e)), 'events carry no command line and no prompt');
      await d.client.deleteSession(s.id);
    });
  });
}

describe('bash and zsh: read -s', () => {
  for (const shell of ['bash', 'zsh'] as const) {
    test(`${shell}: read -s is a password prompt, and the window holds while the line is unfinished`, async () => {
      const s = await shellSession(shell);
      const cmd = shell === 'bash' ? "read -s -p 'Secret word: ' x; echo; echo length-${#x}" : "read -s 'x?Secret word: '; echo; echo length-${#x}";
      const r = await d.client.run(s.id, cmd, { timeoutMs: 30_000 });
      assert.deepEqual(r.input_needed, { kind: 'password', prompt: 'Secret word:' });
      await person.input(s.id, [{ text: 'abc' }]);
      // Typed but not ended with Enter: read still waits, so the window must stay, however quiet the session is.
      const held = await d.client.command(s.id, r.id, { waitMs: 1500 });
      assert.equal(held.secret_input, true);
      assert.equal((await d.client.getSession(s.id)).secret_input, true);
      await person.input(s.id, [{ text: 'def' }, { key: 'Enter' }]);
      const done = await d.client.command(s.id, r.id, { waitMs: 15_000 });
      assert.deepEqual([done.status, done.exit_code, done.secret_input], ['exited', 0, false]);
      await d.client.deleteSession(s.id);
    });
  }
});

describe('without shell integration', () => {
  test('a program run directly waits for a line: wait input_needed says so, with the prompt', async () => {
    const s = await d.client.createSession({ command: ['python3', '-c', "input('Name? ')"] });
    const r = await d.client.wait(s.id, { input_needed: true, timeout_ms: 10_000 });
    assert.deepEqual([r.matched, r.reason, r.input_needed], [true, 'input_needed', { kind: 'line', prompt: 'Name?' }]);
    assert.equal((await d.client.getSession(s.id)).shell.state, 'input_needed');
    await d.client.deleteSession(s.id);
  });

  test('dash at its own prompt is not a program waiting for input', async () => {
    const s = await d.client.createSession({ command: ['dash'], env: { PS1: '$ ' } });
    await waitText(d, s.id, '$');
    const r = await d.client.wait(s.id, { input_needed: true, timeout_ms: 800 });
    assert.deepEqual([r.matched, r.reason], [false, 'timeout']);
    await d.client.input(s.id, [{ text: 'cat' }, { key: 'Enter' }]);
    const cat = await d.client.wait(s.id, { input_needed: true, timeout_ms: 10_000 });
    assert.deepEqual([cat.matched, cat.input_needed?.kind], [true, 'line']);
    await d.client.deleteSession(s.id);
  });
});

describe('secret-input windows the detector opened', () => {
  test('a program that merely prints "Password:" does not keep the screen hidden', async () => {
    const s = await d.client.createSession({ command: ['bash'], env: home.env });
    const r = await agent.run(s.id, "printf 'Password: '; sleep 1; echo; echo went-on", { timeoutMs: 30_000 });
    // The prompt regex opened a window; nothing read a secret, so it closed once quiet, without anyone.
    assert.deepEqual([r.status, r.exit_code, r.secret_input], ['exited', 0, false]);
    assert.match(r.output, /went-on/);
    assert.ok((await agent.screen(s.id)).lines.some((l) => l.includes('went-on')));
    await d.client.deleteSession(s.id);
  });

  test('a line read with echo under a "Password:" prompt keeps the window shut until it is answered', async () => {
    const s = await d.client.createSession({ command: ['bash'], env: home.env });
    const r = await agent.run(s.id, "read -p 'Password: ' x; echo done", { timeoutMs: 30_000 });
    assert.equal(r.status, 'input_needed');
    assert.equal(r.secret_input, true);
    const held = await agent.command(s.id, r.id, { waitMs: 1000 });
    assert.equal(held.secret_input, true, 'the program still reads the secret line');
    await assert.rejects(agent.screen(s.id), (e: TermhostError) => e.status === 423);
    await person.input(s.id, [{ text: 'pw' }, { key: 'Enter' }]);
    const done = await agent.command(s.id, r.id, { waitMs: 15_000 });
    assert.deepEqual([done.status, done.exit_code, done.secret_input], ['exited', 0, false]);
    await d.client.deleteSession(s.id);
  });

  test("nothing of a window's bytes goes into the command's output, though the screen shows them once it closes", async () => {
    const s = await d.client.createSession({ command: ['bash'], env: home.env });
    const script = 'import getpass, time; getpass.getpass("Key: "); print("printed-in-the-window", flush=True); time.sleep(1); print("printed-after")';
    const r = await agent.run(s.id, `python3 -c '${script}'`, { timeoutMs: 30_000 });
    assert.equal(r.input_needed?.kind, 'password');
    await person.input(s.id, [{ text: 'sesame' }, { key: 'Enter' }]);
    const done = await agent.command(s.id, r.id, { waitMs: 15_000 });
    assert.equal(done.status, 'exited');
    assert.equal(done.output, 'Key: [secret input: hidden by termhost]\nprinted-after\n');
    const page = await agent.commandOutput(s.id, r.id);
    assert.equal(page.output, done.output);
    const screen = (await agent.screen(s.id)).lines.join('\n');
    assert.match(screen, /printed-in-the-window/);
    assert.doesNotMatch(screen, /sesame/);
    await d.client.deleteSession(s.id);
  });

  test('a window a person opened is never closed by the detector', async () => {
    const s = await d.client.createSession({ command: ['bash'], env: home.env });
    await d.client.wait(s.id, { prompt: true, timeout_ms: 10_000 });
    await person.secretAction(s.id, 'start', 'typing a token');
    const info = await until('a quiet moment well past the settle time', async () => {
      const i = await d.client.getSession(s.id);
      return Date.now() - Date.parse(i.secret_input ? (await d.client.secretInput(s.id)).since! : i.created_at) > 1000 && i;
    });
    assert.equal(info.secret_input, true);
    await d.client.deleteSession(s.id);
  });
});
