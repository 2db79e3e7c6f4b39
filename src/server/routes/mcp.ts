/**
 * MCP over streamable HTTP at /mcp, behind the same Host allowlist and bearer token as every route, plus an Origin
 * check (a page elsewhere may not drive terminals through a person's browser). Each MCP session runs the tools on
 * this daemon's runtime as the actor of the token that initialized it, and only that token may use it. Sessions are
 * bounded: the least recently used one is closed to make room, and revoking the token closes its sessions.
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { TermError } from '../../core/index.js';
import { RuntimeBackend } from '../../mcp/RuntimeBackend.js';
import { createMcpServer, type TermhostMcp } from '../../mcp/server.js';
import { actorOf, originAllowed } from '../auth.js';
import { sendError } from '../errors.js';
import { errors, type RouteDeps } from './common.js';

/** MCP sessions kept at once across all clients. */
export const MAX_MCP_SESSIONS = 64;

interface McpSession {
  transport: StreamableHTTPServerTransport;
  mcp: TermhostMcp;
  tokenId: string;
  lastUsed: number;
  untrack: () => void;
}

export async function mcpRoutes(app: FastifyInstance, deps: RouteDeps & { allowedOrigins: ReadonlySet<string> }): Promise<void> {
  const sessions = new Map<string, McpSession>();

  const end = (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    s.untrack();
    void s.transport.close().catch(() => {});
    void s.mcp.close().catch(() => {});
  };
  app.addHook('preClose', async () => {
    for (const id of [...sessions.keys()]) end(id);
  });

  // A hook, not the handler: it runs before anything else of the route's, an upgrade refusal included.
  const checkOrigin = (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (originAllowed(req.headers.origin, req.headers.host, deps.allowedOrigins)) return done();
    sendError(reply, new TermError('forbidden_origin', `Origin "${req.headers.origin}" may not use /mcp; allow it with --allow-origin`));
  };
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const principal = req.principal!;
    const sid = req.headers['mcp-session-id'];
    let session: McpSession | undefined;
    if (typeof sid === 'string') {
      session = sessions.get(sid);
      // Another token's session is reported exactly like a missing one.
      if (!session || session.tokenId !== principal.tokenId) {
        throw new TermError('not_found', `no MCP session "${sid.slice(0, 64)}" for this token; start a new one with an initialize request`);
      }
    } else {
      if (req.method !== 'POST') throw new TermError('invalid_request', 'send an initialize request (POST) first; GET and DELETE need the mcp-session-id header');
      if (sessions.size >= MAX_MCP_SESSIONS) {
        const oldest = [...sessions.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
        req.log.info({ evicted: oldest[0] }, 'mcp.session_evicted');
        end(oldest[0]);
      }
      const startGate = () => deps.limits.take('sessionStarts', req, 'starting sessions');
      const mcp = createMcpServer(new RuntimeBackend(deps.runtime, actorOf(req), undefined, undefined, deps.slots.waits, true, startGate));
      const fresh: McpSession = {
        transport: new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, fresh);
            fresh.untrack = deps.revocations.track(principal.tokenName, () => end(id));
          },
        }),
        mcp,
        tokenId: principal.tokenId,
        lastUsed: Date.now(),
        untrack: () => {},
      };
      fresh.transport.onclose = () => {
        if (fresh.transport.sessionId) end(fresh.transport.sessionId);
      };
      await mcp.server.connect(fresh.transport);
      session = fresh;
    }
    session.lastUsed = Date.now();
    reply.hijack();
    await session.transport.handleRequest(req.raw, reply.raw, req.body);
    // A first request that did not initialize a session leaves nothing behind.
    if (!session.transport.sessionId) void session.mcp.close().catch(() => {});
  };

  const summary = 'MCP over streamable HTTP: the same tools and resources as `termhost mcp`';
  const description =
    'POST an initialize request without mcp-session-id to start a session; later requests carry the mcp-session-id ' +
    'header the answer gave. GET opens the server-to-client stream (resource change notifications); DELETE ends the ' +
    'session. Errors before the MCP transport (token, Host, Origin, unknown session) have the usual error shape; ' +
    'protocol errors inside it are JSON-RPC errors.';
  const config = { role: 'agent' as const };
  app.post('/mcp', {
    config,
    onRequest: checkOrigin,
    schema: {
      summary,
      description,
      body: Type.Unknown({ description: 'A JSON-RPC message or batch.' }),
      response: { 200: { description: 'A JSON-RPC answer (application/json or text/event-stream)' }, ...errors(400, 401, 403, 404, 406, 413) },
    },
    handler,
  });
  for (const method of ['get', 'delete'] as const) {
    app[method]('/mcp', {
      config,
      onRequest: checkOrigin,
      schema: { summary, description, response: { 200: { description: 'GET: an event stream; DELETE: the session ended' }, ...errors(400, 401, 403, 404) } },
      handler,
    });
  }
}
