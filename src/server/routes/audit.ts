/** The audit trail: who did what, paged oldest first. A person reads what concerns its scope's sessions; admins, all. */
import type { FastifyInstance } from 'fastify';
import { TermError, mayReadAuditTrail } from '../../core/index.js';
import { AuditPageSchema, AuditQuery, type AuditQueryParams } from '../../protocol/audit.js';
import { actorOf } from '../auth.js';
import { errors, unwrap, type RouteDeps } from './common.js';

export async function auditRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  app.get(
    '/v1/audit',
    {
      schema: {
        summary: 'The audit trail (who created, attached, typed, resized, signalled, ended, leased...), paged with after=next_after',
        querystring: AuditQuery,
        response: { 200: AuditPageSchema, ...errors(400, 403, 404) },
      },
    },
    async (req) => {
      const actor = actorOf(req);
      unwrap(mayReadAuditTrail(actor));
      const q = req.query as AuditQueryParams;
      // A session is named by id, or by the name of a live one the caller sees; one it may not see is missing.
      let sessionId: string | undefined;
      if (q.session !== undefined) {
        const live = deps.manager.get(q.session, actor);
        if (live.ok) sessionId = live.value.id;
        else if (deps.store.record(q.session, actor)) sessionId = q.session;
        else throw live.error;
      }
      const sinceMs = q.since === undefined ? undefined : Date.parse(q.since);
      if (sinceMs !== undefined && Number.isNaN(sinceMs)) throw new TermError('invalid_request', `since must be an ISO time such as 2026-12-01T10:00:00Z, not "${q.since}"`, { field: 'since' });
      // Input still being counted (up to a second) shows up in a later read: a read never cuts a count short, or a
      // reader polling fast would store the rhythm the coalescing keeps out.
      return deps.store.audit(actor, { sessionId, actorName: q.actor, sinceMs, after: q.after, limit: q.limit });
    },
  );
}
