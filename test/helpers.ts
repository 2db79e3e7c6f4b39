/**
 * Test harness: a real daemon on port 0 with a throwaway state dir, a real client, the probe, and condition waits
 * with deadlines (never sleeps).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, type Daemon, type DaemonOptions } from '../src/main.js';
import { TermhostClient } from '../src/client/TermhostClient.js';
import { AttachClient, type AttachEvent, type AttachOptions } from '../src/client/AttachClient.js';
import type { InputItem, Screen } from '../src/protocol/http.js';

export const PROBE = fileURLToPath(new URL('./fixtures/probe.mjs', import.meta.url));
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface TestDaemon extends Daemon {
  client: TermhostClient;
  stateDir: string;
  /** Base URL for raw fetch-style requests. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A HOME for the programs a test starts, with no rc files: tests never depend on (or disturb) the rc files of the
 * person or machine running them. A shell killed in the middle of a slow rc file (pyenv's rehash takes a lock file)
 * could otherwise leave that machine's every later shell waiting.
 */
export function testHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-home-'));
}

export async function startTestDaemon(opts: DaemonOptions = {}): Promise<TestDaemon> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-test-'));
  const token = opts.token ?? crypto.randomBytes(16).toString('hex');
  const home = opts.baseEnv ? undefined : testHome();
  const baseEnv = opts.baseEnv ?? { ...process.env, HOME: home };
  // Rate limits are off unless a test asks for them: a suite starts sessions and fails auths far faster than a person.
  const rateLimits = { attachTokens: 0, sessionStarts: 0, loginCodes: 0, failedAuths: 0, ...opts.rateLimits };
  const daemon = await startDaemon({ listen: '127.0.0.1:0', stateDir, token, ...opts, rateLimits, baseEnv });
  // A TLS daemon's certificate is self-signed at test time: the test's own client trusts exactly it.
  const client = new TermhostClient({ address: daemon.address, token, ...(opts.tls ? { ca: fs.readFileSync(opts.tls.certFile) } : {}) });
  return {
    ...daemon,
    client,
    stateDir,
    url: daemon.address.startsWith('https://') ? daemon.address : `http://${daemon.address}`,
    async stop() {
      client.close();
      await daemon.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
      if (home) fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Poll a condition until it holds or the deadline passes; for state outside the daemon (files, processes). */
export async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Wait on the daemon's own event-driven wait; fail the test with the screen when it does not match. */
export async function waitText(d: TestDaemon, id: string, text: string, timeoutMs = 5000): Promise<Screen> {
  const r = await d.client.wait(id, { text, timeout_ms: timeoutMs });
  assert.ok(r.matched, `expected "${text}" on screen; screen was:\n${r.screen.lines.join('\n')}`);
  return r.screen;
}

export async function waitRegex(d: TestDaemon, id: string, regex: string, timeoutMs = 5000): Promise<Screen> {
  const r = await d.client.wait(id, { regex, timeout_ms: timeoutMs });
  assert.ok(r.matched, `expected /${regex}/ on screen; screen was:\n${r.screen.lines.join('\n')}`);
  return r.screen;
}

/** A probe session: raw mode, the given DEC modes on, READY printed. */
export async function startProbe(d: TestDaemon, modes: number[] = [], extra: string[] = [], size = { cols: 1000, rows: 40 }) {
  const info = await d.client.createSession({ command: [process.execPath, PROBE, ...modes.map(String), ...extra], ...size });
  await waitText(d, info.id, 'READY');
  let group = 0;
  return {
    id: info.id,
    /** Send an input batch and return the hex of exactly the bytes the probe read. */
    async send(items: InputItem[]): Promise<string> {
      await d.client.input(info.id, items);
      return this.next();
    },
    /** The next group of bytes the probe reports. */
    async next(): Promise<string> {
      group += 1;
      const screen = await waitRegex(d, info.id, `^${group} [0-9a-f]*$`);
      const line = [...screen.lines].reverse().find((l) => l.startsWith(`${group} `))!;
      return line.slice(String(group).length + 1);
    },
  };
}

export function hex(s: string | Buffer): string {
  return (typeof s === 'string' ? Buffer.from(s, 'latin1') : s).toString('hex');
}

/** PTY master fds this process holds (node-pty opens /dev/ptmx; our drain holds /dev/pts/N). */
export function openPtyFds(): string[] {
  const out: string[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target === '/dev/ptmx' || target.startsWith('/dev/pts/')) out.push(`${fd}->${target}`);
    } catch {
      /* the fd closed while we looked */
    }
  }
  return out;
}

