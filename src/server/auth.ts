/**
 * Request gatekeeping: the Host allowlist (against DNS rebinding), the bearer token, compared in constant time, and
 * the browser UI's cookie, which authenticates only same-origin requests when they change anything (CSRF).
 */
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TermError, atLeast, type Actor, type Role } from '../core/index.js';
import type { Principal, TokenStore } from './TokenStore.js';
import type { RateLimiter } from './rateLimits.js';
import { sendError } from './errors.js';
import { pathOf } from './logRedaction.js';
import { LogThrottle } from './logThrottle.js';
import { isLoopbackHost } from '../protocol/hosts.js';

export { isLoopbackHost };

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
  tokens: TokenStore;
  allowedHosts: ReadonlySet<string>;
  /**
   * The principal a request's UI cookie and page key stand for together (see UiLogins), consulted only without an
   * Authorization header; `present` says whether the request carried the cookie at all.
   */
  cookie?: (req: FastifyRequest) => { principal: Principal | undefined; present: boolean };
  /** Origins besides the daemon's own from which cookie-authenticated requests may change state. */
  allowedOrigins?: ReadonlySet<string>;
  /** Failed authentications per address: past the limit, 429 instead of 401, and the address is refused a while. */
  limits?: Pick<RateLimiter, 'refusedAddress' | 'failedAuth'>;
}

/** Refused requests logged per window; the rest are counted (LogThrottle). */
export const AUTH_FAILURE_LOG = { perWindow: 10, windowMs: 10_000 };

/** Methods a cookie may authenticate from any page of ours without an Origin check: they change nothing. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is asking, from the bearer token; undefined only on routes that authenticate themselves. */
    principal: Principal | undefined;
  }
  interface FastifyContextConfig {
    /** The least privileged role that may call the route; viewer when absent. */
    role?: Role;
    /**
     * Who authenticates the route's callers. Absent: the auth hook, with the bearer token or the UI's cookie.
     * 'public': nobody (liveness, the UI's page and assets, its sign-in); the schema says `security: []` too.
     * 'self': the route itself (the attach socket reads its credential from the first frame).
     */
    auth?: 'public' | 'self';
    /** Set for routes with a WebSocket handler (app.ts): only these may be upgraded. */
    websocket?: boolean;
  }
}

/**
 * Browsers send Origin on WebSocket upgrades. Only the daemon's own origin (the Host the request was sent to) and
 * configured origins may attach; a page elsewhere, or a sandboxed one ("null"), may not.
 */
export function originAllowed(origin: string | undefined, host: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (origin === undefined) return true; // native clients (the CLI) send none
  if (origin === 'null' || !host) return false;
  // Scheme and host compare case-insensitively; a trailing slash is not part of an origin.
  const o = normalizeOrigin(origin);
  if (allowed.has(o)) return true;
  const h = host.trim().toLowerCase();
  return o === `http://${h}` || o === `https://${h}`;
}

export function normalizeOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

/**
 * onRequest hook: Host first (even /health is refused on a foreign Host), then the request target, then the token for
 * every route that does not say otherwise. The decision is made on the route the router matched (its config), never
 * on the raw URL: the router and a pattern over `req.url` can disagree about where a path ends (`#`, `;`, `%2F`).
 * The hooks are callback-style, not async: they run on every request, and an async hook costs a promise and a trip
 * through the microtask queue each time. A refusal sends the reply and never calls `done`, which ends the request.
 */
