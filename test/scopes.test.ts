/**
 * Scoped tokens on one daemon shared by several agents and people: an `own` token knows only the sessions it started,
 * a `labels` token the sessions its selector matches, a `sessions` token a list. For each of them every other session
 * is a session that does not exist, on every surface: REST, attach, events, transcripts and records, MCP and the UI.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import WebSocket from 'ws';
import { TermhostClient, TermhostError, type SessionInfo } from '../src/client/TermhostClient.js';
import { ALIS_SUBPROTOCOL } from '../src/protocol/alis.js';
import { assertNoLeaks, attachTo, nextMatching, rawRequest, runBin, sse, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
const tokens: Record<string, string> = {};
const as: Record<string, TermhostClient> = {};

async function mint(name: string, role: 'viewer' | 'agent' | 'human', scope?: NonNullable<Parameters<TermhostClient['createToken']>[2]>['scope']) {
  const created = await d.client.createToken(name, role, scope === undefined ? {} : { scope });
  tokens[name] = created.token;
  as[name] = new TermhostClient({ address: d.address, token: created.token });
  return created;
}

before(async () => {
  d = await startTestDaemon();
  await mint('ci-a', 'agent', 'own');
  await mint('ci-b', 'agent', 'own');
  await mint('red', 'agent', { labels: 'team=red,env!=prod' });
  await mint('plain', 'agent');
});
after(async () => {
  for (const c of Object.values(as)) c.close();
  await d.stop();
  await assertNoLeaks();
});

/** The 404 a client gets for a session that does not exist, as {status, code}. */
const missing = { status: 404, code: 'session_not_found' };
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => ({ status: 200, code: 'ok' }),
    (e: TermhostError) => ({ status: e.status, code: e.code }),
  );

test('an admin mints scoped tokens with POST /v1/tokens; a bad scope, or a scoped admin, is a 400 naming scope', async () => {
  const listed = await d.client.listTokens();
  const scopeOf = (n: string) => listed.find((t) => t.name === n)?.scope;
  assert.equal(scopeOf('ci-a'), 'own');
  assert.deepEqual(scopeOf('red'), { labels: 'team=red,env!=prod' });
  assert.equal(scopeOf('plain'), null);
  assert.equal(scopeOf('admin'), null);
  for (const scope of [{ labels: 'team=,=x' }, { labels: 'te am=red' }, { sessions: ['../etc'] }, 'all', { labels: 'a', sessions: ['x'] }]) {
    const r = await rawRequest(d.address, {
      method: 'POST',
      path: '/v1/tokens',
      headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bad', role: 'agent', scope }),
    });
    assert.equal(r.status, 400, JSON.stringify(scope));
    assert.equal(r.json.code, 'invalid_request');
  }
  await assert.rejects(d.client.createToken('boss', 'admin', { scope: 'own' }), (e: TermhostError) => e.status === 400 && /admin token cannot be scoped/.test(e.message));
  assert.ok(!(await d.client.listTokens()).some((t) => t.name === 'bad' || t.name === 'boss'), 'nothing was created');
});

test('termhost token create --scope and token ls show the scope; a malformed --scope is a usage error', async () => {
  const env = { TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token };
  const created = await runBin(['token', 'create', '--name', 'cli-red', '--role', 'viewer', '--scope', 'labels:team=red'], { env });
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout.trim(), /^th_[A-Za-z0-9_-]{43}$/);
  assert.match(created.stderr, /scope labels:team=red/);
  const ls = await runBin(['token', 'ls'], { env });
  assert.equal(ls.code, 0, ls.stderr);
  // NAME, ROLE, SCOPE, CREATED_AT, PROFILES (the header is for terminals only).
  const rows = ls.stdout.trim().split('\n').map((l) => l.split('\t'));
  assert.deepEqual(rows[0], ['admin', 'admin', 'all', '(daemon token)', 'any']);
  const byName = new Map(rows.map((r) => [r[0], r[2]]));
  assert.equal(byName.get('cli-red'), 'labels:team=red');
  assert.equal(byName.get('ci-a'), 'own');
  assert.equal(byName.get('plain'), 'all');
  const bad = await runBin(['token', 'create', '--name', 'x', '--role', 'agent', '--scope', 'everything'], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /a scope is own, labels:SELECTOR/);
  await d.client.revokeToken('cli-red');
});

