/**
 * Every edge goes through the same validation. Before, MCP `session_create` accepted 2,000 env vars, 200 k values,
 * `A=B` names, `k=v` label keys and 100 k argv elements, and a session with such labels made `GET /v1/sessions` answer
 * 500 for everyone for as long as it lived. The checks now live in core (SessionManager.create), so HTTP, MCP over
 * /mcp and the embedded runtime refuse the same specs with the same code, and a response schema is never the first
 * validator.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Runtime, type Actor } from '../../src/core/index.js';
import { TermhostClient, TermhostError } from '../../src/client/TermhostClient.js';
import { assertNoLeaks, startTestDaemon, type TestDaemon } from '../helpers.js';

let d: TestDaemon;
let mcp: Client;
let agentToken: string;
before(async () => {
  d = await startTestDaemon();
  agentToken = (await d.client.createToken('bot', 'agent')).token;
  mcp = new Client({ name: 'adversary', version: '0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agentToken}` } } }));
});
after(async () => {
  await mcp.close();
  await d.stop();
  await assertNoLeaks();
});

const manyEnv = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`V${i}`, 'x']));
/** Specs every edge must refuse, each with the field the error names. */
const BAD_SPECS: Array<[string, Record<string, unknown>, string]> = [
  ['2,000 env vars', { command: ['true'], env: manyEnv }, 'env'],
  ['a 200 k env value', { command: ['true'], env: { BIG: 'x'.repeat(200_000) } }, 'env.BIG'],
  ['an env name with "="', { command: ['true'], env: { 'A=B': 'c' } }, 'env'],
  ['a label key with "="', { command: ['true'], labels: { 'k=v': 'x' } }, 'labels'],
  ['a label key with a comma', { command: ['true'], labels: { 'team,env': 'x' } }, 'labels'],
  ['a label value with a newline', { command: ['true'], labels: { team: 'red\nblue' } }, 'labels.team'],
  ['65 labels', { command: ['true'], labels: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`l${i}`, 'x'])) }, 'labels'],
  ['100 k argv elements', { command: ['echo', ...Array.from({ length: 100_000 }, () => 'a')] }, 'command'],
  ['a NUL in argv', { command: ['echo', 'a\u0000b'] }, 'command[1]'],
  ['cols 5000', { command: ['true'], cols: 5000 }, 'cols'],
  ['a name that looks like a number', { command: ['true'], name: '12345' }, 'name'],
];

test('MCP session_create refuses every out-of-bounds spec the HTTP API refuses, and nothing is started', async () => {
  const before = (await d.client.listSessions()).length;
  for (const [what, spec, field] of BAD_SPECS) {
    const r = (await mcp.callTool({ name: 'session_create', arguments: spec })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };
    assert.equal(r.isError, true, `${what} was accepted over MCP`);
    const text = r.content[0]?.text ?? '';
    // Refused by the tool's own schema (MCP's -32602 text) or by core (invalid_request naming the field); never started.
    assert.match(text, /invalid_request|Invalid arguments|validation/i, `${what}: ${text.slice(0, 200)}`);
    if (r.structuredContent?.code) assert.equal(r.structuredContent.field, field, what);
  }
  assert.equal((await d.client.listSessions()).length, before);
  // The list still answers for everyone.
  const res = await fetch(`${d.url}/v1/sessions`, { headers: { authorization: `Bearer ${d.token}` } });
  assert.equal(res.status, 200);
});

test('the embedded runtime refuses the same specs with invalid_request and the field, from core itself', async () => {
  const runtime = new Runtime();
  const me: Actor = { name: 'embedder', kind: 'agent' };
  try {
    for (const [what, spec, field] of BAD_SPECS) {
      const r = runtime.sessions.create(spec as never, me);
      assert.equal(r.ok, false, `${what} was accepted by the runtime`);
      if (r.ok) continue;
      assert.equal(r.error.code, 'invalid_request', what);
      assert.equal(r.error.extra.field, field, what);
    }
    assert.equal(runtime.sessions.size, 0);
  } finally {
    await runtime.close();
  }
});

test('the HTTP API refuses them too, with a 400 and the stable code', async () => {
  const agent = new TermhostClient({ address: d.address, token: agentToken });
  try {
    for (const [what, spec] of BAD_SPECS) {
      await assert.rejects(agent.createSession(spec as never), (e: TermhostError) => e.status === 400 && e.code === 'invalid_request', what);
    }
  } finally {
    agent.close();
  }
});

test('a viewer is refused the same actions on every edge: HTTP, MCP over /mcp, and the embedded runtime', async () => {
  const s = await d.client.createSession({ command: ['sleep', '30'] });
  const viewerToken = (await d.client.createToken('eyes', 'viewer')).token;
  // /mcp is an agent's door: a viewer token is refused before any tool runs.
  const viewerMcp = new Client({ name: 'viewer', version: '0' });
  await assert.rejects(
    viewerMcp.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${viewerToken}` } } })),
    /forbidden/,
  );
  const viewer = new TermhostClient({ address: d.address, token: viewerToken });
  try {
    for (const [what, p] of [
      ['resize', () => viewer.resize(s.id, 10, 10)],
      ['signal', () => viewer.signal(s.id, 'INT')],
      ['delete', () => viewer.deleteSession(s.id)],
      ['purge', () => viewer.deleteSession(s.id, undefined, { purge: true })],
      ['send', () => viewer.input(s.id, [{ text: 'x' }])],
    ] as const) {
      await assert.rejects(p(), (e: TermhostError) => e.status === 403 && e.code === 'forbidden', what);
    }
  } finally {
    viewer.close();
  }
  const runtime = new Runtime();
  const watcher: Actor = { name: 'eyes', kind: 'viewer' };
  try {
    const live = runtime.sessions.create({ command: ['sleep', '30'] });
    assert.ok(live.ok);
    const session = live.value;
    for (const [what, r] of [
      ['resize', session.resize(watcher, 10, 10)],
      ['signal', session.signal(watcher, 'INT')],
      ['send', session.send(watcher, [{ text: 'x' }])],
      ['lease', session.acquireLease(watcher, 'shared', 1000)],
      ['banner', session.banner(watcher, 'hi')],
      ['create', runtime.sessions.create({ command: ['true'] }, watcher)],
      ['delete', await runtime.sessions.delete(watcher, session.id)],
    ] as const) {
      assert.equal(r.ok, false, `${what} worked for a viewer in the runtime`);
      if (!r.ok) assert.equal(r.error.code, 'forbidden', what);
    }
  } finally {
    await runtime.close();
  }
  await d.client.deleteSession(s.id, 'KILL');
});
