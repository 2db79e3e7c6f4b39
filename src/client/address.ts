/**
 * Where a client finds its daemon, and with which token: the one copy of address parsing and formatting, and of the
 * order in which an address and a token are looked for. The CLI, the SDK and `termhost mcp` all use `resolveTarget`,
 * so they find the same daemon on the same machine.
 *
 *   address: the option (--addr) > $TERMHOST_ADDR (or $TERMHOST_URL) > <state dir>/daemon.json of a live daemon > none
 *   token:   the option (--token) > $TERMHOST_TOKEN > the file daemon.json names > <state dir>/token
 *   trust:   (https:// only) the option (--ca) > $TERMHOST_CA > the certificate daemon.json names, beside Node's store
 *            > Node's store (with NODE_EXTRA_CA_CERTS)
 */
import { daemonFilePath, defaultStateDir, readDaemonRecord, readToken, readTokenFile } from '../config.js';
import { isLoopbackHost } from '../protocol/hosts.js';
import { TermhostError } from './errors.js';
import { resolveTrust, tlsFailure, type Ca, type Trust } from './tls.js';

export type Address = { kind: 'tcp'; host: string; port: number; /** HTTPS and WSS. */ tls?: boolean } | { kind: 'unix'; path: string };

/** Longest address accepted, a URL included; a real one is a few dozen characters. */
const MAX_ADDRESS_CHARS = 2048;

/** "host:port", "[::1]:port", "port", "unix:/path", or a URL "https://host[:port]" (TLS) or "http://host[:port]". */
export function parseAddress(addr: string): Address {
  if (addr.startsWith('unix:')) {
    if (addr.length === 5) throw new TermhostError('"unix:" needs a socket path: unix:/path/to/sock', 'invalid_address', 0, false);
    return { kind: 'unix', path: addr.slice(5) };
  }
  if (/^https?:\/\//i.test(addr)) return parseUrl(addr);
  const m = /^(?:\[([^\]]{1,256})\]|([^:[\]]{0,256})):(\d{1,5})$/.exec(addr) ?? /^()()(\d{1,5})$/.exec(addr);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new TermhostError(`cannot parse address "${addr}"; use host:port, https://host:port or unix:/path`, 'invalid_address', 0, false);
  return { kind: 'tcp', host: m[1] || m[2] || '127.0.0.1', port };
}

/**
 * A daemon named by its URL. Only the scheme, host and port mean anything: a path would be silently ignored, and a
 * user:password part is refused outright, since a token must never travel in (or be logged as part of) a URL.
 */
function parseUrl(raw: string): Address {
  const bad = (why: string, shown = raw.slice(0, 200)) => new TermhostError(`cannot use "${shown}" as the daemon's address: ${why}`, 'invalid_address', 0, false);
  if (raw.length > MAX_ADDRESS_CHARS) throw bad('too long');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('not a URL; use https://host:port');
  }
  // Not echoed: what was typed there may be the token itself.
  if (url.username || url.password) throw bad('a URL must not carry credentials; give the token with --token or TERMHOST_TOKEN', `${url.protocol}//…@${url.host}`);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) throw bad('give only the scheme, host and port, such as https://host:7070');
  const tls = url.protocol === 'https:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { kind: 'tcp', host, port: url.port ? Number(url.port) : tls ? 443 : 80, ...(tls ? { tls: true } : {}) };
}

/** The inverse of parseAddress: "host:port" (IPv6 in brackets), "https://host:port" for TLS, or "unix:/path". */
export function formatAddress(a: Address): string {
  return a.kind === 'unix' ? `unix:${a.path}` : `${a.tls ? 'https://' : ''}${hostPort(a)}`;
}

/** "host:port" with an IPv6 host in brackets: the Host header, and the authority of a URL. */
export function hostPort(a: Address & { kind: 'tcp' }): string {
  return `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
}

/** The base URL a browser or an HTTP library uses for a TCP address. */
export function httpBase(a: Address & { kind: 'tcp' }): string {
  return `${a.tls ? 'https' : 'http'}://${hostPort(a)}`;
}

export interface TargetOptions {
  address?: string | Address;
  token?: string;
  /** Whose daemon.json and token file to read; default $XDG_STATE_HOME/termhost. */
  stateDir?: string;
  /** PEM certificates to trust for an https:// daemon instead of Node's store: its CA, or its own certificate. */
  ca?: Ca;
}

