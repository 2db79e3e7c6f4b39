/**
 * Commands over MCP, as an agent uses them: `run` starts a shell when it has none and answers `exit 0 in ...` with the
 * output; `input needed` the moment a command waits; `await_command` waits again. Under `termhost mcp --embedded`,
 * where no person can reach the session, a password prompt the agent aborts with C-c leaves the screen readable again
 * by itself.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT } from './helpers.js';
import { makeShellHome, type ShellHome } from './shellHome.js';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, any> };

const text = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

describe('commands over stdio: termhost mcp --embedded', () => {
  let client: Client;
  let home: ShellHome;
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
  const ok = async (name: string, args: Record<string, unknown>) => {
    const r = await call(name, args);
    assert.ok(!r.isError, `${name} failed: ${text(r)}`);
    return r;
  };

  before(async () => {
    home = makeShellHome();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'dist/cli/main.js'), 'mcp', '--embedded'],
      cwd: home.dir,
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', SHELL: '/bin/bash', ...home.env },
    });
    client = new Client({ name: 'test', version: '0' });
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
    home.remove();
  });

  test('run without a session starts a shell and answers "exit N in T s" with only the command\'s output', async () => {
    const r = await ok('run', { command: 'echo hello; ls /nonexistent-dir 2>&1 | wc -l; false' });
    const session = r.structuredContent!.session as string;
    assert.match(text(r), new RegExp(`^exit 1 in \\d+\\.\\d s \\(session ${session}, command c1\\)\\nhello\\n1$`));
    assert.deepEqual([r.structuredContent!.status, r.structuredContent!.exit_code], ['exited', 1]);
    const again = await ok('run', { session, command: 'pwd' });
    assert.match(text(again), new RegExp(`^exit 0 in .* \\(session ${session}, command c2\\)\\n${home.dir}$`));
    await ok('session_kill', { session });
  });

  test('input needed comes at once with the prompt; the agent answers with send and waits with await_command', async () => {
    const r = await ok('run', { command: "read -p 'Continue? [Y/n] ' a; echo you-said-$a" });
    const session = r.structuredContent!.session as string;
    assert.match(text(r), /^input needed: "Continue\? \[Y\/n\]" \(session \w+, command c1\): answer with send, then call await_command/);
    await ok('send', { session, input: [{ text: 'n' }, { key: 'Enter' }] });
    const done = await ok('await_command', { session, command_id: 'c1' });
    assert.match(text(done), /^exit 0 in .*\n(.*\n)?.*you-said-n$/);
    const slow = await ok('run', { session, command: 'sleep 1.5; echo late', timeout_ms: 200 });
    assert.match(text(slow), /^still running after .* \(session \w+, command c2\): call await_command to wait again/);
    const late = await ok('await_command', { session, command_id: 'c2' });
    assert.match(text(late), /^exit 0 in .*\nlate$/);
    const prompt = await ok('wait_for', { session, prompt: true, timeout_ms: 10_000 });
    assert.equal(prompt.structuredContent!.reason, 'prompt');
    await ok('session_kill', { session });
  });

  test('an agent meets getpass, aborts it with C-c, and the screen is readable again without any person', async () => {
    const r = await ok('run', { command: "python3 -c 'import getpass; getpass.getpass(\"Vault token: \")'" });
    const session = r.structuredContent!.session as string;
    assert.match(text(r), /^input needed \(password\): "Vault token:" .*a person must type the secret, or abort with send \{"key":"C-c"\}/);
    const hidden = await call('read_screen', { session });
    assert.equal(hidden.isError, true);
    assert.match(text(hidden), /No person can reach this session/);
    // Typing the secret is refused; aborting is allowed.
    const typed = await call('send', { session, input: [{ text: 'guess' }, { key: 'Enter' }] });
    assert.equal(typed.isError, true);
    await ok('send', { session, input: [{ key: 'C-c' }] });
    const ended = await ok('await_command', { session, command_id: r.structuredContent!.id });
    assert.equal(ended.structuredContent!.status, 'exited');
    assert.notEqual(ended.structuredContent!.exit_code, 0);
    const screen = await ok('read_screen', { session });
    assert.match(text(screen), /Vault token:/);
    assert.doesNotMatch(text(screen), /guess/);
    const next = await ok('run', { session, command: 'echo usable-again' });
    assert.match(text(next), /^exit 0 .*\nusable-again$/);
    await ok('session_kill', { session });
  });
});
