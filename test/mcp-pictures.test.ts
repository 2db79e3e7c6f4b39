/**
 * Agents see the screen as a picture (issue 16 section 2): MCP read_screen with as="image" answers an MCP image
 * content block (a PNG sized for vision models) beside one short text line, both over the daemon's /mcp and through
 * `termhost mcp` talking to a daemon; the full-size picture is a resource.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { THEMES } from '../src/protocol/theme.js';
import { assertNoLeaks, ROOT, startTestDaemon, testHome, type TestDaemon } from './helpers.js';
import { cellColours, decodePng, printingSession } from './picture-helpers.js';

type Content = { type: string; text?: string; data?: string; mimeType?: string };
type ToolResult = { isError?: boolean; content: Content[]; structuredContent?: Record<string, unknown> };

let d: TestDaemon;
let mcp: Client;
before(async () => {
  d = await startTestDaemon();
  mcp = new Client({ name: 'pictures', version: '0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${d.token}` } } }));
});
after(async () => {
  await mcp.close();
  await d.stop();
  await assertNoLeaks();
});

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;

/** The checks every image answer must pass: one short text line, then one PNG image block within the bounds. */
function assertImageAnswer(r: ToolResult) {
  assert.ok(!r.isError, r.content[0]?.text);
  assert.deepEqual(
    r.content.map((c) => c.type),
    ['text', 'image'],
  );
  const [line, image] = r.content as [Content, Content];
  assert.ok(line.text!.length < 200 && !line.text!.includes('\n'), `a short line: ${line.text}`);
  assert.doesNotMatch(line.text!, /iVBOR/, 'no base64 in the text block');
  assert.ok(JSON.stringify(r.structuredContent).length < 1000, 'nor in the structured content');
  assert.equal(image.mimeType, 'image/png');
  const png = Buffer.from(image.data!, 'base64');
  assert.ok(png.length < 1024 * 1024, `under 1 MB: ${png.length} bytes`);
  const img = decodePng(png);
  assert.ok(Math.max(img.width, img.height) <= 1568, `long edge ${img.width}x${img.height}`);
  return { line: line.text!, png, img };
}

test('read_screen as="image" answers a PNG image block and a line saying what it shows', async () => {
  const s = await printingSession(d, '\\033[41mFAIL\\033[0m 3 tests', { cols: 40, rows: 6 }, 'FAIL');
  const r = await call(mcp, 'read_screen', { session: s.id, as: 'image' });
  const { line, img } = assertImageAnswer(r);
  assert.equal(line, `screen of ${s.id} as a 320x96 PNG: 40x6 cells of 8x16 px (seq ${r.structuredContent!.seq})`);
  assert.deepEqual([img.width, img.height], [320, 96]);
  assert.equal(cellColours(img, { cellWidth: 8, cellHeight: 16 }, 0, 0, 4)[0], THEMES.dark.red, 'the red FAIL is red');
  assert.equal(r.structuredContent!.bytes, Buffer.from(r.content[1]!.data!, 'base64').length);

  const bad = await call(mcp, 'read_screen', { session: s.id, as: 'image', changes_only: true });
  assert.ok(bad.isError);
  assert.match(bad.content[0]!.text!, /invalid_request: changes_only, wait_ms and highlights go with as="text"/);
  await d.client.deleteSession(s.id);
});

test('a big screen of true-colour noise is scaled to a long edge of at most 1568 px and under 1 MB', async () => {
  // Every cell its own true-colour background and foreground: the worst case for PNG's deflate.
  const code =
    'import random,sys,time\nrandom.seed(7)\nout=[]\nfor y in range(100):\n' +
    '  out.append("".join("\\x1b[38;2;%d;%d;%dm\\x1b[48;2;%d;%d;%dm%s" % (tuple(random.randrange(256) for _ in range(6)) + (chr(33 + random.randrange(90)),)) for x in range(300)))\n' +
    'sys.stdout.write("\\x1b[0m\\r\\n".join(out) + "\\x1b[0m")\nsys.stdout.flush()\ntime.sleep(60)';
  const s = await d.client.createSession({ command: ['python3', '-c', code], cols: 300, rows: 100 });
  await d.client.wait(s.id, { stable_ms: 300, timeout_ms: 20_000 });
  const r = await call(mcp, 'read_screen', { session: s.id, as: 'image' });
  const { img } = assertImageAnswer(r);
  // Noise of 30,000 colours deflates badly: the picture is drawn again, smaller, until it fits.
  assert.ok(img.width >= 600, `still drawn: ${img.width}x${img.height}`);
  await d.client.deleteSession(s.id, 'KILL');
});

test('a picture is refused during a secret-input window, as the text screen is', async () => {
  const s = await printingSession(d, 'Your word: ', { cols: 30, rows: 3 }, 'Your word:');
  await d.client.secretAction(s.id, 'start', 'a person types it');
  const r = await call(mcp, 'read_screen', { session: s.id, as: 'image' });
  assert.ok(r.isError);
  assert.deepEqual(
    r.content.map((c) => c.type),
    ['text'],
  );
  assert.match(r.content[0]!.text!, /^error secret_input_active/);
  await d.client.deleteSession(s.id, 'KILL');
});

test('termhost://sessions/{id}/screen.png is the full-size picture, listed beside the text screen', async () => {
  const s = await printingSession(d, 'hello', { cols: 300, rows: 10 }, 'hello');
  const listed = await mcp.listResources();
  assert.ok(listed.resources.some((r) => r.uri === `termhost://sessions/${s.id}/screen.png` && r.mimeType === 'image/png'));
  const read = await mcp.readResource({ uri: `termhost://sessions/${s.id}/screen.png` });
  const content = read.contents[0] as { mimeType: string; blob: string };
  assert.equal(content.mimeType, 'image/png');
  const img = decodePng(Buffer.from(content.blob, 'base64'));
  assert.deepEqual([img.width, img.height], [300 * 8, 10 * 16], 'full size: the default scale, not shrunk for a model');
  await mcp.subscribeResource({ uri: `termhost://sessions/${s.id}/screen.png` });
  await d.client.deleteSession(s.id);
});

test('through `termhost mcp` (a client of the daemon) the image answer is the same', async () => {
  const home = testHome();
  const client = new Client({ name: 'pictures-stdio', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'dist/cli/main.js'), 'mcp'],
      cwd: home,
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: home, TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token },
    }),
  );
  try {
    const s = await printingSession(d, '\\033[42m  \\033[0mok', { cols: 20, rows: 4 }, 'ok');
    const r = await call(client, 'read_screen', { session: s.id, as: 'image', scale: 20, theme: 'light' });
    const { img } = assertImageAnswer(r);
    assert.equal(r.structuredContent!.cellHeight, 20);
    assert.equal(cellColours(img, { cellWidth: Number(r.structuredContent!.cellWidth), cellHeight: 20 }, 0, 0, 2)[0], THEMES.light.green);
    await d.client.deleteSession(s.id);
  } finally {
    await client.close();
  }
});
