/** Session lifecycle: create, list, inspect, delete, signal, resize. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Signal } from '../../core/index.js';
import {
  StringEnum,
  SessionRecordSchema,
  CreateSessionBody,
  ResizeBody,
  SessionIdParams,
  SessionInfoSchema,
  SignalAnswerSchema,
  SignalBody,
  SignalName,
} from '../../protocol/http.js';
import { requireRole } from '../../core/index.js';
import { actorOf } from '../auth.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;

const ListQuery = Type.Object(
  {
    label: Type.Optional(Type.Array(Type.String({ pattern: '^[^=]+=.*$' }), { description: 'k=v; repeat to AND' })),
    include: Type.Optional(StringEnum(['ended'], { description: 'ended: also list stored records of sessions that are gone' })),
  },
  { additionalProperties: false },
);
const DeleteQuery = Type.Object(
  {
    signal: Type.Optional(SignalName),
    purge: Type.Optional(StringEnum(['1', 'true'], { description: 'also delete the stored record and transcript' })),
  },
  { additionalProperties: false },
);
const InfoOrRecord = Type.Union([SessionInfoSchema, SessionRecordSchema]);

export async function sessionRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.post(
    '/v1/sessions',
    {
      schema: {
        summary: 'Start a program in a new PTY session',
        body: CreateSessionBody,
        response: { 201: SessionInfoSchema, ...errors(400, 413, 500, 503) },
      },
      // No body at all means every default, like an empty object.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req, reply) => {
      const limited = await deps.limits.take('sessionStarts', req, 'starting sessions');
      if (limited) throw limited;
      const session = unwrap(deps.manager.create((req.body ?? {}) as Static<typeof CreateSessionBody>, actorOf(req)));
      req.log.debug({ session: session.id, pid: session.pid }, 'session.create');
      return reply.code(201).send(session.info());
    },
  );

  app.get(
    '/v1/sessions',
    {
      schema: {
        summary: 'List sessions, optionally filtered by labels',
        querystring: ListQuery,
        response: { 200: Type.Object({ sessions: Type.Array(InfoOrRecord) }), ...errors(400) },
      },
    },
    async (req) => {
      const q = req.query as Static<typeof ListQuery>;
      const labels: Record<string, string> = {};
      for (const pair of q.label ?? []) {
        const eq = pair.indexOf('=');
        labels[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      const actor = actorOf(req);
      const live = deps.manager.list(labels, actor).map((s) => s.info());
      if (q.include !== 'ended') return { sessions: live };
      const wanted = Object.entries(labels);
      const held = new Set(deps.manager.all().map((s) => s.id));
      const ended = deps.store.records(held, actor).filter((r) => wanted.every(([k, v]) => r.labels[k] === v));
      return { sessions: [...live, ...ended] };
    },
  );

  app.post(
    '/v1/sessions/prune',
    {
      schema: {
        summary: 'Free every session whose process has exited (their records stay in the store)',
        response: { 200: Type.Object({ removed: Type.Array(Type.String(), { description: 'Ids of the sessions freed.' }) }), ...errors() },
      },
    },
    async (req) => ({ removed: unwrap(deps.manager.prune(actorOf(req))) }),
  );

  app.get(
    '/v1/sessions/:id',
    {
      schema: {
        summary: 'One session, or its stored record (live: false) once it is gone',
        params: SessionIdParams,
        response: { 200: InfoOrRecord, ...errors(404) },
      },
    },
    async (req) => {
      const { id } = req.params as IdParams;
      const actor = actorOf(req);
      const live = deps.manager.get(id, actor);
      if (live.ok) return live.value.info();
      const record = deps.store.record(id, actor);
      if (!record) throw live.error;
      return record;
    },
  );

  app.delete(
    '/v1/sessions/:id',
    {
      schema: {
        summary: 'End every process of the session (default HUP, SIGKILL after 3 s) and free the session',
        params: SessionIdParams,
        querystring: DeleteQuery,
        response: { 204: Type.Null(), ...errors(400, 404) },
      },
    },
    async (req, reply) => {
      const { id } = req.params as IdParams;
      const q = req.query as Static<typeof DeleteQuery>;
      const sig = (q.signal ?? 'HUP') as Signal;
      const actor = actorOf(req);
      const live = deps.manager.get(id, actor);
      if (live.ok) unwrap(await deps.manager.delete(actor, id, sig));
      else unwrap(requireRole(actor, 'agent', 'purging a stored record'));
      if (q.purge !== undefined) {
        // Only a record the caller may see: one outside its scope is as missing as one that never was.
        const purged = deps.store.record(id, actor) !== undefined && deps.store.purge(id);
        if (purged) deps.runtime.audit.record(id, actor, 'session_purged');
        if (!purged && !live.ok) throw live.error;
      } else if (!live.ok) throw live.error;
      req.log.debug({ session: id, signal: sig }, 'session.delete');
      return reply.code(204).send();
    },
  );

  app.post(
    '/v1/sessions/:id/signal',
    {
      schema: {
        summary: "Send a signal to the terminal's foreground process group, as Ctrl-C does; the session stays",
        params: SessionIdParams,
        body: SignalBody,
        response: { 200: SignalAnswerSchema, ...errors(400, 404, 409, 413) },
      },
    },
    async (req) => {
      const session = sessionOf(deps, req);
      const signalled = unwrap(session.signal(actorOf(req), (req.body as Static<typeof SignalBody>).signal as Signal));
      return { ...session.info(), signalled };
    },
  );

  app.post(
    '/v1/sessions/:id/resize',
    {
      schema: {
        summary: 'Resize the terminal; the application gets SIGWINCH',
        params: SessionIdParams,
        body: ResizeBody,
        response: { 200: SessionInfoSchema, ...errors(400, 404, 413) },
      },
    },
    async (req) => {
      const session = sessionOf(deps, req);
      const { cols, rows } = req.body as Static<typeof ResizeBody>;
      unwrap(session.resize(actorOf(req), cols, rows));
      return session.info();
    },
  );
}
