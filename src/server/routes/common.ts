/** Pieces every route file shares: dependencies, the id param, and unwrapping core results into replies. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Result, Runtime, Session, SessionManager } from '../../core/index.js';
import { actorOf } from '../auth.js';
import { ErrorSchema, StringEnum } from '../../protocol/http.js';
import { STATUS } from '../errors.js';
import { INPUT_STATUS } from '../../protocol/errors.js';
import type { Revocations } from '../Revocations.js';
import type { TokenStore } from '../TokenStore.js';
import type { Store } from '../../store/Store.js';
import type { Slots } from '../Slots.js';
import type { RateLimiter } from '../rateLimits.js';

/** Caps on long-lived requests, shared by the routes that open them. */
export interface ConnectionSlots {
  attach: Slots;
  events: Slots;
  /** Pending waits: `POST .../wait`, screen long polls, MCP `wait_for`. */
  waits: Slots;
}

export interface RouteDeps {
  manager: SessionManager;
  runtime: Runtime;
  tokens: TokenStore;
  store: Store;
  revocations: Revocations;
  slots: ConnectionSlots;
  limits: RateLimiter;
}

/** Throwing a TermError from a handler reaches the error handler, which gives it the standard shape and status. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * Run a long wait in one of the daemon's wait slots, ended when the client hangs up, so abandoned waits hold no
 * timers or listeners.
 */
export async function inWaitSlot<T>(deps: RouteDeps, reply: FastifyReply, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const release = unwrap(deps.slots.waits.take());
  const abort = new AbortController();
  const onClose = () => abort.abort();
  reply.raw.once('close', onClose);
  try {
    return await fn(abort.signal);
  } finally {
    reply.raw.off('close', onClose);
    release();
  }
}

/**
 * The session the route's `:id` names, as the caller may know it: one outside the caller's scope is a 404
 * session_not_found with the very message a missing one gets (core's SessionManager.get decides).
 */
export function sessionOf(deps: RouteDeps, req: FastifyRequest): Session {
  return unwrap(deps.manager.get((req.params as { id: string }).id, actorOf(req)));
}

/** Every stable error code an answer with this status may carry (secret_input_active is both 423 and 409). */
function codesFor(status: number): string[] {
  const codes = Object.entries(STATUS).filter(([, s]) => s === status).map(([code]) => code);
  for (const [code, s] of Object.entries(INPUT_STATUS)) if (s === status) codes.push(code);
  return codes.sort();
}

/**
 * Error responses, declared on every route so /openapi.json lists them with the codes each status may carry. 429 is
 * on every route: an address past its failed-authentication limit is refused everywhere (server/rateLimits.ts).
 */
export function errors(...statuses: number[]): Record<number, typeof ErrorSchema> {
  const out: Record<number, typeof ErrorSchema> = {};
  for (const s of [401, 403, 429, ...statuses]) {
    const codes = codesFor(s);
    out[s] =
      codes.length === 0
        ? ErrorSchema
        : ({
            ...ErrorSchema,
            description: `Error; code is one of: ${codes.join(', ')}`,
            properties: { ...ErrorSchema.properties, code: StringEnum(codes, { description: 'Stable machine-readable code.' }) },
          } as unknown as typeof ErrorSchema);
  }
  return out;
}
