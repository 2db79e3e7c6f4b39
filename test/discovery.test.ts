/**
 * Finding the daemon on this machine, as a user meets it: `termhost serve` on any address writes daemon.json, and the
 * CLI, the SDK and `termhost mcp` follow it with no environment at all. No daemon, a dead one, a refused connection
 * and a second daemon on the same state dir each say what to do.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { BIN, ROOT, runBin, until } from './helpers.js';

const dirs: string[] = [];
const running = new Set<ChildProcess>();
after(async () => {
  // A test that failed half-way leaves its daemon: stop it, or the run never ends.
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh XDG_STATE_HOME: its termhost state dir is where serve, the CLI and the SDK look by default. */
function freshHome(): { xdg: string; stateDir: string; env: Record<string, string> } {
  const xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-disc-'));
  dirs.push(xdg);
  return { xdg, stateDir: path.join(xdg, 'termhost'), env: { XDG_STATE_HOME: xdg } };
}

interface Served {
  child: ChildProcess;
  address: string;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** `termhost serve ARGS` as a user starts it, until its daemon.json says where it listens. */
async function serve(args: string[], env: Record<string, string>, stateDir: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--log-level', 'warn', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: env.XDG_STATE_HOME ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const file = path.join(stateDir, 'daemon.json');
  const listening = () => {
    if (child.exitCode !== null) return 'exited';
    try {
      const r = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number; address: string };
      return r.pid === child.pid && r.address ? r.address : undefined;
    } catch {
      return undefined; // not written yet
    }
  };
  const address = await until(`serve to listen:\n${err}`, listening, 60_000);
  if (address === 'exited') throw new Error(`serve exited: ${err}`);
  return {
    child,
    address,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

test('serve on any port writes daemon.json (0600: address and pid); the CLI finds it with no environment; it is removed on exit', async () => {
  const h = freshHome();
  const daemon = await serve(['--listen', '127.0.0.1:0'], h.env, h.stateDir);
  const file = path.join(h.stateDir, 'daemon.json');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const record = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(record.pid, daemon.child.pid);
  assert.equal(record.address, daemon.address);
  assert.notEqual(daemon.address, '127.0.0.1:7070', 'not the default port: found, not guessed');

  const made = await runBin(['new', '--', 'sleep', '30'], { env: h.env });
  assert.equal(made.code, 0, made.stderr);
  const ls = await runBin(['ls'], { env: h.env });
  assert.match(ls.stdout, new RegExp(`^${made.stdout.trim()}\\t`));
  // Global flags before the command.
  assert.equal((await runBin(['--state-dir', h.stateDir, 'ls', '-q'])).stdout, made.stdout);
  assert.equal((await runBin(['--addr', daemon.address, '--state-dir', h.stateDir, 'ls', '-q'])).stdout, made.stdout);

  assert.equal(await daemon.stop(), 0);
  assert.equal(fs.existsSync(file), false, 'removed on exit');
  const none = await runBin(['ls'], { env: h.env });
  assert.equal(none.code, 1);
  assert.equal(none.stderr, `termhost ls: no daemon running for state dir ${h.stateDir}: start one with \`termhost serve\` [no_daemon]\n`);
});

test('a second daemon on the same state dir refuses to start and names the first', async () => {
  const h = freshHome();
  const first = await serve(['--listen', '127.0.0.1:0'], h.env, h.stateDir);
  const second = await runBin(['serve', '--listen', '127.0.0.1:0'], { env: h.env });
  assert.equal(second.code, 1);
  assert.match(second.stderr, new RegExp(`^termhost serve: a daemon is already running for state dir ${h.stateDir} \\(pid ${first.child.pid}, listening on ${first.address}\\); stop it first or give another --state-dir`));
  assert.equal(JSON.parse(fs.readFileSync(path.join(h.stateDir, 'daemon.json'), 'utf8')).pid, first.child.pid, 'the first keeps its record');
  await first.stop();
});

test('a daemon.json left by a daemon that died: the CLI says no daemon runs, and serve replaces it', async () => {
  const h = freshHome();
  const dead = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => dead.once('exit', r));
  fs.mkdirSync(h.stateDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(h.stateDir, 'daemon.json'), JSON.stringify({ pid: dead.pid, address: '127.0.0.1:1', version: '0', started_at: '', token_file: null }), { mode: 0o600 });
  const ls = await runBin(['ls'], { env: h.env });
  assert.match(ls.stderr, /no daemon running for state dir .*: start one with `termhost serve`/);
  const daemon = await serve(['--listen', '127.0.0.1:0'], h.env, h.stateDir);
  assert.equal(JSON.parse(fs.readFileSync(path.join(h.stateDir, 'daemon.json'), 'utf8')).pid, daemon.child.pid);
  assert.equal((await runBin(['ls'], { env: h.env })).code, 0);
  await daemon.stop();
});

test('a refused connection gets the same hint: from daemon.json, and from --addr', async () => {
  const h = freshHome();
  const port = await closedPort();
  fs.mkdirSync(h.stateDir, { recursive: true, mode: 0o700 });
  // A live pid (this test) whose daemon no longer answers.
  fs.writeFileSync(path.join(h.stateDir, 'daemon.json'), JSON.stringify({ pid: process.pid, address: `127.0.0.1:${port}`, version: '0', started_at: '', token_file: null }), { mode: 0o600 });
  const viaFile = await runBin(['ls'], { env: h.env });
  assert.equal(viaFile.stderr, `termhost ls: no daemon running for state dir ${h.stateDir}: start one with \`termhost serve\` [no_daemon]\n`);
  const viaAddr = await runBin(['--addr', `127.0.0.1:${port}`, 'ls'], { env: h.env });
  assert.equal(viaAddr.stderr, `termhost ls: no daemon is listening at 127.0.0.1:${port} (connection refused): start one with \`termhost serve\` [unreachable]\n`);
});

test('serve --unix and serve --token-file: the CLI finds the socket and the token file through daemon.json', async () => {
  const h = freshHome();
  const tokenFile = path.join(h.xdg, 'secret-token');
  fs.writeFileSync(tokenFile, 'token-from-a-file-0123456789\n', { mode: 0o600 });
  const sock = path.join(h.xdg, 'run', 'th.sock');
  const daemon = await serve(['--unix', sock, '--token-file', tokenFile], h.env, h.stateDir);
  assert.equal(daemon.address, `unix:${sock}`);
  const cmdline = fs.readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'utf8');
  assert.ok(!cmdline.includes('token-from-a-file'), 'the token is not on the command line');
  assert.equal(JSON.parse(fs.readFileSync(path.join(h.stateDir, 'daemon.json'), 'utf8')).token_file, tokenFile);
  assert.equal(fs.existsSync(path.join(h.stateDir, 'token')), false, 'no token generated: the file is the token');
  const ls = await runBin(['ls'], { env: h.env });
  assert.deepEqual([ls.code, ls.stderr], [0, '']);
  assert.equal((await runBin(['token'], { env: h.env })).stdout, 'token-from-a-file-0123456789\n');
  const bad = await runBin(['ls', '--token', 'wrong'], { env: h.env });
  assert.match(bad.stderr, /\[unauthorized\]/);
  await daemon.stop();
});

test('new TermhostClient() with no environment finds the daemon and token, as the CLI does; the README snippet runs as printed', async () => {
  const h = freshHome();
  const daemon = await serve(['--listen', '127.0.0.1:0'], h.env, h.stateDir);
  const example = path.join(ROOT, 'examples', 'sdk-quickstart.ts');
  const started = Date.now();
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', example], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: h.xdg, ...h.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
  assert.equal(out.code, 0, `it ends by itself, successfully:\n${out.stderr}`);
  assert.match(out.stdout, /^>>> 6 \* 7\n42\n/m, 'it prints the screen');
  assert.match(out.stdout, /^python3 exited with code 0$/m);
  console.log(`# sdk-quickstart.ts ran in ${Date.now() - started} ms, tsx start-up included`);
  // The README shows exactly this file.
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const code = fs.readFileSync(example, 'utf8').split('\n').filter((l) => !l.startsWith('// Run:')).join('\n').trim();
  assert.ok(readme.includes(`\`\`\`ts\n${code}\n\`\`\``), 'README.md shows examples/sdk-quickstart.ts as it is');
  assert.equal((await runBin(['ls'], { env: h.env })).stdout, '', 'it cleaned up after itself');
  await daemon.stop();
});
