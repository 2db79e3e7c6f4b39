/**
 * What `termhost serve` says (issue 13 item 17): at its default level, one short line per notable event (start,
 * listen address, session start and end, auth failures, shutdown), never a line per request and never a secret;
 * `--log-format json --log-level debug` gives pino's JSON lines, one per request. The real binary, as a person runs it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ROOT, rawRequest, until } from './helpers.js';

const BIN = path.join(ROOT, 'dist/cli/main.js');
/** Daemons a failed test did not stop. */
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** `termhost serve` on a free port with its own state dir; `log` is everything it has written to stderr so far. */
async function serve(args: string[]) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-log-'));
  const child = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', '--state-dir', stateDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let log = '';
  let out = '';
  child.stderr.on('data', (c: Buffer) => (log += c.toString()));
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const address = await until('the listen address in the log', () => /listening at http:\/\/(127\.0\.0\.1:\d+)/.exec(log)?.[1], 60_000);
  const token = fs.readFileSync(path.join(stateDir, 'token'), 'utf8').trim();
  return {
    address,
    token,
    get log() {
      return log;
    },
    get out() {
      return out;
    },
    async stop(): Promise<number | null> {
      child.kill('SIGTERM');
      const code = await exited;
      running.delete(child);
      fs.rmSync(stateDir, { recursive: true, force: true });
      return code;
    },
  };
}

async function someTraffic(s: { address: string; token: string }) {
  const auth = { host: 'localhost', authorization: `Bearer ${s.token}` };
  for (let i = 0; i < 10; i++) assert.equal((await rawRequest(s.address, { path: '/v1/sessions', headers: auth })).status, 200);
  assert.equal((await rawRequest(s.address, { path: '/v1/sessions?token=guessed-secret-1', headers: { host: 'localhost' } })).status, 401);
  const created = await rawRequest(s.address, {
    method: 'POST',
    path: '/v1/sessions',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ command: ['sh', '-c', 'exit 3', 'arg-secret-2'] }),
  });
  assert.equal(created.status, 201, created.text);
  const minted = await rawRequest(s.address, { method: 'POST', path: '/v1/ui/login-codes', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
  const code = String(minted.json.code);
  assert.equal((await rawRequest(s.address, { path: `/ui/login?code=${code}`, headers: { host: s.address } })).status, 200);
  return { id: String(created.json.id), code };
}

test('by default, serve logs one short text line per notable event and nothing per request', async () => {
  const s = await serve([]);
  const { id, code } = await someTraffic(s);
  await until('the session end in the log', () => s.log.includes(`session ${id} ended`), 10_000);
  assert.equal(await s.stop(), 0);
  const lines = s.log.trimEnd().split('\n');
  const shape = lines.map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''));
  assert.ok(lines.every((l) => /^\d\d:\d\d:\d\d /.test(l) && !l.startsWith('{')), `text lines, not JSON:\n${s.log}`);
  assert.ok(lines.every((l) => l.length <= 160), `concise lines:\n${s.log}`);
  for (const want of [/^termhost \S+ starting$/, /^Server listening at http:\/\/127\.0\.0\.1:\d+$/, /^WARN auth failed: no token method=GET path=\/v1\/sessions from=127\.0\.0\.1$/, new RegExp(`^session ${id} started: sh \\(pid \\d+\\)$`), new RegExp(`^session ${id} ended: exit 3 reason=completed$`), /^termhost shutting down$/]) {
    assert.ok(shape.some((l) => want.test(l)), `a line like ${want}:\n${s.log}`);
  }
  assert.ok(lines.length <= 12, `no line per request (14 requests were made):\n${s.log}`);
  assert.ok(!/incoming request|request completed/.test(s.log));
  for (const secret of [s.token, code, 'guessed-secret-1', 'arg-secret-2']) assert.ok(!s.log.includes(secret), `${secret} in the log:\n${s.log}`);
  assert.equal(s.out, '', 'nothing on standard output');
});

test('--log-format json --log-level debug: JSON lines, exactly one per request, still without secrets', async () => {
  const s = await serve(['--log-format', 'json', '--log-level', 'debug']);
  const { code } = await someTraffic(s);
  assert.equal(await s.stop(), 0);
  const entries = s.log.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const requests = entries.filter((e) => e.msg === 'request');
  assert.equal(requests.length, 14, 'one line per request');
  assert.deepEqual(Object.keys(requests[0]!).filter((k) => ['method', 'path', 'status', 'ms'].includes(k)).sort(), ['method', 'ms', 'path', 'status']);
  assert.ok(entries.some((e) => e.msg === 'auth failed: no token'));
  for (const secret of [s.token, code, 'guessed-secret-1', 'arg-secret-2']) assert.ok(!s.log.includes(secret), `${secret} in the log`);
});

test('a wrong --log-format is a usage error', async () => {
  const child = spawn(process.execPath, [BIN, 'serve', '--log-format', 'pretty'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const codeNum = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(codeNum, 2);
  assert.match(err, /--log-format must be one of text, json, got "pretty"/);
});
