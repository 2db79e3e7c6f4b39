/**
 * The audit trail: who created, attached, typed, resized, signalled, leased and ended what, kept in the store so it
 * survives a restart; input as byte counts only, and nothing of it during a secret-input window. Paged by
 * GET /v1/audit (a person sees its scope, an admin everything), printed by `termhost audit`, and carried as markers
 * by the asciicast export on request.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError, type AuditEntry } from '../src/client/TermhostClient.js';
import { INPUT_COALESCE_MS } from '../src/core/index.js';
import { assertNoLeaks, attachTo, databaseBytes, endSecretWindow, nextMatching, runBin, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let agent: TermhostClient;
let alice: TermhostClient;
let watcher: TermhostClient;
let aliceToken: string;
before(async () => {
  d = await startTestDaemon();
  agent = new TermhostClient({ address: d.address, token: (await d.client.createToken('claude', 'agent')).token });
  aliceToken = (await d.client.createToken('alice', 'human')).token;
  alice = new TermhostClient({ address: d.address, token: aliceToken });
  watcher = new TermhostClient({ address: d.address, token: (await d.client.createToken('watcher', 'viewer')).token });
});
after(async () => {
  for (const c of [agent, alice, watcher]) c.close();
  await d.stop();
  await assertNoLeaks();
});

/** Every entry the admin can read about one session, waiting until `until` says the trail is complete. */
async function trail(client: TermhostClient, session: string, done: (e: AuditEntry[]) => boolean = () => true): Promise<AuditEntry[]> {
  return until(`the audit trail of ${session}`, async () => {
    const entries: AuditEntry[] = [];
    for (let after: number | null = 0; after !== null; ) {
      const page = await client.audit({ session, after });
      entries.push(...page.entries);
      after = page.next_after;
    }
    return done(entries) && entries;
  }, 10_000);
}
const brief = (e: AuditEntry) => `${e.actor.name}:${e.action}`;

test('the trail keeps who created, typed (bytes only), attached, leased, resized, signalled and ended a session', async () => {
  const s = await agent.createSession({ command: ['cat'] });
  await agent.input(s.id, [{ text: 'hello-audit' }]);
  await agent.input(s.id, [{ text: '12345' }, { key: 'Enter' }]);
  await waitText(d, s.id, '12345');
  const conn = attachTo(d, s.id, { token: aliceToken, role: 'driver' });
  await nextMatching(conn, 'hello');
  const lease = await agent.acquireLease(s.id, 'shared', 10_000);
  await agent.releaseLease(s.id, lease.lease_id);
  await alice.resize(s.id, 100, 30);
  conn.close();
  await agent.signal(s.id, 'INT');
  await agent.deleteSession(s.id, 'KILL');
  const entries = await trail(d.client, s.id, (es) => es.some((e) => e.action === 'process_exited') && es.some((e) => e.action === 'client_detached'));
  const actions = entries.map(brief);
  for (const want of [
    'claude:session_created',
    'claude:input',
    'alice:client_attached',
    'claude:lease_acquired',
    'claude:lease_released',
    'alice:resized',
    'alice:client_detached',
    'claude:signalled',
    'claude:session_ended',
    'system:process_exited',
  ]) assert.ok(actions.includes(want), `${want} in ${actions.join(', ')}`);
  // In the order they happened, ids increasing.
  assert.ok(actions.indexOf('claude:session_created') < actions.indexOf('claude:input'));
  assert.ok(actions.indexOf('alice:resized') < actions.indexOf('claude:signalled'));
  assert.deepEqual(entries.map((e) => e.id), [...entries.map((e) => e.id)].sort((x, y) => x - y));
  // Input: one entry for the two requests (within a second), 11 + 5 + 1 bytes, and no text.
  const input = entries.filter((e) => e.action === 'input');
  assert.equal(input.reduce((n, e) => n + Number(e.detail.bytes), 0), 17);
  assert.deepEqual(input.map((e) => e.detail.source), input.map(() => 'api'));
  assert.deepEqual(entries.find((e) => e.action === 'client_attached')!.detail.role, 'driver');
  assert.deepEqual(entries.find((e) => e.action === 'resized')!.detail, { cols: 100, rows: 30 });
  assert.equal(entries.find((e) => e.action === 'signalled')!.detail.signal, 'INT');
  assert.ok(!JSON.stringify(entries).includes('hello-audit'), 'no typed text in the trail');
});

