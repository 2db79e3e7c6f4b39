/** Long-poll until the screen shows something, output goes quiet, or the process exits. */
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { SessionIdParams, WaitBody, WaitResultSchema } from '../../protocol/http.js';
import { actorOf } from '../auth.js';
import { errors, inWaitSlot, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;

export async function waitRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.post(
    '/v1/sessions/:id/wait',
    {
      schema: {
        summary: 'Wait (at most 60 s) for text, a regex, quiet output, the prompt, a program waiting for input, or exit; returns the screen either way',
        params: SessionIdParams,
        body: WaitBody,
        response: { 200: WaitResultSchema, ...errors(400, 404, 413, 423, 503) },
      },
    },
    async (req, reply) => {
      const session = sessionOf(deps, req);
      const body = req.body as Static<typeof WaitBody>;
      return inWaitSlot(deps, reply, async (signal) => unwrap(await session.wait(actorOf(req), body, signal)));
    },
  );
}
