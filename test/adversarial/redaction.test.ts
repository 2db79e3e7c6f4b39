/**
 * Attacks that once put secrets in termhost.db, kept so they stay closed. Each reads the database file's bytes (and
 * its write-ahead log) for the secret, not only the API:
 * - a credential in a command line, a label or the working directory;
 * - a credential in a window title or an OSC 8 link target, split across PTY reads, BEL- and ST-terminated;
 * - a token broken by an invisible control (8-bit CSI, NUL, BEL), which the screen shows whole.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoLeaks, databaseBytes, startTestDaemon, type TestDaemon } from '../helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ transcriptBatchMs: 100 });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

// Fake credentials with the right shapes (none of them valid anywhere).
const GHP = 'ghp_' + 'Q7cLw2Rk9VbN4mXp8TzY3sHd6FgJ1aUe5WqK';
const GHP_BODY = GHP.slice(4);

/** The database files once everything is written, as bytes: what an attacker with the file would read. */
async function onDisk(): Promise<Buffer> {
  await d.store.flush();
  return databaseBytes(d.stateDir);
}

function assertNotOnDisk(bytes: Buffer, secrets: string[]): void {
  for (const secret of secrets) assert.ok(!bytes.includes(secret), `${JSON.stringify(secret)} is in termhost.db`);
}

/** Every 8-character piece of `secret`: a secret stored in parts is stored. */
function pieces(secret: string): string[] {
  return Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8));
}

test('a credential in a command line, a label or the working directory never reaches the database file', async () => {
  const dir = fs.mkdtempSync(path.join(d.stateDir, `cwd-${GHP}-`));
  const command = ['sh', '-c', `exit 0; curl -H 'Authorization: Bearer ${GHP}' https://api.github.com/user`];
  const s = await d.client.createSession({ command, cwd: dir, labels: { db_password: 'hunter2-label-pw', note: `token ${GHP}` }, transcript: 'off' });
  // The caller still sees its own command line while the session lives.
  assert.deepEqual((await d.client.getSession(s.id)).command, command);
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  await d.client.deleteSession(s.id);
  assertNotOnDisk(await onDisk(), [...pieces(GHP_BODY), 'hunter2-label-pw']);
  const rec = (await d.client.getSession(s.id)) as unknown as { command: string[]; labels: Record<string, string>; cwd: string };
  assert.deepEqual(rec.command, ['sh', '-c', "exit 0; curl -H 'Authorization: Bearer [redacted secret]' https://api.github.com/user"]);
  assert.deepEqual(rec.labels, { db_password: '[redacted secret]', note: 'token ghp_[redacted secret]' });
  assert.ok(rec.cwd.includes('cwd-ghp_[redacted secret]'), rec.cwd);
});

/**
 * A program that writes `parts` one by one, each its own PTY read (it waits between them). The parts come in the
 * environment, which is never stored: in argv, the record would hold them (split, so unrecognisable).
 */
function writesInParts(parts: string[]): { command: string[]; env: Record<string, string> } {
  const code = `import os, sys, time, json\nfor p in json.loads(os.environ['PARTS']):\n    sys.stdout.buffer.write(p.encode()); sys.stdout.flush(); time.sleep(0.05)`;
  return { command: ['python3', '-c', code], env: { PARTS: JSON.stringify(parts) } };
}

test('a credential in a window title or an OSC 8 link target, split across reads, is stored redacted (BEL and ST)', async () => {
  const parts = [
    '$ \x1b]0;mysql --pass',
    'word=Tt7hunter2xx -u root\x07',
    'ok\r\n\x1b]2;deploy API_TOKEN=ab12',
    'cd34ef56\x1b',
    '\\\r\n\x1b]8;;https://bob:Pw9',
    'zz88qq@git.example.com/x\x1b\\clone\x1b]8;;\x1b\\ done\r\n',
  ];
  const s = await d.client.createSession(writesInParts(parts));
  const done = await d.client.wait(s.id, { exit: true, timeout_ms: 10000 });
  assert.ok(done.screen.lines.join('\n').includes('clone done'), done.screen.lines.join('\n'));
  const bytes = await onDisk();
  assertNotOnDisk(bytes, ['Tt7hunter2xx', 'hunter2', 'ab12cd34ef56', 'cd34ef56', 'Pw9zz88qq', 'zz88qq']);
  const stored = (await d.client.transcript(s.id)).chunks.map((c) => c.text).join('');
  assert.ok(stored.includes('\x1b]0;mysql --password=[redacted secret] -u root\x07'), JSON.stringify(stored));
  assert.ok(stored.includes('\x1b]8;;https://bob:[redacted secret]@git.example.com/x\x1b\\'), JSON.stringify(stored));
  await d.client.deleteSession(s.id);
});

test('a token broken by an 8-bit CSI, a NUL or a BEL is drawn whole on the screen and stored redacted', async () => {
  for (const [name, control] of [['8-bit CSI', '\u009b0m'], ['NUL', '\x00'], ['BEL', '\x07']] as const) {
    const [head, tail] = [GHP.slice(0, 16), GHP.slice(16)];
    const s = await d.client.createSession(writesInParts([`token ${head}`, `${control}${tail} end\r\n`]));
    const done = await d.client.wait(s.id, { exit: true, timeout_ms: 10000 });
    assert.ok(done.screen.lines.join('\n').includes(`token ${GHP} end`), `${name}: the screen shows the token whole`);
    assertNotOnDisk(await onDisk(), [...pieces(GHP_BODY), head.slice(4), tail]);
    await d.client.deleteSession(s.id);
  }
});
