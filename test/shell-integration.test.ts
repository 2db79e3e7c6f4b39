/**
 * Shell integration with real bash, zsh and fish, each with a HOME whose rc file sets its own prompt and prompt hook:
 * one call per command gives the exit status, the command's own output and the working directory; the user's rc file
 * is still honoured; and sh/dash, which have no integration, still work otherwise. Forged marks: adversarial/forged-marks.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';
import { SAY, SHELLS, makeShellHome, type ShellHome } from './shellHome.js';

let d: TestDaemon;
let home: ShellHome;
before(async () => {
  d = await startTestDaemon();
  home = makeShellHome();
});
after(async () => {
  await d.stop();
  home.remove();
  await assertNoLeaks();
});

/** `seq 1 N` as the shell prints it. */
function seqText(n: number): string {
  const out: string[] = [];
  for (let i = 1; i <= n; i++) out.push(String(i));
  return `${out.join('\n')}\n`;
}

for (const shell of SHELLS) {
  describe(`${shell}, with the user's own rc file`, () => {
    let id: string;
    before(async () => {
      const s = await d.client.createSession({ command: [shell], env: home.env, cwd: home.dir, cols: 100, rows: 30 });
      id = s.id;
      assert.equal(s.shell_integration, 'active');
    });
    after(async () => {
      await d.client.deleteSession(id);
    });

    test('true, false, exit 3 in a subshell and a syntax error answer with their own exit status', async () => {
      const t = await d.client.run(id, 'true', { timeoutMs: 10_000 });
      assert.deepEqual([t.status, t.exit_code, t.output, t.rejected], ['exited', 0, '', false]);
      assert.match(t.id, /^c\d+$/);
      assert.ok(t.duration_ms !== null && t.duration_ms >= 0);
      const f = await d.client.run(id, 'false', { timeoutMs: 10_000 });
      assert.deepEqual([f.status, f.exit_code], ['exited', 1]);
      const three = await d.client.run(id, SAY.exit3(shell), { timeoutMs: 10_000 });
      assert.deepEqual([three.status, three.exit_code], ['exited', 3]);
      const syntax = await d.client.run(id, 'echo )', { timeoutMs: 10_000 });
      assert.equal(syntax.status, 'exited');
      assert.equal(syntax.rejected, true, 'the shell did not run it');
      assert.equal(syntax.exit_code, shell === 'bash' ? 2 : null);
      assert.match(syntax.output, /\)/, `the shell's complaint is the output: ${JSON.stringify(syntax.output)}`);
      // The shell is usable again right after (fish keeps a refused line in its editor; termhost clears it).
      const again = await d.client.run(id, 'echo still-fine', { timeoutMs: 10_000 });
      assert.deepEqual([again.exit_code, again.output], [0, 'still-fine\n']);
    });

    test("the user's rc file is honoured: its alias works and its prompt and prompt hook are drawn", async () => {
      const r = await d.client.run(id, 'hello', { timeoutMs: 10_000 });
      assert.deepEqual([r.exit_code, r.output], [0, 'hello-from-the-rc-file\n']);
      const { screen } = await d.client.wait(id, { prompt: true, timeout_ms: 10_000 });
      const last = screen.lines.filter(Boolean).pop()!;
      assert.ok(last.includes(home.prompt(shell)), `the rc file's prompt: ${last}`);
      if (shell !== 'fish') assert.match(screen.lines.join('\n'), /\[pc:\d+\]/, 'the prompt hook still runs');
      assert.equal(screen.shell_integration, 'active');
      assert.equal(screen.shell.state, 'at_prompt');
    });

    test('cd /tmp updates the working directory', async () => {
      const before = (await d.client.getSession(id)).shell.cwd;
      assert.equal(before, home.dir);
      await d.client.run(id, 'cd /tmp', { timeoutMs: 10_000 });
      const r = await d.client.run(id, 'pwd', { timeoutMs: 10_000 });
      assert.deepEqual([r.output, r.cwd], ['/tmp\n', '/tmp']);
      assert.equal((await d.client.getSession(id)).shell.cwd, '/tmp');
      await d.client.run(id, `cd ${home.dir}`, { timeoutMs: 10_000 });
    });

    test('a multi-line command runs as one command', async () => {
      const r = await d.client.run(id, SAY.multiLine(shell), { timeoutMs: 10_000 });
      assert.deepEqual([r.status, r.exit_code, r.output], ['exited', 0, 'line-one\nline-two\n']);
      const listed = (await d.client.commands(id)).find((c) => c.id === r.id)!;
      assert.equal(listed.command, SAY.multiLine(shell));
    });

    test('a slow command answers "running" at the timeout, then completes on a wait', async () => {
      const r = await d.client.run(id, 'sleep 2; echo woke', { timeoutMs: 300 });
      assert.equal(r.status, 'running');
      assert.equal(r.exit_code, null);
      const info = await d.client.getSession(id);
      assert.deepEqual([info.shell.state, info.shell.command_id], ['running', r.id]);
      await assert.rejects(d.client.run(id, 'true'), (e: TermhostError) => e.status === 409 && e.code === 'command_running' && e.body.command_id === r.id);
      const done = await d.client.command(id, r.id, { waitMs: 10_000 });
      assert.deepEqual([done.status, done.exit_code, done.output], ['exited', 0, 'woke\n']);
    });

    test('Ctrl-C through the API ends a runaway command with status 130', async () => {
      const r = await d.client.run(id, 'sleep 100', { timeoutMs: 300 });
      assert.equal(r.status, 'running');
      await d.client.input(id, [{ key: 'C-c' }]);
      const done = await d.client.command(id, r.id, { waitMs: 10_000 });
      assert.deepEqual([done.status, done.exit_code], ['exited', 130]);
    });

    test('10 MiB of output: the answer keeps head and tail, and the paged output is complete', async () => {
      const n = 1_500_000;
      const r = await d.client.run(id, `seq 1 ${n}`, { timeoutMs: 120_000 });
      assert.deepEqual([r.status, r.exit_code], ['exited', 0]);
      const expected = seqText(n);
      assert.equal(r.output_bytes, expected.length);
      assert.equal(r.output_truncated, true);
      assert.ok(Buffer.byteLength(r.output) < 17 * 1024, `bounded by the 16 KiB budget: ${Buffer.byteLength(r.output)}`);
      assert.ok(r.output.startsWith('1\n2\n3\n'));
      assert.ok(r.output.endsWith(`${n - 1}\n${n}\n`));
      assert.match(r.output, /\n\[\.\.\. \d+ bytes \(\d+ lines\) left out: page with GET \/v1\/sessions\/\w+\/commands\/c\d+\/output\?offset=N \.\.\.\]\n/);
      const pages: string[] = [];
      let offset = 0;
      for (;;) {
        const page = await d.client.commandOutput(id, r.id, { offset, limit: 1024 * 1024 });
        pages.push(page.output);
        assert.equal(page.complete, true);
        if (page.eof) break;
        offset = page.next_offset;
      }
      assert.ok(pages.join('') === expected, 'the pages put together are exactly the output');
    });

    test('background jobs that end while commands are typed lose none of them: each runs and answers its own status', async () => {
      // fish announces a finished job at once, above a new prompt, even while a line is being typed: that new prompt
      // is no refusal of the line (a syntax error looks the same), and the kernel says which: the line is still unread.
      const s = await d.client.createSession({ command: [shell], env: home.env, cwd: home.dir });
      await d.client.run(s.id, 'true', { timeoutMs: 10_000 });
      let n = 0;
      for (let job = 0; job < 8; job++) {
        await d.client.run(s.id, 'sleep 0.05 &', { timeoutMs: 10_000 });
        const until = Date.now() + 250;
        while (Date.now() < until) {
          const r = await d.client.run(s.id, `echo ran-${n}; false`, { timeoutMs: 10_000 });
          const lines = r.output.split('\n');
          assert.deepEqual([r.status, r.exit_code, r.rejected, lines.filter((l) => l === `ran-${n}`).length], ['exited', 1, false, 1], `command ${n} after job ${job}: ${JSON.stringify(r.output)}`);
          // The shell may announce the job while the command runs (zsh before its output, fish after): that notice is
          // on the screen, so in the output.
          for (const line of lines) assert.match(line, new RegExp(`^$|^ran-${n}$|sleep 0\\.05`), `command ${n}: ${JSON.stringify(r.output)}`);
          n++;
        }
      }
      await d.client.deleteSession(s.id);
    });

    test('commands typed through the API stay out of the history; a person\'s command does not', async () => {
      const s = await d.client.createSession({ command: [shell], env: home.env });
      await d.client.run(s.id, 'echo api-typed-marker', { timeoutMs: 10_000 });
      await d.client.wait(s.id, { prompt: true, timeout_ms: 10_000 });
      await d.client.input(s.id, [{ text: 'echo person-typed-marker' }, { key: 'Enter' }]);
      await d.client.wait(s.id, { regex: '^person-typed-marker$', timeout_ms: 10_000 });
      const typed = (await d.client.commands(s.id)).at(-1)!;
      assert.equal(typed.command, 'echo person-typed-marker', 'read from the screen');
      assert.deepEqual(typed.typed_by, { name: 'admin', kind: 'admin' });
      await d.client.wait(s.id, { prompt: true, timeout_ms: 10_000 });
      await d.client.input(s.id, [{ text: 'exit' }, { key: 'Enter' }]);
      await d.client.wait(s.id, { exit: true, timeout_ms: 10_000 });
      const history = await until('the history file', () => fs.existsSync(home.historyFile(shell)) && fs.readFileSync(home.historyFile(shell), 'utf8'));
      assert.match(history, /person-typed-marker/);
      assert.doesNotMatch(history, /api-typed-marker/);
      await d.client.deleteSession(s.id);
    });
  });
}

