/**
 * The client's one error type, and the one place an error answer's body is turned into it. TermhostClient and
 * EventStream both read error answers; having the parsing here (and not in TermhostClient) is also what keeps
 * EventStream from importing TermhostClient, which imports EventStream.
 */
import type { IncomingMessage } from 'node:http';

export class TermhostError extends Error {
  constructor(
    message: string,
    /** The server's stable code, or one of the client's own: `unreachable`, `no_daemon`, `invalid_address`. */
    readonly code: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    readonly retryable: boolean,
    /** The whole error body, with any extra fields (`index`, `key`, `field`, ...). */
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'TermhostError';
  }
}

/** An error answer's body is read up to this much: our error bodies are a few hundred bytes. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Read a refusal's body (bounded by MAX_ERROR_BODY_BYTES: what a hostile or broken server sends past that is dropped
 * and the connection closed), then hand it on as a TermhostError.
 */
export function readRefusal(res: IncomingMessage, done: (err: TermhostError) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    done(errorFromAnswer(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
  };
  res.on('data', (c: Buffer) => {
    if (size >= MAX_ERROR_BODY_BYTES) return;
    chunks.push(c.subarray(0, MAX_ERROR_BODY_BYTES - size));
    size += Math.min(c.length, MAX_ERROR_BODY_BYTES - size);
    if (size >= MAX_ERROR_BODY_BYTES) {
      end();
      res.destroy();
    }
  });
  res.on('end', end);
  res.on('error', end);
}

/** A non-2xx answer as a TermhostError; a body that is not our JSON shape still gives the status. */
export function errorFromAnswer(status: number, raw: string): TermhostError {
  let b: Record<string, unknown> = {};
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : undefined;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) b = parsed as Record<string, unknown>;
  } catch {
    /* not our JSON error shape (a proxy's HTML page, say): the status says what there is to say */
  }
  return new TermhostError(
    typeof b.error === 'string' ? b.error : `HTTP ${status}`,
    typeof b.code === 'string' ? b.code : 'http_error',
    status,
    b.retryable === true,
    b,
  );
}
