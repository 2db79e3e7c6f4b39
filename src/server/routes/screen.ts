/** Reading what a person would see: the screen and the scrollback above it. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ScreenSchema, ScrollbackSchema, SessionIdParams } from '../../protocol/http.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;
const ScreenQuery = Type.Object(
  { format: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('raw')], { description: 'raw adds styled ANSI' })) },
  { additionalProperties: false },
);
const ScrollbackQuery = Type.Object(
  { lines: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000, description: 'default 100' })) },
  { additionalProperties: false },
);

export async function screenRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.get(
    '/v1/sessions/:id/screen',
    {
      schema: {
        summary: 'The rendered screen: text lines, cursor, modes, exit state',
        params: SessionIdParams,
        querystring: ScreenQuery,
        response: { 200: ScreenSchema, ...errors(400, 404, 423) },
      },
    },
    async (req) => {
      const session = sessionOf(deps, (req.params as IdParams).id);
      unwrap(session.readable());
      return session.screen((req.query as Static<typeof ScreenQuery>).format === 'raw');
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
      const session = sessionOf(deps, (req.params as IdParams).id);
      unwrap(session.readable());
      return session.scrollback((req.query as Static<typeof ScrollbackQuery>).lines ?? 100);
    },
  );
}