export function makeAuthHook(opts: AuthOptions) {
  const throttle = new LogThrottle(AUTH_FAILURE_LOG.perWindow, AUTH_FAILURE_LOG.windowMs);
  /** One line per refusal: what was wrong, the method and path (never the query, a header or a cookie), from where. */
  const refused = (req: FastifyRequest, why: string) => {
    const held = throttle.take();
    if (held) req.log.warn({ method: req.method, path: pathOf(req.url), from: req.ip, ...held }, `auth failed: ${why}`);
  };
  return (req: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (!hostAllowed(req.headers.host, opts.allowedHosts)) {
      refused(req, 'foreign Host header');
      sendError(
        reply,
        new TermError('forbidden_host', `Host "${req.headers.host ?? ''}" is not allowed; use a loopback name or add it with --allow-host`),
      );
      return;
    }
    // A fragment is never sent by a well-behaved client, and the router ends the path there while other code may not.
    if (req.url.includes('#')) {
      sendError(reply, new TermError('invalid_request', 'the request target contains "#": a URL fragment is never sent to a server; percent-encode a literal # as %23'));
      return;
    }
    const auth = req.routeOptions.config?.auth;
    const banned = auth === 'public' ? undefined : opts.limits?.refusedAddress(req);
    if (banned) {
      refused(req, 'address over its failed-authentication limit');
      sendError(reply, banned);
      return;
    }
    req.principal = opts.tokens.resolve(bearerToken(req.headers.authorization));
    if (auth === 'self') return done();
    // A header, even a wrong one, is the caller's explicit choice of credential: the cookie never overrides it.
    let cookieOnly = false;
    if (!req.principal && req.headers.authorization === undefined && opts.cookie) {
      const { principal: viaCookie, present } = opts.cookie(req);
      cookieOnly = present && !viaCookie;
      // Browsers attach cookies to requests that other pages trigger; SameSite=Strict stops other sites, and this
      // stops everything else that is not our own page: a state change must come with our Origin.
      if (viaCookie && !SAFE_METHODS.has(req.method) && !(req.headers.origin && originAllowed(req.headers.origin, req.headers.host, opts.allowedOrigins ?? new Set()))) {
        refused(req, 'a state change with the UI cookie from a foreign Origin');
        sendError(
          reply,
          new TermError('forbidden_origin', `a browser request that changes state must come from the daemon's own page; Origin "${req.headers.origin ?? '(none)'}" is not allowed`),
        );
        return;
      }
      req.principal = viaCookie;
    }
    if (req.principal || auth === 'public') return done();
    if (cookieOnly) {
      // What a server on another port of this host receives from the browser: the cookie, never the page's key.
      refused(req, 'UI cookie without its page key');
      return failed(
        req,
        reply,
        new TermError('unauthorized', 'the UI cookie alone does not sign a browser in: the page sends its sign-in key too; open the UI again with `termhost ui`'),
      );
    }
    refused(req, req.headers.authorization === undefined ? 'no token' : 'wrong or revoked token');
    failed(
      req,
      reply.header('www-authenticate', 'Bearer'),
      new TermError('unauthorized', 'missing, wrong or revoked bearer token; send "Authorization: Bearer <token>" (see `termhost token`)'),
    );
  };
  /** A 401, counted against the address; past its limit the answer is the 429 instead. */
  function failed(req: FastifyRequest, reply: FastifyReply, unauthorized: TermError): void {
    if (!opts.limits) return void sendError(reply, unauthorized);
    opts.limits.failedAuth(req).then(
      (limited) => sendError(reply, limited ?? unauthorized),
      // The counter lives in memory and does not fail; if it ever did, the 401 still goes out.
      () => sendError(reply, unauthorized),
    );
  }
}

/** A request that asks to switch protocols, as Node's HTTP parser decides it (Upgrade plus Connection: upgrade). */
export function wantsUpgrade(req: FastifyRequest): boolean {
  return req.headers.upgrade !== undefined && /(?:^|,)\s*upgrade\s*(?:,|$)/i.test(String(req.headers.connection ?? ''));
}

/**
 * Hook: an upgrade to anything but a WebSocket route is refused as plain HTTP. The websocket plugin
 * otherwise completes the handshake (101) on any route and only then closes the socket, after every check the
 * route's handler would have made was skipped.
 */
export function refuseForeignUpgrades(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (!wantsUpgrade(req) || req.routeOptions.config?.websocket) return done();
  sendError(reply, new TermError('invalid_request', `${req.method} ${req.routeOptions.url ?? 'this path'} is not a WebSocket endpoint; send a plain HTTP request (the attach socket is GET /v1/sessions/{id}/attach)`));
}

/** preHandler hook: the route's declared minimum role against the caller's. */
export function roleHook(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const needed = req.routeOptions.config?.role;
  if (!needed || !req.principal || atLeast(req.principal.actor, needed)) return done();
  sendError(reply, new TermError('forbidden', `this needs the ${needed} role; your token (${req.principal.tokenName}) has ${req.principal.actor.kind}`));
}

/** The caller's actor; routes that run after the auth hook always have one. */
export function actorOf(req: FastifyRequest): Actor {
  if (!req.principal) throw new TermError('unauthorized', 'not authenticated');
  return req.principal.actor;
}
