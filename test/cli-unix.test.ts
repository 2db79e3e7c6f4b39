/**
 * The CLI as a Unix tool, run as a user runs it: the built bin as a subprocess against a real daemon. Version and
 * help, mistakes named in the CLI's words, --json everywhere, tables for pipes and terminals, standard input,
 * closed pipes, and loading only what a command needs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadAllCommands } from '../src/cli/commands/index.js';
import { assertNoLeaks, BIN, rawRequest, ROOT, runBin, startProbe, startTestDaemon, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let env: Record<string, string>;
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

before(async () => {
  d = await startTestDaemon();
  env = { TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token };
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const th = (args: string[], input?: string) => runBin(args, { env, input });

test('termhost --version and termhost version print the package version', async () => {
  const short = await runBin(['--version']);
  assert.deepEqual([short.code, short.stdout], [0, `termhost ${VERSION}\n`]);
  const long = await runBin(['version']);
  assert.equal(long.code, 0);
  assert.match(long.stdout, new RegExp(`^termhost ${VERSION.replace(/\./g, '\\.')} \\(node \\d+\\.\\d+\\.\\d+\\)\\n$`));
  assert.deepEqual(JSON.parse((await runBin(['version', '--json'])).stdout), { termhost: VERSION, node: process.versions.node });
});

test('help CMD and CMD --help show every flag with its meaning and default, in one style, and examples', async () => {
  const help = await runBin(['help', 'new']);
  assert.equal(help.code, 0, help.stderr);
  assert.equal((await runBin(['new', '--help'])).stdout, help.stdout);
  assert.match(help.stdout, /^usage: termhost new \[flags\] \[--\] \[COMMAND \[ARG\.\.\.\]\]$/m);
  assert.match(help.stdout, /^ {6}--cols N +terminal columns \(1\.\.1000; default: 80\)$/m);
  assert.match(help.stdout, /^ {6}--cwd DIR +working directory \(default: your current directory\)$/m);
  assert.match(help.stdout, /^Examples:\n {2}termhost new bash$/m);
  assert.doesNotMatch(help.stdout, /(^|\s)-cols\b/, 'help shows one style: --cols');
  for (const cmd of await loadAllCommands()) {
    const r = await runBin(['help', cmd.name]);
    assert.equal(r.code, 0, `help ${cmd.name}: ${r.stderr}`);
    for (const f of cmd.flags) {
      assert.match(r.stdout, new RegExp(`${f.short ? `-${f.short}, ` : ''}--${f.name}\\b`), `help ${cmd.name} shows --${f.name}`);
      if (f.default) assert.ok(r.stdout.includes(`default: ${f.default}`), `help ${cmd.name} shows the default of --${f.name}`);
    }
    assert.ok(cmd.examples.length > 0 && r.stdout.includes('Examples:'), `help ${cmd.name} has examples`);
  }
  const overview = await runBin(['help']);
  for (const cmd of await loadAllCommands()) assert.match(overview.stdout, new RegExp(`^ {2}${cmd.name} +\\S`, 'm'));
});

test('the single-dash spellings still work (-cols 70), as aliases', async () => {
  const r = await th(['new', '-cols', '70', '-rows', '9', '--', 'sleep', '30']);
  assert.equal(r.code, 0, r.stderr);
  const info = await d.client.getSession(r.stdout.trim());
  assert.deepEqual([info.cols, info.rows], [70, 9]);
  await d.client.deleteSession(info.id, 'KILL');
});

test('an unknown command prints one line with the closest match; a wrong flag is named, with the closest one', async () => {
  const cmd = await runBin(['lss']);
  assert.equal(cmd.code, 2);
  assert.equal(cmd.stdout, '');
  assert.equal(cmd.stderr, 'termhost: unknown command "lss"; did you mean "ls"? (termhost help lists them)\n');
  const flag = await th(['ls', '--jsn']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /^termhost ls: unknown flag --jsn \(did you mean --json\?\)\nusage: termhost ls \[flags\]/);
  const value = await th(['new', '--cols']);
  assert.match(value.stderr, /^termhost new: --cols needs a value \(N\)/);
  const addr = await runBin(['--addr', 'no-port-here', 'ls']);
  assert.deepEqual([addr.code, addr.stderr], [2, 'termhost ls: cannot parse address "no-port-here"; use host:port, https://host:port or unix:/path [invalid_address]\n']);
});

test('CLI errors speak CLI: bounds are checked before sending, and the daemon\'s validation errors name the flag', async () => {
  const local = await th(['new', '--cols', '2000', 'true']);
  assert.equal(local.code, 2);
  assert.match(local.stderr, /^termhost new: --cols must be at most 1000\n/);
  assert.match((await th(['new', '--rows', 'ten', 'true'])).stderr, /--rows wants a whole number, got "ten"/);
  assert.match((await th(['wait', 'abc', '--timeout', '90000', '--exit'])).stderr, /--timeout must be at most 60000/);
  // Checked by the daemon's schema, reported as the flag that filled the field:
  const term = await th(['new', '--term', 'no spaces allowed', 'true']);
  assert.equal(term.code, 1);
  assert.equal(term.stderr, 'termhost new: --term has a character or form that is not allowed\n');
  const cwd = await th(['new', '--cwd', `/${'x'.repeat(5000)}`, 'true']);
  assert.equal(cwd.stderr, 'termhost new: --cwd must be at most 4096 characters long\n');
  const name = await th(['token', 'create', '--name', 'has space', '--role', 'agent']);
  assert.equal(name.stderr, 'termhost token: --name has a character or form that is not allowed\n');
  const regex = await th(['wait', 'abc', '--regex', 'x'.repeat(5000)]);
  assert.equal(regex.stderr, 'termhost wait: --regex must be at most 4096 characters long\n');
  const size = await th(['resize', 'abc', '2000x10']);
  assert.match(size.stderr, /^termhost resize: COLS must be 1\.\.1000, got 2000\n/);
});

test('--json on every command that prints something', async () => {
  const made = JSON.parse((await th(['new', '--json', '--label', 'j=1', '--', 'sh', '-c', 'echo json-out; sleep 30'])).stdout);
  const id = made.id as string;
  await waitText(d, id, 'json-out');
  const parse = async (args: string[]) => {
    const r = await th(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  assert.equal((await parse(['ls', '--json', '--label', 'j=1']))[0].id, id);
  assert.equal((await parse(['screen', id, '--json'])).lines[0], 'json-out');
  assert.ok(Array.isArray((await parse(['scrollback', id, '--json'])).lines));
  assert.equal((await parse(['wait', id, '--text', 'json-out', '--json'])).matched, true);
  assert.equal((await parse(['resize', id, '70x11', '--json'])).cols, 70);
  assert.ok((await parse(['transcript', id, '--json'])).some((c: { text: string }) => c.text.includes('json-out')));
  assert.ok((await parse(['token', 'ls', '--json'])).some((t: { name: string }) => t.name === 'admin'));
  assert.match((await parse(['ui', '--print', '--json'])).url, /^http:\/\/127\.0\.0\.1:\d+\/ui\/login\?code=/);
  assert.equal(typeof (await parse(['token', '--json', '--state-dir', d.stateDir])).token, 'string');
  const created = await parse(['token', 'create', '--name', 'json-made', '--role', 'viewer', '--json']);
  assert.deepEqual([created.name, created.role], ['json-made', 'viewer']);
  const checks = await parse(['doctor', '--json']);
  assert.deepEqual(checks.map((c: { check: string }) => c.check), ['daemon', 'token', 'node-pty', 'browser', 'versions']);
  await d.client.deleteSession(id, 'KILL');
});

test('ls and token ls are tab-separated, with a header line on a terminal only', async () => {
  const id = (await th(['new', '--label', 'tab=1', '--', 'sleep', '30'])).stdout.trim();
  const piped = await th(['ls', '--label', 'tab=1']);
  assert.match(piped.stdout, new RegExp(`^${id}\\t-\\t\\d+\\t80x24\\trunning\\tsleep 30\\ttab=1\\n$`), 'a pipe gets rows only');
  assert.match((await th(['token', 'ls'])).stdout, /^admin\tadmin\tall\t\(daemon token\)\tany\n/);
  // On a terminal (a termhost session is one): the header first.
  const tty = await d.client.createSession({ command: [process.execPath, BIN, 'ls', '--label', 'tab=1'], env, cols: 200 });
  const done = await d.client.wait(tty.id, { exit: true, timeout_ms: 20_000 });
  assert.ok(done.matched);
  assert.match(done.screen.lines[0]!, /^ID\s+NAME\s+PID\s+SIZE\s+STATE\s+COMMAND\s+LABELS$/);
  assert.match(done.screen.lines[1]!, new RegExp(`^${id}\\s`));
  assert.equal((await th(['ls', '-q', '--label', 'tab=1'])).stdout, `${id}\n`);
  await d.client.deleteSession(id, 'KILL');
});

test('send ID - types standard input; --paste sends it as a paste (bracketed when the program asked)', async () => {
  const probe = await startProbe(d, [2004]);
  const typed = await th(['send', probe.id, '-'], 'from stdin');
  assert.equal(typed.code, 0, typed.stderr);
  assert.equal(await probe.next(), Buffer.from('from stdin').toString('hex'));
  const pasted = await th(['send', '--paste', probe.id, '-', 'Enter'], 'pasted\n');
  assert.equal(pasted.code, 0, pasted.stderr);
  // A pasted newline arrives as CR, as a terminal sends it.
  assert.equal(await probe.next(), Buffer.from('\x1b[200~pasted\r\x1b[201~\r').toString('hex'));
  await d.client.deleteSession(probe.id, 'KILL');
});

/** `termhost ARGS | head -c 100` in bash with pipefail: the CLI's own status and stderr, once head has gone. */
function intoHead(args: string[]): Promise<{ status: string; stderr: string }> {
  const cmd = `set -o pipefail; ${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')} 2>"$ERR" | head -c 100 >/dev/null; echo $?`;
  const errFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-epipe-')), 'err');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', cmd], { env: { ...process.env, ...env, ERR: errFile } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', () => resolve({ status: out.trim(), stderr: fs.readFileSync(errFile, 'utf8') }));
  });
}

