/**
 * How TermhostClient sends a request, in two ways that trade load time for per-request cost:
 *
 * - `pool`: undici's keep-alive pool. Far less per-request overhead than node:http, which matters for keystroke
 *   latency in a long-lived client; loading undici costs about 150 ms, so it is imported on the first request.
 * - `once`: node:http, one connection per request. Nothing to load beyond Node itself, which is what a process that
 *   makes one request and exits wants (the CLI: `termhost ls` starts in a fraction of undici's load time).
 */
// Named imports of Node's modules on the `termhost ls` path: in the CommonJS bundle (scripts/build-cli.mjs) a default
// import costs a copy of every export of the module, on each start.
import { request as httpRequest, type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import { formatAddress, type Address } from './address.js';

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

/** A request that never got an answer; `errno` names why (ECONNREFUSED, ENOENT, ETIMEDOUT, ...). */
export class NetworkFailure extends Error {
  constructor(readonly errno: string) {
    super(errno);
  }
}

export type TransportKind = 'pool' | 'once';

/** Longest error or JSON answer the `once` transport reads; a transcript page or asciicast file can be large. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

export function makeTransport(kind: TransportKind, a: Address): Transport {
  return kind === 'pool' ? poolTransport(a) : onceTransport(a);
}

function poolTransport(a: Address): Transport {
  type Pool = import('undici').Pool;
  let pool: Promise<{ pool: Pool; InvalidArgumentError: new () => Error }> | undefined;
  const open = () =>
    (pool ??= import('undici').then(({ Pool, errors }) => ({
      pool:
        a.kind === 'unix'
          ? new Pool('http://localhost', { socketPath: a.path, connections: 8 })
          : new Pool(`http://${formatAddress(a)}`, { connections: 8 }),
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
        throw new NetworkFailure((err as NodeJS.ErrnoException).code ?? (err as Error).message);
      }
    },
    close() {
      void pool?.then(({ pool: p }) => p.destroy()).catch(() => {
        /* already destroyed: closing twice is harmless */
      });
    },
  };
}

function onceTransport(a: Address): Transport {
  const target = a.kind === 'unix' ? { socketPath: a.path } : { host: a.host, port: a.port };
  const open = new Set<ClientRequest>();
  return {
    request(method, path, headers, body) {
      return new Promise<Answer>((resolve, reject) => {
        const h: OutgoingHttpHeaders = { host: a.kind === 'unix' ? 'localhost' : formatAddress(a), ...headers };
        if (body !== undefined) h['content-length'] = Buffer.byteLength(body);
        const req = httpRequest({ ...target, method, path, headers: h, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER_BYTES) return req.destroy(new NetworkFailure('answer larger than 256 MiB'));
            chunks.push(c);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
          res.on('error', (err) => reject(new NetworkFailure((err as NodeJS.ErrnoException).code ?? err.message)));
        });
        open.add(req);
        req.on('close', () => open.delete(req));
        req.on('error', (err) => reject(err instanceof NetworkFailure ? err : new NetworkFailure((err as NodeJS.ErrnoException).code ?? err.message)));
        req.end(body);
      });
    },
    close() {
      for (const req of open) req.destroy();
    },
  };
}
