/** Keyboard-side input (text, keys, paste, raw) and mouse events, encoded for the application's live modes. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { InputBody, ModesSchema, MouseBody, SessionIdParams, ErrorSchema } from '../../protocol/http.js';
import { actorOf } from '../auth.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;

export async function inputRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.post(
    '/v1/sessions/:id/input',
    {
      schema: {
        summary: 'Write an input batch, validated whole and written contiguously',
        params: SessionIdParams,
        body: InputBody,
        response: {
          200: Type.Object({
            written: Type.Integer({ description: 'Items delivered.' }),
            seq: Type.Integer({ description: 'Output offset when the input was accepted: pass it as a wait\'s after_seq to skip the echo.' }),
          }),
          ...errors(400, 404, 409, 413, 423),
        },
      },
    },
    async (req) => {
      const session = sessionOf(deps, req);
      const { input, lease_id } = req.body as Static<typeof InputBody>;
      return unwrap(session.send(actorOf(req), input, { leaseId: lease_id, source: 'api' }));
    },
  );

  app.post(
    '/v1/sessions/:id/mouse',
    {
      schema: {
        summary: 'Send a mouse event; refused with 409 and the current modes when the app cannot receive it',
        params: SessionIdParams,
        body: MouseBody,
        response: {
          200: Type.Object({ written: Type.Integer({ description: 'Bytes written.' }), modes: ModesSchema }),
          ...errors(400, 404, 413),
          409: Type.Intersect([ErrorSchema, Type.Object({ modes: Type.Optional(ModesSchema) })]),
        },
      },
    },
    async (req) => {
      const session = sessionOf(deps, req);
      const { lease_id, ...event } = req.body as Static<typeof MouseBody>;
      const written = unwrap(session.mouse(actorOf(req), event, lease_id));
      return { written, modes: session.emulator.modes };
    },
  );
}
