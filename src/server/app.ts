/**
 * The fastify application: Host and token checks, per-route roles, the error shape, schemas, OpenAPI, and one file
 * of routes per resource. It knows the runtime only through core/index.ts.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import { Ajv } from 'ajv';
import swagger from '@fastify/swagger';
import websocket from '@fastify/websocket';
import { TermError, type Runtime } from '../core/index.js';
import { MAX_FRAME_BYTES } from '../protocol/attach.js';
import { ALIS_SUBPROTOCOL } from '../protocol/alis.js';
import { VERSION } from '../version.js';
import { DEFAULT_ATTACH_SETTINGS, type AttachSettings } from './attach/AttachConnection.js';
import { AttachTokens } from './attachTokens.js';
import { makeAuthHook, normalizeOrigin, refuseForeignUpgrades, roleHook } from './auth.js';
import { RATE_LIMIT_DEFAULTS, RateLimiter, type RateLimits } from './rateLimits.js';
import { errorHandler, sendError } from './errors.js';
import { Revocations } from './Revocations.js';
import { attachRoutes } from './routes/attach.js';
import { auditRoutes } from './routes/audit.js';
import { profileRoutes } from './routes/profiles.js';
import { errors, type ConnectionSlots } from './routes/common.js';
import { commandRoutes } from './routes/commands.js';
import { controlRoutes } from './routes/control.js';
import { moderationRoutes } from './routes/moderation.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { mcpRoutes } from './routes/mcp.js';
import { inputRoutes } from './routes/input.js';
import { schemaRoutes } from './routes/schemas.js';
import { screenRoutes } from './routes/screen.js';
import { sessionRoutes } from './routes/sessions.js';
import { tokenRoutes } from './routes/tokens.js';
import { waitRoutes } from './routes/wait.js';
import type { TokenStore } from './TokenStore.js';
import type { Store } from '../store/Store.js';
import { transcriptRoutes } from './routes/transcript.js';
import { uiRoutes } from './routes/ui.js';
import { uiCookieOf, uiKeyOf, uiLoginRoutes } from './routes/uiLogin.js';
import { UiLogins } from './UiLogins.js';
import { loggerOptions, pathOf, type LogOptions } from './logRedaction.js';
import { Slots } from './Slots.js';
import { capSockets } from './sockets.js';
import { LogThrottle } from './logThrottle.js';

type ContentTypeParser = (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => void;

/** Request bodies past this size are refused with 413 before they are parsed. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface ServerOptions {
  runtime: Runtime;
  tokens: TokenStore;
  store: Store;
  /** Host names accepted besides loopback names. */
  allowedHosts?: string[];
  /** Exact origins (scheme://host:port) allowed to attach from a browser, besides the daemon's own. */
  allowedOrigins?: string[];
  /** Attach socket timings and bounds; tests shorten them. */
  attach?: Partial<AttachSettings>;
  /** SSE heartbeat interval; tests shorten it. */
  heartbeatMs?: number;
  /** Level, format (json or text) and destination of the log, or false for no logging. */
  logger?: boolean | LogOptions;
  /** Browser sign-ins for the UI; in memory only when absent. */
  uiLogins?: UiLogins;
  /** Caps on sockets and long-lived requests open at once, and request timeouts (defaults: CONNECTION_LIMITS). */
  connections?: Partial<typeof CONNECTION_LIMITS>;
  /** Per-minute limits per token and per address (defaults: RATE_LIMIT_DEFAULTS; 0 turns one off). */
  rateLimits?: Partial<RateLimits>;
  /** Serve HTTPS (and WSS) with this certificate chain and key, PEM. */
  tls?: { cert: Buffer; key: Buffer };
}

/** Connections and long-lived requests open at once, per daemon, and how long a request may take to arrive. */
export const CONNECTION_LIMITS = {
  /** Attach sockets, each with up to 4 MiB of queued output; past this, 503 connection_limit. */
  attachSockets: 256,
  /** Event streams, each with up to 1 MiB of unsent events; past this, 503 connection_limit. */
  eventStreams: 64,
  /** Waits and screen long polls in progress; past this, 503 connection_limit. */
  waits: 256,
  /**
   * Sockets (TCP or unix) open at once. A full daemon closes its least recently active idle socket for a newcomer,
   * and answers 503 connection_limit only when every socket is busy (see sockets.ts). Well above the three caps above
   * together (576), so the long-lived requests they allow never crowd out a short one.
   */
  sockets: 1024,
  /** A client must send its request headers within this; Node's default, 60 s, lets idle sockets linger. */
  headersTimeoutMs: 10_000,
  /**
   * ... and its whole request, body included, within this. Only the arrival of the request is timed: answers may take
   * as long as they need (long polls, event streams, attach sockets).
   */
  requestTimeoutMs: 30_000,
};

