/** Credentials carry the actor: what each role may do on every route and on attach, and revocation taking effect. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, attachTo, nextMatching, rawRequest, sse, startTestDaemon, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
const clients: Record<string, TermhostClient> = {};
const secrets: Record<string, string> = {};
before(async () => {
  d = await startTestDaemon();
  for (const [name, role] of [['watcher', 'viewer'], ['claude', 'agent'], ['alice', 'human'], ['ops', 'admin']] as const) {
    const created = await d.client.createToken(name, role);
    secrets[name] = created.token;
    clients[name] = new TermhostClient({ address: d.address, token: created.token });
  }
});
after(async () => {
  for (const c of Object.values(clients)) c.close();
  await d.stop();
  await assertNoLeaks();
});

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: TermhostError) => e.status,
  );

test('tokens are shown once and stored only as hashes', async () => {
  const list = await d.client.listTokens();
  assert.deepEqual(list.map((t) => [t.name, t.role]).sort(), [['admin', 'admin'], ['alice', 'human'], ['claude', 'agent'], ['ops', 'admin'], ['watcher', 'viewer']]);
  const fs = await import('node:fs');
  const stored = fs.readFileSync(`${d.stateDir}/tokens.json`, 'utf8');
  for (const s of Object.values(secrets)) assert.ok(!stored.includes(s), 'no secret on disk');
  assert.equal(fs.statSync(`${d.stateDir}/tokens.json`).mode & 0o777, 0o600);
  await assert.rejects(d.client.createToken('claude', 'agent'), (e: TermhostError) => e.status === 409 && e.code === 'token_exists');
});

test('a viewer can read but not write, resize, signal, kill, create, lease, post banners or mint driver tokens', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const v = clients.watcher!;
  assert.equal((await v.getSession(s.id)).id, s.id);
  assert.equal((await v.screen(s.id)).rows, 24);
  assert.equal(await status(v.listSessions()), 200);
  assert.equal(await status(v.leases(s.id)), 200);
  assert.equal(await status(v.mintAttachToken(s.id, 'viewer')), 200);
  for (const [what, p] of [
    ['input', () => v.input(s.id, [{ text: 'x' }])],
    ['mouse', () => v.mouse(s.id, { type: 'click', x: 0, y: 0 })],
    ['resize', () => v.resize(s.id, 10, 10)],
    ['signal', () => v.signal(s.id, 'INT')],
    ['delete', () => v.deleteSession(s.id)],
    ['create', () => v.createSession({ command: ['true'] })],
    ['lease', () => v.acquireLease(s.id, 'shared', 1000)],
    ['banner', () => v.banner(s.id, 'hi')],
    ['driver token', () => v.mintAttachToken(s.id, 'driver')],
    ['tokens', () => v.listTokens()],
  ] as const) {
    await assert.rejects(p(), (e: TermhostError) => e.status === 403 && e.code === 'forbidden', what);
  }
  // Raising the shield is allowed to anyone; lowering it is not.
  assert.equal((await v.secretAction(s.id, 'start', 'viewer saw a prompt')).active, true);
  await assert.rejects(v.secretAction(s.id, 'end'), (e: TermhostError) => e.status === 403);
  await clients.alice!.secretAction(s.id, 'end');
  // On attach, a viewer's bearer token gives a viewer whatever role it asks for.
  const conn = attachTo(d, s.id, { token: secrets.watcher, role: 'driver' });
  assert.equal((await nextMatching(conn, 'hello')).role, 'viewer');
  conn.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('an agent drives but cannot end a secret window or manage tokens; people and admins can', async () => {
  const s = await clients.claude!.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } });
  await clients.claude!.input(s.id, [{ text: 'echo from-agent' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'from-agent');
  assert.deepEqual((await d.client.getSession(s.id)).last_input_by, { name: 'claude', kind: 'agent' });
  await clients.claude!.secretAction(s.id, 'start', 'agent hands over');
  await assert.rejects(clients.claude!.secretAction(s.id, 'end'), (e: TermhostError) => e.status === 403 && e.code === 'forbidden');
  const human = await until200(() => clients.alice!.secretAction(s.id, 'end'));
  assert.equal(human.active, false);
  for (const p of [() => clients.claude!.listTokens(), () => clients.claude!.createToken('x', 'admin'), () => clients.claude!.revokeToken('alice'), () => clients.alice!.listTokens()]) {
    await assert.rejects(p(), (e: TermhostError) => e.status === 403);
  }
  assert.equal((await clients.ops!.listTokens()).length, 5);
  await clients.alice!.input(s.id, [{ text: 'echo from-person' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'from-person');
  assert.deepEqual((await d.client.getSession(s.id)).last_input_by, { name: 'alice', kind: 'human' });
  await clients.alice!.deleteSession(s.id);
});

/** Ending a window is refused while output settles; people retry. */
async function until200<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if ((e as TermhostError).code !== 'secret_input_settling' || i > 100) throw e;
      await new Promise((r) => setTimeout(r, Number((e as TermhostError).body.retry_after_ms ?? 50)));
    }
  }
}

test('a revoked token stops working at once: requests, attach sockets and event streams', async () => {
  const temp = await d.client.createToken('temp-agent', 'agent');
  const c = new TermhostClient({ address: d.address, token: temp.token });
  const s = await c.createSession({ command: ['sleep', '30'] });
  const conn = attachTo(d, s.id, { token: temp.token, role: 'driver' });
  await nextMatching(conn, 'hello');
  const minted = await c.mintAttachToken(s.id, 'driver');
  const stream = sse(d.address, temp.token);
  await stream.next();
  await d.client.revokeToken('temp-agent');
  await assert.rejects(c.getSession(s.id), (e: TermhostError) => e.status === 401);
  assert.equal((await nextMatching(conn, 'closed')).code, 4003);
  while ((await stream.next()) !== undefined); // events published before the revocation may still arrive
  assert.equal(stream.ended, true, 'the event stream ends');
  // Attach tokens minted with it die with it.
  assert.equal((await nextMatching(attachTo(d, s.id, { token: minted.token }), 'closed')).code, 4003);
  const r = await rawRequest(d.address, { path: '/v1/sessions', headers: { authorization: `Bearer ${temp.token}` } });
  assert.equal(r.status, 401);
  // A new token under the same name does not bring the old one's attach tokens back.
  await d.client.createToken('temp-agent', 'viewer');
  assert.equal((await nextMatching(attachTo(d, s.id, { token: minted.token }), 'closed')).code, 4003);
  await d.client.revokeToken('temp-agent');
  c.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('the CLI manages tokens: create prints the secret once, ls, revoke', async () => {
  const { runCli } = await import('../src/cli/main.js');
  let out = '';
  const io = { out: (s: string) => (out += s), err: () => {} };
  const flags = ['--addr', d.address, '--token', d.token];
  assert.equal(await runCli(['token', 'create', ...flags, '--role', 'agent', '--name', 'cli-made'], io), 0);
  const secret = out.trim();
  assert.match(secret, /^th_/);
  const c = new TermhostClient({ address: d.address, token: secret });
  assert.ok(Array.isArray(await c.listSessions()));
  out = '';
  assert.equal(await runCli(['token', 'ls', ...flags], io), 0);
  assert.match(out, /^cli-made\tagent\t/m);
  assert.equal(await runCli(['token', 'revoke', ...flags, 'cli-made'], io), 0);
  await assert.rejects(c.listSessions(), (e: TermhostError) => e.status === 401);
  c.close();
});
