/** Pieces every route file shares: dependencies, the id param, and unwrapping core results into replies. */
import type { FastifyReply } from 'fastify';
import type { Result, Session, SessionManager, TermError } from '../../core/index.js';
import { ErrorSchema } from '../../protocol/http.js';

export interface RouteDeps {
  manager: SessionManager;
}

/** Throwing a TermError from a handler reaches the error handler, which gives it the standard shape and status. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

export function sessionOf(deps: RouteDeps, id: string): Session {
  return unwrap(deps.manager.get(id));
}

/** Error responses, declared on every route so /openapi.json lists them. */
export function errors(...statuses: number[]): Record<number, typeof ErrorSchema> {
  const out: Record<number, typeof ErrorSchema> = {};
  for (const s of [401, 403, ...statuses]) out[s] = ErrorSchema;
  return out;
}

export type { FastifyReply, TermError };