/** How often Node checks those two timeouts (its default, 30 s, would let a 10 s timeout run to 40 s). */
const TIMEOUT_CHECK_MS = 1000;

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: ReadonlyArray<{ method: string; url: string }>;
    /** The caps on long-lived requests, with how many of each are open now. */
    connectionSlots: ConnectionSlots;
    /** Sockets the daemon holds now (at most CONNECTION_LIMITS.sockets). */
    openSockets(): number;
  }
}

export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const caps = { ...CONNECTION_LIMITS, ...opts.connections };
  // fastify's two lines per request (incoming, completed) are replaced by one, at debug: at the default level the log
  // says what a person wants to know (start, listen address, sessions, auth failures, shutdown), not every request.
  // fastify's own TLS: the same server, routes and hooks, over node:https.
  const app = Fastify({
    ...(opts.tls ? { https: { cert: opts.tls.cert, key: opts.tls.key } } : {}),
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: caps.requestTimeoutMs,
    http: { headersTimeout: caps.headersTimeoutMs, connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, caps.headersTimeoutMs) },
    logger: loggerOptions(opts.logger),
    logController: new LogController({ disableRequestLogging: true }),
  });
  const capLog = new LogThrottle(1, 10_000);
  const sockets = capSockets(app.server, caps.sockets, {
    evicted: () => {
      const held = capLog.take();
      if (held) app.log.warn({ max: caps.sockets, ...held }, `${caps.sockets} connections open: closing the least recently active idle ones`);
    },
    refused: () => {
      const held = capLog.take();
      if (held) app.log.warn({ max: caps.sockets, ...held }, `${caps.sockets} connections open and all busy: refusing new ones with 503`);
    },
  });
  app.decorate('openSockets', () => sockets.open);
  app.addHook('onResponse', (req, reply, done) => {
    req.log.debug({ method: req.method, path: pathOf(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
  logLifecycle(app, opts.runtime);
  // Query strings and path params are text, so their numbers and arrays are coerced from strings; JSON bodies are
  // typed already, and a "70" where a number belongs is refused rather than guessed.
  const ajvOptions = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false } as const;
  const bodyAjv = new Ajv({ ...ajvOptions, coerceTypes: false });
  const textAjv = new Ajv({ ...ajvOptions, coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));
  app.setErrorHandler(errorHandler);
  // An empty body with a JSON content type (common from curl and some clients on DELETE) means "no body"; anything
  // else goes through fastify's parser, which refuses __proto__ and constructor.prototype keys.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  const parseJson: ContentTypeParser = (req, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    jsonParser(req, body as string, done);
  };
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  // Every other Content-Type, and none. `curl -d` sends application/x-www-form-urlencoded, and a hand-written request
  // may send no type at all: with a bearer token both are read as JSON, the only thing this API speaks. Never for the
  // browser's cookie: a form posted by another page is the classic CSRF, while a page cannot send application/json to
  // another origin without the browser asking first (CORS preflight).
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const bearer = req.principal !== undefined && req.headers.authorization !== undefined;
    if (bearer && (type === '' || type === 'application/x-www-form-urlencoded')) return parseJson(req, body, done);
    const how = bearer ? 'Content-Type: application/json (curl --json, or -d with a bearer token)' : 'Content-Type: application/json (a signed-in browser must)';
    done(new TermError('invalid_request', `send the body as JSON with ${how}; got ${type ? `"${type.slice(0, 100)}"` : 'no Content-Type'}`), undefined);
  });
  app.setNotFoundHandler((req, reply) => {
    void sendError(reply, new TermError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`));
  });
  // Every route, as registered: the OpenAPI test checks each one is documented.
  const routes: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push({ method, url: r.url });
    // Which routes are WebSockets, for the upgrade check below (the plugin would upgrade any route it is asked to).
    if (r.wsHandler) r.config = { ...r.config, websocket: true };
    // The OpenAPI document's "no credential" (`security: []`) is what makes a route public: one statement, so the
    // document and the auth hook cannot disagree.
    const documentedPublic = Array.isArray(r.schema?.security) && r.schema.security.length === 0;
    if (documentedPublic && r.config?.auth === undefined) r.config = { ...r.config, auth: 'public' };
    else if (documentedPublic !== (r.config?.auth === 'public')) throw new Error(`${r.url}: auth 'public' and schema security: [] go together`);
  });
  app.decorate('registeredRoutes', routes);
  app.decorateRequest('principal', undefined);
  const uiLogins = opts.uiLogins ?? new UiLogins(opts.tokens, { daemonToken: '' });
  if (!opts.uiLogins) app.addHook('onClose', async () => uiLogins.dispose());
  const allowedOrigins = new Set((opts.allowedOrigins ?? []).map(normalizeOrigin));
  const limits = await RateLimiter.register(app, { ...RATE_LIMIT_DEFAULTS, ...opts.rateLimits });
  app.addHook(
    'onRequest',
    makeAuthHook({
      limits,
      tokens: opts.tokens,
      allowedHosts: new Set(opts.allowedHosts ?? []),
      cookie: (req) => {
        const cookie = uiCookieOf(req);
        return { principal: cookie === undefined ? undefined : uiLogins.resolve(cookie, uiKeyOf(req)), present: cookie !== undefined };
      },
      allowedOrigins,
    }),
  );
  // After every onRequest hook, the routes' own included (/mcp checks its Origin there), and before any handler.
  app.addHook('preParsing', (req, reply, _payload, done) => refuseForeignUpgrades(req, reply, () => done()));
  app.addHook('preHandler', roleHook);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'termhost', version: VERSION, description: 'Terminal host for agents and people.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  // Frames over 1 MiB are refused by ws itself, before they are buffered whole or parsed (close code 1009).
  await app.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES, handleProtocols: chooseSubprotocol } });

  const revocations = new Revocations(opts.tokens);
  uiLogins.onSignedOut = (ids) => revocations.signedOut(ids);
  const slots = {
    attach: new Slots('attach_sockets', caps.attachSockets, 'attach sockets'),
    events: new Slots('event_streams', caps.eventStreams, 'event streams'),
    waits: new Slots('waits', caps.waits, 'waits and screen long polls'),
  };
  app.decorate('connectionSlots', slots);
  const deps = { manager: opts.runtime.sessions, runtime: opts.runtime, tokens: opts.tokens, store: opts.store, revocations, slots, limits };
  await app.register(healthRoutes);
  await app.register(async (scope) => sessionRoutes(scope, deps));
  await app.register(async (scope) => inputRoutes(scope, deps));
  await app.register(async (scope) => screenRoutes(scope, deps));
  await app.register(async (scope) => waitRoutes(scope, deps));
  await app.register(async (scope) => commandRoutes(scope, deps));
  await app.register(async (scope) => controlRoutes(scope, deps));
  await app.register(async (scope) => moderationRoutes(scope, deps));
  await app.register(async (scope) => eventRoutes(scope, { ...deps, heartbeatMs: opts.heartbeatMs ?? 15_000 }));
  await app.register(async (scope) => tokenRoutes(scope, deps));
  await app.register(async (scope) => transcriptRoutes(scope, deps));
  await app.register(async (scope) => auditRoutes(scope, deps));
  await app.register(async (scope) => profileRoutes(scope, deps));
  await app.register(async (scope) =>
    attachRoutes(scope, {
      ...deps,
      attachTokens: new AttachTokens(),
      settings: { ...DEFAULT_ATTACH_SETTINGS, ...opts.attach },
      allowedOrigins,
    }),
  );
  await app.register(async (scope) => uiLoginRoutes(scope, { ...deps, uiLogins }));
  await app.register(uiRoutes);
  await app.register(async (scope) => mcpRoutes(scope, { ...deps, allowedOrigins }));
  await app.register(schemaRoutes);
  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This document: every route with its request and response schemas and error codes (OpenAPI 3.1)',
        response: { 200: { type: 'object', additionalProperties: true, description: 'An OpenAPI 3.1 document' }, ...errors() },
      },
    },
    async () => app.swagger(),
  );
  return app;
}

/** One line each for the daemon's start and shutdown and for every session's start and end, whoever started it. */
function logLifecycle(app: FastifyInstance, runtime: Runtime): void {
  app.addHook('onReady', (done) => {
    app.log.info({ version: VERSION, pid: process.pid }, `termhost ${VERSION} starting`);
    done();
  });
  app.addHook('preClose', (done) => {
    app.log.info('termhost shutting down');
    done();
  });
  const off = runtime.events.subscribe((e) => {
    if (e.type === 'session_opened') {
      // The program's name only: arguments may carry secrets, and the log is a file on disk.
      const program = String((e.command as string[] | undefined)?.[0] ?? '').split('/').pop();
      app.log.info({ session: e.session_id, program, child_pid: e.pid }, `session ${e.session_id} started: ${program} (pid ${e.pid})`);
    } else if (e.type === 'process_exited') {
      const how = e.signal ? `killed by ${String(e.signal)}` : `exit ${String(e.code)}`;
      app.log.info({ session: e.session_id, code: e.code, signal: e.signal, reason: e.reason }, `session ${e.session_id} ended: ${how}`);
    }
  });
  app.addHook('onClose', (_app, done) => {
    off();
    done();
  });
}

/**
 * The subprotocol a WebSocket upgrade gets. The live stream speaks ALiS and says so when asked (asciinema-player
 * offers several and plays whichever the server picks); a client that offers ALiS no protocol it can have is told
 * none, and a browser then refuses the socket. Other sockets keep ws's default, the first offered.
 */
function chooseSubprotocol(offered: Set<string>, req: { url?: string }): string | false {
  if (/\/alis$/.test(req.url ?? '')) return offered.has(ALIS_SUBPROTOCOL) ? ALIS_SUBPROTOCOL : false;
  return offered.values().next().value ?? false;
}
