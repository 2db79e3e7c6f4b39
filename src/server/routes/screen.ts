/** Reading what a person would see: the screen and the scrollback above it. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { TermError } from '../../core/index.js';
import { Bounds } from '../../protocol/bounds.js';
import { actorOf } from '../auth.js';
import { ScreenChangesSchema, ScreenSchema, ScrollbackSchema, SessionIdParams, StringEnum } from '../../protocol/http.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;
const ScreenQuery = Type.Object(
  {
    format: Type.Optional(StringEnum(['text', 'raw', 'styled'], { description: 'raw adds styled ANSI; styled adds rows of styled spans' })),
    highlights: Type.Optional(Type.Boolean({ description: 'Add the runs drawn in inverse video (selected items).' })),
    since_seq: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Answer only what changed since the screen served at this seq (ScreenChanges).' }),
    ),
    wait_ms: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Bounds.waitMsMax, description: 'With since_seq: when nothing changed yet, wait this long for a change.' }),
    ),
  },
  { additionalProperties: false },
);
const ScrollbackQuery = Type.Object(
  { lines: Type.Optional(Type.Integer({ minimum: 0, maximum: Bounds.scrollbackLinesMax, description: 'default 100' })) },
  { additionalProperties: false },
);

export async function screenRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.get(
    '/v1/sessions/:id/screen',
    {
      schema: {
        summary: 'The rendered screen: text lines, cursor, modes, exit state; or, with since_seq, only what changed',
        description:
          'Without since_seq the answer is a Screen. With since_seq=N it is a ScreenChanges: the rows that changed since ' +
          'the screen served at seq N, or the full screen (full=true) when that screen is no longer known.',
        params: SessionIdParams,
        querystring: ScreenQuery,
        // ScreenChanges first: the serializer uses the first schema an answer fits, and a full-screen ScreenChanges
        // would also fit Screen (losing since_seq, changed and full).
        response: { 200: Type.Union([ScreenChangesSchema, ScreenSchema]), ...errors(400, 404, 423, 503) },
      },
    },
    async (req, reply) => {
      const session = sessionOf(deps, req);
      const q = req.query as Static<typeof ScreenQuery>;
      if (q.wait_ms !== undefined && q.since_seq === undefined) {
        throw new TermError('invalid_request', 'wait_ms needs since_seq: a long poll waits for a change since a screen you already have');
      }
      if (q.since_seq === undefined) return unwrap(await session.screen(actorOf(req), q));
      // A long poll holds one of the daemon's wait slots for as long as it waits.
      const release = q.wait_ms ? unwrap(deps.slots.waits.take()) : () => {};
      // A client that hangs up ends its long poll, so abandoned polls hold no timers or listeners.
      const abort = new AbortController();
      const onClose = () => abort.abort();
      reply.raw.once('close', onClose);
      try {
        return unwrap(await session.changes(actorOf(req), q.since_seq, { waitMs: q.wait_ms, highlights: q.highlights, signal: abort.signal }));
      } finally {
        reply.raw.off('close', onClose);
        release();
      }
    },
  );

  app.get(
    '/v1/sessions/:id/scrollback',
    {
      schema: {
        summary: 'The last N lines that scrolled off the top of the screen',
        params: SessionIdParams,
        querystring: ScrollbackQuery,
        response: { 200: ScrollbackSchema, ...errors(400, 404, 423) },
      },
    },
    async (req) => {
      const session = sessionOf(deps, req);
      return unwrap(await session.scrollback(actorOf(req), (req.query as Static<typeof ScrollbackQuery>).lines));
    },
  );
}
