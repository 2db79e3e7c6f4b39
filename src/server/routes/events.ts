/**
 * GET /v1/events: the runtime's events as Server-Sent Events. `Last-Event-ID` resumes exactly after that event while
 * it is still in the backlog (no duplicates, no gaps); an older id gets a `reset` event first. A heartbeat comment
 * keeps idle proxies from closing the stream, and a consumer that stops reading is dropped rather than buffered.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES, type EventType, type RuntimeEvent } from '../../protocol/events.js';
import { TermError } from '../../core/index.js';
import { SESSION_REF_PATTERN } from '../../protocol/bounds.js';
import { actorOf } from '../auth.js';
import { errors, unwrap, type RouteDeps } from './common.js';

/** Unsent event text per consumer beyond which it is disconnected. */
export const SSE_MAX_BUFFERED_BYTES = 1024 * 1024;

const EventsQuery = Type.Object(
  {
    session: Type.Optional(Type.String({ pattern: SESSION_REF_PATTERN, description: 'Only events of this session (id, or the name of a live session).' })),
    types: Type.Optional(
      Type.String({
        // Names separated by single commas: one way to match any text, so the pattern cannot backtrack.
        pattern: `^[a-z_]{1,32}(,[a-z_]{1,32}){0,${EVENT_TYPES.length - 1}}$`,
        description: 'Only events of these types, comma-separated (screen_updated,secret_input_started,...); a reset is always sent.',
      }),
    ),
  },
  { additionalProperties: false },
);

export async function eventRoutes(app: FastifyInstance, deps: RouteDeps & { heartbeatMs: number }): Promise<void> {
  // Open streams never end by themselves; shutting down ends them so the server can close.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });

  app.get(
    '/v1/events',
    {
      schema: {
        summary: 'Runtime events (Server-Sent Events); resume with Last-Event-ID',
        querystring: EventsQuery,
        response: { 200: { description: 'text/event-stream; each data line is one JSON event with id, type, session_id, at', type: 'string' }, ...errors(400, 503) },
      },
    },
    async (req, reply) => {
      const { session: ref, types } = req.query as Static<typeof EventsQuery>;
      const only = types === undefined ? undefined : eventTypes(types);
      const actor = actorOf(req);
      // Events carry ids; a name stands for the live session it names now (among those the caller may see).
      const named = ref === undefined ? undefined : deps.manager.get(ref, actor);
      const session = named?.ok ? named.value.id : ref;
      const header = req.headers['last-event-id'];
      const lastId = typeof header === 'string' && /^\d+$/.test(header) ? Number(header) : undefined;
      const bus = deps.runtime.events;
      const release = unwrap(deps.slots.events.take());
      const res = reply.raw;
      reply.hijack();
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });

      let closed = false;
      let sentId = lastId ?? bus.lastId;
      const cleanups: Array<() => void> = [release];
      const close = () => {
        if (closed) return;
        closed = true;
        for (const c of cleanups.splice(0)) c();
        res.end();
      };
      const write = (text: string) => {
        if (closed) return;
        if (res.writableLength > SSE_MAX_BUFFERED_BYTES) {
          req.log.info({ buffered: res.writableLength }, 'events.slow_consumer_dropped');
          closed = true;
          for (const c of cleanups.splice(0)) c();
          res.destroy();
          return;
        }
        res.write(text);
      };
      const send = (e: RuntimeEvent) => {
        if (e.id <= sentId) return;
        sentId = e.id;
        if (session !== undefined && e.session_id !== session) return;
        if (only !== undefined && !only.has(e.type)) return;
        // Sessions outside the caller's scope do not exist for it: none of their events are sent.
        if (!bus.visibleTo(actor, e)) return;
        write(`id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`);
      };

      // Subscribe before replaying so nothing published meanwhile is missed; `sentId` drops the overlap.
      const live: RuntimeEvent[] = [];
      let replaying = true;
      cleanups.push(bus.subscribe((e) => (replaying ? live.push(e) : send(e))));
      if (lastId !== undefined) {
        const { events, reset, oldestId } = bus.since(lastId);
        if (reset) write(`data: ${JSON.stringify({ type: 'reset', oldest_id: oldestId, id: 0, session_id: null, at: new Date().toISOString() })}\n\n`);
        if (reset) sentId = oldestId - 1;
        for (const e of events) send(e);
      } else write(': connected\n\n');
      replaying = false;
      for (const e of live) send(e);
      // A consumer too slow for its own replay is already dropped, and its cleanups have run: register nothing more.
      if (closed) return;

      const heartbeat = setInterval(() => write(': heartbeat\n\n'), deps.heartbeatMs);
      cleanups.push(() => clearInterval(heartbeat));
      if (req.principal) cleanups.push(deps.revocations.track(req.principal.tokenName, close, req.principal.signIn));
      open.add(close);
      cleanups.push(() => open.delete(close));
      res.on('close', close);
    },
  );
}

/** `types=a,b` as a set, refusing a name that is no event type (a typo would otherwise silence the stream). */
function eventTypes(list: string): ReadonlySet<EventType> {
  const known = new Set<string>(EVENT_TYPES);
  const names = list.split(',');
  const unknown = names.find((n) => !known.has(n) || n === 'reset');
  if (unknown !== undefined) throw new TermError('invalid_request', `types: "${unknown}" is not an event type; see GET /schemas/event.json`, { field: 'types' });
  return new Set(names as EventType[]);
}
