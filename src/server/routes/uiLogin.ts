/**
 * Signing a browser in to the UI: a bearer-token holder mints a login code, the browser exchanges it once for a
 * cookie and a page key (the sign-in page carries it; its script moves on to a URL with no secret in it); the page
 * can ask who it is and sign out. See UiLogins for the
 * lifetimes and bounds, and docs/security.md for the model.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { TermError, actorRef } from '../../core/index.js';
import { LoginCodeBody, LoginCodeSchema, LoginQuery, UiWhoamiSchema } from '../../protocol/ui.js';
import { bearerToken } from '../auth.js';
import { clearUiCookie, readCookie, setUiCookie, uiCookieName } from '../cookies.js';
import type { UiLogins } from '../UiLogins.js';
import { UI_KEY_HEADER, UI_KEY_META, UI_NEXT_META } from '../../protocol/uiKey.js';
import { readUiPage, SECURITY_HEADERS } from './ui.js';
import { errors, type RouteDeps } from './common.js';

export interface UiLoginDeps extends RouteDeps {
  uiLogins: UiLogins;
  /** The UI's index.html (tests may give their own); read from the bundle when absent. */
  uiPage?: string;
}

export function uiCookieOf(req: FastifyRequest): string | undefined {
  return readCookie(req.headers.cookie, uiCookieName(req.headers.host));
}

/** The page key a request carries (the page's script sends it beside the cookie). */
export function uiKeyOf(req: FastifyRequest): string | undefined {
  const v = req.headers[UI_KEY_HEADER];
  return typeof v === 'string' && v.length <= 256 ? v : undefined;
}

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function uiLoginRoutes(app: FastifyInstance, deps: UiLoginDeps): Promise<void> {
  const page = deps.uiPage ?? readUiPage();
  app.post(
    '/v1/ui/login-codes',
    {
      config: { role: 'human' },
      schema: {
        summary: 'Mint a single-use, 60 s login code that signs a browser in to the UI (what `termhost ui` opens)',
        body: LoginCodeBody,
        response: { 201: LoginCodeSchema, ...errors(400, 404) },
      },
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req, reply) => {
      // A signed-in browser is a person too, but it may not mint further sign-ins: only a token holder may.
      if (!bearerToken(req.headers.authorization)) {
        throw new TermError('forbidden', 'login codes are minted with a bearer token (termhost ui), not from a browser sign-in');
      }
      const limited = await deps.limits.take('loginCodes', req, 'minting UI login codes');
      if (limited) throw limited;
      const body = req.body as Static<typeof LoginCodeBody>;
      const kind = body.as ?? 'human';
      let next = '/ui/';
      if (body.session !== undefined) {
        if (!deps.manager.get(body.session, req.principal!.actor).ok && !deps.store.record(body.session, req.principal!.actor)) {
          throw new TermError('session_not_found', `no session or record "${body.session}"`);
        }
        const role = kind === 'viewer' ? 'viewer' : (body.role ?? 'driver');
        next = `/ui/sessions/${body.session}${role === 'viewer' ? '?role=viewer' : ''}`;
      }
      const { code, expiresInS } = deps.uiLogins.mintCode(req.principal!, kind, next);
      req.log.info({ actor: req.principal!.actor.name, as: kind }, 'ui.login_code');
      return reply.code(201).send({ code, login_path: `/ui/login?code=${code}`, expires_in_s: expiresInS });
    },
  );

  app.delete(
    '/v1/ui/logins',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Sign every browser out of the UI and void every pending login code',
        response: { 200: Type.Object({ signed_out: Type.Integer() }), ...errors() },
      },
    },
    async (req) => {
      const n = deps.uiLogins.signOutAll();
      req.log.info({ signed_out: n }, 'ui.sign_out_all');
      return { signed_out: n };
    },
  );

  app.get(
    '/ui/login',
    {
      schema: {
        summary: 'Exchange a single-use login code for the UI sign-in: its cookie, and the page carrying its page key',
        security: [],
        querystring: LoginQuery,
        response: { 200: { description: 'text/html: the UI page, with Set-Cookie and the page key' }, ...errors(400, 404) },
      },
    },
    async (req, reply) => {
      if (page === undefined) throw new TermError('not_found', 'the UI bundle is missing; run `npm run build`');
      const spent = deps.uiLogins.exchange((req.query as Static<typeof LoginQuery>).code);
      if (!spent) {
        throw new TermError('unauthorized', 'this sign-in link is wrong, used or expired (each works once, for 60 s); run `termhost ui` for a new one');
      }
      req.log.info('ui.sign_in');
      deps.runtime.audit.record(null, spent.actor, 'ui_signed_in', { as: spent.actor.kind });
      // The page itself, carrying the page key once: its script keeps the key in this origin's localStorage and
      // replaces the address (which holds the spent code) with `next`. Never stored by a cache, never a Referer.
      const meta = `<meta name="${UI_KEY_META}" content="${attr(spent.key)}"><meta name="${UI_NEXT_META}" content="${attr(spent.next)}">`;
      return reply
        .code(200)
        .headers(SECURITY_HEADERS)
        .header('cache-control', 'no-store')
        .header('set-cookie', setUiCookie(uiCookieName(req.headers.host), spent.secret, spent.maxAgeS))
        .type('text/html; charset=utf-8')
        .send(page.replace('<head>', `<head>${meta}`));
    },
  );

  app.get('/ui/me', { schema: { summary: 'Who this browser is signed in as', security: [], response: { 200: UiWhoamiSchema, ...errors() } } }, async (req) => {
    if (!req.principal) throw new TermError('unauthorized', 'this browser is not signed in; run `termhost ui` on the daemon\'s machine');
    const cookie = uiCookieOf(req);
    return { actor: actorRef(req.principal.actor), expires_at: (cookie && deps.uiLogins.expiresAt(cookie)) ?? null };
  });

  app.post('/ui/logout', { schema: { summary: 'Sign this browser out', security: [], response: { 204: { description: 'signed out' }, ...errors() } } }, async (req, reply) => {
    // Only the page (cookie and key) ends its sign-in; a cookie alone, as another port's server holds it, cannot.
    const cookie = uiCookieOf(req);
    if (cookie && deps.uiLogins.resolve(cookie, uiKeyOf(req))) deps.uiLogins.signOut(cookie);
    return reply.code(204).header('set-cookie', clearUiCookie(uiCookieName(req.headers.host))).send();
  });
}
