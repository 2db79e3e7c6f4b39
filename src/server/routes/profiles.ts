/** The operator's command profiles, as the caller may start them (GET /v1/profiles). */
import type { FastifyInstance } from 'fastify';
import { profilesFor } from '../../core/index.js';
import { ProfilesSchema, type ProfilesAnswer } from '../../protocol/http.js';
import { actorOf } from '../auth.js';
import { errors, type RouteDeps } from './common.js';

export async function profileRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.get(
    '/v1/profiles',
    { schema: { summary: 'The command profiles this token may start (POST /v1/sessions {"profile": NAME}), and whether only they', response: { 200: ProfilesSchema, ...errors() } } },
    async (req): Promise<ProfilesAnswer> => {
      const { profiles, restricted } = profilesFor(actorOf(req), deps.manager.commands);
      return {
        restricted,
        profiles: profiles.map(([name, p]) => ({ name, command: p.command, cwd: p.cwd ?? null, cols: p.cols ?? null, rows: p.rows ?? null, labels: p.labels ?? {}, transcript: p.transcript ?? null, require_moderator: p.require_moderator === true })),
      };
    },
  );
}
