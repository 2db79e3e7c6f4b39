/**
 * Moderated sessions (require_moderator): an agent types only while a person (a human or admin token) is attached as
 * driver; a moderator pauses and resumes agent input, revokes an agent's lease or ends the session, each as an
 * event, an audit entry and a notice to the attached clients; nobody for the grace period ends the session.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { loadConfig } from '../src/configFile.js';
import { assertNoLeaks, attachTo, nextMatching, sse, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
const tokens: Record<string, string> = {};
const as: Record<string, TermhostClient> = {};
/** Long enough that no test but the grace test meets it, short enough that a leaked timer would show. */
const GRACE_MS = 60_000;

before(async () => {
  d = await startTestDaemon();
  for (const [name, role] of [['watcher', 'viewer'], ['claude', 'agent'], ['alice', 'human'], ['bob', 'human']] as const) {
    tokens[name] = (await d.client.createToken(name, role)).token;
    as[name] = new TermhostClient({ address: d.address, token: tokens[name] });
  }
});
after(async () => {
  for (const c of Object.values(as)) c.close();
  await d.stop();
  await assertNoLeaks();
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: TermhostError) => `${e.status} ${e.code}`,
  );

async function moderated(extra: Record<string, unknown> = {}) {
  return as.claude!.createSession({ command: ['cat'], require_moderator: true, moderator_grace_ms: GRACE_MS, ...extra });
}

/** A person attached as driver, once the daemon counts them present. */
async function personAttaches(id: string, who = 'alice') {
  const conn = attachTo(d, id, { token: tokens[who], role: 'driver' });
  await nextMatching(conn, 'hello');
  await until(`${who} counted present`, async () => (await d.client.getSession(id)).moderation.presence === 'present');
  return conn;
}

test("an agent's input is refused before a person attaches, accepted while one is attached, and refused within a second of their leaving", async () => {
  const s = await moderated();
  assert.equal(s.moderation.required, true);
  assert.equal(s.moderation.presence, 'waiting');
  assert.equal(s.moderation.agent_input, 'refused');
  assert.match(s.moderation.required_person, /attached as driver/);

  const before = await as.claude!.input(s.id, [{ text: 'early\r' }]).catch((e: TermhostError) => e);
  assert.ok(before instanceof TermhostError);
  assert.equal(before.status, 409);
  assert.equal(before.code, 'moderator_required');
  assert.equal(before.retryable, true);
  assert.match(before.message, new RegExp(`termhost attach -write ${s.id}`), 'the refusal says what to do');
  assert.equal((before.body as { moderation: { presence: string } }).moderation.presence, 'waiting');

  const alice = await personAttaches(s.id);
  await as.claude!.input(s.id, [{ text: 'while-watched\r' }]);
  await waitText(d, s.id, 'while-watched');
  const watched = await d.client.getSession(s.id);
  assert.deepEqual(watched.moderation.present, [{ name: 'alice', kind: 'human' }]);
  assert.equal(watched.moderation.ends_at, null);

  alice.close();
  const left = Date.now();
  const code = await until('agent input refused after the person left', async () => {
    const r = await refusal(as.claude!.input(s.id, [{ text: 'x' }]));
    return r === '409 moderator_required' && r;
  }, 1000);
  assert.equal(code, '409 moderator_required');
  assert.ok(Date.now() - left < 1000, `refused ${Date.now() - left} ms after leaving`);
  const info = await d.client.getSession(s.id);
  assert.equal(info.moderation.presence, 'absent');
  assert.equal(info.moderation.agent_input, 'refused');
  assert.ok(info.moderation.ends_at && Date.parse(info.moderation.ends_at) > Date.now(), 'the session says when it ends');
  // People may always type: moderation protects their keyboard, it does not take it.
  await as.alice!.input(s.id, [{ text: 'person-typed\r' }]);
  await waitText(d, s.id, 'person-typed');
  await d.client.deleteSession(s.id);
});

