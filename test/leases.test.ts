/** Input leases between two agents and a person, with the events that record them. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, attachTo, nextMatching, sse, startTestDaemon, until, waitRegex, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let a: TermhostClient;
let b: TermhostClient;
let human: TermhostClient;
let humanToken: string;
before(async () => {
  d = await startTestDaemon();
  a = new TermhostClient({ address: d.address, token: (await d.client.createToken('agent-a', 'agent')).token });
  b = new TermhostClient({ address: d.address, token: (await d.client.createToken('agent-b', 'agent')).token });
  humanToken = (await d.client.createToken('pat', 'human')).token;
  human = new TermhostClient({ address: d.address, token: humanToken });
});
after(async () => {
  for (const c of [a, b, human]) c.close();
  await d.stop();
  await assertNoLeaks();
});

const shell = () => d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } });
const refused = (p: Promise<unknown>, code: string) =>
  assert.rejects(p, (e: TermhostError) => {
    assert.equal(e.code, code, e.message);
    return true;
  });

test('an exclusive lease blocks the other agent, naming the holder and the expiry', async () => {
  const s = await shell();
  const lease = await a.acquireLease(s.id, 'exclusive', 60_000);
  assert.equal(lease.mode, 'exclusive');
  assert.deepEqual(lease.actor, { name: 'agent-a', kind: 'agent' });
  await refused(b.input(s.id, [{ text: 'x' }]), 'lease_held');
  await assert.rejects(b.input(s.id, [{ text: 'x' }]), (e: TermhostError) => {
    assert.equal(e.status, 409);
    assert.deepEqual(e.body.holder, { name: 'agent-a', kind: 'agent' });
    assert.equal(e.body.expires_at, lease.expires_at);
    return true;
  });
  await refused(b.acquireLease(s.id, 'exclusive', 1000), 'lease_held');
  await refused(b.acquireLease(s.id, 'shared', 1000), 'lease_held');
  await a.input(s.id, [{ text: 'echo holder-types' }, { key: 'Enter' }], { leaseId: lease.lease_id });
  await waitText(d, s.id, 'holder-types');
  // Renewing extends it; releasing frees the session.
  const renewed = await a.acquireLease(s.id, 'exclusive', 120_000, lease.lease_id);
  assert.equal(renewed.lease_id, lease.lease_id);
  assert.ok(renewed.expires_at > lease.expires_at);
  assert.equal((await d.client.leases(s.id)).length, 1);
  await a.releaseLease(s.id, lease.lease_id);
  assert.deepEqual(await d.client.leases(s.id), []);
  await b.input(s.id, [{ text: 'echo b-now' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'b-now');
  await d.client.deleteSession(s.id);
});

test('TTL expiry frees the lease, and the release says expired', async () => {
  const s = await shell();
  const events = sse(d.address, d.token, { session: s.id });
  await events.next();
  const lease = await a.acquireLease(s.id, 'exclusive', 150);
  await refused(b.input(s.id, [{ text: 'x' }]), 'lease_held');
  await until('the lease to expire', async () => (await d.client.leases(s.id)).length === 0, 3000);
  await b.input(s.id, [{ text: 'echo after-expiry' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'after-expiry');
  let released;
  while ((released = await events.nextEvent()) && released.type !== 'lease_released');
  assert.deepEqual([released?.lease_id, released?.reason], [lease.lease_id, 'expired']);
  events.close();
  await d.client.deleteSession(s.id);
  await refused(a.acquireLease(s.id, 'shared', 500), 'session_not_found');
});

test('TTLs are bounded: at least 100 ms, at most 10 minutes', async () => {
  const s = await shell();
  await assert.rejects(a.acquireLease(s.id, 'shared', 99), (e: TermhostError) => e.status === 400);
  await assert.rejects(a.acquireLease(s.id, 'shared', 600_001), (e: TermhostError) => e.status === 400);
  await d.client.deleteSession(s.id);
});

test('a person preempts the holder at once; the agent is told on its next input; events record both', async () => {
  const s = await shell();
  const events = sse(d.address, d.token, { session: s.id });
  await events.next();
  const lease = await a.acquireLease(s.id, 'exclusive', 60_000);
  await human.input(s.id, [{ text: 'echo person-here' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'person-here');
  assert.deepEqual(await d.client.leases(s.id), [], 'the lease ended');
  await refused(a.input(s.id, [{ text: 'x' }], { leaseId: lease.lease_id }), 'lease_preempted');
  const seen: Array<Record<string, unknown>> = [];
  for (let e; (e = await events.nextEvent()); ) {
    seen.push(e);
    if (e.type === 'input_rejected') break;
  }
  const types = seen.map((e) => e.type);
  assert.ok(types.includes('input_preempted'));
  const pre = seen.find((e) => e.type === 'input_preempted')!;
  assert.deepEqual([pre.lease_id, pre.previous, pre.by], [lease.lease_id, { name: 'agent-a', kind: 'agent' }, { name: 'pat', kind: 'human' }]);
  const rel = seen.find((e) => e.type === 'lease_released')!;
  assert.equal(rel.reason, 'preempted');
  const rej = seen.find((e) => e.type === 'input_rejected')!;
  assert.deepEqual([rej.actor, rej.reason], [{ name: 'agent-a', kind: 'agent' }, 'lease_preempted']);
  assert.ok(!JSON.stringify(seen).includes('person-here'), 'events never carry input bytes');
  // Having been told, the agent may go on (auto policy): its next input takes an implicit shared lease.
  await a.input(s.id, [{ text: 'echo agent-again' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'agent-again');
  // Preempted again, the agent acknowledges by taking a new lease, and that lease works at once.
  const second = await a.acquireLease(s.id, 'exclusive', 60_000);
  await human.input(s.id, [{ key: 'C-u' }]);
  const third = await a.acquireLease(s.id, 'exclusive', 60_000);
  assert.notEqual(third.lease_id, second.lease_id);
  await a.input(s.id, [{ text: 'echo new-lease' }, { key: 'Enter' }], { leaseId: third.lease_id });
  await waitText(d, s.id, 'new-lease');
  events.close();
  await d.client.deleteSession(s.id);
});

test('a person typing through attach preempts too', async () => {
  const s = await shell();
  await a.acquireLease(s.id, 'exclusive', 60_000);
  const conn = attachTo(d, s.id, { token: humanToken, role: 'driver' });
  await nextMatching(conn, 'hello');
  conn.sendStdin('echo via-attach\r');
  await waitText(d, s.id, 'via-attach');
  assert.deepEqual(await d.client.leases(s.id), []);
  await refused(a.input(s.id, [{ text: 'x' }]), 'lease_preempted');
  conn.close();
  await d.client.deleteSession(s.id);
});

test('under the lease policy an agent needs a lease; an implicit one is not taken', async () => {
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, input_policy: 'lease' });
  assert.equal(s.input_policy, 'lease');
  await refused(a.input(s.id, [{ text: 'x' }]), 'lease_required');
  const lease = await a.acquireLease(s.id, 'shared', 10_000);
  await a.input(s.id, [{ text: 'echo leased' }, { key: 'Enter' }], { leaseId: lease.lease_id });
  await waitText(d, s.id, 'leased');
  await refused(b.input(s.id, [{ text: 'x' }], { leaseId: lease.lease_id }), 'lease_required');
  await human.input(s.id, [{ text: 'echo people-need-none' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'people-need-none');
  await d.client.deleteSession(s.id);
});

test('--require-leases makes the lease policy the default', async () => {
  const strict = await startTestDaemon({ requireLeases: true });
  try {
    const s = await strict.client.createSession({ command: ['sleep', '30'] });
    assert.equal(s.input_policy, 'lease');
    const agent = new TermhostClient({ address: strict.address, token: (await strict.client.createToken('x', 'agent')).token });
    await refused(agent.input(s.id, [{ text: 'x' }]), 'lease_required');
    agent.close();
  } finally {
    await strict.stop();
  }
});

test('shared holders submit concurrent batches; each batch arrives contiguous', async () => {
  const size = 40_000;
  const total = size * 4;
  const reader = `import sys,tty,itertools\ntty.setraw(0)\nprint('reading', flush=True)\nbuf=b''\nwhile len(buf) < ${total}:\n    buf += sys.stdin.buffer.read1(65536)\nprint('runs ' + ' '.join('%s%d' % (chr(k), len(list(g))) for k, g in itertools.groupby(buf)), flush=True)`;
  const s = await d.client.createSession({ command: ['python3', '-c', reader], cols: 200 });
  await waitText(d, s.id, 'reading');
  const la = await a.acquireLease(s.id, 'shared', 30_000);
  const lb = await b.acquireLease(s.id, 'shared', 30_000);
  await Promise.all([
    a.input(s.id, [{ text: 'A'.repeat(size) }], { leaseId: la.lease_id }),
    b.input(s.id, [{ text: 'B'.repeat(size) }], { leaseId: lb.lease_id }),
    a.input(s.id, [{ text: 'C'.repeat(size) }], { leaseId: la.lease_id }),
    b.input(s.id, [{ text: 'D'.repeat(size) }], { leaseId: lb.lease_id }),
  ]);
  const screen = await waitRegex(d, s.id, 'runs [A-D]\\d+ ');
  const runs = screen.lines.find((l) => l.includes('runs '))!.trim().slice(5).split(' ');
  assert.equal(runs.length, 4, runs.join(' '));
  await d.client.deleteSession(s.id);
});
