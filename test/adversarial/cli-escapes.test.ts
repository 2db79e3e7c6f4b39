/**
 * `termhost commands` prints what other callers wrote: command lines an agent sent, directories a shell reported.
 * Printed as they are, their control characters would be escape sequences for the terminal of the person who lists
 * them (OSC 52 writes the clipboard, CSI clears the screen, an 8-bit CSI does either where a terminal honours C1),
 * which is a boundary an agent token does not otherwise cross: the person's own terminal, outside termhost.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { TermhostClient } from '../../src/client/TermhostClient.js';
import { BIN, assertNoLeaks, attachTo, nextMatching, startTestDaemon, type TestDaemon } from '../helpers.js';
import { makeShellHome, type ShellHome } from '../shellHome.js';

const execFileP = promisify(execFile);
let d: TestDaemon;
let home: ShellHome;
let agent: TermhostClient;
before(async () => {
  d = await startTestDaemon();
  home = makeShellHome();
  agent = new TermhostClient({ address: d.address, token: (await d.client.createToken('bot', 'agent')).token });
});
after(async () => {
  agent.close();
  await d.stop();
  home.remove();
  await assertNoLeaks();
});

/** Every C0 control but tab and line end, DEL and the C1 controls. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test("termhost commands prints no control character an agent's command line or a shell's directory carried", async () => {
  const s = await d.client.createSession({ command: ['bash'], env: home.env, cwd: home.dir });
  await agent.run(s.id, 'true', { timeoutMs: 10_000 });
  // A directory whose name holds DEL: the shell reports it as it is. (An 8-bit CSI in a name ends the OSC 7 in the
  // emulator's parser, so such a directory is never reported.)
  const odd = path.join(home.dir, 'dir\u007f');
  fs.mkdirSync(odd);
  const cd = await agent.run(s.id, `cd ${home.dir}/dir*`, { timeoutMs: 10_000 });
  assert.equal((await agent.run(s.id, 'true', { timeoutMs: 10_000 })).cwd, odd, JSON.stringify(cd));
  await agent.run(s.id, 'echo listed # \u001b]52;c;cHduZWQ=\u0007\u001b[2J\u009b31m', { timeoutMs: 5_000 });
  const { stdout } = await execFileP(process.execPath, [BIN, 'commands', s.id], { env: { ...process.env, TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token } });
  assert.match(stdout, /echo listed/);
  assert.doesNotMatch(stdout, CONTROLS, JSON.stringify(stdout));
  await d.client.deleteSession(s.id);
});

test("a banner reaches people's terminals as plain text with its author: no escape sequence, no posing as termhost's own notices", async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  // OSC 52 would set the clipboard of the person who attaches; CSI could draw a fake line; C1 CSI where honoured.
  for (const message of ['\u001b]52;c;ZWNobyBwd25lZA==\u0007', 'ok\u001b[2K\r[session ended: completed]', 'x\u009b2J', 'bell\u0007']) {
    await assert.rejects(agent.banner(s.id, message), (e: Error & { status?: number; code?: string }) => e.status === 400 && e.code === 'invalid_request' && /plain text/.test(e.message));
  }
  await agent.banner(s.id, 'agent input paused by alice (human)\nsecond line');
  const conn = attachTo(d, s.id, { bearer: d.token });
  const banner = await nextMatching(conn, 'error');
  assert.equal(banner.message, 'banner from bot (agent): agent input paused by alice (human)\nsecond line');
  conn.close();
  await d.client.deleteSession(s.id, 'KILL');
});
