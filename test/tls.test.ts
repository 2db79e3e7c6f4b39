/**
 * TLS: with --tls-cert and --tls-key the daemon serves HTTPS and WSS with fastify's own TLS (a self-signed certificate
 * made here, at test time, with openssl), and speaks no plain HTTP on that port. Off loopback it refuses to start
 * without TLS unless told --allow-plain-http, and then warns.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { startDaemon } from '../src/main.js';
import { BinaryTag } from '../src/protocol/attach.js';
import { assertNoLeaks, rawRequest, runBin, startTestDaemon, type TestDaemon } from './helpers.js';

let dir: string;
let cert: string;
let key: string;
let d: TestDaemon;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-tls-'));
  cert = path.join(dir, 'cert.pem');
  key = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  d = await startTestDaemon({ tls: { certFile: cert, keyFile: key } });
});
after(async () => {
  await d.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  await assertNoLeaks();
});

/** "127.0.0.1:PORT" of the daemon's "https://127.0.0.1:PORT". */
const hostPort = () => d.address.replace(/^https:\/\//, '');

/** An HTTPS request that trusts only the test's certificate. */
function get(p: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const [host, port] = [hostPort().slice(0, hostPort().lastIndexOf(':')), Number(hostPort().slice(hostPort().lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const req = https.request({ host, port, path: p, ca: fs.readFileSync(cert), servername: 'localhost', headers: { host: 'localhost', ...headers }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the daemon serves HTTPS with the given certificate, and no plain HTTP on that port', async () => {
  assert.equal((await get('/health')).status, 200);
  const listed = await get('/v1/sessions', { authorization: `Bearer ${d.token}` });
  assert.equal(listed.status, 200);
  assert.deepEqual(JSON.parse(listed.body), { sessions: [] });
  assert.equal((await get('/v1/sessions')).status, 401);
  const plain = await rawRequest(hostPort(), { path: '/health' }).catch((e: Error) => e);
  assert.ok(plain instanceof Error || plain.status !== 200, 'plain HTTP is not answered as HTTP');
});

test('the attach socket is WSS: a driver types and sees its echo over TLS', async () => {
  const created = await new Promise<{ id: string }>((resolve, reject) => {
    const [host, port] = [hostPort().slice(0, hostPort().lastIndexOf(':')), Number(hostPort().slice(hostPort().lastIndexOf(':') + 1))];
    const body = JSON.stringify({ command: ['cat'] });
    const req = https.request(
      { host, port, method: 'POST', path: '/v1/sessions', ca: fs.readFileSync(cert), servername: 'localhost', agent: false, headers: { host: 'localhost', authorization: `Bearer ${d.token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text) as { id: string }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  const ws = new WebSocket(`wss://${hostPort()}/v1/sessions/${created.id}/attach`, { ca: fs.readFileSync(cert), headers: { host: 'localhost' } });
  const seen: string[] = [];
  const echoed = new Promise<void>((resolve, reject) => {
    ws.on('open', () => ws.send(JSON.stringify({ kind: 'auth', token: d.token, role: 'driver' })));
    ws.on('message', (data: Buffer, binary: boolean) => {
      if (!binary) {
        const frame = JSON.parse(data.toString()) as { kind: string };
        seen.push(frame.kind);
        if (frame.kind === 'hello') ws.send(Buffer.concat([Buffer.from([BinaryTag.stdin]), Buffer.from('over-tls\n')]), { binary: true });
      } else if (data.toString().includes('over-tls')) resolve();
    });
    ws.on('error', reject);
    setTimeout(() => reject(new Error(`no echo over WSS; frames: ${seen.join(', ')}`)), 10_000).unref();
  });
  await echoed;
  assert.equal(seen[0], 'hello');
  ws.close();
  await d.manager.delete({ name: 'test', kind: 'admin' }, created.id, 'KILL');
});

test('off loopback the daemon needs TLS, or --allow-plain-http and a warning', async () => {
  const state = fs.mkdtempSync(path.join(dir, 'state-'));
  await assert.rejects(startDaemon({ listen: '0.0.0.0:0', token: 't0ken-for-tls-test', stateDir: state }), /without TLS: give --tls-cert and --tls-key, or --allow-plain-http/);
  let log = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      log += String(chunk);
      done();
    },
  });
  const plain = await startDaemon({ listen: '0.0.0.0:0', token: 't0ken-for-tls-test', stateDir: state, allowPlainHttp: true, logger: { level: 'info', stream }, rateLimits: {} });
  await plain.close();
  assert.match(log, /without TLS \(--allow-plain-http\): tokens and terminal contents cross the network in the clear/);
  const secure = await startDaemon({ listen: '0.0.0.0:0', token: 't0ken-for-tls-test', stateDir: state, tls: { certFile: cert, keyFile: key } });
  await secure.close();
  const half = await runBin(['serve', '--tls-cert', cert]);
  assert.equal(half.code, 2);
  assert.match(half.stderr, /--tls-cert and --tls-key go together/);
  const missing = await runBin(['serve', '--listen', '127.0.0.1:0', '--tls-cert', path.join(dir, 'nope.pem'), '--tls-key', key]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /--tls-cert .*nope\.pem: no such file/);
});
