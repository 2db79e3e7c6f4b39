/** Reading what a person would see: the screen and the scrollback above it. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { withStyledRows } from '../../core/index.js';
import { ScreenSchema, ScrollbackSchema, SessionIdParams, StringEnum } from '../../protocol/http.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;
const ScreenQuery = Type.Object(
  { format: Type.Optional(StringEnum(['text', 'raw', 'styled'], { description: 'raw adds styled ANSI; styled adds rows of styled spans' })) },
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
      const { format } = req.query as Static<typeof ScreenQuery>;
      const screen = await session.screen(format === 'raw');
      return format === 'styled' ? withStyledRows(screen, session.emulator) : screen;
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
