/**
 * The MCP server, driven by the MCP SDK's own client: over stdio against `termhost mcp --embedded`, and over
 * streamable HTTP against the daemon's /mcp (with its token, Host and Origin checks).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TermhostClient } from '../src/client/TermhostClient.js';
import { startDaemon, type Daemon } from '../src/main.js';
import { ROOT, assertNoLeaks, rawRequest, runBin, startTestDaemon, until, type TestDaemon } from './helpers.js';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, any> };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const r = await call(client, name, args);
  assert.ok(!r.isError, `${name} failed: ${r.content[0]?.text}`);
  return r;
}

const text = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

const EXPECTED_TOOLS = [
  'await_command',
  'lease_acquire',
  'lease_release',
  'mouse',
  'read_screen',
  'read_scrollback',
  'resize',
  'run',
  'send',
  'session_create',
  'session_kill',
  'session_list',
  'signal',
  'wait_for',
];

/** The scenario both transports run: vim edits and saves a file, with waits instead of sleeps and cheap re-reads. */
async function vimScenario(client: Client, dir: string) {
  const tools = (await client.listTools()).tools;
  assert.deepEqual(tools.map((t) => t.name).sort(), EXPECTED_TOOLS);
  for (const t of tools) assert.ok((t.description ?? '').length > 40, `${t.name} has a description that teaches its use`);

  const created = await ok(client, 'session_create', { command: ['vim', '-u', 'NONE', '-N', '-n', 'notes.txt'], cwd: dir, cols: 60, rows: 12 });
  const id = created.structuredContent!.id as string;
  assert.match(text(created), new RegExp(`started ${id} \\| running`));

  const ready = await ok(client, 'wait_for', { session: id, text: 'notes.txt', timeout_ms: 10_000 });
  assert.equal(ready.structuredContent!.matched, true);
  assert.match(text(ready), /full-screen app/, 'alternate screen mentioned because it matters');
  // vim writes the file name on its last row before it puts the cursor back on the first: let it finish drawing.
  await ok(client, 'wait_for', { session: id, stable_ms: 300, timeout_ms: 10_000 });
  const full = await ok(client, 'read_screen', { session: id });
  assert.match(text(full), /^>\s*0$/m, 'cursor row marked on an empty first row');
  assert.equal(full.structuredContent!.lines.length, 12);

  await ok(client, 'send', { session: id, input: [{ text: 'i' }, { text: 'hello from mcp' }, { key: 'Escape' }] });
  const typed = await ok(client, 'wait_for', { session: id, regex: '^hello from mcp$', timeout_ms: 10_000 });
  assert.equal(typed.structuredContent!.reason, 'regex');
  // wait_for counts as a read: nothing changed since.
  const none = await ok(client, 'read_screen', { session: id, changes_only: true });
  assert.equal(none.structuredContent!.changed, false);
  assert.match(text(none), /^no change/);

  await ok(client, 'send', { session: id, input: [{ text: 'o' }, { text: 'second line' }] });
  // Each long poll answers at the first change, which may be only part of vim's answer to the keys (a cursor move
  // first, the text later): read changes until the typed line is there, each answer holding only what changed.
  const seen: number[] = [];
  const deadline = Date.now() + 15_000;
  for (;;) {
    const delta = await ok(client, 'read_screen', { session: id, changes_only: true, wait_ms: 5000 });
    const sc = delta.structuredContent!;
    assert.equal(sc.full, false);
    assert.equal(sc.lines, undefined);
    const changes = (sc.changes ?? []) as Array<{ row: number; text: string }>;
    assert.ok(changes.length <= 3, `only changed rows come back, got rows ${changes.map((c) => c.row)}`);
    seen.push(...changes.map((c) => c.row));
    if (changes.some((c) => c.text.includes('second line'))) break;
    assert.ok(Date.now() < deadline, `the typed line never came back as a change (rows seen: ${seen})`);
  }
  assert.ok(!seen.includes(0), 'the unchanged first row is not repeated');
  await ok(client, 'wait_for', { session: id, text: 'second line', timeout_ms: 10_000 });

  await ok(client, 'send', { session: id, input: [{ key: 'Escape' }, { text: ':wq' }, { key: 'Enter' }] });
  const exited = await ok(client, 'wait_for', { session: id, exit: true, timeout_ms: 10_000 });
  assert.equal(exited.structuredContent!.reason, 'exit');
  assert.equal(exited.structuredContent!.exit_code, 0);
  assert.match(text(exited), /process exited with code 0/);
  assert.equal(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'hello from mcp\nsecond line\n');

  // Errors are tool errors with the server's code, not protocol failures.
  const bad = await call(client, 'send', { session: 'nosuch', input: [{ text: 'x' }] });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /^error session_not_found: /);
  assert.equal(bad.structuredContent!.code, 'session_not_found');
  const badKey = await call(client, 'send', { session: id, input: [{ key: 'Hyper-Q' }] });
  assert.equal(badKey.isError, true);
  assert.match(text(badKey), /error (invalid_key|session_exited)/);

  const list = await ok(client, 'session_list');
  assert.match(text(list), new RegExp(`${id} \\| exited 0`));
  await ok(client, 'session_kill', { session: id });
  return id;
}

