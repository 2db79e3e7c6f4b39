/** Who may type: input leases, and the secret-input window. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { LeaseBody, LeaseSchema, SecretActionBody, SecretStateSchema, SessionIdParams } from '../../protocol/http.js';
import { actorOf } from '../auth.js';
import { errors, sessionOf, unwrap, type RouteDeps } from './common.js';

type IdParams = Static<typeof SessionIdParams>;
const LeaseParams = Type.Object({ id: SessionIdParams.properties.id, lease_id: Type.String({ maxLength: 64 }) });

export async function controlRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.get(
    '/v1/sessions/:id/leases',
    {
      schema: { summary: 'Current input leases', params: SessionIdParams, response: { 200: Type.Object({ leases: Type.Array(LeaseSchema) }), ...errors(404) } },
    },
    async (req) => ({ leases: sessionOf(deps, req).leases() }),
  );

  app.post(
    '/v1/sessions/:id/leases',
    {
      schema: {
        summary: 'Take (or, with lease_id, renew) a shared or exclusive input lease',
        params: SessionIdParams,
        body: LeaseBody,
        response: { 200: LeaseSchema, ...errors(400, 404, 409, 413) },
      },
    },
    async (req) => {
      const session = sessionOf(deps, req);
      const body = req.body as Static<typeof LeaseBody>;
      return unwrap(session.acquireLease(actorOf(req), body.mode, body.ttl_ms, body.lease_id));
    },
  );

  app.delete(
    '/v1/sessions/:id/leases/:lease_id',
    {
      schema: { summary: 'Release a lease', params: LeaseParams, response: { 204: Type.Null(), ...errors(404) } },
    },
    async (req, reply) => {
      const { lease_id } = req.params as Static<typeof LeaseParams>;
      unwrap(sessionOf(deps, req).releaseLease(actorOf(req), lease_id));
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/sessions/:id/secret-input',
    { schema: { summary: 'Whether a secret-input window is open', params: SessionIdParams, response: { 200: SecretStateSchema, ...errors(404) } } },
    async (req) => sessionOf(deps, req).secretState,
  );

  app.post(
    '/v1/sessions/:id/secret-input/actions',
    {
      schema: {
        summary: 'Start (anyone) or end (people only, once output has settled) a secret-input window',
        params: SessionIdParams,
        body: SecretActionBody,
        response: { 200: SecretStateSchema, ...errors(400, 404, 409, 413) },
      },
    },
    async (req) => {
      const { action, reason } = req.body as Static<typeof SecretActionBody>;
      return unwrap(sessionOf(deps, req).secretAction(actorOf(req), action, reason));
    },
  );
}
