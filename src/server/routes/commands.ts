/** One call per command: run a command at an integrated shell's prompt, wait on it, list what ran, page its output. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { Bounds } from '../../protocol/bounds.js';
import {
  CommandOutputPageSchema,
  CommandResultSchema,
  CommandSummarySchema,
  RunCommandBody,
  SessionRef,
} from '../../protocol/http.js';
import { actorOf } from '../auth.js';
import { errors, inWaitSlot, sessionOf, unwrap, type RouteDeps } from './common.js';

const CommandParams = Type.Object({ id: SessionRef, cid: Type.String({ pattern: '^c[0-9]{1,12}$', description: 'A command id: c1, c2, ...' }) });
type CommandParamsT = Static<typeof CommandParams>;
const IdParams = Type.Object({ id: SessionRef });
const CommandQuery = Type.Object(
  {
    wait_ms: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Bounds.commandTimeoutMsMax, description: 'When it is running, wait this long for it to end or need input (a long poll).' }),
    ),
    max_output_bytes: Type.Optional(Type.Integer({ minimum: 0, maximum: Bounds.commandOutputBytesMax, description: 'Output budget (default 16384).' })),
  },
  { additionalProperties: false },
);
const OutputQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Byte offset in the output text (default 0).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: Bounds.commandOutputPageBytesMax, description: 'Bytes per page (default 65536).' })),
  },
  { additionalProperties: false },
);

export async function commandRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.post(
    '/v1/sessions/:id/commands',
    {
      schema: {
        summary: "Type a command at the shell's prompt and answer its exit status and output when it ends",
        description:
          'Answers when the command ends (status exited), when it blocks on the terminal for input (status input_needed, ' +
          'at once), or at timeout_ms (status running: it keeps running; wait again with GET .../commands/{cid}?wait_ms=).',
        params: IdParams,
        body: RunCommandBody,
        response: { 200: CommandResultSchema, ...errors(400, 404, 409, 413, 423, 503) },
      },
    },
    async (req, reply) => {
      const session = sessionOf(deps, req);
      const body = req.body as Static<typeof RunCommandBody>;
      return inWaitSlot(deps, reply, async (signal) => unwrap(await session.run(actorOf(req), body, signal)));
    },
  );

  app.get(
    '/v1/sessions/:id/commands',
    {
      schema: {
        summary: 'The last 100 commands the shell ran, typed by anyone, oldest first',
        params: IdParams,
        response: { 200: Type.Object({ commands: Type.Array(CommandSummarySchema) }), ...errors(404, 409) },
      },
    },
    async (req) => {
      const session = sessionOf(deps, req);
      return { commands: unwrap(session.commands(actorOf(req))) };
    },
  );

  app.get(
    '/v1/sessions/:id/commands/:cid',
    {
      schema: {
        summary: 'One command and its output; with wait_ms, wait for a running one to end or need input',
        params: CommandParams,
        querystring: CommandQuery,
        response: { 200: CommandResultSchema, ...errors(400, 404, 409, 503) },
      },
    },
    async (req, reply) => {
      const { id, cid } = req.params as CommandParamsT;
      const session = sessionOf(deps, req);
      const q = req.query as Static<typeof CommandQuery>;
      const opts = { waitMs: q.wait_ms, maxOutputBytes: q.max_output_bytes };
      if (!q.wait_ms) return unwrap(await session.command(actorOf(req), cid, opts));
      return inWaitSlot(deps, reply, async (signal) => unwrap(await session.command(actorOf(req), cid, opts, signal)));
    },
  );

  app.get(
    '/v1/sessions/:id/commands/:cid/output',
    {
      schema: {
        summary: "A page of one command's whole output, by byte offset",
        params: CommandParams,
        querystring: OutputQuery,
        response: { 200: CommandOutputPageSchema, ...errors(400, 404, 409) },
      },
    },
    async (req) => {
      const { id, cid } = req.params as CommandParamsT;
      const q = req.query as Static<typeof OutputQuery>;
      return unwrap(sessionOf(deps, req).commandOutput(actorOf(req), cid, q.offset, q.limit));
    },
  );
}
