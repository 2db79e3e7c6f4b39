/**
 * The CLI and the SDK speak TLS to a daemon serving HTTPS and WSS (a self-signed certificate made here, at test time,
 * with openssl): an https:// address, the certificate to trust from --ca, TERMHOST_CA, the SDK's `ca` option or the
 * daemon's own record, and verification always on. A certificate nobody said to trust, a name it does not carry, and
 * plain HTTP to the TLS port each fail with a stable code and the way out.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, BIN, runBin, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let dir: string;
let cert: string;
let d: TestDaemon;
/** A second daemon whose certificate names only elsewhere.test, not the address it is reached at. */
let other: TestDaemon;
let otherCert: string;
const TMUX = `termhost-tls-${process.pid}`;

/** A self-signed certificate and its key for these subject alternative names. */
function makeCert(name: string, san: string): { cert: string; key: string } {
  const files = { cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}-key.pem`) };
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${name}`, '-addext', `subjectAltName=${san}`, '-keyout', files.key, '-out', files.cert,
  ], { stdio: 'ignore' });
  return files;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-tls-clients-'));
  const main = makeCert('localhost', 'DNS:localhost,IP:127.0.0.1');
  cert = main.cert;
  d = await startTestDaemon({ tls: { certFile: main.cert, keyFile: main.key } });
  const elsewhere = makeCert('elsewhere.test', 'DNS:elsewhere.test');
  otherCert = elsewhere.cert;
  other = await startTestDaemon({ tls: { certFile: elsewhere.cert, keyFile: elsewhere.key } });
});
after(async () => {
  try {
    execFileSync('tmux', ['-L', TMUX, 'kill-server'], { stdio: 'ignore' });
  } catch {
    /* no tmux server was started, or it is already gone */
  }
  await d.stop();
  await other.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  await assertNoLeaks();
});

/** The port of an https:// address. */
const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

/** The daemon's environment for the CLI: its https:// address, its token, and the certificate to trust. */
const tlsEnv = () => ({ TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token, TERMHOST_CA: cert });

test('a TLS daemon names itself by an https:// address, in what it returns and in daemon.json', () => {
  assert.match(d.address, /^https:\/\/127\.0\.0\.1:\d+$/);
  const record = JSON.parse(fs.readFileSync(path.join(d.stateDir, 'daemon.json'), 'utf8')) as { address: string; tls_cert: string };
  assert.equal(record.address, d.address);
  assert.equal(record.tls_cert, cert);
});

test('the SDK with `ca` creates a session, runs a command, follows events and attaches over WSS', async () => {
  const client = new TermhostClient({ address: d.address, token: d.token, ca: fs.readFileSync(cert) });
  const events = client.events();
  try {
    assert.equal((await client.health()).ok, true);
    const s = await client.createSession({ command: ['bash'] });
    const created = await (async () => {
      for await (const ev of events) if (ev.type === 'session_opened' && ev.session_id === s.id) return ev;
      return undefined;
    })();
    assert.ok(created, 'the event stream over HTTPS carried session_opened');
    const ran = await client.run(s.id, 'echo over-https');
    assert.equal(ran.status, 'exited');
    assert.match(ran.output ?? '', /over-https/);
    const att = await client.attach(s.id, { role: 'driver' });
    const hello = await att.next();
    assert.equal(hello?.kind, 'hello');
    att.sendStdin('echo typed-over-wss\n');
    await waitText(d, s.id, 'typed-over-wss');
    att.close();
    await client.deleteSession(s.id);
  } finally {
    events.close();
    client.close();
  }
});

test('the SDK verifies by default: a self-signed certificate nobody trusted is refused with tls_untrusted, naming --ca', async () => {
  for (const transport of ['pool', 'once'] as const) {
    const client = new TermhostClient({ address: d.address, token: d.token, transport });
    try {
      const err = await client.listSessions().catch((e: unknown) => e);
      assert.ok(err instanceof TermhostError, `${transport}: ${String(err)}`);
      assert.equal(err.code, 'tls_untrusted');
      assert.match(err.message, /does not trust \(self-signed certificate\): .*--ca FILE or TERMHOST_CA=FILE/);
    } finally {
      client.close();
    }
  }
  const stream = new TermhostClient({ address: d.address, token: d.token }).events();
  const ended = await stream[Symbol.asyncIterator]().next().catch((e: unknown) => e);
  assert.equal((ended as TermhostError).code, 'tls_untrusted', 'the event stream ends instead of retrying forever');
});

