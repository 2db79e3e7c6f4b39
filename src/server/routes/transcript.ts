/** Stored output: paged replay, and asciicast export (v3, or v2 on request) for asciinema's players. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { TermError, mayReadAuditTrail } from '../../core/index.js';
import { SessionIdParams, StringEnum, TranscriptPageSchema } from '../../protocol/http.js';
import { CAST_IDLE_LIMIT_MAX_S, PAGE_MAX_CHUNKS } from '../../store/Store.js';
import { actorOf } from '../auth.js';
import { errors, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;
const Query = Type.Object(
  {
    from_seq: Type.Optional(Type.Integer({ minimum: 0, description: 'First stream offset wanted; page on with last_seq + 1' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX_CHUNKS, description: 'Chunks per page (at most 500; 512 KiB of text)' })),
    format: Type.Optional(StringEnum(['json', 'asciicast'], { description: 'asciicast: the whole transcript as an asciicast file' })),
    version: Type.Optional(Type.Integer({ minimum: 2, maximum: 3, description: 'asciicast version: 3 (default) or 2 (asciinema 2.x)' })),
    idle_limit: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: CAST_IDLE_LIMIT_MAX_S, description: 'asciicast: cap every pause at this many seconds' })),
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
        response: { 200: TranscriptPageSchema, ...errors(400, 403, 404) },
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