/** Screens are resources; subscribers hear about changes, everyone hears about new sessions. */
async function resourceScenario(client: Client) {
  const updated: string[] = [];
  let listChanged = 0;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++);
  const created = await ok(client, 'session_create', { command: ['cat'], cols: 40, rows: 5 });
  const id = created.structuredContent!.id as string;
  const uri = `termhost://sessions/${id}/screen`;
  await until('a list_changed notification', () => listChanged > 0);
  const listed = await client.listResources();
  assert.ok(listed.resources.some((r) => r.uri === uri));
  await client.subscribeResource({ uri });
  await ok(client, 'send', { session: id, input: [{ text: 'ping' }, { key: 'Enter' }] });
  await until('a resource update for the screen', () => updated.includes(uri));
  const read = await client.readResource({ uri });
  assert.match((read.contents[0] as { text: string }).text, /^\s*0 ping$/m);
  await ok(client, 'session_kill', { session: id });
}

describe('over stdio: termhost mcp --embedded', () => {
  let client: Client;
  let dir: string;
  let stderr = '';
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-mcp-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'dist/cli/main.js'), 'mcp', '--embedded'],
      cwd: dir,
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: dir, TERMHOST_TOKEN: 'must-not-leak' },
    });
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    client = new Client({ name: 'test', version: '0' });
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('vim through MCP: create, type, wait, read changes, save, exit code', async () => {
    await vimScenario(client, dir);
    assert.equal(stderr, '', 'nothing on stderr');
  });

  test('screen resources with change notifications', async () => {
    await resourceScenario(client);
  });

  test('sessions start in the MCP server\'s working directory unless told otherwise', async () => {
    const created = await ok(client, 'session_create', { command: ['pwd'] });
    assert.equal(created.structuredContent!.cwd, dir);
    const id = created.structuredContent!.id as string;
    const done = await ok(client, 'wait_for', { session: id, exit: true, timeout_ms: 5000 });
    assert.equal(done.structuredContent!.screen.lines[0], fs.realpathSync(dir));
    await ok(client, 'session_kill', { session: id });
  });

  test('a long-running wait_for can be bounded and reports the timeout as a result, not an error', async () => {
    const created = await ok(client, 'session_create', { command: ['cat'] });
    const id = created.structuredContent!.id as string;
    const r = await ok(client, 'wait_for', { session: id, text: 'never', timeout_ms: 200 });
    assert.equal(r.structuredContent!.matched, false);
    assert.equal(r.structuredContent!.reason, 'timeout');
    assert.match(text(r), /^not matched \(timeout\)/);
    await ok(client, 'session_kill', { session: id });
  });
});

