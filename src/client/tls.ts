/**
 * How a client checks an https:// daemon, and what it says when the check fails. Verification is always on: there is
 * no "insecure" switch. What a certificate is checked against, first found wins:
 *
 * - `ca` (the SDK option; the CLI's --ca FILE), or the file $TERMHOST_CA names: only those certificates. Each may be
 *   a CA or the daemon's own certificate (a pinned leaf: `allowPartialTrustChain`), as with curl's --cacert.
 * - A daemon found through daemon.json that serves TLS names its certificate file there; that file is trusted beside
 *   Node's store, as the token file it names is trusted: both sit in the user's private state dir.
 * - Otherwise Node's own store, which NODE_EXTRA_CA_CERTS extends.
 *
 * A refusal is a TermhostError with a stable code and the way out: `tls_untrusted` (name --ca), `tls_name_mismatch`
 * (name the address to use), `protocol_mismatch` (https:// to a plain port, or http:// to a TLS one).
 */
import fs from 'node:fs';
import { request as httpRequest } from 'node:http';
import { formatAddress, hostPort, type Address } from './address.js';
import { TermhostError } from './errors.js';

/**
 * node:tls and node:https load only for a daemon that serves TLS: every CLI start would otherwise pay for them (the
 * bin is one CommonJS bundle, scripts/build-cli.mjs, so a top-level import runs at start).
 */
const nodeTls = () => process.getBuiltinModule('node:tls');

/** How a request goes to this address: node:https for an https:// one, node:http otherwise. */
export function requestFor(a: Address): typeof httpRequest {
  return a.kind === 'tcp' && a.tls ? (process.getBuiltinModule('node:https').request as typeof httpRequest) : httpRequest;
}

/** PEM text (one or more certificates), as Node's `ca` takes it. */
export type Ca = string | Buffer | Array<string | Buffer>;

/** The part of Node's TLS connect options that decides which certificates are trusted. */
export interface Trust {
  ca?: Array<string | Buffer>;
  allowPartialTrustChain?: boolean;
}

/** A CA bundle is a few certificates; a system bundle is about 200 KiB. */
const MAX_CA_FILE_BYTES = 4 * 1024 * 1024;

const PEM_CERT = '-----BEGIN CERTIFICATE-----';

/** Read a CA file for a named source (`--ca`, `TERMHOST_CA`); throws `invalid_ca` with the file and the reason. */
export function readCaFile(file: string, source: string): Buffer {
  let pem: Buffer;
  try {
    if (fs.statSync(file).size > MAX_CA_FILE_BYTES) throw new Error('larger than 4 MiB; is it a certificate?');
    pem = fs.readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new TermhostError(`cannot read ${source} ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`, 'invalid_ca', 0, false);
  }
  if (!pem.includes(PEM_CERT)) throw new TermhostError(`${source} ${file} holds no PEM certificate (${PEM_CERT})`, 'invalid_ca', 0, false);
  return pem;
}

export function resolveTrust(ca: Ca | undefined, env: NodeJS.ProcessEnv, daemonCert?: string): Trust | undefined {
  if (ca !== undefined) return { ca: Array.isArray(ca) ? ca : [ca], allowPartialTrustChain: true };
  if (env.TERMHOST_CA) return { ca: [readCaFile(env.TERMHOST_CA, 'TERMHOST_CA')], allowPartialTrustChain: true };
  if (daemonCert !== undefined) {
    let pem: Buffer | undefined;
    try {
      pem = readCaFile(daemonCert, 'the certificate daemon.json names');
    } catch {
      /* the daemon's file moved or is unreadable to us: verify against Node's store, and say so if that fails */
    }
    if (pem) return { ca: [...nodeTls().rootCertificates, pem], allowPartialTrustChain: true };
  }
  return undefined;
}

/**
 * Node's words for a failed connection. A name the certificate lacks is said with the names it carries (Node's own
 * reason says only what was not found).
 */
export function failureDetail(err: unknown): string {
  const e = err as Error & { code?: string; reason?: string; cert?: { subjectaltname?: string } };
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID' && e.cert?.subjectaltname) return `it is for ${e.cert.subjectaltname.slice(0, 500)}`;
  return e.reason ?? e.message;
}

/** Node's codes for a certificate chain that does not lead to a trusted certificate, or is not valid now. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'INVALID_CA',
  'INVALID_PURPOSE',
]);

/** The TLS-shaped failures of a request, in words a person can act on; undefined for any other failure. */
export function tlsFailure(a: Address, errno: string, detail: string): TermhostError | undefined {
  if (a.kind !== 'tcp') return undefined;
  const where = formatAddress(a);
  if (a.tls && UNTRUSTED.has(errno)) {
    return new TermhostError(
      `the daemon at ${where} presented a certificate this client does not trust (${detail || errno}): give its CA certificate, or the daemon's own, with --ca FILE or TERMHOST_CA=FILE (the SDK's \`ca\` option; Node also reads NODE_EXTRA_CA_CERTS)`,
      'tls_untrusted',
      0,
      false,
      { tls_error: errno },
    );
  }
  if (a.tls && errno === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new TermhostError(
      `the certificate of the daemon at ${where} is not for "${a.host}" (${detail || errno}): connect by a name the certificate carries, such as --addr https://NAME:${a.port}`,
      'tls_name_mismatch',
      0,
      false,
      { tls_error: errno },
    );
  }
  if (a.tls && (errno === 'EPROTO' || errno === 'ERR_SSL_WRONG_VERSION_NUMBER')) {
    return new TermhostError(`the daemon at ${where} does not speak TLS: use http://${hostPort(a)}`, 'protocol_mismatch', 0, false);
  }
  if (!a.tls && errno === 'tls_port') {
    return new TermhostError(`the daemon at ${where} serves HTTPS: use https://${hostPort(a)}`, 'protocol_mismatch', 0, false);
  }
  return undefined;
}

/** Could a dropped plain-HTTP request have gone to a TLS port? The only failures such a port gives. */
export function mayBeTlsPort(a: Address, errno: string): boolean {
  return a.kind === 'tcp' && !a.tls && (errno === 'ECONNRESET' || errno === 'UND_ERR_SOCKET');
}

/** Longest wait for the TLS probe's handshake, on a port that just answered (or dropped) a request. */
const PROBE_TIMEOUT_MS = 3000;

/**
 * Does a TLS handshake succeed on this plain-HTTP address? Asked only after a request there was dropped unanswered,
 * to tell "this port speaks HTTPS" from a daemon that died mid-request. The probe sends nothing but a handshake and
 * closes at once, so not checking the certificate here exposes nothing: no token, no request.
 */
export function probeTls(a: Address & { kind: 'tcp' }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = nodeTls().connect({ host: a.host, port: a.port, rejectUnauthorized: false, ...(isIp(a.host) ? {} : { servername: a.host }) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.setTimeout(PROBE_TIMEOUT_MS, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
}

function isIp(host: string): boolean {
  return /^[\d.]{1,15}$/.test(host) || host.includes(':');
}
