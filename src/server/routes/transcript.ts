/** Stored output: paged replay, and asciicast v2 export for asciinema's player. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { TermError } from '../../core/index.js';
import { SessionIdParams, StringEnum, TranscriptPageSchema } from '../../protocol/http.js';
import { PAGE_MAX_CHUNKS } from '../../store/Store.js';
import { errors, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;
const Query = Type.Object(
  {
    from_seq: Type.Optional(Type.Integer({ minimum: 0, description: 'First stream offset wanted; page on with last_seq + 1' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX_CHUNKS, description: 'Chunks per page (at most 500; 512 KiB of text)' })),
    format: Type.Optional(StringEnum(['json', 'asciicast'], { description: 'asciicast: the whole transcript as an asciicast v2 file' })),
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
        response: { 200: TranscriptPageSchema, ...errors(400, 404) },
      },
    },
    async (req, reply) => {
      const { id } = req.params as IdParams;
      const q = req.query as Static<typeof Query>;
      const record = deps.store.record(id);
      if (!record) throw new TermError('session_not_found', `no session or record "${id}"`);
      // Readers see everything handed to the writer so far (only a held-back partial word may still be pending).
      await deps.store.flush();
      if (q.format === 'asciicast') {
        const start = Date.parse(record.created_at);
        const lines = [
          JSON.stringify({
            version: 2,
            width: record.cols,
            height: record.rows,
            timestamp: Math.floor(start / 1000),
            title: record.command.join(' '),
            env: { TERM: 'xterm-256color' },
          }),
        ];
        for (const c of deps.store.allChunks(id)) lines.push(JSON.stringify([Math.max(0, (c.at - start) / 1000), 'o', c.text]));
        return reply
          .type('application/x-asciicast')
          .header('content-disposition', `attachment; filename="termhost-${id}.cast"`)
          .send(`${lines.join('\n')}\n`);
      }
      return { session_id: id, ...deps.store.page(id, q.from_seq ?? 0, q.limit ?? PAGE_MAX_CHUNKS) };
    },
  );
}