test('the CLI speaks TLS: ls, new, send and run with TERMHOST_CA, --ca, --url, and through daemon.json alone', async () => {
  const made = await runBin(['new', '--', 'bash'], { env: tlsEnv() });
  assert.equal(made.code, 0, made.stderr);
  const id = made.stdout.trim();
  const listed = await runBin(['--url', d.address, '--ca', cert, '--token', d.token, 'ls']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`^${id}\\t`, 'm'));
  const sent = await runBin(['send', id, 'echo sent-over-tls', 'Enter'], { env: tlsEnv() });
  assert.equal(sent.code, 0, sent.stderr);
  await waitText(d, id, 'sent-over-tls');
  // Neither address nor CA given: daemon.json names the https:// address and the certificate to trust.
  const ran = await runBin(['--state-dir', d.stateDir, '--token', d.token, 'run', id, 'echo ran-over-tls']);
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /ran-over-tls/);
  assert.equal((await runBin(['kill', id], { env: tlsEnv() })).code, 0);
});

test('`termhost attach --write` drives a session over WSS in a real terminal', async () => {
  const client = new TermhostClient({ address: d.address, token: d.token, ca: fs.readFileSync(cert) });
  const { id } = await client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: 'wss$ ' }, cols: 60, rows: 10 });
  await waitText(d, id, 'wss$');
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', TMUX, ...args], { encoding: 'utf8' });
  const env = Object.entries(tlsEnv()).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  tmux('start-server', ';', 'set-option', '-g', 'exit-empty', 'off');
  tmux('new-session', '-d', '-s', 'wss', '-x', '60', '-y', '10', ...env, `node ${BIN} attach --write ${id}`);
  await until('the mirror to show the prompt', () => tmux('capture-pane', '-p', '-t', 'wss').includes('wss$'), 10_000);
  tmux('send-keys', '-t', 'wss', 'echo typed-in-attach', 'Enter');
  await waitText(d, id, 'typed-in-attach', 10_000);
  tmux('send-keys', '-t', 'wss', 'C-]');
  await until('attach to detach', () => !tmux('list-sessions', '-F', '#{session_name}').split('\n').includes('wss'), 10_000);
  await client.deleteSession(id);
  client.close();
});

test('the CLI refuses an untrusted certificate, a name the certificate lacks, and plain HTTP to the TLS port, each saying what to do', async () => {
  const untrusted = await runBin(['--addr', d.address, '--token', d.token, 'ls']);
  assert.equal(untrusted.code, 1);
  assert.match(untrusted.stderr, /presented a certificate this client does not trust .*--ca FILE .*\[tls_untrusted\]/);
  const wrongCa = await runBin(['--addr', d.address, '--token', d.token, '--ca', otherCert, 'ls']);
  assert.match(wrongCa.stderr, /\[tls_untrusted\]/, 'trusting another certificate trusts only that one');
  const misnamed = await runBin(['--addr', other.address, '--token', other.token, '--ca', otherCert, 'ls']);
  assert.equal(misnamed.code, 1);
  assert.match(misnamed.stderr, /is not for "127\.0\.0\.1" \(it is for DNS:elsewhere\.test\): connect by a name the certificate carries, such as --addr https:\/\/NAME:\d+ \[tls_name_mismatch\]/);
  for (const plain of [`127.0.0.1:${portOf(d.address)}`, `http://127.0.0.1:${portOf(d.address)}`]) {
    const r = await runBin(['--addr', plain, '--token', d.token, 'ls']);
    assert.equal(r.code, 1, plain);
    assert.match(r.stderr, new RegExp(`serves HTTPS: use https://127\\.0\\.0\\.1:${portOf(d.address)} \\[protocol_mismatch\\]`), plain);
  }
  const missingCa = await runBin(['--addr', d.address, '--ca', path.join(dir, 'nope.pem'), 'ls']);
  assert.equal(missingCa.code, 2);
  assert.match(missingCa.stderr, /cannot read --ca .*nope\.pem: no such file \[invalid_ca\]/);
});

test('a URL carrying credentials is refused before anything is sent: a token never travels in a URL', async () => {
  const r = await runBin(['--addr', `https://agent:${d.token}@127.0.0.1:${portOf(d.address)}`, 'ls']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /must not carry credentials; give the token with --token or TERMHOST_TOKEN \[invalid_address\]/);
  assert.ok(!r.stderr.includes(d.token), 'the refusal does not repeat the token');
});