describe('transcripts', () => {
  test('keep command boundaries: the asciicast export marks where each command started and ended, with its status, in stream order', async () => {
    const s = await d.client.createSession({ command: ['bash'], env: home.env });
    await d.client.run(s.id, 'echo first-output', { timeoutMs: 10_000 });
    await d.client.run(s.id, 'echo second-output; false', { timeoutMs: 10_000 });
    await d.client.deleteSession(s.id);
    await d.store.flush();
    const cast = (await d.client.transcriptCast(s.id, { markers: true })).trim().split('\n').slice(1).map((l) => JSON.parse(l) as [number, string, string]);
    const seen = cast.filter(([, code, data]) => code === 'm' || (code === 'o' && /(?<!echo )(first|second)-output\r\n/.test(data))).map(([, code, data]) => (code === 'm' ? data : data.match(/(?<!echo )(first|second)-output/)![0]));
    assert.deepEqual(seen, ['command c1 started', 'first-output', 'command c1 exited 0', 'command c2 started', 'second-output', 'command c2 exited 1']);
    const plain = (await d.client.transcriptCast(s.id)).split('\n').slice(1).filter(Boolean).map((l) => JSON.parse(l)[1]);
    assert.ok(!plain.includes('m'), 'markers only when asked for');
  });
});