test('two own-scoped agents cannot see, wait on, attach to, read or end each other\'s sessions by any route', async () => {
  const a = as['ci-a']!;
  const b = as['ci-b']!;
  const mine = await a.createSession({ command: ['cat'], name: 'build', labels: { job: '1' } });
  await a.input(mine.id, [{ text: 'a-private-line' }, { key: 'Enter' }]);
  await waitText(d, mine.id, 'a-private-line');

  // B's view: nothing in any list, a 404 everywhere else, with the message a never-used id gets.
  assert.deepEqual(await b.listSessions(), []);
  assert.deepEqual(await b.listAllSessions(), []);
  const probes: Array<[string, (id: string) => Promise<unknown>]> = [
    ['get', (id) => b.getSession(id)],
    ['screen', (id) => b.screen(id)],
    ['changes', (id) => b.screenChanges(id, 0)],
    ['scrollback', (id) => b.scrollback(id)],
    ['input', (id) => b.input(id, [{ text: 'x' }])],
    ['mouse', (id) => b.mouse(id, { type: 'click', x: 0, y: 0 })],
    ['resize', (id) => b.resize(id, 40, 10)],
    ['signal', (id) => b.signal(id, 'INT')],
    ['delete', (id) => b.deleteSession(id)],
    ['purge', (id) => b.deleteSession(id, 'KILL', { purge: true })],
    ['wait', (id) => b.wait(id, { text: 'a-private', timeout_ms: 100 })],
    ['attach token', (id) => b.mintAttachToken(id, 'viewer')],
    ['banner', (id) => b.banner(id, 'hi')],
    ['leases', (id) => b.leases(id)],
    ['lease', (id) => b.acquireLease(id, 'shared', 5000)],
    ['secret state', (id) => b.secretInput(id)],
    ['secret start', (id) => b.secretAction(id, 'start', 'x')],
    ['run', (id) => b.run(id, 'echo from-b', { timeoutMs: 100 })],
    ['commands', (id) => b.commands(id)],
    ['command', (id) => b.command(id, 'c1')],
    ['command output', (id) => b.commandOutput(id, 'c1')],
    ['transcript', (id) => b.transcript(id)],
    ['cast', (id) => b.transcriptCast(id)],
  ];
  for (const [what, call] of probes) {
    for (const ref of [mine.id, 'build']) {
      const err = await call(ref).then(
        () => undefined,
        (e: TermhostError) => e,
      );
      assert.deepEqual(err && { status: err.status, code: err.code }, missing, `${what} ${ref}`);
      const never = await call('zz999999').catch((e: TermhostError) => e);
      assert.equal(err!.message.replace(ref, 'ID'), (never as TermhostError).message.replace('zz999999', 'ID'), `${what}: same words as a missing one`);
    }
  }
  // Attach: the bearer in the auth frame, and a header token before the upgrade, both meet a missing session.
  const framed = attachTo(d, mine.id, { token: tokens['ci-b'] });
  assert.equal((await nextMatching(framed, 'closed')).code, 4004);
  const upgrade = await rawRequest(d.address, {
    path: `/v1/sessions/${mine.id}/attach`,
    headers: { authorization: `Bearer ${tokens['ci-b']}`, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
  });
  assert.equal(upgrade.status, 404);
  // The asciinema live stream is the same door: B's auth frame meets a missing session.
  const alis = new WebSocket(`ws://${d.address}/v1/sessions/${mine.id}/alis`, ALIS_SUBPROTOCOL, { headers: { host: 'localhost' } });
  alis.on('open', () => alis.send(JSON.stringify({ kind: 'auth', token: tokens['ci-b'] })));
  assert.equal(await new Promise<number>((resolve) => alis.on('close', (code) => resolve(code))), 4004);
  // An attach token A minted does not open B's way in either: it is A's, for A's session only.
  const grant = await a.mintAttachToken(mine.id, 'viewer');
  const viaGrant = attachTo(d, mine.id, { token: grant.token });
  assert.equal((await nextMatching(viaGrant, 'hello')).session.id, mine.id);
  viaGrant.close();

  // B may use the same name for a session of its own: names are per scope, and B's "build" is B's.
  const theirs = await b.createSession({ command: ['cat'], name: 'build' });
  assert.equal((await b.getSession('build')).id, theirs.id);
  assert.equal((await a.getSession('build')).id, mine.id);
  assert.deepEqual((await b.listSessions()).map((s) => s.id), [theirs.id]);
  // An unscoped token sees both, and asks for the id when a name is ambiguous.
  const all = await as.plain!.listSessions();
  assert.deepEqual(new Set(all.map((s) => s.id)), new Set([mine.id, theirs.id]));
  await assert.rejects(as.plain!.getSession('build'), (e: TermhostError) => e.status === 400 && e.message.includes(mine.id) && e.message.includes(theirs.id));

  // Events: B's stream carries B's sessions only; A's input, resize and exit never show up.
  const stream = sse(d.address, tokens['ci-b']!);
  assert.equal((await stream.next())?.comment, 'connected');
  const named = sse(d.address, tokens['ci-b']!, { session: mine.id });
  assert.equal((await named.next())?.comment, 'connected');
  await a.resize(mine.id, 70, 20);
  await a.deleteSession(mine.id, 'KILL');
  await b.resize(theirs.id, 71, 21);
  for (;;) {
    const e = await stream.nextEvent();
    assert.equal(e?.session_id, theirs.id, `only B's events: ${JSON.stringify(e)}`);
    if (e?.type === 'resized') break;
  }
  stream.close();
  // The stream named after A's session stays silent: a heartbeat comment at most, never an event.
  await b.deleteSession(theirs.id, 'KILL');
  const quiet = await named.next(300).catch(() => undefined);
  assert.ok(quiet === undefined || quiet.data === undefined, `no event of A's on B's stream: ${JSON.stringify(quiet)}`);
  named.close();

  // Ended: A's record and transcript stay A's.
  await until('A\'s session to be a record', async () => (await a.listAllSessions()).some((s) => s.id === mine.id && 'ended_at' in s && s.ended_at));
  assert.ok((await a.transcript(mine.id)).chunks.length > 0);
  assert.deepEqual(await outcome(b.transcript(mine.id)), missing);
  assert.deepEqual(await outcome(b.getSession(mine.id)), missing);
  assert.ok(!(await b.listAllSessions()).some((s) => s.id === mine.id));
  assert.ok((await d.client.listAllSessions()).some((s) => s.id === mine.id), 'the admin sees every record');
  await d.client.prune();
});

test('a labels-scoped agent may only label inside its selector, and sees the matching sessions of others', async () => {
  const red = as.red!;
  await assert.rejects(red.createSession({ command: ['cat'], labels: { team: 'blue' } }), (e: TermhostError) => {
    return e.status === 403 && e.code === 'forbidden' && /team=red,env!=prod/.test(e.message);
  });
  await assert.rejects(red.createSession({ command: ['cat'], labels: { team: 'red', env: 'prod' } }), (e: TermhostError) => e.status === 403);
  await assert.rejects(red.createSession({ command: ['cat'] }), (e: TermhostError) => e.status === 403, 'no labels is outside team=red');
  const ours = await red.createSession({ command: ['cat'], labels: { team: 'red', env: 'dev' } });
  const fromOps = await d.client.createSession({ command: ['cat'], labels: { team: 'red' } });
  const blue = await d.client.createSession({ command: ['cat'], labels: { team: 'blue' } });
  const prod = await d.client.createSession({ command: ['cat'], labels: { team: 'red', env: 'prod' } });
  assert.deepEqual(new Set((await red.listSessions()).map((s) => s.id)), new Set([ours.id, fromOps.id]));
  assert.equal((await red.screen(fromOps.id)).rows, 24);
  assert.deepEqual(await outcome(red.screen(blue.id)), missing);
  assert.deepEqual(await outcome(red.getSession(prod.id)), missing);
  // A label filter narrows the scope; it never widens it.
  assert.deepEqual(await red.listSessions({ team: 'blue' }), []);
  for (const s of [ours, fromOps, blue, prod]) await d.client.deleteSession(s.id, 'KILL', { purge: true });
});

test('a sessions-scoped viewer sees exactly its listed sessions and cannot start one', async () => {
  const one = await d.client.createSession({ command: ['cat'] });
  const other = await d.client.createSession({ command: ['cat'] });
  const viewer = await mint('one-viewer', 'viewer', { sessions: [one.id, 'zz000000'] });
  assert.deepEqual(viewer.scope, { sessions: [one.id, 'zz000000'] });
  const v = as['one-viewer']!;
  assert.deepEqual((await v.listSessions()).map((s) => s.id), [one.id]);
  assert.deepEqual(await outcome(v.screen(other.id)), missing);
  const agent = await mint('one-agent', 'agent', { sessions: [one.id] });
  assert.ok(agent);
  await assert.rejects(as['one-agent']!.createSession({ command: ['true'] }), (e: TermhostError) => e.status === 403 && /list of sessions/.test(e.message));
  for (const s of [one, other]) await d.client.deleteSession(s.id, 'KILL', { purge: true });
});

test('a browser signed in with a scoped person\'s token sees only that scope', async () => {
  await mint('alice', 'human', 'own');
  const hers = await as.alice!.createSession({ command: ['cat'] });
  const notHers = await d.client.createSession({ command: ['cat'] });
  const minted = await as.alice!.mintUiLogin({});
  const res = await rawRequest(d.address, { path: minted.login_path, headers: { host: d.address } });
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const key = /<meta name="termhost-ui-key" content="([A-Za-z0-9_-]{43})">/.exec(res.text)![1]!;
  const page = (p: string) => rawRequest(d.address, { path: p, headers: { host: d.address, cookie, 'x-termhost-ui-key': key } });
  const list = await page('/v1/sessions');
  assert.equal(list.status, 200);
  assert.deepEqual(list.json.sessions.map((s: SessionInfo) => s.id), [hers.id]);
  assert.equal((await page(`/v1/sessions/${notHers.id}`)).status, 404);
  assert.equal((await page(`/v1/sessions/${hers.id}/screen`)).status, 200);
  for (const s of [hers, notHers]) await d.client.deleteSession(s.id, 'KILL', { purge: true });
});

test('MCP over /mcp with an own-scoped token: session_list, tools and screen resources know only its sessions', async () => {
  const other = await as['ci-a']!.createSession({ command: ['cat'] });
  const client = new Client({ name: 'scoped', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://${d.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens['ci-b']}` } } }));
  try {
    const created = await client.callTool({ name: 'session_create', arguments: { command: ['cat'] } });
    const mine = (created.structuredContent as { id: string }).id;
    const listed = await client.callTool({ name: 'session_list', arguments: {} });
    assert.deepEqual((listed.structuredContent as { sessions: Array<{ id: string }> }).sessions.map((s) => s.id), [mine]);
    const resources = await client.listResources();
    assert.deepEqual(resources.resources.map((r) => r.uri), [`termhost://sessions/${mine}/screen`, `termhost://sessions/${mine}/screen.png`]);
    for (const [name, args] of [
      ['read_screen', { session: other.id }],
      ['send', { session: other.id, input: [{ text: 'x' }] }],
      ['wait_for', { session: other.id, text: 'x', timeout_ms: 100 }],
      ['session_kill', { session: other.id }],
      ['run', { session: other.id, command: 'echo x', timeout_ms: 100 }],
      ['resize', { session: other.id, cols: 30, rows: 10 }],
    ] as const) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, name);
      const text = (r.content as Array<{ text: string }>)[0]!.text;
      assert.match(text, /session_not_found|no session/, `${name}: ${text}`);
    }
    await assert.rejects(client.readResource({ uri: `termhost://sessions/${other.id}/screen` }), /no session/);
    await client.callTool({ name: 'session_kill', arguments: { session: mine, signal: 'KILL' } });
  } finally {
    await client.close();
  }
  await d.client.deleteSession(other.id, 'KILL', { purge: true });
});
