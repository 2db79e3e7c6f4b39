/**
 * Command profiles: the operator names the programs sessions may run, in a config file. With --restrict-commands
 * (or for a token limited to some profiles) a caller can start only those: any argv, cwd or env of its own is a 403
 * command_not_allowed that names the profiles on offer, on HTTP and MCP alike. The config file is checked at start,
 * and its errors name the line and the field.
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
import { assertNoLeaks, runBin, startTestDaemon, waitText, type TestDaemon } from './helpers.js';

let dir: string;
let d: TestDaemon;
let agent: TermhostClient;
let agentToken: string;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-profiles-'));
  fs.writeFileSync(
    path.join(dir, 'termhost.json'),
    JSON.stringify(
      {
        restrict_commands: true,
        max_sessions: 20,
        profiles: {
          py: { command: ['sh', '-c', 'echo "profile $GREETING in $(pwd)"; exec cat'], env: { GREETING: 'hello' }, cwd: '.', labels: { kind: 'py' } },
          shell: { command: ['sh'], cols: 100, rows: 30 },
        },
      },
      null,
      2,
    ),
  );
  const config = loadConfig(path.join(dir, 'termhost.json'));
  d = await startTestDaemon(config.options);
  agentToken = (await d.client.createToken('claude', 'agent')).token;
  agent = new TermhostClient({ address: d.address, token: agentToken });
});
after(async () => {
  agent.close();
  await d.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  await assertNoLeaks();
});

const notAllowed = (field?: string) => (e: TermhostError) =>
  e.status === 403 && e.code === 'command_not_allowed' && /profiles: py, shell/.test(e.message) && (field === undefined || e.body?.field === field);

test('a restricted daemon starts only its profiles: an argv, cwd or env of the caller is 403 command_not_allowed', async () => {
  await assert.rejects(agent.createSession({ command: ['bash'] }), notAllowed());
  await assert.rejects(agent.createSession({}), notAllowed(), 'not even the default shell');
  await assert.rejects(agent.createSession({ profile: 'py', cwd: '/' }), notAllowed('cwd'));
  await assert.rejects(agent.createSession({ profile: 'py', env: { X: '1' } }), notAllowed('env'));
  await assert.rejects(agent.createSession({ profile: 'py', labels: { kind: 'js' } }), (e: TermhostError) => e.status === 403 && /label "kind" is set by profile "py"/.test(e.message));
  await assert.rejects(agent.createSession({ profile: 'nope' }), (e: TermhostError) => e.status === 400 && e.code === 'invalid_request' && /no profile "nope"/.test(e.message));
  await assert.rejects(d.client.createSession({ command: ['true'] }), notAllowed(), 'the admin too: the command is configuration');
});

test("a profile runs the operator's command, env and cwd, with the caller's size, labels and name", async () => {
  const s = await agent.createSession({ profile: 'py', cols: 90, labels: { team: 'red' }, name: 'repl' });
  assert.deepEqual(s.command, ['sh', '-c', 'echo "profile $GREETING in $(pwd)"; exec cat']);
  assert.equal(s.cols, 90);
  assert.deepEqual(s.labels, { kind: 'py', team: 'red' });
  await waitText(d, s.id, `profile hello in ${fs.realpathSync(dir)}`);
  const shell = await agent.createSession({ profile: 'shell' });
  assert.deepEqual([shell.cols, shell.rows], [100, 30]);
  for (const x of [s, shell]) await agent.deleteSession(x.id, 'KILL');
});

test('GET /v1/profiles and termhost profiles list them; MCP session_create refuses a command and takes a profile', async () => {
  const answer = await agent.profiles();
  assert.equal(answer.restricted, true);
  assert.deepEqual(answer.profiles.map((p) => p.name), ['py', 'shell']);
  assert.ok(!JSON.stringify(answer).includes('hello'), 'a profile\'s env is not shown');
  const printed = await runBin(['profiles'], { env: { TERMHOST_ADDR: d.address, TERMHOST_TOKEN: agentToken } });
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stdout, /^py\tsh -c .*\tkind=py$/m);
  assert.match(printed.stderr, /only from these profiles/);
  const mcp = new Client({ name: 'profiles', version: '0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`http://${d.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agentToken}` } } }));
  try {
    const refused = await mcp.callTool({ name: 'session_create', arguments: { command: ['bash'] } });
    assert.equal(refused.isError, true);
    assert.match((refused.content as Array<{ text: string }>)[0]!.text, /profiles: py, shell/);
    const started = await mcp.callTool({ name: 'session_create', arguments: { profile: 'shell' } });
    assert.ok(!started.isError, JSON.stringify(started.content));
    await agent.deleteSession((started.structuredContent as { id: string }).id, 'KILL');
  } finally {
    await mcp.close();
  }
});

test('a token limited to profiles starts only those, on a daemon that is not restricted', async () => {
  const open = await startTestDaemon({ profiles: { py: { command: ['cat'] }, sh: { command: ['sh'] } } });
  try {
    const limited = await open.client.createToken('ci', 'agent', { profiles: ['sh'] });
    assert.deepEqual(limited.profiles, ['sh']);
    const ci = new TermhostClient({ address: open.address, token: limited.token });
    await assert.rejects(ci.createSession({ command: ['bash'] }), (e: TermhostError) => e.status === 403 && e.code === 'command_not_allowed' && /profiles: sh/.test(e.message));
    await assert.rejects(ci.createSession({ profile: 'py' }), (e: TermhostError) => e.status === 403 && e.code === 'command_not_allowed');
    const s = await ci.createSession({ profile: 'sh' });
    assert.deepEqual((await ci.profiles()).profiles.map((p) => p.name), ['sh']);
    // Others still start what they like.
    const free = await open.client.createSession({ command: ['true'] });
    const ls = await runBin(['token', 'ls'], { env: { TERMHOST_ADDR: open.address, TERMHOST_TOKEN: open.token } });
    assert.match(ls.stdout, /^ci\tagent\tall\t\S+\tsh$/m);
    for (const x of [s, free]) await open.client.deleteSession(x.id, 'KILL');
    ci.close();
  } finally {
    await open.stop();
  }
});

test('a TOML config file gives the same settings as its JSON twin', () => {
  const toml = path.join(dir, 'termhost.toml');
  fs.writeFileSync(
    toml,
    [
      'restrict_commands = true',
      'max_sessions = 20',
      '',
      '[profiles.py]',
      `command = ["sh", "-c", 'echo "profile $GREETING in $(pwd)"; exec cat']`,
      'cwd = "."',
      'env = { GREETING = "hello" }',
      'labels = { kind = "py" }',
      '',
      '[profiles.shell]',
      'command = ["sh"]',
      'cols = 100',
      'rows = 30',
      '',
    ].join('\n'),
  );
  assert.deepEqual(loadConfig(toml), loadConfig(path.join(dir, 'termhost.json')));
});

test('the config file is checked at start: errors name the file, the line and the field, and the daemon does not start', async () => {
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const cases: Array<[string, string, RegExp]> = [
    ['typo.json', '{\n  "listen": "127.0.0.1:0",\n  "max_sesions": 3\n}\n', /typo\.json:3: max_sesions is not a setting termhost knows/],
    ['argv.json', '{\n  "profiles": {\n    "py": {\n      "command": "python3"\n    }\n  }\n}\n', /argv\.json:4: profiles\.py\.command must be array/],
    ['bounds.json', '{\n  "profiles": {\n    "py": {\n      "command": ["python3"],\n      "labels": {"k=v": "x"}\n    }\n  }\n}\n', /bounds\.json:5: profiles\.py\.labels/],
    ['syntax.json', '{\n  "listen": "127.0.0.1:0",\n  "max_sessions": 3,\n}\n', /syntax\.json:4: not valid JSON/],
    ['kind.json', '{\n  "rate_limits": {\n    "session_starts": "ten"\n  }\n}\n', /kind\.json:3: rate_limits\.session_starts must be integer/],
    // TOML, by the extension: the same schema and the same kind of answer.
    ['typo.toml', 'listen = "127.0.0.1:0"\nmax_sesions = 3\n', /typo\.toml:2: max_sesions is not a setting termhost knows/],
    ['argv.toml', '[profiles.py]\ncwd = "."\ncommand = "python3"\n', /argv\.toml:3: profiles\.py\.command must be array/],
    ['syntax.toml', 'listen = "127.0.0.1:0"\nmax_sessions = [\n', /syntax\.toml:3: not valid TOML/],
  ];
  for (const [name, text, want] of cases) {
    assert.throws(() => loadConfig(write(name, text)), want, name);
    const served = await runBin(['serve', '--config', path.join(dir, name)], { timeoutMs: 15_000 });
    assert.notEqual(served.code, 0, name);
    assert.match(served.stderr, want, name);
  }
  const missing = await runBin(['serve', '--config', path.join(dir, 'none.json')]);
  assert.match(missing.stderr, /--config .*none\.json: no such file/);
});
