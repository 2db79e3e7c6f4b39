/** Reading what a person would see: the screen and the scrollback above it. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { PICTURE_MIME, TermError, type Picture, type PictureOptions } from '../../core/index.js';
import { Bounds, ROW_RANGE_PATTERN } from '../../protocol/bounds.js';
import { THEME_NAMES } from '../../protocol/theme.js';
import { actorOf } from '../auth.js';
import { ScreenChangesSchema, ScreenSchema, ScrollbackSchema, SessionIdParams, StringEnum } from '../../protocol/http.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;

/** Picture options (format=png or svg only). */
const PictureQuery = {
  scale: Type.Optional(
    Type.Integer({ minimum: Bounds.pictureScaleMin, maximum: Bounds.pictureScaleMax, description: `Pixels per cell row (a cell is about half as wide); default ${Bounds.pictureScaleDefault}` }),
  ),
  max_width: Type.Optional(
    Type.Integer({ minimum: Bounds.pictureMaxWidthMin, maximum: Bounds.pictureMaxWidthMax, description: 'The picture at most this wide, in pixels: the largest scale that fits (and at most scale, if given)' }),
  ),
  max_height: Type.Optional(
    Type.Integer({ minimum: Bounds.pictureMaxWidthMin, maximum: Bounds.pictureMaxWidthMax, description: 'The picture at most this tall, in pixels: the largest scale that fits (and at most scale, if given)' }),
  ),
  theme: Type.Optional(StringEnum(THEME_NAMES, { description: 'Colours: dark (default, as the UI) or light' })),
  rows: Type.Optional(Type.String({ pattern: ROW_RANGE_PATTERN, description: 'Only these screen rows, 0-based and inclusive: "0-9", or one row "23"' })),
  cursor: Type.Optional(Type.Boolean({ description: 'Draw the cursor (default true; a cursor the program hid is never drawn)' })),
};
const PICTURE_FIELDS = Object.keys(PictureQuery);
const ScreenQuery = Type.Object(
  {
    format: Type.Optional(
      StringEnum(['text', 'raw', 'styled', 'png', 'svg'], { description: 'raw adds styled ANSI; styled adds rows of styled spans; png and svg answer a picture of the screen' }),
    ),
    highlights: Type.Optional(Type.Boolean({ description: 'Add the runs drawn in inverse video (selected items).' })),
    since_seq: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Answer only what changed since the screen served at this seq (ScreenChanges).' }),
    ),
    wait_ms: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Bounds.waitMsMax, description: 'With since_seq: when nothing changed yet, wait this long for a change.' }),
    ),
    ...PictureQuery,
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
        response: {
          200: {
            description: 'A Screen or ScreenChanges (JSON); with format=png or svg, the picture',
            content: {
              'application/json': { schema: Type.Union([ScreenChangesSchema, ScreenSchema]) },
              [PICTURE_MIME.png]: { schema: Type.String({ format: 'binary' }) },
              [PICTURE_MIME.svg]: { schema: Type.String() },
            },
          },
          304: { description: 'format=png or svg with If-None-Match: the screen has not changed', type: 'null' },
          ...errors(400, 404, 423, 500, 503),
        },
      },
    },
    async (req, reply) => {
      const session = sessionOf(deps, req);
      const q = req.query as Static<typeof ScreenQuery>;
      if (q.format === 'png' || q.format === 'svg') {
        if (q.since_seq !== undefined || q.wait_ms !== undefined || q.highlights !== undefined) {
          throw new TermError('invalid_request', 'since_seq, wait_ms and highlights go with the text formats, not with a picture');
        }
        const picture = unwrap(await session.picture(actorOf(req), pictureOptions(q.format, q)));
        return sendPicture(req.headers['if-none-match'], reply, picture);
      }
      const stray = PICTURE_FIELDS.find((f) => (q as Record<string, unknown>)[f] !== undefined);
      if (stray) throw new TermError('invalid_request', `${stray} goes with format=png or format=svg`, { field: stray });
      if (q.wait_ms !== undefined && q.since_seq === undefined) {
        throw new TermError('invalid_request', 'wait_ms needs since_seq: a long poll waits for a change since a screen you already have');
      }
      if (q.since_seq === undefined) return unwrap(await session.screen(actorOf(req), { format: q.format, highlights: q.highlights }));
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

/** The route's picture fields as core's options. */
export function pictureOptions(format: 'png' | 'svg', q: { scale?: number; max_width?: number; max_height?: number; theme?: PictureOptions['theme']; rows?: string; cursor?: boolean }): PictureOptions {
  const rows = q.rows?.split('-').map(Number);
  return {
    format,
    scale: q.scale,
    maxWidth: q.max_width,
    maxHeight: q.max_height,
    theme: q.theme,
    rows: rows ? { first: rows[0]!, last: rows[1] ?? rows[0]! } : undefined,
    cursor: q.cursor,
  };
}

/**
 * A picture as the answer, with what it shows in headers. Its ETag changes whenever the screen does, so a client
 * polling an unchanged screen with If-None-Match gets 304 and no bytes (the wall of tiles does).
 */
function sendPicture(ifNoneMatch: string | undefined, reply: FastifyReply, p: Picture): FastifyReply {
  const etag = `"${p.seq}.${p.version}"`;
  reply
    .header('etag', etag)
    .header('cache-control', 'no-cache')
    .header('x-termhost-seq', String(p.seq))
    .header('x-termhost-cols', String(p.cols))
    .header('x-termhost-rows', `${p.firstRow}-${p.lastRow}`)
    .header('x-termhost-cell', `${p.cellWidth}x${p.cellHeight}`);
  if (ifNoneMatch === etag) return reply.code(304).send();
  return reply.type(PICTURE_MIME[p.format]).send(p.bytes);
}
