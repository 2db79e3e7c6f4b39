/** Where termhost keeps its state, and the generated token: shared by the daemon and the CLI. */
// Named imports of Node's modules on the `termhost ls` path: in the CommonJS bundle (scripts/build-cli.mjs) a default
// import costs a copy of every export of the module, on each start.
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Every default of the daemon, in one place: `startDaemon` applies these, `termhost serve --help` and docs/api.md
 * show them. The runtime and the store have their own defaults for embedders; the daemon always passes these.
 */
export const DAEMON_DEFAULTS = {
  /** Loopback only: anything else needs an explicit token. */
  listen: '127.0.0.1:7070',
  /** Running sessions at once; exited ones do not count. */
  maxSessions: 64,
  /** An exited session stays readable this long, then it is freed (its record stays in the store). */
  exitedTtlMs: 60 * 60 * 1000,
  /** Agents may type without a lease (an implicit shared one per request); `--require-leases` makes them take one. */
  requireLeases: false,
  /** Password prompts open a secret-input window; `--no-secret-detect` turns that off for new sessions. */
  secretDetect: true,
  /** Events kept for consumers that resume with Last-Event-ID. */
  eventBacklog: 10_000,
  /** SSE heartbeat, so proxies and clients see a live stream. */
  heartbeatMs: 15_000,
  /** Transcript chunks kept this many days (0: none written, -1: forever). */
  transcriptRetentionDays: 30,
  /** Session output is stored at all (records are kept either way). */
  transcripts: true,
  /** Stored output is collected this long into one row. */
  transcriptBatchMs: 1000,
  /** pino level of the daemon's log: at info, one line per notable event; requests only at debug. */
  logLevel: 'info',
  /** text: one short line per event, for people; json: pino's lines, for log collectors. */
  logFormat: 'text',
} as const;

/** $XDG_STATE_HOME/termhost, else ~/.local/state/termhost. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'termhost');
}

export function tokenPath(stateDir: string): string {
  return join(stateDir, 'token');
}

/** Create the state directory 0700 (tightening it if it already exists). */
export function ensureStateDir(stateDir: string): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  chmodSync(stateDir, 0o700);
}

/** Read the stored token, or generate a 256-bit one and store it 0600. */
export function loadOrCreateToken(stateDir: string): string {
  ensureStateDir(stateDir);
  const file = tokenPath(stateDir);
  const existing = readToken(stateDir);
  if (existing) return existing;
  // Web Crypto's CSPRNG (the same one node:crypto uses), global in Node: every CLI call reads this file, and importing
  // node:crypto for the one call that writes it would cost them all.
  const token = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

export function readToken(stateDir: string): string | undefined {
  return readTokenFile(tokenPath(stateDir));
}

/**
 * `<state dir>/daemon.json`: how a running daemon is found. The daemon writes it (0600) once it listens and removes it
 * when it stops; the CLI, the SDK and `termhost mcp` read it when no address is given. It never holds a secret: it
 * names the file the token is in.
 */
export interface DaemonRecord {
  pid: number;
  /** "host:port", "https://host:port" or "unix:/path", as a client would pass it; empty while the daemon is starting. */
  address: string;
  version: string;
  started_at: string;
  /** The file the daemon's token was read from, or null when it was given on the command line or the environment. */
  token_file: string | null;
  /** The certificate file a TLS daemon serves (absent or null without TLS): clients on this machine trust it. */
  tls_cert?: string | null;
}

export function daemonFilePath(stateDir: string): string {
  return join(stateDir, 'daemon.json');
}

/** Is a process with this pid running? (EPERM: it is, as another user.) */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Longest daemon.json read; a real one is about 200 bytes. */
const MAX_DAEMON_FILE_BYTES = 64 * 1024;

/**
 * The state dir's daemon record: `live` when its process still runs, `stale` when it died without removing the file,
 * undefined when there is none (or it is not one of ours).
 */
export function readDaemonRecord(stateDir: string): { state: 'live' | 'stale'; record: DaemonRecord } | undefined {
  let text: string;
  try {
    const fd = openSync(daemonFilePath(stateDir), 'r');
    try {
      const buf = Buffer.alloc(MAX_DAEMON_FILE_BYTES);
      text = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined; // half-written by a daemon starting this very moment, or not ours
  }
  const r = raw as Partial<DaemonRecord> | null;
  if (!r || !Number.isInteger(r.pid) || (r.pid as number) <= 0 || typeof r.address !== 'string') return undefined;
  const record: DaemonRecord = {
    pid: r.pid as number,
    address: r.address,
    version: typeof r.version === 'string' ? r.version : 'unknown',
    started_at: typeof r.started_at === 'string' ? r.started_at : '',
    token_file: typeof r.token_file === 'string' ? r.token_file : null,
    tls_cert: typeof r.tls_cert === 'string' ? r.tls_cert : null,
  };
  return { state: pidAlive(record.pid) ? 'live' : 'stale', record };
}

/** A token file's first line; undefined when it is missing or empty. */
export function readTokenFile(file: string): string | undefined {
  try {
    const t = readFileSync(file, 'utf8').trim();
    return t || undefined;
  } catch {
    return undefined;
  }
}