describe('over stdio: termhost mcp against a running daemon (TERMHOST_ADDR, TERMHOST_TOKEN)', () => {
  let d: TestDaemon;
  let client: Client;
  let dir: string;
  before(async () => {
    d = await startTestDaemon();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-mcp-remote-'));
    const agent = await d.client.createToken('stdio-agent', 'agent');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'dist/cli/main.js'), 'mcp'],
      cwd: dir,
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: dir, TERMHOST_ADDR: d.address, TERMHOST_TOKEN: agent.token },
    });
    client = new Client({ name: 'test-remote', version: '0' });
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
    await d.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('vim through the daemon, as the token\'s actor', async () => {
    const id = await vimScenario(client, dir);
    const record = (await d.client.getSession(id)) as unknown as { live: boolean; created_by: { name: string } };
    assert.equal(record.live, false);
    assert.equal(record.created_by.name, 'stdio-agent');
  });

  test('resource notifications come from the daemon\'s event stream', async () => {
    await resourceScenario(client);
  });

  test('leases renew by id, and a refusal carries the server\'s fields (the holder) through the client', async () => {
    const created = await ok(client, 'session_create', { command: ['cat'] });
    const id = created.structuredContent!.id as string;
    const lease = await ok(client, 'lease_acquire', { session: id, ttl_ms: 5000 });
    const leaseId = lease.structuredContent!.lease_id as string;
    const renewed = await ok(client, 'lease_acquire', { session: id, ttl_ms: 60_000, lease_id: leaseId });
    assert.equal(renewed.structuredContent!.lease_id, leaseId, 'the same lease, renewed');
    assert.equal((await d.client.leases(id)).length, 1, 'no second lease');
    await ok(client, 'lease_release', { session: id, lease_id: leaseId });

    const other = await d.client.createToken('stdio-other', 'agent');
    const otherClient = new TermhostClient({ address: d.address, token: other.token });
    await otherClient.acquireLease(id, 'exclusive', 60_000);
    const refused = await call(client, 'lease_acquire', { session: id });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent!.code, 'lease_held');
    assert.deepEqual(refused.structuredContent!.holder, { name: 'stdio-other', kind: 'agent' });
    assert.equal(refused.structuredContent!.retryable, true);
    otherClient.close();
    await ok(client, 'session_kill', { session: id });
  });

  test('through a daemon, sessions keep the daemon\'s default working directory', async () => {
    const created = await ok(client, 'session_create', { command: ['pwd'] });
    assert.notEqual(created.structuredContent!.cwd, dir, 'only --embedded uses the MCP server\'s own directory');
    await ok(client, 'session_kill', { session: created.structuredContent!.id });
  });
});

describe('termhost mcp against a daemon, with no token given: an agent, never the admin', () => {
  let xdg: string;
  let daemon: Daemon;
  let admin: TermhostClient;
  before(async () => {
    // The daemon as `termhost serve` runs it by default: a generated token in the state dir, found through daemon.json.
    xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-mcp-agent-'));
    daemon = await startDaemon({ listen: '127.0.0.1:0', stateDir: path.join(xdg, 'termhost') });
    admin = new TermhostClient({ address: daemon.address, token: daemon.token });
  });
  after(async () => {
    admin.close();
    await daemon.close();
    fs.rmSync(xdg, { recursive: true, force: true });
  });

  /** `termhost mcp` as an MCP client config starts it: no TERMHOST_* at all. */
  async function connect(): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'dist/cli/main.js'), 'mcp'],
      cwd: xdg,
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: xdg, XDG_STATE_HOME: xdg },
    });
    let err = '';
    transport.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const client = new Client({ name: 'test-agent', version: '0' });
    await client.connect(transport);
    return { client, stderr: () => err };
  }

  async function createdBy(client: Client): Promise<unknown> {
    const created = await ok(client, 'session_create', { command: ['true'] });
    const id = created.structuredContent!.id as string;
    await admin.wait(id, { exit: true, timeout_ms: 10_000 });
    await admin.deleteSession(id);
    return created.structuredContent!.created_by;
  }

  test('the first run creates a named agent token, stored 0600 in the state dir; the next run reuses it', async () => {
    const first = await connect();
    assert.deepEqual(await createdBy(first.client), { name: 'mcp', kind: 'agent' });
    const file = path.join(xdg, 'termhost', 'agent-tokens', 'mcp');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.match(first.stderr(), /created the agent token "mcp" for this MCP server and stored it in .*agent-tokens\/mcp/);
    await first.client.close();

    const second = await connect();
    assert.deepEqual(await createdBy(second.client), { name: 'mcp', kind: 'agent' });
    assert.doesNotMatch(second.stderr(), /created/);
    await second.client.close();
    assert.deepEqual((await admin.listTokens()).map((t) => `${t.name}:${t.role}`).sort(), ['admin:admin', 'mcp:agent'], 'one token, reused');
  });

  test('an agent cannot preempt another agent\'s exclusive lease, as the admin could', async () => {
    const { client } = await connect();
    const other = await admin.createToken('other-agent', 'agent');
    const otherClient = new TermhostClient({ address: daemon.address, token: other.token });
    const s = await admin.createSession({ command: ['cat'] });
    await otherClient.acquireLease(s.id, 'exclusive', 60_000);
    const refused = await call(client, 'send', { session: s.id, input: [{ text: 'x' }] });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent!.code, 'lease_held');
    otherClient.close();
    await client.close();
    await admin.deleteSession(s.id, 'KILL');
  });

  test('when it cannot get an agent token it refuses, with what to do; it never falls back to the admin', async () => {
    const noTokenFile = await startTestDaemon(); // started with an explicit token: there is no admin token file to use
    try {
      const r = await runBin(['mcp', '--state-dir', noTokenFile.stateDir]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^termhost mcp: cannot create an agent token for this MCP server \(.*\[?unauthorized|^termhost mcp: cannot create an agent token/);
      assert.match(r.stderr, /termhost token create --name mcp --role agent/);
    } finally {
      await noTokenFile.stop();
    }
  });
});