test('a moderated session nobody attends ends with reason closed after its grace period', async () => {
  const stream = sse(d.address, d.token, { session: undefined });
  const s = await moderated({ moderator_grace_ms: 1500 });
  const alice = await personAttaches(s.id);
  alice.close();
  await until('the session ended after the grace period', async () => (await d.client.getSession(s.id)).exited, 15_000);
  const info = await d.client.getSession(s.id);
  assert.equal(info.exit_reason, 'closed');
  const seen: string[] = [];
  for (;;) {
    const ev = await stream.nextEvent(10_000);
    if (!ev) break;
    if (ev.session_id !== s.id) continue;
    if (ev.type === 'moderation_changed') seen.push(`${ev.change} by ${ev.actor.kind}`);
    if (ev.type === 'process_exited') {
      assert.equal(ev.reason, 'closed');
      break;
    }
  }
  stream.close();
  assert.deepEqual(seen, ['person_joined by human', 'person_left by human', 'grace_expired by system']);
  const audit = await d.client.audit({ session: s.id });
  const ended = audit.entries.find((e) => e.action === 'session_ended');
  assert.equal(ended?.actor.kind, 'system');
  assert.ok(audit.entries.some((e) => e.action === 'moderation_changed' && e.detail.change === 'grace_expired'));
});

test('a session nobody ever attends ends after its grace too', async () => {
  const s = await moderated({ moderator_grace_ms: 1000 });
  await until('the unattended session ended', async () => (await d.client.getSession(s.id)).exited, 15_000);
  assert.equal((await d.client.getSession(s.id)).exit_reason, 'closed');
});

test('pause, resume, revoke and end: each is an event, an audit entry and a notice to the people attached', async () => {
  const s = await moderated();
  const stream = sse(d.address, d.token, { session: s.id });
  const alice = await personAttaches(s.id);
  const bob = await personAttaches(s.id, 'bob');
  assert.equal((await nextMatching(alice, 'error')).message, 'moderator joined: bob (human); agents may type');

  const paused = await as.bob!.moderate(s.id, 'pause');
  assert.deepEqual(paused.paused_by, { name: 'bob', kind: 'human' });
  assert.equal(paused.agent_input, 'refused');
  const state = await nextMatching(alice, 'state');
  assert.equal(state.moderation?.paused_by?.name, 'bob');
  const notice = await nextMatching(alice, 'error');
  assert.equal(notice.message, 'agent input paused by bob (human)');
  assert.equal(notice.code, undefined, 'a notice, not an error');
  const refused = await as.claude!.input(s.id, [{ text: 'x' }]).catch((e: TermhostError) => e);
  assert.ok(refused instanceof TermhostError);
  assert.equal(`${refused.status} ${refused.code} ${refused.retryable}`, '409 input_paused true');
  assert.match(refused.message, /bob paused agent input/);

  assert.equal((await as.alice!.moderate(s.id, 'resume')).agent_input, 'allowed');
  await as.claude!.input(s.id, [{ text: 'resumed\r' }]);

  const lease = await as.claude!.acquireLease(s.id, 'exclusive', 60_000);
  await as.alice!.moderate(s.id, 'revoke', lease.lease_id);
  assert.deepEqual(await as.claude!.leases(s.id), []);
  assert.equal(await refusal(as.claude!.input(s.id, [{ text: 'x' }], { leaseId: lease.lease_id })), '409 lease_preempted');
  assert.equal(await refusal(as.alice!.moderate(s.id, 'revoke', 'l_nosuchlease')), '404 lease_not_found');

  await as.alice!.moderate(s.id, 'end');
  const info = await d.client.getSession(s.id);
  assert.equal(info.exit_reason, 'closed');
  await nextMatching(bob, 'exit');

  const changes: string[] = [];
  let released = '';
  for (;;) {
    const ev = await stream.nextEvent(10_000);
    if (!ev || ev.type === 'process_exited') break;
    if (ev.type === 'moderation_changed') changes.push(`${ev.change}:${ev.actor.name}${ev.lease_id ? `:${ev.lease_id === lease.lease_id}` : ''}`);
    if (ev.type === 'lease_released') released = ev.reason;
  }
  stream.close();
  assert.deepEqual(changes, ['person_joined:alice', 'person_joined:bob', 'paused:bob', 'resumed:alice', 'lease_revoked:alice:true', 'ended:alice']);
  assert.equal(released, 'revoked');
  const audit = await d.client.audit({ session: s.id });
  assert.deepEqual(
    audit.entries.filter((e) => e.action === 'moderation_changed').map((e) => `${e.detail.change}:${e.actor.name}`),
    ['person_joined:alice', 'person_joined:bob', 'paused:bob', 'resumed:alice', 'lease_revoked:alice', 'ended:alice'],
  );
  alice.close();
});