describe('shells without integration', () => {
  for (const sh of ['sh', 'dash']) {
    test(`${sh}: commands are refused with no_shell_integration, and everything else still works`, async () => {
      const s = await d.client.createSession({ command: [sh], env: { ...home.env, PS1: '$ ' } });
      assert.equal(s.shell_integration, 'unsupported');
      assert.equal(s.shell.state, 'unknown');
      await assert.rejects(
        d.client.run(s.id, 'true'),
        (e: TermhostError) => e.status === 409 && e.code === 'no_shell_integration' && typeof e.body.hint === 'string',
      );
      await assert.rejects(d.client.wait(s.id, { prompt: true, timeout_ms: 100 }), (e: TermhostError) => e.code === 'no_shell_integration');
      await assert.rejects(d.client.commands(s.id), (e: TermhostError) => e.code === 'no_shell_integration');
      await waitText(d, s.id, '$');
      await d.client.input(s.id, [{ text: 'echo $((6*7))' }, { key: 'Enter' }]);
      await d.client.wait(s.id, { regex: '^42$', timeout_ms: 10_000 });
      await d.client.deleteSession(s.id);
    });
  }

  test('"shell_integration": false starts bash untouched', async () => {
    const s = await d.client.createSession({ command: ['bash'], env: home.env, shell_integration: false });
    assert.equal(s.shell_integration, 'off');
    await waitText(d, s.id, 'mine');
    await assert.rejects(d.client.run(s.id, 'true'), (e: TermhostError) => e.code === 'no_shell_integration' && /turned off/.test(e.message));
    await d.client.deleteSession(s.id);
  });

  test('an empty command means the user\'s $SHELL, integrated', async () => {
    const s = await d.client.createSession({ env: home.env });
    assert.equal(s.shell_integration, process.env.SHELL && /\/(bash|zsh|fish)$/.test(process.env.SHELL) ? 'active' : 'unsupported');
    await d.client.deleteSession(s.id);
  });
});
