/**
 * Rate limits on a shared daemon: a token that starts sessions, mints attach tokens or mints UI login codes too often
 * in a minute is answered 429 rate_limited with Retry-After, on HTTP and MCP alike, while other tokens and the daemon's
 * own carry on; an address that fails authentication too often is refused outright for the rest of the window, a
 * correct token included.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { RATE_LIMIT_DEFAULTS } from '../src/server/rateLimits.js';
import { assertNoLeaks, rawRequest, runBin, startTestDaemon, type TestDaemon } from './helpers.js';

let d: TestDaemon;
const LIMITS = { sessionStarts: 3, attachTokens: 2, loginCodes: 2, failedAuths: 5 };
before(async () => {
  d = await startTestDaemon({ rateLimits: LIMITS });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

async function named(name: string, role: 'agent' | 'human') {
  const created = await d.client.createToken(name, role);
  return { token: created.token, client: new TermhostClient({ address: d.address, token: created.token }) };
}

const isLimited = (e: TermhostError) => e.status === 429 && e.code === 'rate_limited' && e.retryable === true;

test('the default limits are 30 attach tokens, 10 session starts and 10 login codes per token, 60 failed auths per address, a minute', () => {
  assert.deepEqual(RATE_LIMIT_DEFAULTS, { attachTokens: 30, sessionStarts: 10, loginCodes: 10, failedAuths: 60 });
});

test('a token past its session starts is answered 429 with Retry-After, on HTTP and MCP; other tokens and the admin carry on', async () => {
  const a = await named('busy', 'agent');
  const b = await named('calm', 'agent');
  for (let i = 0; i < LIMITS.sessionStarts; i++) await a.client.createSession({ command: ['true'] });
  const raw = await rawRequest(d.address, {
    method: 'POST',
    path: '/v1/sessions',
    headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command: ['true'] }),
  });
  assert.equal(raw.status, 429);
  assert.equal(raw.json.code, 'rate_limited');
  assert.equal(raw.json.retryable, true);
  const retryAfter = Number(raw.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${raw.headers['retry-after']}`);
  assert.equal(raw.json.retry_after_s, retryAfter);
  assert.match(raw.json.error, /at most 3 a minute per token/);
  // MCP's session_create counts against the same limit.
  const mcp = new Client({ name: 'limited', version: '0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`http://${d.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${a.token}` } } }));
  const r = await mcp.callTool({ name: 'session_create', arguments: { command: ['true'] } });
  assert.equal(r.isError, true);
  assert.match((r.content as Array<{ text: string }>)[0]!.text, /rate_limited|at most 3 a minute/);
  await mcp.close();
  // Another token, and the daemon's own, are not affected.
  await b.client.createSession({ command: ['true'] });
  for (let i = 0; i < LIMITS.sessionStarts + 2; i++) await d.client.createSession({ command: ['true'] });
  for (const c of [a.client, b.client]) c.close();
  await d.client.prune();
});

test('attach tokens and UI login codes are limited per token too', async () => {
  const agent = await named('minter', 'agent');
  const s = await d.client.createSession({ command: ['cat'] });
  for (let i = 0; i < LIMITS.attachTokens; i++) await agent.client.mintAttachToken(s.id, 'viewer');
  await assert.rejects(agent.client.mintAttachToken(s.id, 'viewer'), isLimited);
  const person = await named('signer', 'human');
  for (let i = 0; i < LIMITS.loginCodes; i++) await person.client.mintUiLogin({});
  await assert.rejects(person.client.mintUiLogin({}), isLimited);
  await d.client.mintAttachToken(s.id, 'viewer');
  for (const c of [agent.client, person.client]) c.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('an address that fails authentication too often gets 429, and then even a correct token does, until the window ends', async () => {
  const wrong = () => rawRequest(d.address, { path: '/v1/sessions', headers: { authorization: 'Bearer th_wrong' } });
  for (let i = 0; i < LIMITS.failedAuths; i++) assert.equal((await wrong()).status, 401);
  const refused = await wrong();
  assert.equal(refused.status, 429);
  assert.equal(refused.json.code, 'rate_limited');
  assert.ok(Number(refused.headers['retry-after']) >= 1);
  const right = await rawRequest(d.address, { path: '/v1/sessions', headers: { authorization: `Bearer ${d.token}` } });
  assert.equal(right.status, 429, 'a guesser must not learn that it guessed right');
  // Liveness is public and stays answered.
  assert.equal((await rawRequest(d.address, { path: '/health' })).status, 200);
});

test('termhost serve --rate-limit takes KIND=N and refuses anything else', async () => {
  const bad = await runBin(['serve', '--listen', '127.0.0.1:0', '--rate-limit', 'sessions=5']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--rate-limit wants KIND=N per minute.*attach-tokens, session-starts, login-codes, failed-auths/);
});
