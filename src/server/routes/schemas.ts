/**
 * The wire types as JSON Schemas (2020-12), for clients in any language: GET /schemas/index.json lists them and
 * GET /schemas/{name}.json serves one. They are the very schemas the server validates and serializes with.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TermError } from '../../core/index.js';
import { RuntimeEventSchema } from '../../protocol/events.js';
import { ClientFrameSchema, ServerTextFrameSchema } from '../../protocol/frameSchemas.js';
import {
  ErrorSchema,
  InputItemSchema,
  ScreenChangesSchema,
  ScreenSchema,
  SessionInfoSchema,
  SessionRecordSchema,
  WaitResultSchema,
} from '../../protocol/http.js';
import { errors } from './common.js';

export const WIRE_SCHEMAS: Record<string, { schema: TSchema; description: string }> = {
  screen: { schema: ScreenSchema, description: 'GET /v1/sessions/{id}/screen: the rendered screen.' },
  'screen-changes': { schema: ScreenChangesSchema, description: 'GET /v1/sessions/{id}/screen?since_seq=N: what changed.' },
  'session-info': { schema: SessionInfoSchema, description: 'A live session.' },
  'session-record': { schema: SessionRecordSchema, description: 'The stored record of a session that is gone.' },
  'wait-result': { schema: WaitResultSchema, description: 'POST /v1/sessions/{id}/wait.' },
  'input-item': { schema: InputItemSchema, description: 'One item of an input batch: text, key, paste or raw.' },
  error: { schema: ErrorSchema, description: 'Every error body.' },
  'client-frame': { schema: ClientFrameSchema, description: 'Attach socket: text frames a client sends.' },
  'server-frame': { schema: ServerTextFrameSchema, description: 'Attach socket: text frames the server sends.' },
  event: { schema: RuntimeEventSchema, description: 'GET /v1/events: one event per SSE data line.' },
};

const IndexSchema = Type.Object({
  schemas: Type.Array(Type.Object({ name: Type.String(), url: Type.String(), description: Type.String() })),
});
const NameParams = Type.Object({ name: Type.String({ pattern: '^[a-z-]{1,32}$' }) });

export async function schemaRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/schemas/index.json',
    { schema: { summary: 'The JSON Schemas of the wire types: screen, frames, events', response: { 200: IndexSchema, ...errors() } } },
    async () => ({
      schemas: Object.entries(WIRE_SCHEMAS).map(([name, { description }]) => ({ name, url: `/schemas/${name}.json`, description })),
    }),
  );
  app.get(
    '/schemas/:name.json',
    {
      schema: {
        summary: 'One wire type as a JSON Schema (2020-12)',
        params: NameParams,
        response: { 200: { type: 'object', additionalProperties: true, description: 'A JSON Schema document' }, ...errors(400, 404) },
      },
    },
    async (req) => {
      const { name } = req.params as Static<typeof NameParams>;
      const entry = WIRE_SCHEMAS[name];
      if (!entry) throw new TermError('not_found', `no schema "${name}"; GET /schemas/index.json lists them`);
      return { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: `/schemas/${name}.json`, ...JSON.parse(JSON.stringify(entry.schema)) };
    },
  );
}
