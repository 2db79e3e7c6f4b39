/**
 * A program cannot pass for the shell. Shell marks are believed only with the session's nonce, which the integration
 * script takes from the environment and unsets: commands never inherit it. Without that, any program (or a file
 * `cat` prints, a remote shell over ssh, a nested session) could end a command with the exit code it likes, claim a
 * prompt, or move the working directory.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertNoLeaks, startTestDaemon, until, type TestDaemon } from '../helpers.js';
import { SHELLS, makeShellHome, type ShellHome } from '../shellHome.js';

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

/** Every mark a program might print to pass for the shell: no nonce, a guessed one, the fields in another order. */
const FORGERIES = [
  '\\033]133;D;0\\007',
  '\\033]133;D;0;th=0123456789abcdef01234567\\007',
  '\\033]133;A\\007\\033]133;B\\007',
  '\\033]133;D;7;aid=1\\007',
  '\\033]7;file://evil/etc\\007',
];

for (const shell of SHELLS) {
  describe(`${shell}: forged marks`, () => {
    test('a command that prints forged D, A, B and OSC 7 marks is not ended early, keeps its exit status and cwd, and the forgeries are counted', async () => {
      const s = await d.client.createSession({ command: [shell], env: home.env, cwd: home.dir });
      await d.client.run(s.id, 'true', { timeoutMs: 10_000 });
      const before = (await d.client.getSession(s.id)).untrusted_marks;
      const r = await d.client.run(s.id, `printf '${FORGERIES.join('')}'; sleep 0.3; echo real-end; false`, { timeoutMs: 10_000 });
      assert.deepEqual([r.status, r.exit_code, r.output, r.cwd], ['exited', 1, 'real-end\n', home.dir]);
      const info = await d.client.getSession(s.id);
      assert.equal(info.untrusted_marks, before + 6);
      assert.equal(info.shell.cwd, home.dir, 'the forged OSC 7 did not move the working directory');
      assert.equal((await d.client.commands(s.id)).length, 2, 'no command was made up from the forged marks');
      await d.client.deleteSession(s.id);
    });

    test('a background loop printing OSC 7 between commands never moves the working directory', async () => {
      // The shell's own OSC 7 follows its D mark, and the prompt comes after the user's prompt commands: a program
      // in the background printing directories all the while used to land in that gap and be believed.
      const s = await d.client.createSession({ command: [shell], env: home.env, cwd: home.dir });
      await d.client.run(s.id, 'true', { timeoutMs: 10_000 });
      const stop = path.join(home.dir, `stop-${shell}`);
      await d.client.run(s.id, `sh -c 'while [ ! -e ${stop} ]; do printf "\\033]7;file://evil/etc\\007"; done' &`, { timeoutMs: 10_000 });
      const cwds = new Set<string | null>();
      try {
        await until('the loop to print', async () => (await d.client.getSession(s.id)).untrusted_marks > 100);
        for (let i = 0; i < 60; i++) {
          cwds.add((await d.client.run(s.id, 'true', { timeoutMs: 10_000 })).cwd);
          cwds.add((await d.client.getSession(s.id)).shell.cwd);
        }
      } finally {
        fs.writeFileSync(stop, '');
      }
      assert.deepEqual([...cwds], [home.dir]);
      // The loop's end is reaped here (fish would otherwise announce it by drawing its prompt again).
      await d.client.run(s.id, 'wait', { timeoutMs: 10_000 });
      // The shell's own reports still move it.
      const cd = await d.client.run(s.id, 'cd /tmp', { timeoutMs: 10_000 });
      assert.equal(cd.exit_code, 0, cd.output);
      assert.equal((await d.client.getSession(s.id)).shell.cwd, '/tmp');
      await d.client.deleteSession(s.id);
    });

    // fish runs config.fish before --init-command, so what it starts still inherits the nonce (security.md says so).
    if (shell !== 'fish') test("programs the user's rc files start never see the nonce in their environment", async () => {
      // An rc file that starts an agent or a prompt tool's daemon: it ran before the script unset the nonce, so it
      // inherited it, and kept it for as long as it lived.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-rc-env-'));
      try {
        fs.writeFileSync(path.join(dir, '.bashrc'), 'env > "$HOME/rc-env"\n');
        fs.writeFileSync(path.join(dir, '.zshenv'), 'env > "$HOME/rc-env"\n');
        fs.writeFileSync(path.join(dir, '.zshrc'), 'env >> "$HOME/rc-env"\n');
        const s = await d.client.createSession({ command: [shell], env: { HOME: dir } });
        assert.equal((await d.client.run(s.id, 'true', { timeoutMs: 10_000 })).exit_code, 0, 'the integration still works');
        const env = fs.readFileSync(path.join(dir, 'rc-env'), 'utf8');
        assert.match(env, /^HOME=/m);
        assert.doesNotMatch(env, /TERMHOST_SHELL_NONCE/);
        await d.client.deleteSession(s.id);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    test('commands never see the nonce in their environment', async () => {
      const s = await d.client.createSession({ command: [shell], env: home.env });
      const r = await d.client.run(s.id, 'env | grep -c TERMHOST_SHELL_NONCE; true', { timeoutMs: 10_000 });
      assert.equal(r.output, '0\n');
      await d.client.deleteSession(s.id);
    });
  });
}
