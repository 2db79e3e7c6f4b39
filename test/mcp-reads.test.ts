/**
 * Fewer bytes per read, with no loss of meaning (issue 14 section 4): identical rows fold into one line naming them,
 * and a wait after a read answers with only the rows that changed since this client's last read, keeping row
 * numbers and the cursor marker, unless `full: true` is asked or nothing was read before.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertNoLeaks, startTestDaemon, type TestDaemon } from './helpers.js';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
let d: TestDaemon;
let mcp: Client;
before(async () => {
  d = await startTestDaemon();
  mcp = new Client({ name: 'reads', version: '0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${d.token}` } } }));
});
after(async () => {
  await mcp.close();
  await d.stop();
  await assertNoLeaks();
});

async function call(name: string, args: Record<string, unknown>): Promise<string> {
  const r = (await mcp.callTool({ name, arguments: args })) as ToolResult;
  assert.ok(!r.isError, `${name}: ${r.content[0]?.text}`);
  return r.content.map((c) => c.text ?? '').join('\n');
}

test('a wait after a read shows only the changed rows; full: true and a first wait show the whole screen', async () => {
  const created = (await mcp.callTool({ name: 'session_create', arguments: { command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, rows: 50, cols: 60 } })) as ToolResult;
  const id = String(created.structuredContent!.id);
  await call('send', { session: id, input: [{ text: "seq -f 'line %g of the listing' 100 140" }, { key: 'Enter' }] });
  // A first wait, with nothing read before: the whole screen.
  const first = await call('wait_for', { session: id, regex: 'line 140 of', timeout_ms: 5000 });
  assert.match(first, /^60x50(;.*)?\n/, 'a whole screen opens with its size');
  // The whole screen; the listing counts up, so it folds into one line that names both ends.
  assert.match(first, /^rows 1-41: line 100 of the listing … line 140 of the listing$/m);
  await call('send', { session: id, input: [{ text: 'echo hi' }, { key: 'Enter' }] });
  const later = await call('wait_for', { session: id, regex: '^hi$', after_input: true, timeout_ms: 5000 });
  assert.doesNotMatch(later, /^\d+x\d+/, 'changes have no size line: that is how a reader tells them from a whole screen');
  assert.match(later, /^\d+ hi$/m, 'the row numbers are the screen\'s');
  assert.match(later, /^>/m, 'the cursor row is marked');
  assert.doesNotMatch(later, /line 1[0-4]\d/, 'unchanged rows are not repeated');
  const full = await call('wait_for', { session: id, regex: '^hi$', timeout_ms: 1000, full: true });
  assert.match(full, /rows 1-41: line 100 of the listing/, 'full: the whole screen');
  assert.ok(later.length * 2 < full.length, `${later.length} bytes vs ${full.length}`);
  await call('session_kill', { session: id });
});

test('a full-screen editor\'s column of ~ reads as one line naming its rows', async () => {
  const created = (await mcp.callTool({ name: 'session_create', arguments: { command: ['vim', '-u', 'NONE', '-N', '-n', 'notes.txt'], cwd: '/tmp', rows: 30, cols: 60 } })) as ToolResult;
  const id = String(created.structuredContent!.id);
  await call('wait_for', { session: id, stable_ms: 300, timeout_ms: 10_000 });
  const screen = await call('read_screen', { session: id });
  assert.match(screen, /^rows 1-\d+: ~$/m, screen);
  assert.ok(screen.split('\n').filter((l) => /^ *\d+ ~$/.test(l)).length === 0, `no row of ~ is printed on its own:\n${screen}`);
  await call('session_kill', { session: id, signal: 'KILL' });
});

test('leaving a full-screen program compares with the shell screen read before it started', async () => {
  const created = (await mcp.callTool({ name: 'session_create', arguments: { command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, rows: 30, cols: 60 } })) as ToolResult;
  const id = String(created.structuredContent!.id);
  await call('send', { session: id, input: [{ text: "seq -f 'earlier line %g' 1 40" }, { key: 'Enter' }], until: { text: 'earlier line 40' } });
  await call('read_screen', { session: id });
  const inLess = await call('send', { session: id, input: [{ text: 'less /etc/passwd' }, { key: 'Enter' }], until: { text: 'root:' } });
  assert.match(inLess, /full-screen app/);
  const back = await call('send', { session: id, input: [{ text: 'q' }], until: { regex: '^\\$ $|^\\$$' } });
  assert.doesNotMatch(back, /earlier line 20/, `the shell screen read before less is not repeated:\n${back}`);
  await call('session_kill', { session: id });
});
