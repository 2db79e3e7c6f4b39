/**
 * The audit trail on the wire: who did what to which session, as `GET /v1/audit` pages it. The actions are one list
 * (core records them, the store keeps them, the CLI prints them); each entry's `detail` holds counts, sizes, roles and
 * names, never what was typed or shown.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ACTOR_NAME_PATTERN, Bounds, SESSION_REF_PATTERN } from './bounds.js';
import { EventActorSchema } from './events.js';
import { StringEnum } from './http.js';

export const AUDIT_ACTIONS = [
  /** A session was started; detail: cols, rows. */
  'session_created',
  /** A client attached; detail: role (viewer or driver), client_id. */
  'client_attached',
  'client_detached',
  /** detail: cols, rows. */
  'resized',
  /** detail: signal. */
  'signalled',
  /** Someone ended the session (DELETE); detail: signal. */
  'session_ended',
  /** The process ended (the actor is the runtime); detail: code, signal, reason. */
  'process_exited',
  /** An exited session was removed from memory by prune; its record stays. */
  'session_removed',
  /** The session's record and transcript were purged. */
  'session_purged',
  /** detail: lease_id, mode. */
  'lease_acquired',
  /** detail: lease_id, reason (released, expired, preempted, session_closed). */
  'lease_released',
  /** A person's input ended an agent's exclusive lease; detail: lease_id, previous_name, previous_kind. */
  'input_preempted',
  'secret_input_started',
  'secret_input_ended',
  /** Input written, coalesced per actor and source over a second; detail: source, bytes, writes. Never the bytes. */
  'input',
  /** detail: name, role, scope. */
  'token_created',
  /** detail: name. */
  'token_revoked',
  /** Moderation changed (moderator action, person joined or left, grace ran out); detail: change, and lease_id, agent for a revoke. */
  'moderation_changed',
  /** A browser signed in to the UI; detail: as (human or viewer). */
  'ui_signed_in',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AuditEntrySchema = Type.Object({
  id: Type.Integer({ description: 'Increasing; page on with after=id' }),
  at: Type.String({ format: 'date-time' }),
  session_id: Type.Union([Type.String(), Type.Null()], { description: 'null for what concerns no session (tokens, UI sign-ins)' }),
  actor: EventActorSchema,
  action: StringEnum(AUDIT_ACTIONS),
  detail: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
});
export type AuditEntry = Static<typeof AuditEntrySchema>;

/** An entry's detail as `k=v k=v`, the way `termhost audit` and asciicast markers show it. */
export function auditDetailText(detail: AuditEntry['detail']): string {
  return Object.entries(detail)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

export const AuditPageSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema),
  next_after: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as after= for the next page; null when there is no more' }),
});
export type AuditPage = Static<typeof AuditPageSchema>;

export const AuditQuery = Type.Object(
  {
    session: Type.Optional(Type.String({ pattern: SESSION_REF_PATTERN, description: 'Only this session (id, or the name of a live one)' })),
    actor: Type.Optional(Type.String({ pattern: ACTOR_NAME_PATTERN, description: 'Only entries by this actor name' })),
    since: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only entries at or after this time (ISO 8601, such as 2026-12-01T10:00:00Z)' })),
    after: Type.Optional(Type.Integer({ minimum: 0, description: 'Only entries with a greater id (paging)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: Bounds.auditPageMax, description: `Entries per page (default 200, at most ${Bounds.auditPageMax})` })),
  },
  { additionalProperties: false },
);
export type AuditQueryParams = Static<typeof AuditQuery>;
