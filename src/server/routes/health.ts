import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { VERSION } from '../../version.js';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness; the only route that needs no token',
        security: [],
        response: { 200: Type.Object({ ok: Type.Boolean(), version: Type.String() }) },
      },
    },
    async () => ({ ok: true, version: VERSION }),
  );
}
