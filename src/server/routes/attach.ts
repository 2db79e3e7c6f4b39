/**
 * Live attach: the WebSocket endpoint, attach tokens for clients that cannot send headers, and banners for the
 * people watching; and the same session as an asciinema live stream (ALiS), read-only, for asciinema-player. Both
 * sockets are admitted by the same checks and authenticated by the same first frame and rule. The protocols are in
 * protocol/attach.ts, protocol/alis.ts and docs/protocol.md.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { TermError, atLeast } from '../../core/index.js';
import type { Role } from '../../protocol/attach.js';
import { AttachTokenBody, AttachTokenSchema, BannerBody, SessionIdParams, SessionInfoSchema } from '../../protocol/http.js';
import { ATTACH_TOKEN_TTL_S, AttachTokens } from '../attachTokens.js';
import { AttachConnection, type AttachSettings, type Authenticate } from '../attach/AttachConnection.js';
import { AlisConnection } from '../attach/AlisConnection.js';
import type { Principal } from '../TokenStore.js';
import type { Session } from '../../core/index.js';
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
    const found = deps.manager.get((req.params as IdParams).id);
    if (!found.ok) return sendError(reply, found.error);
    // An upgrade holds a slot until its connection closes, however it ends (refused upgrade, auth failure, close).
    if (req.headers.upgrade?.toLowerCase() === 'websocket') {
      const slot = deps.slots.attach.take();
      if (!slot.ok) return sendError(reply, slot.error);
      req.raw.socket.once('close', slot.value);
    }
  };

  /** Who a first frame's credential stands for on this session, and the most it may do: the one rule both sockets use. */
  const authenticatorFor = (session: Session, headerPrincipal: Principal | undefined): Authenticate => (frame) => {
    // The bearer header, or a bearer token in the frame: the token's own actor; viewers can only watch.
    const bearer = frame.token === undefined ? headerPrincipal : deps.tokens.resolve(frame.token);
    if (bearer) return { ok: true, maxRole: atLeast(bearer.actor, 'agent') ? 'driver' : 'viewer', ...bearer };
    if (frame.token === undefined) return { ok: false, reason: 'a token is required in the auth frame' };
    const grant = deps.attachTokens.redeem(frame.token, session.id);
    if (!grant || !deps.tokens.isLive(grant.tokenId)) return { ok: false, reason: 'the token is invalid, expired, already used, revoked, or for another session' };
    return { ok: true, maxRole: grant.role, actor: grant.actor, tokenName: grant.tokenName };
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
      const session = sessionOf(deps, (req.params as IdParams).id);
      const role: Role = (req.body as Static<typeof AttachTokenBody> | undefined)?.role ?? 'viewer';
      const principal = req.principal!;
      // A token may carry at most what its minter has: viewers mint viewer tokens only.
      if (role === 'driver' && !atLeast(principal.actor, 'agent')) {
        throw new TermError('forbidden', 'a viewer cannot mint a driver attach token; ask for role "viewer"');
      }
      return reply.code(201).send({
        token: deps.attachTokens.mint(session.id, role, principal.actor, principal.tokenName, principal.tokenId),
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
      const session = sessionOf(deps, (req.params as IdParams).id);
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
      const found = deps.manager.get((req.params as IdParams).id);
      if (!found.ok) return socket.close(4004, 'no such session');
      new AttachConnection(socket, found.value, authenticatorFor(found.value, req.principal), deps.settings, req.log, deps.revocations);
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
      const found = deps.manager.get((req.params as IdParams).id);
      if (!found.ok) return socket.close(4004, 'no such session');
      new AlisConnection(socket, found.value, authenticatorFor(found.value, req.principal), deps.settings, req.log, deps.revocations);
    },
  });
}
