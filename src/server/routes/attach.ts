/**
 * Live attach: the WebSocket endpoint, attach tokens for clients that cannot send headers, and banners for the
 * people watching; and the same session as an asciinema live stream (ALiS), read-only, for asciinema-player. Both
 * sockets are admitted by the same checks and authenticated by the same first frame and rule. The protocols are in
 * protocol/attach.ts, protocol/alis.ts and docs/protocol.md.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { TermError, atLeast, type Actor } from '../../core/index.js';
import type { Role } from '../../protocol/attach.js';
import { AttachTokenBody, AttachTokenSchema, BannerBody, SessionIdParams, SessionInfoSchema } from '../../protocol/http.js';
import { ATTACH_TOKEN_TTL_S, AttachTokens } from '../attachTokens.js';
import { AttachConnection, type AttachSettings, type Authenticate } from '../attach/AttachConnection.js';
import { AlisConnection } from '../attach/AlisConnection.js';
import type { Principal } from '../TokenStore.js';
import { originAllowed } from '../auth.js';
import { sendError } from '../errors.js';
import { actorOf } from '../auth.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;

export interface AttachDeps extends RouteDeps {
  attachTokens: AttachTokens;
  settings: AttachSettings;
  allowedOrigins: ReadonlySet<string>;
}

export async function attachRoutes(app: FastifyInstance, deps: AttachDeps): Promise<void> {
  /** The checks both sockets make before the upgrade, answered as plain HTTP errors. */
  const beforeUpgrade = (what: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.url.includes('?')) {
      return sendError(reply, new TermError('invalid_request', `the ${what} URL takes no query string; send options and the token in the first frame`));
    }
    if (!originAllowed(req.headers.origin, req.headers.host, deps.allowedOrigins)) {
      const hint = req.headers.origin === 'null' ? 'opaque origins (sandboxed pages, file: URLs) can never attach' : 'allow it with --allow-origin';
      return sendError(reply, new TermError('forbidden_origin', `Origin "${req.headers.origin}" may not attach; ${hint}`));
    }
    // A native client that sends its token as a header is answered before the upgrade, with the 404 of every route
    // (core's lookup: out of scope is missing). Without a header nobody is known yet: every upgrade goes ahead,
    // and a missing or out-of-scope session closes the socket with 4004 after the auth frame, alike.
    if (req.principal) {
      const found = deps.manager.get((req.params as IdParams).id, req.principal.actor);
      if (!found.ok) return sendError(reply, found.error);
    }
    // An upgrade holds a slot until its connection closes, however it ends (refused upgrade, auth failure, close).
    if (req.headers.upgrade?.toLowerCase() === 'websocket') {
      const slot = deps.slots.attach.take();
      if (!slot.ok) return sendError(reply, slot.error);
      req.raw.socket.once('close', slot.value);
    }
  };

  /**
   * Who a first frame's credential stands for, the session the socket's path names as that actor may see it, and the
   * most it may do: the one rule both sockets use. Missing and out of scope are the same 4004.
   */
  const authenticatorFor = (ref: string, headerPrincipal: Principal | undefined): Authenticate => {
    const invalid = 'the token is invalid, expired, already used, revoked, or for another session';
    const lookup = (actor: Actor) => {
      const found = deps.manager.get(ref, actor);
      return found.ok ? found.value : undefined;
    };
    return (frame) => {
      // The bearer header, or a bearer token in the frame: the token's own actor; viewers can only watch.
      const bearer = frame.token === undefined ? headerPrincipal : deps.tokens.resolve(frame.token);
      if (bearer) {
        const session = lookup(bearer.actor);
        if (!session) return { ok: false, missing: true, reason: 'no such session' };
        return { ok: true, session, maxRole: atLeast(bearer.actor, 'agent') ? 'driver' : 'viewer', ...bearer };
      }
      if (frame.token === undefined) return { ok: false, reason: 'a token is required in the auth frame' };
      // An attach token: its minter's actor, with the minter's scope as it is now (none once revoked).
      const peek = deps.attachTokens.inspect(frame.token);
      const minter = peek && deps.tokens.actorOf(peek.tokenId, peek.actor.name, peek.actor.kind);
      if (!peek || !minter) return { ok: false, reason: invalid };
      const session = lookup(minter);
      if (!session) return { ok: false, missing: true, reason: 'no such session' };
      const grant = deps.attachTokens.redeem(frame.token, session.id);
      if (!grant) return { ok: false, reason: invalid };
      return { ok: true, session, maxRole: grant.role, actor: minter, tokenName: grant.tokenName, signIn: grant.signIn };
    };
  };

  app.post(
    '/v1/sessions/:id/attach-tokens',
    {
      schema: {
        summary: 'Mint a 60 s attach token for one session and role, to send in the first WebSocket frame',
        params: SessionIdParams,
        body: AttachTokenBody,
        response: { 201: AttachTokenSchema, ...errors(400, 404) },
      },
      // No body means the default role, like an empty object.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req, reply) => {
      const session = sessionOf(deps, req);
      const role: Role = (req.body as Static<typeof AttachTokenBody> | undefined)?.role ?? 'viewer';
      const principal = req.principal!;
      // A token may carry at most what its minter has: viewers mint viewer tokens only.
      if (role === 'driver' && !atLeast(principal.actor, 'agent')) {
        throw new TermError('forbidden', 'a viewer cannot mint a driver attach token; ask for role "viewer"');
      }
      const limited = await deps.limits.take('attachTokens', req, 'minting attach tokens');
      if (limited) throw limited;
      return reply.code(201).send({
        token: deps.attachTokens.mint(session.id, role, principal.actor, principal.tokenName, principal.tokenId, principal.signIn),
        ws_path: `/v1/sessions/${session.id}/attach`,
        role,
        expires_in_s: ATTACH_TOKEN_TTL_S,
      });
    },
  );

  app.post(
    '/v1/sessions/:id/banner',
    {
      schema: {
        summary: 'Show a notice to the people attached (kept for later clients when nobody is attached)',
        params: SessionIdParams,
        body: BannerBody,
        response: { 200: SessionInfoSchema, ...errors(400, 404) },
      },
    },
    async (req) => {
      const session = sessionOf(deps, req);
      unwrap(session.banner(actorOf(req), (req.body as Static<typeof BannerBody>).message));
      return session.info();
    },
  );

  app.route({
    method: 'GET',
    url: '/v1/sessions/:id/attach',
    // The socket's first frame carries the credential (browsers cannot set headers on a WebSocket).
    config: { auth: 'self' },
    schema: {
      summary: 'Live attach (WebSocket): the first frame authenticates; see docs/protocol.md and /schemas/*-frame.json',
      description:
        'Upgrade with GET and no query string. Send an auth frame first (attach token or bearer token, role, view, ' +
        'since_seq); the server answers hello, a repaint, then output as binary frames. Close codes: 4001 auth, ' +
        '4003 forbidden, 4004 no session, 4008 too slow, 4009 missed pongs.',
      params: SessionIdParams,
      response: { 101: { description: 'Switching Protocols: the attach socket' }, ...errors(400, 404, 503) },
    },
    // Everything that can be refused before the upgrade is refused here, as a plain HTTP error.
    preValidation: beforeUpgrade('attach'),
    // A plain GET (no upgrade) gets the standard error shape instead of an empty 404.
    handler: async (_req, reply) =>
      sendError(reply, new TermError('invalid_request', 'this endpoint is a WebSocket: send an upgrade request (see docs/protocol.md)')),
    wsHandler: (socket, req) => {
      new AttachConnection(socket, authenticatorFor((req.params as IdParams).id, req.principal), deps.settings, req.log, deps.revocations);
    },
  });

  app.route({
    method: 'GET',
    url: '/v1/sessions/:id/alis',
    // The first frame carries the credential, as on the attach socket.
    config: { auth: 'self' },
    schema: {
      summary: 'The session as an asciinema live stream (ALiS v1, WebSocket subprotocol v1.alis), read-only: see docs/protocol.md',
      description:
        'Upgrade with GET and no query string, offering the subprotocol v1.alis. Send the same auth frame as on the attach ' +
        'socket first (an attach token or a bearer token; any role may watch); the server answers with ALiS binary frames: ' +
        'the magic, a reset with the current screen, output and resizes, then exit and EOT. Close codes as on the attach ' +
        'socket; 1008 for a frame sent after auth.',
      params: SessionIdParams,
      response: { 101: { description: 'Switching Protocols: the live stream' }, ...errors(400, 404, 503) },
    },
    preValidation: beforeUpgrade('live stream'),
    handler: async (_req, reply) =>
      sendError(reply, new TermError('invalid_request', 'this endpoint is a WebSocket (ALiS): send an upgrade request (see docs/protocol.md)')),
    wsHandler: (socket, req) => {
      new AlisConnection(socket, authenticatorFor((req.params as IdParams).id, req.principal), deps.settings, req.log, deps.revocations);
    },
  });
}