describe('over streamable HTTP: the daemon at /mcp', () => {
  let d: TestDaemon;
  let dir: string;
  before(async () => {
    d = await startTestDaemon();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-mcp-http-'));
  });
  after(async () => {
    await d.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    await assertNoLeaks();
  });

  async function connect(token = d.token): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'test-http', version: '0' });
    await client.connect(transport);
    return client;
  }

  test('vim through MCP over HTTP, and its sessions are the daemon\'s', async () => {
    const client = await connect();
    const id = await vimScenario(client, dir);
    // The daemon stored its record: the session ran in the daemon's runtime, not somewhere private to MCP.
    const record = (await d.client.getSession(id)) as unknown as { live: boolean; exit_code: number | null; command: string[] };
    assert.equal(record.live, false);
    assert.equal(record.exit_code, 0);
    assert.deepEqual(record.command.slice(0, 1), ['vim']);
    await client.close();
  });

  test('resources and notifications over HTTP', async () => {
    const client = await connect();
    await resourceScenario(client);
    await client.close();
  });

  test('the actor is the token\'s: a session made over MCP names its creator', async () => {
    const agent = await d.client.createToken('mcp-agent', 'agent');
    const client = await connect(agent.token);
    const created = await ok(client, 'session_create', { command: ['cat'] });
    assert.deepEqual(created.structuredContent!.created_by, { name: 'mcp-agent', kind: 'agent' });
    await ok(client, 'session_kill', { session: created.structuredContent!.id });
    await client.close();
  });

  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  test('401 without a token, 403 for a viewer', async () => {
    const none = await rawRequest(d.address, { method: 'POST', path: '/mcp', headers: mcpHeaders, body: init });
    assert.equal(none.status, 401);
    assert.equal(none.json.code, 'unauthorized');
    const viewer = await d.client.createToken('mcp-viewer', 'viewer');
    const v = await rawRequest(d.address, { method: 'POST', path: '/mcp', headers: { ...mcpHeaders, authorization: `Bearer ${viewer.token}` }, body: init });
    assert.equal(v.status, 403);
    assert.equal(v.json.code, 'forbidden');
  });

  test('403 for a foreign Origin or a foreign Host, even with the token', async () => {
    const auth = { ...mcpHeaders, authorization: `Bearer ${d.token}` };
    const foreign = await rawRequest(d.address, { method: 'POST', path: '/mcp', headers: { ...auth, origin: 'http://evil.example' }, body: init });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.code, 'forbidden_origin');
    const opaque = await rawRequest(d.address, { method: 'POST', path: '/mcp', headers: { ...auth, origin: 'null' }, body: init });
    assert.equal(opaque.status, 403);
    const host = await rawRequest(d.address, { method: 'POST', path: '/mcp', headers: { ...auth, host: 'evil.example' }, body: init });
    assert.equal(host.status, 403);
    assert.equal(host.json.code, 'forbidden_host');
    // The daemon's own origin is fine.
    const own = await rawRequest(d.address, { method: 'POST', path: '/mcp', headers: { ...auth, origin: d.url, host: d.address }, body: init });
    assert.equal(own.status, 200);
  });

  test('another token cannot use an MCP session it did not start', async () => {
    const client = await connect();
    const sid = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const other = await d.client.createToken('mcp-other', 'admin');
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const r = await rawRequest(d.address, {
      method: 'POST',
      path: '/mcp',
      headers: { ...mcpHeaders, authorization: `Bearer ${other.token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
      body: list,
    });
    assert.equal(r.status, 404);
    assert.equal(r.json.code, 'not_found');
    await client.close();
  });
});