test('a closed pipe ends every command quietly: transcript ID | head', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'seq 1 200000; echo all-done; sleep 30'], rows: 5 });
  await waitText(d, s.id, 'all-done', 20_000);
  for (const args of [['transcript', s.id], ['transcript', s.id, '--json'], ['scrollback', s.id, '-n', '100000'], ['completion', 'bash']]) {
    const r = await intoHead(args);
    assert.deepEqual(r, { status: '0', stderr: '' }, `termhost ${args.join(' ')} | head`);
  }
  await d.client.deleteSession(s.id, 'KILL');
});

// What `termhost ls` loads (the CLI bundle alone) is in test/cli-bundle.test.ts.

/** Opens a printed login link as a browser would: the sign-in page with the cookie means the code was still unspent. */
async function redeem(link: string): Promise<{ status: number; cookie: boolean }> {
  const url = new URL(link);
  const r = await rawRequest(d.address, { path: `${url.pathname}${url.search}`, headers: { host: url.host } });
  return { status: r.status, cookie: String(r.headers['set-cookie'] ?? '').includes('HttpOnly') };
}

test('termhost ui with no display prints the link, says why no browser opened, and leaves the code unspent', async () => {
  const r = await runBin(['ui'], { env: { ...env, DISPLAY: undefined, WAYLAND_DISPLAY: undefined } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^http:\/\/127\.0\.0\.1:\d+\/ui\/login\?code=\S+\n$/);
  assert.equal(r.stderr, 'no display here (DISPLAY and WAYLAND_DISPLAY are unset), so no browser was opened. Open the link within 60 s; it works once\n');
  assert.deepEqual(await redeem(r.stdout.trim()), { status: 200, cookie: true });
});

test('termhost ui where xdg-open finds no browser reports the failure, and the printed link still works', async () => {
  // A display is set but nothing can show the page: no desktop handler for http, and the one browser named fails.
  const none = path.join(os.tmpdir(), 'termhost-no-such-dir');
  const r = await runBin(['ui', '--viewer'], {
    env: { ...env, DISPLAY: ':97', WAYLAND_DISPLAY: undefined, BROWSER: 'false', XDG_DATA_DIRS: none, XDG_DATA_HOME: none, XDG_CONFIG_DIRS: none },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^http:\/\/127\.0\.0\.1:\d+\/ui\/login\?code=\S+\n$/);
  assert.match(r.stderr, /^xdg-open failed \(exit status 3\): xdg-open: no method available for opening '.*'\. Open the link within 60 s; it works once\n$/);
  assert.deepEqual(await redeem(r.stdout.trim()), { status: 200, cookie: true });
});

test('doctor says whether a daemon runs and where, whether the token matches, whether PTYs spawn, the opener, versions', async () => {
  const good = await th(['doctor']);
  assert.equal(good.code, 0, good.stdout + good.stderr);
  const lines = good.stdout.split('\n');
  assert.match(lines[0]!, new RegExp(`^ok {4}daemon +running at ${d.address} \\(from \\$TERMHOST_ADDR\\)$`));
  assert.match(lines[1]!, /^ok {4}token +accepted by the daemon \(the admin token\); from \$TERMHOST_TOKEN$/);
  assert.match(lines[2]!, /^ok {4}node-pty +ran sh in a PTY$/);
  assert.match(lines[3]!, /^warn {2}browser +no display \(DISPLAY, WAYLAND_DISPLAY unset\): termhost ui prints its link/);
  assert.match(lines[4]!, new RegExp(`^ok {4}versions +termhost ${VERSION.replace(/\./g, '\\.')}, daemon ${VERSION.replace(/\./g, '\\.')}, node \\d+\\.\\d+\\.\\d+, node-pty \\d+\\.\\d+\\.\\d+$`));

  const wrong = await runBin(['doctor'], { env: { ...env, TERMHOST_TOKEN: 'not-the-token' } });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stdout, /^fail {2}token +the daemon refuses the token from \$TERMHOST_TOKEN: it is another daemon's, or revoked$/m);

  const none = await runBin(['doctor']);
  assert.equal(none.code, 1);
  assert.match(none.stdout, /^fail {2}daemon +no daemon running for state dir \S+: start one with `termhost serve`$/m);
  assert.match(none.stdout, /^ok {4}node-pty/m, 'the local checks still run');
});

test('send refuses a mistyped key name with the closest one, unless -l; the aliases people type are keys', async () => {
  const probe = await startProbe(d);
  const typo = await th(['send', probe.id, 'echo hi', 'Entr']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /^termhost send: "Entr" is not a key name; did you mean Enter\? \(use -l to send it as text\)\n/);
  const literal = await th(['send', '-l', probe.id, 'Entr']);
  assert.equal(literal.code, 0, literal.stderr);
  assert.equal(await probe.next(), Buffer.from('Entr').toString('hex'), 'nothing of the refused batch was written; -l typed the word');
  assert.equal((await th(['send', probe.id, 'Return', 'Ctrl-C'])).code, 0);
  assert.equal(await probe.next(), '0d03');
  await d.client.deleteSession(probe.id, 'KILL');
});

test('new --name gives a session a name that works wherever its id does', async () => {
  const made = await th(['new', '--name', 'build', '--', 'sh', '-c', 'echo named-one; sleep 30']);
  assert.equal(made.code, 0, made.stderr);
  const id = made.stdout.trim();
  assert.match((await th(['ls'])).stdout, new RegExp(`^${id}\\tbuild\\t`, 'm'));
  const waited = await th(['wait', 'build', '--text', 'named-one', '--timeout', '20000']);
  assert.equal(waited.code, 0, waited.stdout + waited.stderr);
  assert.equal((await th(['screen', 'build'])).stdout, 'named-one\n');
  const killed = await th(['kill', 'build']);
  assert.equal(killed.code, 0, killed.stderr);
});