test('a secret-input window leaves only its opening and closing in the trail: no input, no byte counts', async () => {
  const s = await alice.createSession({ command: ['sh', '-c', 'stty -echo; while read l; do echo "got ${#l}"; done'] });
  await alice.input(s.id, [{ text: 'before' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'got 6');
  await alice.secretAction(s.id, 'start', 'typing a password');
  for (const ch of 'hunter2-secret') await alice.input(s.id, [{ text: ch }]);
  await alice.input(s.id, [{ key: 'Enter' }]);
  // Past the coalescing interval, so any count held during the window would have been written by now.
  await new Promise((r) => setTimeout(r, INPUT_COALESCE_MS + 200));
  await endSecretWindow(alice, s.id);
  await alice.input(s.id, [{ text: 'after' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'got 5');
  const entries = await trail(d.client, s.id, (es) => es.filter((e) => e.action === 'input').length >= 2);
  const opened = entries.findIndex((e) => e.action === 'secret_input_started');
  const closed = entries.findIndex((e) => e.action === 'secret_input_ended');
  assert.ok(opened >= 0 && closed > opened, entries.map(brief).join(', '));
  assert.deepEqual(entries.slice(opened + 1, closed).map(brief), [], 'nothing between the opening and the closing');
  const bytes = entries.filter((e) => e.action === 'input').map((e) => e.detail.bytes);
  assert.deepEqual(bytes, [7, 6], 'only the input before and after the window is counted');
  assert.ok(!databaseBytes(d.stateDir).includes('hunter2'), 'the secret is nowhere in the database');
  await alice.deleteSession(s.id, 'KILL');
});

test('GET /v1/audit pages with after and next_after and filters by actor and time; agents and viewers are refused', async () => {
  const since = new Date().toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await agent.createSession({ command: ['true'] })).id);
  const all: AuditEntry[] = [];
  for (let after: number | null = 0; after !== null; ) {
    const page = await d.client.audit({ actor: 'claude', since, after, limit: 2 });
    assert.ok(page.entries.length <= 2);
    all.push(...page.entries);
    after = page.next_after;
  }
  assert.deepEqual(all.filter((e) => e.action === 'session_created').map((e) => e.session_id), ids);
  assert.ok(all.every((e) => e.actor.name === 'claude' && Date.parse(e.at) >= Date.parse(since)));
  // Tokens and sign-ins are in the trail, for admins.
  const tokens = await d.client.audit({ actor: 'admin' });
  assert.ok(tokens.entries.some((e) => e.action === 'token_created' && e.detail.name === 'alice' && e.detail.role === 'human' && e.session_id === null));
  for (const c of [agent, watcher]) await assert.rejects(c.audit(), (e: TermhostError) => e.status === 403 && e.code === 'forbidden' && /human role/.test(e.message));
  // A person reads what concerns sessions, not the token entries.
  const hers = await alice.audit({ actor: 'admin' });
  assert.ok(!hers.entries.some((e) => e.session_id === null), 'no token entries for a person');
  await assert.rejects(d.client.audit({ session: 'zz999999' }), (e: TermhostError) => e.status === 404 && e.code === 'session_not_found');
  await d.client.prune();
});

test('a scoped person reads the trail of its own sessions only, and the same 404 for another session', async () => {
  const scoped = await d.client.createToken('bob', 'human', { scope: 'own' });
  const bob = new TermhostClient({ address: d.address, token: scoped.token });
  try {
    const mine = await bob.createSession({ command: ['cat'] });
    const other = await agent.createSession({ command: ['cat'] });
    const page = await bob.audit();
    assert.ok(page.entries.length > 0);
    assert.deepEqual([...new Set(page.entries.map((e) => e.session_id))], [mine.id]);
    await assert.rejects(bob.audit({ session: other.id }), (e: TermhostError) => e.status === 404 && e.code === 'session_not_found');
    await bob.deleteSession(mine.id, 'KILL', { purge: true });
    await agent.deleteSession(other.id, 'KILL');
    // Purged: the record is gone, and with it the person's view; the admin still reads who did what, and the purge.
    assert.deepEqual((await bob.audit()).entries, []);
    assert.ok((await d.client.audit({ session: mine.id }).catch(() => undefined)) === undefined, 'a purged session is not a session');
    const admin = await d.client.audit({ actor: 'bob' });
    assert.ok(admin.entries.some((e) => e.action === 'session_purged' && e.session_id === mine.id));
  } finally {
    bob.close();
  }
});

test('the trail survives a restart; termhost audit prints it; the asciicast carries it as markers on request', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-audit-'));
  const token = crypto.randomBytes(16).toString('hex');
  try {
    const first = await startTestDaemon({ stateDir: dir, token });
    const s = await first.client.createSession({ command: ['cat'] });
    await first.client.input(s.id, [{ text: 'abc' }, { key: 'Enter' }]);
    await waitText(first, s.id, 'abc');
    const viewer = attachTo(first, s.id, { bearer: token });
    await nextMatching(viewer, 'hello');
    viewer.close();
    await first.client.deleteSession(s.id, 'KILL');
    await first.stop();

    const again = await startTestDaemon({ stateDir: dir, token });
    try {
      const entries = await trail(again.client, s.id);
      assert.deepEqual(
        ['session_created', 'input', 'client_attached', 'client_detached', 'session_ended', 'process_exited'].filter((a) => !entries.some((e) => e.action === a)),
        [],
        entries.map(brief).join(', '),
      );
      const printed = await runBin(['audit', '--session', s.id], { env: { TERMHOST_ADDR: again.address, TERMHOST_TOKEN: token } });
      assert.equal(printed.code, 0, printed.stderr);
      const rows = printed.stdout.trim().split('\n').map((l) => l.split('\t'));
      assert.ok(rows.some((r) => r[1] === s.id && r[2] === 'admin' && r[4] === 'input' && r[5] === 'source=api bytes=4 writes=1'), printed.stdout);
      assert.ok(rows.some((r) => r[4] === 'client_attached' && r[5]!.includes('role=viewer')));
      const cast = await again.client.transcriptCast(s.id, { audit: true });
      const markers = cast.trim().split('\n').slice(1).map((l) => JSON.parse(l) as [number, string, string]).filter((e) => e[1] === 'm').map((e) => e[2]);
      assert.ok(markers.includes('admin (viewer) client_attached role=viewer client_id=1'), markers.join(' | '));
      assert.ok(markers.some((m) => m.startsWith('admin (admin) input source=api bytes=4')));
      const plain = await again.client.transcriptCast(s.id);
      assert.ok(!plain.includes('client_attached'), 'markers only on request');
    } finally {
      await again.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