export interface Target {
  /** Undefined when nothing named an address and no daemon runs for the state dir; see `noDaemonMessage`. */
  address: Address | undefined;
  token: string | undefined;
  stateDir: string;
  /** Where the address came from. */
  from: 'option' | 'env' | 'daemon.json' | 'none';
  /** What an https:// daemon's certificate is checked against (client/tls.ts); undefined for plain HTTP and unix. */
  trust: Trust | undefined;
}

export function resolveTarget(opts: TargetOptions = {}, env: NodeJS.ProcessEnv = process.env): Target {
  const stateDir = opts.stateDir ?? defaultStateDir(env);
  const explicit = opts.address ?? fromEnv(env);
  const token = opts.token ?? (env.TERMHOST_TOKEN || undefined);
  if (explicit !== undefined) {
    const address = typeof explicit === 'string' ? parseAddress(explicit) : explicit;
    const trust = isTls(address) ? resolveTrust(opts.ca, env) : undefined;
    return { address, token: token ?? localToken(address, stateDir), stateDir, from: opts.address !== undefined ? 'option' : 'env', trust };
  }
  const found = readDaemonRecord(stateDir);
  if (found?.state !== 'live' || !found.record.address) return { address: undefined, token: token ?? readToken(stateDir), stateDir, from: 'none', trust: undefined };
  const { record } = found;
  const address = parseAddress(record.address);
  return {
    address,
    token: token ?? (record.token_file ? readTokenFile(record.token_file) : undefined) ?? readToken(stateDir),
    stateDir,
    from: 'daemon.json',
    trust: isTls(address) ? resolveTrust(opts.ca, env, record.tls_cert ?? undefined) : undefined,
  };
}

/**
 * The token of this user's own daemon, for an address named without a token: only when the address is this
 * machine's (a unix socket, loopback) or the one the state dir's live daemon.json names. Any other address gets no
 * token unasked: `--addr https://elsewhere` must not hand the local daemon's admin token to a host that asks.
 */
function localToken(address: Address, stateDir: string): string | undefined {
  if (address.kind === 'unix' || isLoopbackHost(address.host)) return readToken(stateDir);
  const found = readDaemonRecord(stateDir);
  if (found?.state !== 'live' || !found.record.address) return undefined;
  const own = parseAddress(found.record.address);
  if (own.kind !== 'tcp' || own.host !== address.host || own.port !== address.port) return undefined;
  return (found.record.token_file ? readTokenFile(found.record.token_file) : undefined) ?? readToken(stateDir);
}

/** $TERMHOST_ADDR, or its other name $TERMHOST_URL; two that disagree are a mistake to name, not to guess through. */
function fromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const addr = env.TERMHOST_ADDR || undefined;
  const url = env.TERMHOST_URL || undefined;
  if (addr !== undefined && url !== undefined && addr !== url) {
    throw new TermhostError(`TERMHOST_ADDR (${addr.slice(0, 200)}) and TERMHOST_URL (${url.slice(0, 200)}) name different daemons; unset one`, 'invalid_address', 0, false);
  }
  return addr ?? url;
}

function isTls(a: Address): boolean {
  return a.kind === 'tcp' && a.tls === true;
}

/** The one sentence for "there is nothing to talk to", used when nothing is found and when a connection is refused. */
export const START_HINT = 'start one with `termhost serve`';

export function noDaemonMessage(stateDir: string): string {
  return `no daemon running for state dir ${stateDir}: ${START_HINT}`;
}

/** Why a request could not be sent, in words a person can act on. */
export function unreachableError(target: Pick<Target, 'address' | 'stateDir' | 'from'>, errno: string, detail = ''): TermhostError {
  const tls = target.address && tlsFailure(target.address, errno, detail);
  if (tls) return tls;
  const refused = errno === 'ECONNREFUSED' || errno === 'ENOENT';
  if (!target.address || (refused && target.from === 'daemon.json')) {
    // daemon.json named a daemon that no longer answers: it died without removing the file.
    return new TermhostError(noDaemonMessage(target.stateDir), 'no_daemon', 0, true, { daemon_file: daemonFilePath(target.stateDir) });
  }
  const where = formatAddress(target.address);
  if (refused) return new TermhostError(`no daemon is listening at ${where} (connection refused): ${START_HINT}`, 'unreachable', 0, true);
  return new TermhostError(`cannot reach termhost at ${where}: ${errno}`, 'unreachable', 0, true);
}
