/** Pieces every route file shares: dependencies, the id param, and unwrapping core results into replies. */
import type { Result, Runtime, Session, SessionManager } from '../../core/index.js';
import { ErrorSchema } from '../../protocol/http.js';
import type { Revocations } from '../Revocations.js';
import type { TokenStore } from '../TokenStore.js';
import type { Store } from '../../store/Store.js';

export interface RouteDeps {
  manager: SessionManager;
  runtime: Runtime;
  tokens: TokenStore;
  store: Store;
  revocations: Revocations;
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
