/**
 * What the daemon's log may say, and where it goes. Requests are logged by their path alone: a query string is the
 * caller's, and callers put credentials there (`?token=`, `?access_token=`, the UI's `?code=`) however the docs tell
 * them not to. Every line then passes one last scrub on its way out, for the text nobody planned to log: an error
 * message or a library's warning that quotes a raw URL or an Authorization header.
 */
import type { FastifyRequest } from 'fastify';
import { textLines } from './logText.js';

/** Where a log line is written: pino accepts anything with `write`. */
export interface LogDestination {
  write(line: string): unknown;
}

/** The daemon's logging, as `serve --log-level/--log-format` and startDaemon({ logger }) choose it. */
export interface LogOptions {
  /** pino level: fatal, error, warn, info (default), debug, trace, silent. */
  level?: string;
  /** 'text': one short line per event, for people (what `termhost serve` prints); 'json' (default): pino's lines. */
  format?: 'json' | 'text';
  /** Where lines go; standard error when absent. */
  stream?: LogDestination;
  [pinoOption: string]: unknown;
}

/** A query parameter is a credential when its name contains one of these (case-insensitive). */
const CREDENTIAL_WORDS = ['token', 'key', 'secret', 'pass', 'pwd', 'auth', 'code', 'sig', 'jwt', 'credential', 'cookie'];
/** A parameter after ?, & or ;. The name is bounded, so the scan stays linear however long the line is. */
const PARAM = /([?&;])([A-Za-z0-9_.\-[\]]{1,64})=([^&;#\s"'\\<>]*)/g;
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi;

/** The line with every credential-like parameter value and every bearer token replaced by [redacted]. */
export function scrub(line: string): string {
  let out = line;
  if (out.includes('=')) {
    out = out.replace(PARAM, (whole, sep: string, name: string, value: string) => {
      const lower = name.toLowerCase();
      return value && CREDENTIAL_WORDS.some((w) => lower.includes(w)) ? `${sep}${name}=[redacted]` : whole;
    });
  }
  if (/bearer/i.test(out)) out = out.replace(BEARER, '$1[redacted]');
  return out;
}

/** The path of a request target: no query string, no fragment. */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

/** fastify's request serializer, without the query string (and without headers, which carry tokens and cookies). */
export function requestSerializer(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    path: pathOf(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}

/** Writes each line scrubbed. */
export function scrubbing(dest: LogDestination): LogDestination {
  return { write: (line: string) => dest.write(scrub(line)) };
}

/** pino options for fastify: our serializer, headers redacted, every line scrubbed (false stays false: no logging). */
export function loggerOptions(logger: boolean | LogOptions | undefined): false | Record<string, unknown> {
  if (!logger) return false;
  const { format = 'json', stream, ...pinoOptions } = logger === true ? ({} as LogOptions) : logger;
  const dest: LogDestination = stream ?? process.stderr;
  const serializers = (pinoOptions.serializers ?? {}) as Record<string, unknown>;
  const redact = Array.isArray(pinoOptions.redact) ? (pinoOptions.redact as string[]) : [];
  return {
    level: 'info',
    ...pinoOptions,
    redact: [...new Set([...redact, 'req.headers.authorization', 'req.headers.cookie', 'token'])],
    serializers: { ...serializers, req: requestSerializer },
    stream: scrubbing(format === 'text' ? textLines(dest) : dest),
  };
}
