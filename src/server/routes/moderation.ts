/** A moderated session's state and a moderator's actions (pause, resume, revoke a lease, end); the rule is core's. */
import type { FastifyInstance } from 'fastify';
import { ModerationBody, ModerationStateSchema, type ModerationRequest } from '../../protocol/moderation.js';
import { SessionIdParams } from '../../protocol/http.js';
import { actorOf } from '../auth.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

export async function moderationRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.get(
    '/v1/sessions/:id/moderation',
    { schema: { summary: 'Who must be present for agents to type, who is, and whether agent input is paused', params: SessionIdParams, response: { 200: ModerationStateSchema, ...errors(404) } } },
    async (req) => sessionOf(deps, req).moderation,
  );

  app.post(
    '/v1/sessions/:id/moderation',
    {
      schema: {
        summary: "A moderator (a person's token) pauses or resumes agent input, revokes an agent's lease, or ends the session",
        params: SessionIdParams,
        body: ModerationBody,
        response: { 200: ModerationStateSchema, ...errors(400, 403, 404, 409, 413) },
      },
    },
    async (req) => {
      const { action, lease_id } = req.body as ModerationRequest;
      return unwrap(await sessionOf(deps, req).moderate(actorOf(req), action, lease_id));
    },
  );
}
