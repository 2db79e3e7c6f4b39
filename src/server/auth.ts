/**
 * Request gatekeeping: the Host allowlist (against DNS rebinding) and the bearer token, compared in constant time.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TermError } from '../core/index.js';
import { sendError } from './errors.js';

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.', '::1', '0:0:0:0:0:0:0:1']);

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return true;
  return net.isIPv4(h) && h.startsWith('127.');
}

/** "host:port", "[v6]:port" or "host" -> host, lower-cased, brackets removed. */
export function hostOnly(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon > 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (!header) return false;
  const host = hostOnly(header);
  return isLoopbackHost(host) || allowed.has(host);
}

function digest(s: string): Buffer {
  return crypto.createHash('sha256').update(s, 'utf8').digest();
}

/** Constant-time comparison: both sides are hashed first so lengths never leak either. */
export function secretsEqual(a: string, b: string): boolean {
  return crypto.timingSafeEqual(digest(a), digest(b));
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

export interface AuthOptions {
  token: string;
  allowedHosts: ReadonlySet<string>;
}

/** onRequest hook: Host first (even /health is refused on a foreign Host), then the token for everything else. */
export function makeAuthHook(opts: AuthOptions) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (!hostAllowed(req.headers.host, opts.allowedHosts)) {
      return sendError(
        reply,
        new TermError('forbidden_host', `Host "${req.headers.host ?? ''}" is not allowed; use a loopback name or add it with --allow-host`),
      );
    }
    if (req.url === '/health' || req.url.startsWith('/health?')) return;
    const presented = bearerToken(req.headers.authorization);
    if (!presented || !secretsEqual(presented, opts.token)) {
      return sendError(
        reply.header('www-authenticate', 'Bearer'),
        new TermError('unauthorized', 'missing or wrong bearer token; send "Authorization: Bearer <token>" (see `termhost token`)'),
      );
    }
  };
}
