/**
 * Where a daemon listens, and how it is found: the listen and socket policy, and `<state dir>/daemon.json`.
 *
 * - TCP: loopback unless a token was given explicitly; a specific non-loopback address joins the Host allowlist.
 *   Off loopback the daemon serves TLS (--tls-cert, --tls-key), or plain HTTP only when told to (--allow-plain-http),
 *   with a warning: a bearer token sent in the clear is anyone's on the path.
 * - unix: the socket's directory must be private (0700, ours); a socket left by a dead daemon is replaced, a live
 *   one is not taken over, and no other kind of file is ever deleted. The socket is 0600 once bound.
 * - daemon.json is claimed (created exclusively) before anything else starts, so a second daemon on the same state
 *   dir refuses to start and names the first; a file left by a daemon that died is replaced. Once listening, the
 *   record gains its address; it is removed when the daemon closes.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { daemonFilePath, ensureStateDir, readDaemonRecord, type DaemonRecord } from '../config.js';
import { hostOnly, isLoopbackHost } from './auth.js';

export interface ListenSpec {
  /** "host:port"; port 0 picks a free port. */
  listen: string;
  /** A unix socket path instead of TCP. */
  unix?: string;
  /** Was a token given explicitly? Required for a non-loopback TCP bind. */
  explicitToken: boolean;
  /** Does the daemon serve TLS? */
  tls?: boolean;
  /** Listen off loopback without TLS all the same (with a warning). */
  allowPlainHttp?: boolean;
}

export interface Bind {
  /** Host to bind (TCP), lower-cased and without brackets. */
  host: string;
  port: number;
  unix: string | undefined;
  /** Names to allow in the Host header besides the loopback ones and those configured. */
  hostAliases: string[];
  /** What the operator should hear at start (a plain-HTTP listen off loopback). */
  warning?: string;
}

/** Check a listen spec and prepare its socket path; throws with a message for the person starting the daemon. */
export async function planBind(spec: ListenSpec): Promise<Bind> {
  const colon = spec.listen.lastIndexOf(':');
  const host = hostOnly(spec.listen.slice(0, colon)) || '127.0.0.1';
  const port = Number(spec.listen.slice(colon + 1));
  if (!spec.unix && (colon < 0 || !Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new Error(`--listen wants HOST:PORT such as 127.0.0.1:7070, got "${spec.listen}"`);
  }
  if (!spec.unix && !isLoopbackHost(host) && !spec.explicitToken) {
    throw new Error(`refusing to listen on non-loopback address ${host} without an explicit --token`);
  }
  const exposed = !spec.unix && !isLoopbackHost(host);
  if (exposed && !spec.tls && !spec.allowPlainHttp) {
    throw new Error(`refusing to listen on non-loopback address ${host} without TLS: give --tls-cert and --tls-key, or --allow-plain-http to send tokens in the clear`);
  }
  const warning = exposed && !spec.tls ? `listening on ${host} without TLS (--allow-plain-http): tokens and terminal contents cross the network in the clear` : undefined;
  if (spec.unix) {
    privateSocketDir(path.dirname(path.resolve(spec.unix)));
    await removeStaleSocket(spec.unix);
  }
  // Clients name a specific bound address in their URLs; nobody should send `Host: 0.0.0.0`.
  const unspecified = host === '0.0.0.0' || host === '::';
  const hostAliases = !spec.unix && !isLoopbackHost(host) && !unspecified ? [host] : [];
  return { host, port, unix: spec.unix, hostAliases, ...(warning ? { warning } : {}) };
}

/** Listen as planned; the address as a client would give it ("host:port" or "unix:/abs/path"). */
export async function listenOn(app: FastifyInstance, bind: Bind): Promise<string> {
  if (bind.unix) {
    await app.listen({ path: bind.unix });
    fs.chmodSync(bind.unix, 0o600);
    return `unix:${path.resolve(bind.unix)}`;
  }
  await app.listen({ host: bind.host, port: bind.port });
  const bound = app.server.address();
  const port = typeof bound === 'object' && bound ? bound.port : bind.port;
  return `${bind.host.includes(':') ? `[${bind.host}]` : bind.host}:${port}`;
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

/** This daemon's hold on `<state dir>/daemon.json`. */
export class DaemonFile {
  private released = false;

  private constructor(
    private readonly stateDir: string,
    private readonly base: Omit<DaemonRecord, 'address'>,
  ) {}

  get file(): string {
    return daemonFilePath(this.stateDir);
  }

  /**
   * Take the state dir for this process, or throw naming the daemon that has it. A record whose process is gone is
   * stale: it is replaced.
   */
  static claim(stateDir: string, base: Omit<DaemonRecord, 'address' | 'pid' | 'started_at'>): DaemonFile {
    ensureStateDir(stateDir);
    const file = daemonFilePath(stateDir);
    const claim = new DaemonFile(stateDir, { ...base, pid: process.pid, started_at: new Date().toISOString() });
    for (let attempt = 0; ; attempt++) {
      try {
        // The address is empty until the daemon listens; clients read such a record as "starting, not yet there".
        fs.writeFileSync(file, claim.json(''), { flag: 'wx', mode: 0o600 });
        return claim;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      }
      const found = readDaemonRecord(stateDir);
      if (found?.state === 'live') {
        const holder = found.record;
        const where = holder.address ? `, listening on ${holder.address}` : ', starting';
        throw new Error(
          `a daemon is already running for state dir ${stateDir} (pid ${holder.pid}${where}); stop it first or give another --state-dir ` +
            `(if pid ${holder.pid} is not a termhost daemon, remove ${file})`,
        );
      }
      fs.rmSync(file, { force: true }); // left by a daemon that died, or unreadable: ours to replace
    }
  }

  /** The daemon listens: record where, atomically (a reader sees the old record or the new one, never half). */
  publish(address: string): void {
    if (this.released) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, this.json(address), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }

  /** Remove the record, if it is still this daemon's. */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (readDaemonRecord(this.stateDir)?.record.pid === this.base.pid) fs.rmSync(this.file, { force: true });
  }

  private json(address: string): string {
    const record: DaemonRecord = { ...this.base, address };
    return `${JSON.stringify(record, null, 2)}\n`;
  }
}
