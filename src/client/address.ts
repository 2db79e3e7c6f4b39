/**
 * Where a client finds its daemon, and with which token: the one copy of address parsing and formatting, and of the
 * order in which an address and a token are looked for. The CLI, the SDK and `termhost mcp` all use `resolveTarget`,
 * so they find the same daemon on the same machine.
 *
 *   address: the option (--addr) > $TERMHOST_ADDR > <state dir>/daemon.json of a live daemon > none
 *   token:   the option (--token) > $TERMHOST_TOKEN > the file daemon.json names > <state dir>/token
 */
import { daemonFilePath, defaultStateDir, readDaemonRecord, readToken, readTokenFile } from '../config.js';
import { TermhostError } from './errors.js';

export type Address = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/** "host:port", "[::1]:port", "port" or "unix:/path". */
export function parseAddress(addr: string): Address {
  if (addr.startsWith('unix:')) {
    if (addr.length === 5) throw new TermhostError('"unix:" needs a socket path: unix:/path/to/sock', 'invalid_address', 0, false);
    return { kind: 'unix', path: addr.slice(5) };
  }
  const m = /^(?:\[([^\]]{1,256})\]|([^:[\]]{0,256})):(\d{1,5})$/.exec(addr) ?? /^()()(\d{1,5})$/.exec(addr);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new TermhostError(`cannot parse address "${addr}"; use host:port or unix:/path`, 'invalid_address', 0, false);
  return { kind: 'tcp', host: m[1] || m[2] || '127.0.0.1', port };
}

/** The inverse of parseAddress: "host:port" (IPv6 in brackets) or "unix:/path". */
export function formatAddress(a: Address): string {
  return a.kind === 'unix' ? `unix:${a.path}` : `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
}

/** The base URL a browser or an HTTP library uses for a TCP address. */
export function httpBase(a: Address & { kind: 'tcp' }): string {
  return `http://${formatAddress(a)}`;
}

export interface TargetOptions {
  address?: string | Address;
  token?: string;
  /** Whose daemon.json and token file to read; default $XDG_STATE_HOME/termhost. */
  stateDir?: string;
}

export interface Target {
  /** Undefined when nothing named an address and no daemon runs for the state dir; see `noDaemonMessage`. */
  address: Address | undefined;
  token: string | undefined;
  stateDir: string;
  /** Where the address came from. */
  from: 'option' | 'env' | 'daemon.json' | 'none';
}

export function resolveTarget(opts: TargetOptions = {}, env: NodeJS.ProcessEnv = process.env): Target {
  const stateDir = opts.stateDir ?? defaultStateDir(env);
  const explicit = opts.address ?? (env.TERMHOST_ADDR || undefined);
  const token = opts.token ?? (env.TERMHOST_TOKEN || undefined);
  if (explicit !== undefined) {
    const address = typeof explicit === 'string' ? parseAddress(explicit) : explicit;
    return { address, token: token ?? readToken(stateDir), stateDir, from: opts.address !== undefined ? 'option' : 'env' };
  }
  const found = readDaemonRecord(stateDir);
  if (found?.state !== 'live' || !found.record.address) return { address: undefined, token: token ?? readToken(stateDir), stateDir, from: 'none' };
  const { record } = found;
  return {
    address: parseAddress(record.address),
    token: token ?? (record.token_file ? readTokenFile(record.token_file) : undefined) ?? readToken(stateDir),
    stateDir,
    from: 'daemon.json',
  };
}

/** The one sentence for "there is nothing to talk to", used when nothing is found and when a connection is refused. */
export const START_HINT = 'start one with `termhost serve`';

export function noDaemonMessage(stateDir: string): string {
  return `no daemon running for state dir ${stateDir}: ${START_HINT}`;
}

/** Why a request could not be sent, in words a person can act on. */
export function unreachableError(target: Pick<Target, 'address' | 'stateDir' | 'from'>, errno: string): TermhostError {
  const refused = errno === 'ECONNREFUSED' || errno === 'ENOENT';
  if (!target.address || (refused && target.from === 'daemon.json')) {
    // daemon.json named a daemon that no longer answers: it died without removing the file.
    return new TermhostError(noDaemonMessage(target.stateDir), 'no_daemon', 0, true, { daemon_file: daemonFilePath(target.stateDir) });
  }
  const where = formatAddress(target.address);
  if (refused) return new TermhostError(`no daemon is listening at ${where} (connection refused): ${START_HINT}`, 'unreachable', 0, true);
  return new TermhostError(`cannot reach termhost at ${where}: ${errno}`, 'unreachable', 0, true);
}
