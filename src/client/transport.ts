/**
 * How TermhostClient sends a request, in two ways that trade load time for per-request cost:
 *
 * - `pool`: undici's keep-alive pool. Far less per-request overhead than node:http, which matters for keystroke
 *   latency in a long-lived client; loading undici costs about 150 ms, so it is imported on the first request.
 * - `once`: node:http, one connection per request. Nothing to load beyond Node itself, which is what a process that
 *   makes one request and exits wants (the CLI: `termhost ls` starts in a fraction of undici's load time).
 *
 * Both speak HTTPS to an https:// address, verifying the certificate against `trust` (client/tls.ts), or Node's store.
 */
// Named imports of Node's modules on the `termhost ls` path: in the CommonJS bundle (scripts/build-cli.mjs) a default
// import costs a copy of every export of the module, on each start.
import type { ClientRequest, OutgoingHttpHeaders } from 'node:http';
import { hostPort, type Address } from './address.js';
import { failureDetail, requestFor, type Trust } from './tls.js';

export interface Answer {
  status: number;
  /** The body as sent: JSON and text answers are UTF-8, pictures are binary. */
  body: Buffer;
  /** Response headers, names lower-cased. */
  headers: Record<string, string | string[] | undefined>;
}

export interface Transport {
  request(method: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<Answer>;
  close(): void;
}

/** A request that never got an answer; `errno` names why (ECONNREFUSED, ENOENT, DEPTH_ZERO_SELF_SIGNED_CERT, ...). */
export class NetworkFailure extends Error {
  constructor(
    readonly errno: string,
    /** Node's words for it, such as "self-signed certificate" or which names a certificate carries. */
    readonly detail = '',
  ) {
    super(errno);
  }

  static of(err: unknown): NetworkFailure {
    if (err instanceof NetworkFailure) return err;
    return new NetworkFailure((err as NodeJS.ErrnoException).code ?? (err as Error).message, failureDetail(err));
  }
}

export type TransportKind = 'pool' | 'once';

/** Longest error or JSON answer the `once` transport reads; a transcript page or asciicast file can be large. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

export function makeTransport(kind: TransportKind, a: Address, trust?: Trust): Transport {
  return kind === 'pool' ? poolTransport(a, trust) : onceTransport(a, trust);
}

function poolTransport(a: Address, trust: Trust | undefined): Transport {
  type Pool = import('undici').Pool;
  let pool: Promise<{ pool: Pool; InvalidArgumentError: new () => Error }> | undefined;
  const open = () =>
    (pool ??= import('undici').then(({ Pool, errors }) => ({
      pool:
        a.kind === 'unix'
          ? new Pool('http://localhost', { socketPath: a.path, connections: 8 })
          : new Pool(`${a.tls ? 'https' : 'http'}://${hostPort(a)}`, { connections: 8, ...(trust ? { connect: { ...trust } } : {}) }),
      InvalidArgumentError: errors.InvalidArgumentError,
    })));
  return {
    async request(method, path, headers, body) {
      const { pool: p, InvalidArgumentError } = await open();
      try {
        const res = await p.request({ method: method as 'GET', path, headers, body });
        return { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()), headers: res.headers };
      } catch (err) {
        if (err instanceof InvalidArgumentError) throw err; // a bug in the caller, not the network
        throw NetworkFailure.of(err);
      }
    },
    close() {
      void pool?.then(({ pool: p }) => p.destroy()).catch(() => {
        /* already destroyed: closing twice is harmless */
      });
    },
  };
}

function onceTransport(a: Address, trust: Trust | undefined): Transport {
  const target = a.kind === 'unix' ? { socketPath: a.path } : { host: a.host, port: a.port, ...trust };
  const send = requestFor(a);
  const open = new Set<ClientRequest>();
  return {
    request(method, path, headers, body) {
      return new Promise<Answer>((resolve, reject) => {
        const h: OutgoingHttpHeaders = { host: a.kind === 'unix' ? 'localhost' : hostPort(a), ...headers };
        if (body !== undefined) h['content-length'] = Buffer.byteLength(body);
        const req = send({ ...target, method, path, headers: h, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER_BYTES) return req.destroy(new NetworkFailure('answer larger than 256 MiB'));
            chunks.push(c);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
          res.on('error', (err) => reject(NetworkFailure.of(err)));
        });
        open.add(req);
        req.on('close', () => open.delete(req));
        req.on('error', (err) => reject(NetworkFailure.of(err)));
        req.end(body);
      });
    },
    close() {
      for (const req of open) req.destroy();
    },
  };
}
