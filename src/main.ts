/**
 * Wiring only: the whole daemon's assembly on one screen.
 *
 *   PTY bytes -> core (emulator, seq, ring) -> server routes -> clients
 *   requests  -> server (auth, schemas) -> core input encoding -> the session's write queue -> PTY
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Runtime, type SessionManager } from './core/index.js';
import { TokenStore } from './server/TokenStore.js';
import { UiLogins } from './server/UiLogins.js';
import { Store } from './store/Store.js';
import { buildServer, type ServerOptions } from './server/app.js';
import { isLoopbackHost, hostOnly } from './server/auth.js';
import { defaultStateDir, ensureStateDir, loadOrCreateToken } from './config.js';

export interface DaemonOptions {
  /** "host:port"; default 127.0.0.1:7070. Port 0 picks a free port. */
  listen?: string;
  /** Listen on a unix socket instead of TCP. */
  unix?: string;
  /** Bearer token; generated and stored in the state dir when absent. */
  token?: string;
  stateDir?: string;
  allowedHosts?: string[];
  /** Exact browser origins allowed to attach besides the daemon's own. */
  allowedOrigins?: string[];
  /** Attach socket timings and bounds (tests shorten them). */
  attach?: ServerOptions['attach'];
  /** The environment sessions inherit (default: the daemon's own, less its credentials). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Running sessions at once; exited ones do not count. */
  maxSessions?: number;
  /** How long an exited session stays readable before it is freed (default 1 h). */
  exitedTtlMs?: number;
  /** Caps on sockets, attach sockets, event streams and waits open at once, and the header and request timeouts (see CONNECTION_LIMITS in server/app.ts). */
  connections?: ServerOptions['connections'];
  /** Agents need a lease for every input (`--require-leases`); default: an implicit shared lease per request. */
  requireLeases?: boolean;
  /** Open secret-input windows on password prompts (default true; `--no-secret-detect`). */
  secretDetect?: boolean;
  /** Events kept for resuming consumers (default 10,000). */
  eventBacklog?: number;
  /** SSE heartbeat interval (default 15 s). */
  heartbeatMs?: number;
  /** Days transcript chunks are kept: 0 writes none, -1 forever (default 30). */
  transcriptRetentionDays?: number;
  /** false turns transcript persistence off entirely (`--no-transcripts`); live streaming is unaffected. */
  transcripts?: boolean;
  /** Transcript batch interval (default 1000 ms); tests shorten it. */
  transcriptBatchMs?: number;
  logger?: boolean | Record<string, unknown>;
}

export interface Daemon {
  app: FastifyInstance;
  runtime: Runtime;
  manager: SessionManager;
  tokens: TokenStore;
  store: Store;
  /** "host:port" or "unix:/path", as a client would use it. */
  address: string;
  token: string;
  close(): Promise<void>;
}

/**
 * A socket left by a daemon that died is replaced. A socket a live daemon still answers on is not taken over, and any
 * other kind of file at that path is never deleted.
 */
async function removeStaleSocket(file: string): Promise<void> {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return; // nothing there
  }
  if (!st.isSocket()) throw new Error(`${file} exists and is not a socket; refusing to replace it`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = net.connect({ path: file }, () => (probe.destroy(), resolve(true)));
    probe.on('error', () => resolve(false));
  });
  if (live) throw new Error(`another daemon is listening on ${file}; stop it first or choose another --unix path`);
  fs.rmSync(file);
}

/** The socket's directory must be ours alone (0700): create it so, and refuse one that others can enter. */
function privateSocketDir(dir: string): void {
  if (!fs.existsSync(dir)) ensureStateDir(dir);
  const st = fs.statSync(dir);
  if ((st.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && st.uid !== process.getuid())) {
    throw new Error(`socket directory ${dir} must be owned by you with mode 0700; choose a private directory`);
  }
}

export async function startDaemon(opts: DaemonOptions = {}): Promise<Daemon> {
  const stateDir = opts.stateDir ?? defaultStateDir();
  const listen = opts.listen ?? '127.0.0.1:7070';
  const colon = listen.lastIndexOf(':');
  const host = hostOnly(listen.slice(0, colon)) || '127.0.0.1';
  const port = Number(listen.slice(colon + 1));
  if (!opts.unix && !isLoopbackHost(host) && !opts.token) {
    throw new Error(`refusing to listen on non-loopback address ${host} without an explicit --token`);
  }
  if (opts.unix) {
    // Refuse a bad socket path before anything is started.
    privateSocketDir(path.dirname(path.resolve(opts.unix)));
    await removeStaleSocket(opts.unix);
  }
  const token = opts.token ?? loadOrCreateToken(stateDir);
  ensureStateDir(stateDir);
  const tokens = new TokenStore(token, stateDir);
  const uiLogins = new UiLogins(tokens, { stateDir, daemonToken: token });
  const store = new Store({
    stateDir,
    retentionDays: opts.transcriptRetentionDays,
    transcripts: opts.transcripts,
    batchMs: opts.transcriptBatchMs,
  });
  const runtime = new Runtime({
    baseEnv: opts.baseEnv,
    idInUse: (id) => store.hasRecord(id),
    maxSessions: opts.maxSessions,
    exitedTtlMs: opts.exitedTtlMs,
    inputPolicy: opts.requireLeases ? 'lease' : 'auto',
    secretDetect: opts.secretDetect,
    eventBacklog: opts.eventBacklog,
  });
  store.follow(runtime);
  // Host headers are compared lower-cased and without a port, so configured names are normalised the same way.
  const allowedHosts = (opts.allowedHosts ?? []).map((h) => hostOnly(h));
  const unspecified = host === '0.0.0.0' || host === '::';
  if (!opts.unix && !isLoopbackHost(host) && !unspecified) allowedHosts.push(host);
  const app = await buildServer({
    runtime,
    tokens,
    store,
    heartbeatMs: opts.heartbeatMs,
    allowedHosts,
    allowedOrigins: opts.allowedOrigins,
    attach: opts.attach,
    connections: opts.connections,
    logger: opts.logger,
    uiLogins,
  });

  const close = async () => {
    await runtime.close();
    await app.close();
    await store.close();
    uiLogins.dispose();
  };
  let address: string;
  try {
    if (opts.unix) {
      await app.listen({ path: opts.unix });
      fs.chmodSync(opts.unix, 0o600);
      address = `unix:${path.resolve(opts.unix)}`;
    } else {
      await app.listen({ host, port });
      const bound = app.server.address();
      const boundPort = typeof bound === 'object' && bound ? bound.port : port;
      address = `${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
    }
  } catch (err) {
    await close(); // a port in use must not leave the store's worker running
    throw err;
  }

  return {
    app,
    runtime,
    manager: runtime.sessions,
    tokens,
    store,
    address,
    token,
    close,
  };
}
