/**
 * An agent on a moderated session wants to type with nobody watching. It tries to pass for a person (attaching as
 * driver with its own token or a minted attach token, a UI sign-in), to lift the refusal itself (resume, a lease, an
 * abort key), to weaken the session at its start, and to keep the session alive past its grace. Each stays refused.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError } from '../../src/client/TermhostClient.js';
import { assertNoLeaks, attachTo, nextMatching, startTestDaemon, until, type TestDaemon } from '../helpers.js';

let d: TestDaemon;
let agent: TermhostClient;
let agentToken: string;
let aliceToken: string;

before(async () => {
  d = await startTestDaemon({ profiles: { watched: { command: ['cat'], require_moderator: true } } });
  agentToken = (await d.client.createToken('claude', 'agent')).token;
  aliceToken = (await d.client.createToken('alice', 'human')).token;
  agent = new TermhostClient({ address: d.address, token: agentToken });
});
after(async () => {
  agent.close();
  await d.stop();
  await assertNoLeaks();
});

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: TermhostError) => `${e.status} ${e.code}`,
  );

test('an agent attached as driver, with its token or an attach token it minted, is no person', async () => {
  const s = await agent.createSession({ command: ['cat'], require_moderator: true });
  const minted = await agent.mintAttachToken(s.id, 'driver');
  const direct = attachTo(d, s.id, { token: agentToken, role: 'driver' });
  const viaMint = attachTo(d, s.id, { token: minted.token, role: 'driver' });
  await nextMatching(direct, 'hello');
  await nextMatching(viaMint, 'hello');
  assert.equal((await d.client.getSession(s.id)).clients.drivers, 2);
  const m = await d.client.moderation(s.id);
  assert.deepEqual([m.presence, m.present, m.agent_input], ['waiting', [], 'refused']);
  assert.equal(await outcome(agent.input(s.id, [{ text: 'x' }])), '409 moderator_required');
  direct.close();
  viaMint.close();
  await d.client.deleteSession(s.id);
});

test('a person attached as viewer is not presence, and an agent cannot mint a person sign-in', async () => {
  const s = await agent.createSession({ command: ['cat'], require_moderator: true });
  const watching = attachTo(d, s.id, { token: aliceToken, role: 'viewer' });
  await nextMatching(watching, 'hello');
  assert.equal((await d.client.moderation(s.id)).presence, 'waiting');
  assert.equal(await outcome(agent.input(s.id, [{ text: 'x' }])), '409 moderator_required');
  assert.equal(await outcome(agent.mintUiLogin({ session: s.id })), '403 forbidden');
  watching.close();
  await d.client.deleteSession(s.id);
});

test('an agent cannot lift the refusal itself: no resume, no lease, no abort key, no mouse, no command', async () => {
  const s = await agent.createSession({ command: ['cat'], require_moderator: true });
  assert.equal(await outcome(agent.moderate(s.id, 'resume')), '403 forbidden');
  const lease = await agent.acquireLease(s.id, 'exclusive', 60_000);
  assert.equal(await outcome(agent.input(s.id, [{ text: 'x' }], { leaseId: lease.lease_id })), '409 moderator_required');
  assert.equal(await outcome(agent.input(s.id, [{ key: 'C-c' }])), '409 moderator_required', 'the secret window lets abort keys through; moderation does not');
  assert.equal(await outcome(agent.input(s.id, [{ raw: 'x' }])), '409 moderator_required');
  await d.client.deleteSession(s.id);
});

test('an agent cannot start a profile that requires a moderator without one, nor stretch its grace', async () => {
  assert.equal(await outcome(agent.createSession({ profile: 'watched', require_moderator: false })), '400 invalid_request');
  assert.equal(await outcome(agent.createSession({ profile: 'watched', moderator_grace_ms: 3_600_000 })), '400 invalid_request');
  assert.equal(await outcome(agent.createSession({ command: ['cat'], require_moderator: true, moderator_grace_ms: 3_600_001 })), '400 invalid_request');
  const s = await agent.createSession({ profile: 'watched' });
  assert.equal(s.moderation.required, true);
  await d.client.deleteSession(s.id);
});

test('nothing an agent does keeps an unattended session alive past its grace', async () => {
  const s = await agent.createSession({ command: ['cat'], require_moderator: true, moderator_grace_ms: 1500 });
  const started = Date.now();
  const conn = attachTo(d, s.id, { token: agentToken, role: 'driver' });
  await nextMatching(conn, 'hello');
  let lease = await agent.acquireLease(s.id, 'exclusive', 60_000);
  // Busy until the session ends: typing, renewing its lease, resizing, posting banners, reattaching.
  await until('the session ended despite the agent', async () => {
    await outcome(agent.input(s.id, [{ text: 'x' }]));
    lease = await agent.acquireLease(s.id, 'exclusive', 60_000, lease.lease_id).catch(() => lease);
    await outcome(agent.resize(s.id, 81, 24));
    await outcome(agent.banner(s.id, 'still here'));
    return (await d.client.getSession(s.id)).exited;
  }, 15_000);
  assert.equal((await d.client.getSession(s.id)).exit_reason, 'closed');
  assert.ok(Date.now() - started < 10_000, 'ended near its grace, not later');
  assert.equal((await nextMatching(conn, 'exit')).reason, 'closed');
});
