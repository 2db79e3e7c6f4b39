/** Stored output: paged replay, and asciicast export (v3, or v2 on request) for asciinema's players. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { TermError, mayReadAuditTrail } from '../../core/index.js';
import { SessionIdParams, StringEnum, TranscriptPageSchema } from '../../protocol/http.js';
import { CAST_IDLE_LIMIT_MAX_S, PAGE_MAX_CHUNKS } from '../../store/Store.js';
import { Bounds } from '../../protocol/bounds.js';
import { THEME_NAMES } from '../../protocol/theme.js';
import { actorOf } from '../auth.js';
import { errors, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;
const Query = Type.Object(
  {
    from_seq: Type.Optional(Type.Integer({ minimum: 0, description: 'First stream offset wanted; page on with last_seq + 1' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX_CHUNKS, description: 'Chunks per page (at most 500; 512 KiB of text)' })),
    format: Type.Optional(
      StringEnum(['json', 'asciicast', 'gif'], { description: 'asciicast: the whole transcript as an asciicast file; gif: as an animated GIF, drawn as the PNG screens are' }),
    ),
    version: Type.Optional(Type.Integer({ minimum: 2, maximum: 3, description: 'asciicast version: 3 (default) or 2 (asciinema 2.x)' })),
    idle_limit: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: CAST_IDLE_LIMIT_MAX_S, description: 'asciicast and gif: cap every pause at this many seconds' })),
    speed: Type.Optional(Type.Number({ minimum: Bounds.gifSpeedMin, maximum: Bounds.gifSpeedMax, description: 'gif: playback speed (2 plays twice as fast)' })),
    scale: Type.Optional(Type.Integer({ minimum: Bounds.pictureScaleMin, maximum: Bounds.pictureScaleMax, description: `gif: pixels per cell row, default ${Bounds.pictureScaleDefault}` })),
    theme: Type.Optional(StringEnum(THEME_NAMES, { description: 'gif: colours, dark (default) or light' })),
    markers: Type.Optional(StringEnum(['1', 'true'], { description: 'asciicast: include markers ("m" events): where secret-input windows opened and closed, where commands started and ended' })),
    audit: Type.Optional(StringEnum(['1', 'true'], { description: "asciicast: the session's audit trail as markers too (who attached, typed how many bytes, resized...); needs the human role" })),
  },
  { additionalProperties: false },
);

export async function transcriptRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.get(
    '/v1/sessions/:id/transcript',
    {
      schema: {
        summary: 'The stored (redacted) output of a live or ended session, paged; or ?format=asciicast',
        params: SessionIdParams,
        querystring: Query,
        response: {
          200: {
            description: 'A TranscriptPage (JSON); with format=asciicast the file; with format=gif the animation',
            content: {
              'application/json': { schema: TranscriptPageSchema },
              'application/x-asciicast': { schema: Type.String() },
              'image/gif': { schema: Type.String({ format: 'binary' }) },
            },
          },
          ...errors(400, 403, 404, 500, 503),
        },
      },
    },
    async (req, reply) => {
      const { id } = req.params as IdParams;
      const q = req.query as Static<typeof Query>;
      // Readers see everything handed to the writer so far (only a held-back partial word may still be pending). The
      // flush comes first, for every caller alike: it completes a new record's labels, which the scope rule reads.
      await deps.store.flush();
      const actor = actorOf(req);
      const record = deps.store.record(id, actor);
      if (!record) throw new TermError('session_not_found', `no session or record "${id}"`);
      if (q.audit !== undefined && q.format !== 'asciicast') throw new TermError('invalid_request', 'audit=1 belongs to format=asciicast; the audit trail itself is GET /v1/audit?session=ID', { field: 'audit' });
      // The record is in the reader's scope, so its audit entries are too: what is left to check is the role.
      if (q.audit !== undefined) unwrap(mayReadAuditTrail(actor));
      const gifOnly = (['speed', 'scale', 'theme'] as const).find((f) => q[f] !== undefined);
      if (gifOnly && q.format !== 'gif') throw new TermError('invalid_request', `${gifOnly} goes with format=gif`, { field: gifOnly });
      if (q.format === 'gif') {
        if (q.version !== undefined || q.markers !== undefined || q.audit !== undefined) throw new TermError('invalid_request', 'version, markers and audit go with format=asciicast');
        const recording = deps.store.recording(record, { idleLimitS: q.idle_limit });
        const gif = unwrap(await deps.manager.pictures.gif(recording, { speed: q.speed, scale: q.scale, theme: q.theme }));
        return reply
          .type('image/gif')
          .header('x-termhost-frames', String(gif.frames))
          .header('content-disposition', `attachment; filename="termhost-${id}.gif"`)
          .send(gif.bytes);
      }
      if (q.format === 'asciicast') {
        const cast = deps.store.asciicast(record, { version: q.version === 2 ? 2 : 3, idleLimitS: q.idle_limit, markers: q.markers !== undefined, audit: q.audit !== undefined });
        return reply
          .type('application/x-asciicast')
          .header('content-disposition', `attachment; filename="termhost-${id}.cast"`)
          .send(cast);
      }
      return { session_id: id, ...deps.store.page(id, q.from_seq ?? 0, q.limit ?? PAGE_MAX_CHUNKS) };
    },
  );
}
