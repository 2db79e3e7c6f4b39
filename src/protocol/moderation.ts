/**
 * Moderated sessions on the wire: a session's moderation state (in its info, the attach `state` frame and the
 * `moderation_changed` event) and the actions a moderator may take (POST /v1/sessions/{id}/moderation). One schema;
 * the TypeScript types, the OpenAPI document and the UI's types derive from it.
 *
 * Who counts as present: a person, meaning a credential of the human or admin role, attached with role `driver`.
 * A viewer attach does not count (a viewer is demoted to the viewer kind for the whole connection), and an agent's
 * credential never does, whatever role it attaches with.
 */
import { Type, type Static } from '@sinclair/typebox';

const StringEnum = <const T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

const ActorRef = Type.Object({ name: Type.String(), kind: Type.String() });

export const MODERATION_ACTIONS = ['pause', 'resume', 'revoke', 'end'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

/** What happened, as the event and the audit trail name it: a moderator's action, or the runtime noticing people. */
export const MODERATION_CHANGES = ['person_joined', 'person_left', 'paused', 'resumed', 'lease_revoked', 'ended', 'grace_expired'] as const;
export type ModerationChange = (typeof MODERATION_CHANGES)[number];

export const ModerationStateSchema = Type.Object(
  {
    required: Type.Boolean({ description: 'The session requires a person present for agents to type (require_moderator).' }),
    presence: StringEnum(['waiting', 'present', 'absent'], {
      description: 'waiting: no person has attached yet; present: at least one is attached as driver; absent: the last one left',
    }),
    present: Type.Array(ActorRef, { description: 'The people attached as driver now (human or admin credentials), one entry per connection.' }),
    required_person: Type.String({ description: 'Who must be present, and how to become present.' }),
    paused_by: Type.Union([ActorRef, Type.Null()], { description: 'A moderator paused agent input; null when not paused.' }),
    agent_input: StringEnum(['allowed', 'refused'], { description: 'Whether agent input is accepted right now (people may always type).' }),
    grace_ms: Type.Integer({ description: 'How long the session waits for a person before it ends.' }),
    ends_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the session ends with reason closed unless a person attaches first; null while one is present or when not required.',
    }),
  },
  { description: "A session's moderation: who must be present, who is, and whether agents may type." },
);
export type ModerationState = Static<typeof ModerationStateSchema>;

export const ModerationBody = Type.Object(
  {
    action: StringEnum(MODERATION_ACTIONS, {
      description: "pause / resume agent input; revoke: end an agent's lease (lease_id); end: end the session (reason closed)",
    }),
    lease_id: Type.Optional(Type.String({ maxLength: 64, description: 'With revoke: the lease to end (GET .../leases lists them).' })),
  },
  { additionalProperties: false },
);
export type ModerationRequest = Static<typeof ModerationBody>;