/** Live (non-zombie) and zombie children of this process. */
export function childProcesses(): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,stat=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim())
      // tsx keeps an esbuild service child for on-the-fly compilation (also in the store's worker when it runs from
      // TypeScript); it is the test harness's, not the daemon's. The session watchdog lives as long as the process
      // that ran sessions, by design (core/pty/Watchdog.ts).
      .filter((l) => l && !l.includes(' ps -o ') && !l.includes('esbuild') && !l.includes('termhost_watchdog'));
  } catch {
    return []; // ps exits 1 when there are no children
  }
}

/** After a daemon stops: no PTY fds and no children (live or zombie) may remain. */
export async function assertNoLeaks(): Promise<void> {
  await until('PTY fds and children to be released', () => openPtyFds().length === 0 && childProcesses().length === 0, 5000).catch(() => {
    assert.deepEqual({ fds: openPtyFds(), children: childProcesses() }, { fds: [], children: [] });
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary bodies
}

/** A request with full control over headers and body bytes, for testing what the client library would never send. */
export function rawRequest(
  address: string,
  opts: { method?: string; path: string; headers?: Record<string, string | number>; body?: string | Buffer },
): Promise<RawResponse> {
  const target = address.startsWith('unix:')
    ? { socketPath: address.slice(5) }
    : { host: address.slice(0, address.lastIndexOf(':')), port: Number(address.slice(address.lastIndexOf(':') + 1)) };
  return new Promise((resolve, reject) => {
    // A fresh connection per request: a refused upgrade leaves its socket unusable for keep-alive reuse.
    const req = http.request({ ...target, agent: false, method: opts.method ?? 'GET', path: opts.path, headers: { host: 'localhost', ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Open an attach socket the way a client would. */
export function attachTo(d: TestDaemon, session: string, opts: Partial<AttachOptions> = {}): AttachClient {
  return new AttachClient({ address: d.client.address, session, ...opts });
}

/** Read events until one matches, failing with what was seen if the socket closes or the deadline passes. */
export async function nextMatching<K extends AttachEvent['kind']>(
  conn: AttachClient,
  kind: K,
  timeoutMs = 5000,
): Promise<Extract<AttachEvent, { kind: K }>> {
  const seen: string[] = [];
  const deadline = new Promise<never>((_, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${kind} frame within ${timeoutMs} ms; saw ${seen.join(', ')}`)), timeoutMs);
    t.unref();
  });
  const find = (async () => {
    for (;;) {
      const ev = await conn.next();
      if (!ev) throw new Error(`socket ended before a ${kind} frame; saw ${seen.join(', ')}`);
      seen.push(ev.kind === 'closed' ? `closed(${ev.code} ${ev.reason})` : ev.kind);
      if (ev.kind === kind) return ev as Extract<AttachEvent, { kind: K }>;
    }
  })();
  return Promise.race([find, deadline]);
}

export interface SseMessage {
  id?: string;
  data?: unknown;
  comment?: string;
}

/** A Server-Sent Events reader over plain HTTP: messages as an async iterator, plus close(). */
export function sse(address: string, token: string, opts: { lastEventId?: number | string; session?: string; types?: string } = {}) {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  const headers: Record<string, string> = { host: 'localhost', authorization: `Bearer ${token}`, accept: 'text/event-stream' };
  if (opts.lastEventId !== undefined) headers['last-event-id'] = String(opts.lastEventId);
  const queue: SseMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let status = 0;
  const req = http.request({ host, port, agent: false, path: `/v1/events?${new URLSearchParams({ ...(opts.session ? { session: opts.session } : {}), ...(opts.types ? { types: opts.types } : {}) })}`, headers }, (res) => {
    status = res.statusCode ?? 0;
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buf += chunk;
      let at: number;
      while ((at = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, at);
        buf = buf.slice(at + 2);
        const msg: SseMessage = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) msg.comment = line.slice(1).trim();
          else if (line.startsWith('id: ')) msg.id = line.slice(4);
          else if (line.startsWith('data: ')) msg.data = JSON.parse(line.slice(6));
        }
        queue.push(msg);
      }
      wake?.();
    });
    res.on('end', () => ((ended = true), wake?.()));
    res.on('error', () => ((ended = true), wake?.()));
  });
  req.on('error', () => ((ended = true), wake?.()));
  req.end();
  return {
    get status() {
      return status;
    },
    get ended() {
      return ended;
    },
    /** The next message, or undefined when the stream ended; throws after the deadline. */
    async next(timeoutMs = 5000): Promise<SseMessage | undefined> {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0 && !ended) {
        if (Date.now() > deadline) throw new Error(`no SSE message within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50).unref();
        });
      }
      return queue.shift();
    },
    /** The next message that carries an event (not a comment). */
    async nextEvent(timeoutMs = 5000): Promise<Record<string, any> | undefined> { // eslint-disable-line @typescript-eslint/no-explicit-any
      for (;;) {
        const m = await this.next(timeoutMs);
        if (!m) return undefined;
        if (m.data !== undefined) return m.data as Record<string, unknown>;
      }
    },
    close() {
      req.destroy();
    },
  };
}

/** A state dir's database and its write-ahead log, as bytes: what anyone holding the files could read. */
export function databaseBytes(stateDir: string): Buffer {
  const files = ['termhost.db', 'termhost.db-wal'].map((f) => path.join(stateDir, f)).filter((f) => fs.existsSync(f));
  return Buffer.concat(files.map((f) => fs.readFileSync(f)));
}

/** End a secret-input window, waiting out `secret_input_settling` (it ends only once output has settled). */
export async function endSecretWindow(client: TermhostClient, id: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await client.secretAction(id, 'end');
      return;
    } catch (e) {
      const err = e as { code?: string; body?: { retry_after_ms?: number } };
      if (err.code !== 'secret_input_settling' || i > 100) throw e;
      await new Promise((r) => setTimeout(r, Math.max(10, Number(err.body?.retry_after_ms ?? 50))));
    }
  }
}

/** The built CLI, run as a user runs it. */
export const BIN = path.join(ROOT, 'dist', 'cli', 'main.js');

export interface BinResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `termhost ARGS` as a subprocess, with a clean environment: no TERMHOST_* from the test run, and a throwaway
 * XDG_STATE_HOME and HOME unless `env` says otherwise, so nothing reads or writes the real state dir.
 */
export function runBin(args: string[], opts: { env?: Record<string, string | undefined>; input?: string; cwd?: string; timeoutMs?: number } = {}): Promise<BinResult> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-bin-'));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_STATE_HOME: path.join(home, 'state'), LANG: 'C.UTF-8' };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    // Not in `home`: it is removed when the CLI exits, and a session the CLI started there may not have entered it yet.
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: opts.cwd ?? os.tmpdir(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 });
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Unmasked frames as a server sends them, in order; a frame cut off at the end of the bytes is left out. */
export function serverFrames(bytes: Buffer): Array<{ opcode: number; payload: Buffer }> {
  const frames: Array<{ opcode: number; payload: Buffer }> = [];
  let at = 0;
  while (at + 2 <= bytes.length) {
    let len = bytes[at + 1]! & 0x7f;
    let head = 2;
    if (len === 126) {
      if (at + 4 > bytes.length) break;
      len = bytes.readUInt16BE(at + 2);
      head = 4;
    } else if (len === 127) {
      if (at + 10 > bytes.length) break;
      len = Number(bytes.readBigUInt64BE(at + 2));
      head = 10;
    }
    if (at + head + len > bytes.length) break;
    frames.push({ opcode: bytes[at]! & 0x0f, payload: bytes.subarray(at + head, at + head + len) });
    at += head + len;
  }
  return frames;
}

/**
 * A WebSocket client that completes the handshake, authenticates, and then never reads again: the socket's receive
 * buffers fill and the server's queue for it grows. (The ws library resumes a paused socket by itself, so a slow
 * client has to be written by hand.)
 */
export function stuckClient(d: TestDaemon, path: string): Promise<net.Socket> {
  const [host, port] = [d.address.slice(0, d.address.lastIndexOf(':')), Number(d.address.slice(d.address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host, port }, () => {
      sock.write(
        `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${d.token}\r\n\r\n`,
      );
    });
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      sock.off('data', onData);
      if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(head));
      const payload = Buffer.from(JSON.stringify({ kind: 'auth' }));
      const mask = Buffer.from([1, 2, 3, 4]);
      const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
      sock.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]));
      sock.pause();
      resolve(sock);
    };
    sock.on('data', onData);
    sock.on('error', reject);
  });
}