test('only people moderate: an agent and a viewer are refused, whatever the session', async () => {
  const s = await moderated();
  for (const who of ['claude', 'watcher'] as const) {
    for (const action of ['pause', 'resume', 'end'] as const) {
      assert.equal(await refusal(as[who]!.moderate(s.id, action)), '403 forbidden', `${who} ${action}`);
    }
  }
  assert.equal((await as.watcher!.moderation(s.id)).required, true, 'anyone who sees the session may read its moderation');
  assert.equal((await d.client.moderate(s.id, 'pause')).paused_by?.kind, 'admin', 'the admin token is a person');
  await d.client.deleteSession(s.id);
});

test('an agent attached as driver over the attach socket gets the same refusal', async () => {
  const s = await moderated();
  const agent = attachTo(d, s.id, { token: tokens.claude, role: 'driver' });
  await nextMatching(agent, 'hello');
  const state = await nextMatching(agent, 'state');
  assert.equal(state.moderation?.agent_input, 'refused');
  agent.sendStdin(Buffer.from('typed-by-agent\r'));
  const err = await nextMatching(agent, 'error');
  assert.equal(err.code, 'moderator_required');
  assert.match(err.message, /termhost attach -write/);
  assert.equal((await d.client.getSession(s.id)).moderation.presence, 'waiting', 'an agent attached as driver is not a person');
  agent.close();
  await d.client.deleteSession(s.id);
});

test('MCP send and run give the same refusal, with what to do', async () => {
  const s = await moderated({ command: ['bash'] });
  await until('bash at its prompt', async () => (await d.client.getSession(s.id)).shell.state === 'at_prompt');
  const transport = new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.claude}` } } });
  const mcp = new Client({ name: 'test-moderation', version: '0' });
  await mcp.connect(transport);
  try {
    for (const [tool, args] of [
      ['send', { session: s.id, input: [{ text: 'x' }] }],
      ['run', { session: s.id, command: 'echo hi' }],
    ] as const) {
      const r = (await mcp.callTool({ name: tool, arguments: args })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };
      assert.equal(r.isError, true, tool);
      const text = r.content[0]?.text ?? '';
      assert.match(text, /^error moderator_required: /, tool);
      assert.match(text, new RegExp(`termhost attach -write ${s.id}`), tool);
      assert.match(text, /attaching yourself does not count/, tool);
      assert.equal(r.structuredContent?.retryable, true);
    }
  } finally {
    await mcp.close();
  }
  await d.client.deleteSession(s.id);
});

test('a profile can require a moderator, with its grace, from the config file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-mod-'));
  const file = path.join(dir, 'termhost.json');
  fs.writeFileSync(file, JSON.stringify({ moderator_grace_s: 90, profiles: { watched: { command: ['cat'], require_moderator: true, moderator_grace_s: 120 }, free: { command: ['cat'] } } }, null, 2));
  const loaded = loadConfig(file);
  assert.equal(loaded.options.moderatorGraceMs, 90_000);
  const p = await startTestDaemon({ ...loaded.options });
  try {
    const watched = await p.client.createSession({ profile: 'watched' });
    assert.deepEqual([watched.moderation.required, watched.moderation.grace_ms], [true, 120_000]);
    const free = await p.client.createSession({ profile: 'free', require_moderator: true });
    assert.deepEqual([free.moderation.required, free.moderation.grace_ms], [true, 90_000], 'a caller may add moderation, with the daemon grace');
    const listed = await p.client.profiles();
    assert.equal(listed.profiles.find((x) => x.name === 'watched')?.require_moderator, true);
    await assert.rejects(p.client.createSession({ profile: 'watched', require_moderator: false }), (e: TermhostError) => e.code === 'invalid_request' && /requires a moderator/.test(e.message));
  } finally {
    await p.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  fs.mkdirSync(dir);
  fs.writeFileSync(file, '{\n  "profiles": {\n    "x": {"command": ["cat"], "moderator_grace_s": 99999}\n  }\n}\n');
  assert.throws(() => loadConfig(file), /termhost\.json:3: profiles\.x\.moderator_grace_s must be <= 3600/);
  fs.rmSync(dir, { recursive: true, force: true });
});
