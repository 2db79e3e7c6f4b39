/**
 * Wiring only: the whole daemon's assembly on one screen.
 *
 *   PTY bytes -> core (emulator, seq, ring) -> server routes -> clients
 *   requests  -> server (auth, schemas) -> core input encoding -> the session's write queue -> PTY
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Runtime, type Profile, type SessionManager } from './core/index.js';
import { TokenStore } from './server/TokenStore.js';
import { UiLogins } from './server/UiLogins.js';
import { Store } from './store/Store.js';
import { buildServer, type ServerOptions } from './server/app.js';
import { hostOnly } from './server/auth.js';
import { DaemonFile, listenOn, planBind } from './server/listen.js';
import { DAEMON_DEFAULTS, defaultStateDir, ensureStateDir, loadOrCreateToken, tokenPath } from './config.js';
import { VERSION } from './version.js';

export interface DaemonOptions {
  /** "host:port"; default DAEMON_DEFAULTS.listen. Port 0 picks a free port. Every default is in DAEMON_DEFAULTS. */
  listen?: string;
  /** Listen on a unix socket instead of TCP. */
  unix?: string;
  /** Bearer token; generated and stored in the state dir when absent. */
  token?: string;
  /** The file `token` was read from (`serve --token-file`), named in daemon.json so clients on this machine find it. */
  tokenFile?: string;
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
  /** How long an exited session stays readable before it is freed. */
  exitedTtlMs?: number;
  /** The operator's command profiles (`profiles` in the config file), by name. */
  profiles?: Record<string, Profile>;
  /** How long a moderated session waits for a person before it ends (default 5 min; `moderator_grace_s` in the config). */
  moderatorGraceMs?: number;
  /** Sessions start only from profiles (`--restrict-commands`): any argv, cwd or env from a caller is refused. */
  restrictCommands?: boolean;
  /** Serve HTTPS and WSS with this PEM certificate chain and key (files; read at start). */
  tls?: { certFile: string; keyFile: string };
  /** Listen off loopback without TLS all the same; a warning is logged at start. */
  allowPlainHttp?: boolean;
  /** Per-minute limits per token (attach tokens, session starts, login codes) and per address (failed auths); 0: off. */
  rateLimits?: ServerOptions['rateLimits'];
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
  /** "host:port", "https://host:port" (TLS) or "unix:/path", as a client would use it. */
  address: string;
  token: string;
  close(): Promise<void>;
}

/** A PEM file the daemon needs, or an error naming the flag and the file. */
function readPem(file: string, flag: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new Error(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

export async function startDaemon(opts: DaemonOptions = {}): Promise<Daemon> {
  const D = DAEMON_DEFAULTS;
  const stateDir = opts.stateDir ?? defaultStateDir();
  // Refuse a bad address or socket path before anything is started.
  const bind = await planBind({
    listen: opts.listen ?? D.listen,
    unix: opts.unix,
    explicitToken: opts.token !== undefined,
    tls: opts.tls !== undefined,
    allowPlainHttp: opts.allowPlainHttp,
  });
  const tls = opts.tls && { cert: readPem(opts.tls.certFile, '--tls-cert'), key: readPem(opts.tls.keyFile, '--tls-key') };
  const token = opts.token ?? loadOrCreateToken(stateDir);
  ensureStateDir(stateDir);
  // Before the store opens: a second daemon on this state dir stops here, naming the first.
  const daemonFile = DaemonFile.claim(stateDir, {
    version: VERSION,
    token_file: opts.token === undefined ? tokenPath(stateDir) : (opts.tokenFile ?? null),
    tls_cert: opts.tls ? path.resolve(opts.tls.certFile) : null,
  });
  let app: FastifyInstance | undefined;
  let close = async () => daemonFile.release();
  try {
    const tokens = new TokenStore(token, stateDir);
    const uiLogins = new UiLogins(tokens, { stateDir, daemonToken: token });
    const store = new Store({
      stateDir,
      retentionDays: opts.transcriptRetentionDays ?? D.transcriptRetentionDays,
      transcripts: opts.transcripts ?? D.transcripts,
      batchMs: opts.transcriptBatchMs ?? D.transcriptBatchMs,
    });
    const runtime = new Runtime({
      baseEnv: opts.baseEnv,
      idInUse: (id) => store.hasRecord(id),
      maxSessions: opts.maxSessions ?? D.maxSessions,
      exitedTtlMs: opts.exitedTtlMs ?? D.exitedTtlMs,
      inputPolicy: (opts.requireLeases ?? D.requireLeases) ? 'lease' : 'auto',
      secretDetect: opts.secretDetect ?? D.secretDetect,
      eventBacklog: opts.eventBacklog ?? D.eventBacklog,
      commands: { profiles: opts.profiles ?? {}, restrict: opts.restrictCommands ?? false },
      moderatorGraceMs: opts.moderatorGraceMs,
    });
    store.follow(runtime);
    close = async () => {
      daemonFile.release(); // first: from here on no client should be sent to this daemon
      await runtime.close();
      await app?.close();
      await store.close();
      uiLogins.dispose();
    };
    // Host headers are compared lower-cased and without a port, so configured names are normalised the same way.
    const allowedHosts = [...(opts.allowedHosts ?? []).map((h) => hostOnly(h)), ...bind.hostAliases];
    app = await buildServer({
      runtime,
      tokens,
      store,
      heartbeatMs: opts.heartbeatMs ?? D.heartbeatMs,
      allowedHosts,
      allowedOrigins: opts.allowedOrigins,
      attach: opts.attach,
      connections: opts.connections,
      rateLimits: opts.rateLimits,
      tls,
      logger: opts.logger,
      uiLogins,
    });
    if (bind.warning) app.log.warn(bind.warning);
    // As a client gives it: an https:// address tells the client to speak TLS (and daemon.json says it too).
    const address = `${tls ? 'https://' : ''}${await listenOn(app, bind)}`;
    daemonFile.publish(address);
    return { app, runtime, manager: runtime.sessions, tokens, store, address, token, close };
  } catch (err) {
    await close(); // a port in use must not leave the store's worker running, nor daemon.json behind
    throw err;
  }
}
