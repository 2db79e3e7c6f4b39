/**
 * The command routes hold their bounds and go through the same policy as input: roles, leases, the secret-input
 * window. An agent (or a viewer) sharing the daemon tries every knob of POST .../commands and the pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TermhostClient } from '../../src/client/TermhostClient.js';
import { assertNoLeaks, endSecretWindow, startTestDaemon, type TestDaemon } from '../helpers.js';
import { makeShellHome, type ShellHome } from '../shellHome.js';

let d: TestDaemon;
let home: ShellHome;
let person: TermhostClient;
let agent: TermhostClient;
let rival: TermhostClient;
let viewer: TermhostClient;
let s: { id: string };
before(async () => {
  d = await startTestDaemon();
  home = makeShellHome();
  const mk = async (name: string, role: 'human' | 'agent' | 'viewer') => new TermhostClient({ address: d.address, token: (await d.client.createToken(name, role)).token });
  person = await mk('alice', 'human');
  agent = await mk('bot', 'agent');
  rival = await mk('rival', 'agent');
  viewer = await mk('eve', 'viewer');
  s = await d.client.createSession({ command: ['bash'], env: home.env, cwd: home.dir });
  await d.client.run(s.id, 'true', { timeoutMs: 10_000 });
});
after(async () => {
  for (const c of [person, agent, rival, viewer]) c.close();
  await d.stop();
  home.remove();
  await assertNoLeaks();
});

async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { status: number; code: string };
    return { status: err.status, code: err.code };
  }
  assert.fail('expected a refusal');
}

async function raw(method: string, path: string, body?: unknown): Promise<{ status: number; code?: string }> {
  const r = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${d.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = (await r.json()) as { code?: string };
  return { status: r.status, code: j.code };
}

describe('output budget', () => {
  test('max_output_bytes 0 or 1 answers the note alone, never the whole output', async () => {
    // A budget under two bytes has no head: Buffer.lastIndexOf(0x0a, -1) searched the whole output from its end,
    // so the "head" was all of it (1.9 MB here) in one answer.
    for (const budget of [0, 1]) {
      const r = await agent.run(s.id, 'seq 1 300000', { timeoutMs: 30_000, maxOutputBytes: budget });
      assert.equal(r.exit_code, 0);
      assert.equal(r.output_truncated, true);
      assert.ok(Buffer.byteLength(r.output) < 200, `budget ${budget}: ${Buffer.byteLength(r.output)} bytes answered`);
      assert.match(r.output, /^\[\.\.\. \d+ bytes \(300000 lines\) left out/);
      const again = await agent.command(s.id, r.id, { maxOutputBytes: budget });
      assert.ok(Buffer.byteLength(again.output) < 200);
    }
  });
});

describe('roles, leases and the secret window', () => {
  test('a viewer cannot run a command: 403, nothing typed, nothing recorded', async () => {
    const before = (await d.client.commands(s.id)).length;
    assert.deepEqual(await refusal(viewer.run(s.id, 'touch viewer-was-here')), { status: 403, code: 'forbidden' });
    assert.equal((await d.client.commands(s.id)).length, before);
    assert.equal((await d.client.run(s.id, 'ls viewer-was-here 2>/dev/null; true', { timeoutMs: 10_000 })).output, '');
  });

  test("an exclusive lease held by another agent refuses the command, and leaves no record; the holder's goes through", async () => {
    const lease = await rival.acquireLease(s.id, 'exclusive', 30_000);
    try {
      const before = (await d.client.commands(s.id)).length;
      const r = await refusal(agent.run(s.id, 'touch not-yours'));
      assert.equal(r.code, 'lease_held');
      assert.equal((await d.client.commands(s.id)).length, before, 'the refused command is not on record');
      const mine = await rival.run(s.id, 'echo holder', { timeoutMs: 10_000, leaseId: lease.lease_id });
      assert.deepEqual([mine.exit_code, mine.output], [0, 'holder\n']);
    } finally {
      await rival.releaseLease(s.id, lease.lease_id);
    }
    assert.equal((await agent.run(s.id, 'ls not-yours 2>/dev/null; true', { timeoutMs: 10_000 })).output, '');
  });

  test('during a secret-input window nobody runs a command, a person neither', async () => {
    await person.secretAction(s.id, 'start', 'typing');
    try {
      for (const c of [agent, person]) assert.deepEqual(await refusal(c.run(s.id, 'echo x')), { status: 423, code: 'secret_input_active' });
    } finally {
      await endSecretWindow(person, s.id);
    }
  });
});

describe('bounds', () => {
  test('bad paging, waits, budgets and command lengths are 400s with a stable code; a page past the end is empty', async () => {
    const c = (await agent.run(s.id, 'echo paged', { timeoutMs: 10_000 })).id;
    const base = `/v1/sessions/${s.id}/commands`;
    for (const q of ['offset=-1', 'offset=1.5', 'offset=abc', 'offset=1e400', 'limit=0', 'limit=-5', `limit=${1024 * 1024 + 1}`, 'limit=1.5', 'offset=0&offset=1']) {
      assert.deepEqual(await raw('GET', `${base}/${c}/output?${q}`), { status: 400, code: 'invalid_request' }, q);
    }
    for (const q of ['wait_ms=-1', 'wait_ms=3600001', 'wait_ms=1.5', 'max_output_bytes=-1', `max_output_bytes=${1024 * 1024 + 1}`]) {
      assert.deepEqual(await raw('GET', `${base}/${c}?${q}`), { status: 400, code: 'invalid_request' }, q);
    }
    const far = await agent.commandOutput(s.id, c, { offset: 2 ** 52 });
    assert.deepEqual([far.output, far.eof], ['', true]);
    for (const body of [{ command: 'x'.repeat(65_537) }, { command: '' }, { command: 'true', timeout_ms: -1 }, { command: 'true', timeout_ms: 3_600_001 }, { command: 'true', max_output_bytes: 1.5 }, { command: ['true'] }]) {
      const r = await raw('POST', base, body);
      assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    }
    for (const cid of ['c0x', 'c1/../c2', 'c99999999999999', 'C1', '..']) {
      const r = await raw('GET', `${base}/${encodeURIComponent(cid)}`);
      assert.ok([400, 404].includes(r.status), `${cid}: ${r.status}`);
    }
  });

  test('at most 100 commands are kept, whoever typed them', async () => {
    for (let i = 0; i < 105; i++) await agent.run(s.id, ':', { timeoutMs: 10_000 });
    const list = await viewer.commands(s.id);
    assert.equal(list.length, 100);
    assert.equal((await refusal(viewer.command(s.id, 'c1'))).code, 'command_id_not_found');
  });
});
