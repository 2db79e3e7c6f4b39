/** Token management, for admins: create (shown once), list, revoke. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { CreateTokenBody, TokenInfoSchema } from '../../protocol/http.js';
import { scopeToText } from '../../protocol/scopeText.js';
import { actorOf } from '../auth.js';
import { errors, unwrap, type RouteDeps } from './common.js';

const NameParams = Type.Object({ name: Type.String({ maxLength: 64 }) });

export async function tokenRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.post(
    '/v1/tokens',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Create a named token with a role, and optionally a scope and the command profiles it may start; the secret is returned once and stored only as a hash',
        body: CreateTokenBody,
        response: { 201: Type.Intersect([TokenInfoSchema, Type.Object({ token: Type.String() })]), ...errors(400, 409, 413) },
      },
    },
    async (req, reply) => {
      const { name, role, scope, profiles } = req.body as Static<typeof CreateTokenBody>;
      const created = unwrap(deps.tokens.create(name, role, { scope, profiles }));
      deps.runtime.audit.record(null, actorOf(req), 'token_created', { name, role, scope: scopeToText(created.info.scope), profiles: created.info.profiles?.join(',') ?? null });
      req.log.info({ token_name: name, role }, 'token.create');
      return reply.code(201).send({ ...created.info, token: created.token });
    },
  );

  app.get(
    '/v1/tokens',
    { config: { role: 'admin' }, schema: { summary: 'List tokens (names, roles and scopes; never secrets)', response: { 200: Type.Object({ tokens: Type.Array(TokenInfoSchema) }), ...errors() } } },
    async () => ({ tokens: deps.tokens.list() }),
  );

  app.delete(
    '/v1/tokens/:name',
    {
      config: { role: 'admin' },
      schema: { summary: 'Revoke a token: its next request fails, and its open sockets and streams close', params: NameParams, response: { 204: Type.Null(), ...errors(400, 404) } },
    },
    async (req, reply) => {
      const { name } = req.params as Static<typeof NameParams>;
      unwrap(deps.tokens.revoke(name));
      deps.runtime.audit.record(null, actorOf(req), 'token_revoked', { name });
      req.log.info({ token_name: name }, 'token.revoke');
      return reply.code(204).send();
    },
  );
}
