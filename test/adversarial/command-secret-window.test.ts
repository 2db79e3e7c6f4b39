/**
 * Nothing typed or printed during a secret-input window reaches a command record: not its command line, not its
 * output, not the list, not the page, not the events. The window is for a person typing a secret at whatever the
 * terminal shows, the shell's own prompt included (`mysql -p'...'`, `export TOKEN=...`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TermhostClient } from '../../src/client/TermhostClient.js';
import { assertNoLeaks, endSecretWindow, startTestDaemon, until, type TestDaemon } from '../helpers.js';
import { SHELLS, makeShellHome, type ShellHome } from '../shellHome.js';

let d: TestDaemon;
let home: ShellHome;
let person: TermhostClient;
let viewer: TermhostClient;
before(async () => {
  d = await startTestDaemon();
  home = makeShellHome();
  person = new TermhostClient({ address: d.address, token: (await d.client.createToken('alice', 'human')).token });
  viewer = new TermhostClient({ address: d.address, token: (await d.client.createToken('eve', 'viewer')).token });
});
after(async () => {
  person.close();
  viewer.close();
  await d.stop();
  home.remove();
  await assertNoLeaks();
});

const SECRET = 'hunter2-tyPed-in-the-window';

for (const shell of SHELLS) {
  describe(`${shell}: a command a person types inside a secret-input window`, () => {
    test('its command line and output never reach a viewer, during the window or after it', async () => {
      const s = await d.client.createSession({ command: [shell], env: home.env, cwd: home.dir });
      await d.client.run(s.id, 'true', { timeoutMs: 10_000 });
      await person.secretAction(s.id, 'start', 'typing a database password at the prompt');
      await person.input(s.id, [{ text: `echo ${SECRET} >/dev/null; echo printed-${SECRET}; sleep 1` }, { key: 'Enter' }]);
      const seen: string[] = [];
      // While the window is open, and the command started inside it runs.
      await until('the shell to start the command (the kernel sees sleep)', async () => {
        const list = await viewer.commands(s.id);
        seen.push(JSON.stringify(list));
        for (const c of list) {
          seen.push(JSON.stringify(await viewer.command(s.id, c.id)));
          seen.push(JSON.stringify(await viewer.commandOutput(s.id, c.id)));
        }
        return list.length >= 2;
      }, 10_000);
      await endSecretWindow(person, s.id);
      await d.client.wait(s.id, { prompt: true, timeout_ms: 10_000 });
      const list = await viewer.commands(s.id);
      seen.push(JSON.stringify(list));
      for (const c of list) {
        seen.push(JSON.stringify(await viewer.command(s.id, c.id)));
        seen.push(JSON.stringify(await viewer.commandOutput(s.id, c.id)));
      }
      const all = seen.join('\n');
      assert.doesNotMatch(all, new RegExp(SECRET), 'the secret reached a command record');
      // The command is still on record, as having run, with what the window hid said.
      const ran = list.at(-1)!;
      assert.deepEqual([list.length, ran.status, ran.exit_code, ran.command], [2, 'exited', 0, '[secret input: hidden by termhost]']);
      assert.match((await viewer.command(s.id, ran.id)).output, /^\[secret input: hidden by termhost\]\n?$/);
      await d.client.deleteSession(s.id);
    });

    test('what a program prints inside the window never reaches a viewer as the prompt it waits at', async () => {
      const s = await d.client.createSession({ command: [shell], env: home.env, cwd: home.dir });
      await d.client.run(s.id, 'true', { timeoutMs: 10_000 });
      await person.secretAction(s.id, 'start', 'typing a token');
      await person.input(s.id, [{ text: `printf 'printed-${SECRET} '; read x` }, { key: 'Enter' }]);
      const seen: string[] = [];
      // The program now waits for a line; the kernel says so, and readers may learn that it waits, not at what.
      await until('the kernel to see the read', async () => {
        const info = await viewer.getSession(s.id);
        seen.push(JSON.stringify(info));
        for (const c of await viewer.commands(s.id)) seen.push(JSON.stringify(await viewer.command(s.id, c.id)));
        return info.shell.input_needed !== null && info;
      }, 10_000);
      assert.doesNotMatch(seen.join('\n'), new RegExp(SECRET));
      assert.equal((await viewer.getSession(s.id)).shell.input_needed?.prompt, '[secret input: hidden by termhost]');
      await person.input(s.id, [{ text: 'answer' }, { key: 'Enter' }]);
      await endSecretWindow(person, s.id);
      await d.client.deleteSession(s.id);
    });
  });
}
