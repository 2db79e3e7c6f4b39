/**
 * Rate limits, counted by @fastify/rate-limit: per token for what a token can do too often (mint attach tokens, start
 * sessions, mint UI login codes), and per remote address for failed authentication. The daemon's own (admin) token
 * is not limited: it can mint itself any number of tokens, so a limit on it would hold nothing.
 *
 * Every limit is a count per minute; 0 turns it off. Past it the answer is 429 `rate_limited`, retryable, with
 * `Retry-After` (seconds) and `retry_after_s`. An address past its failed-auth limit is refused outright until the
 * window ends, a correct token included: otherwise a guesser would still learn when it guessed right.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { TermError } from '../core/index.js';
import { ADMIN_TOKEN_NAME } from './TokenStore.js';

export interface RateLimits {
  /** Attach tokens one token may mint per minute. */
  attachTokens: number;
  /** Sessions one token may start per minute (HTTP and MCP alike). */
  sessionStarts: number;
  /** UI login codes one token may mint per minute. */
  loginCodes: number;
  /** Failed authentications one remote address may make per minute. */
  failedAuths: number;
}

export const RATE_LIMIT_DEFAULTS: RateLimits = { attachTokens: 30, sessionStarts: 10, loginCodes: 10, failedAuths: 60 };
export const RATE_WINDOW_MS = 60_000;
export const RATE_LIMIT_KINDS = ['attach-tokens', 'session-starts', 'login-codes', 'failed-auths'] as const;
const FIELD: Record<(typeof RATE_LIMIT_KINDS)[number], keyof RateLimits> = {
  'attach-tokens': 'attachTokens',
  'session-starts': 'sessionStarts',
  'login-codes': 'loginCodes',
  'failed-auths': 'failedAuths',
};
/** Addresses remembered as over their failed-auth limit; past this the oldest is forgotten. */
const BANNED_ADDRESSES_MAX = 10_000;

/** `KIND=N` (as `serve --rate-limit` takes it) into a field of RateLimits; throws with a message for the operator. */
export function parseRateLimit(text: string): [keyof RateLimits, number] {
  const eq = text.indexOf('=');
  const kind = text.slice(0, eq) as (typeof RATE_LIMIT_KINDS)[number];
  const n = Number(text.slice(eq + 1));
  if (eq < 0 || !RATE_LIMIT_KINDS.includes(kind) || !Number.isInteger(n) || n < 0 || n > 1_000_000) {
    throw new Error(`--rate-limit wants KIND=N per minute (0: off), KIND one of ${RATE_LIMIT_KINDS.join(', ')}; got "${text}"`);
  }
  return [FIELD[kind], n];
}

type Check = (req: FastifyRequest) => Promise<{ isAllowed: boolean; isExceeded?: boolean; ttlInSeconds?: number }>;

export class RateLimiter {
  private readonly perToken: Partial<Record<'attachTokens' | 'sessionStarts' | 'loginCodes', Check>> = {};
  private failed: Check | undefined;
  /** Remote address -> until when (epoch ms) it is refused. */
  private readonly banned = new Map<string, number>();

  private constructor(private readonly limits: RateLimits) {}

  static async register(app: FastifyInstance, limits: RateLimits): Promise<RateLimiter> {
    const limiter = new RateLimiter(limits);
    await app.register(rateLimit, { global: false, timeWindow: RATE_WINDOW_MS });
    const byToken = (req: FastifyRequest) => `token:${req.principal?.tokenId ?? req.ip}`;
    for (const kind of ['attachTokens', 'sessionStarts', 'loginCodes'] as const) {
      if (limits[kind] > 0) {
        limiter.perToken[kind] = app.createRateLimit({
          max: limits[kind],
          timeWindow: RATE_WINDOW_MS,
          keyGenerator: byToken,
          allowList: (req: FastifyRequest) => req.principal?.tokenId === ADMIN_TOKEN_NAME,
        }) as Check;
      }
    }
    if (limits.failedAuths > 0) limiter.failed = app.createRateLimit({ max: limits.failedAuths, timeWindow: RATE_WINDOW_MS, keyGenerator: (req: FastifyRequest) => `addr:${req.ip}` }) as Check;
    return limiter;
  }

  /** Count one use for the caller's token; a TermError past the limit (for `unwrap`, `throw`, or an MCP tool's error). */
  async take(kind: 'attachTokens' | 'sessionStarts' | 'loginCodes', req: FastifyRequest, what: string): Promise<TermError | undefined> {
    const check = this.perToken[kind];
    if (!check) return undefined;
    const r = await check(req);
    if (r.isAllowed || !r.isExceeded) return undefined;
    return limited(`${what}: at most ${this.limits[kind]} a minute per token`, r.ttlInSeconds ?? 1);
  }

  /** Is this address refused for too many failed authentications? The error to answer with, if so. */
  refusedAddress(req: FastifyRequest): TermError | undefined {
    const until = this.banned.get(req.ip);
    if (until === undefined) return undefined;
    const left = until - Date.now();
    if (left > 0) return limited('too many failed authentications from this address', Math.ceil(left / 1000));
    this.banned.delete(req.ip);
    return undefined;
  }

  /** Count a failed authentication from this address; the error to answer with instead of 401, once past the limit. */
  async failedAuth(req: FastifyRequest): Promise<TermError | undefined> {
    if (!this.failed) return undefined;
    const r = await this.failed(req);
    if (r.isAllowed || !r.isExceeded) return undefined;
    const seconds = r.ttlInSeconds ?? 1;
    if (this.banned.size >= BANNED_ADDRESSES_MAX) this.banned.delete(this.banned.keys().next().value!);
    this.banned.set(req.ip, Date.now() + seconds * 1000);
    return limited('too many failed authentications from this address', seconds);
  }
}

function limited(why: string, retryAfterS: number): TermError {
  return new TermError('rate_limited', `${why}; retry in ${retryAfterS} s`, { retry_after_s: retryAfterS }, true);
}

