/**
 * Runtime events, as published by the core and streamed over SSE at GET /v1/events. Every event has a global,
 * monotonic `id`, a `type`, the `session_id` it concerns (null for none) and `at`, an ISO timestamp. Nothing in an
 * event carries terminal bytes or typed input; output is reported as byte counts only.
 *
 * The TypeBox schemas below are the single source: the TypeScript types come from them, and /schemas/event.json
 * publishes them.
 */
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { MODERATION_CHANGES, ModerationStateSchema } from './moderation.js';

export const EventActorSchema = Type.Object({ name: Type.String(), kind: Type.String() });
export type EventActor = Static<typeof EventActorSchema>;

const Source = Type.Union([Type.Literal('api'), Type.Literal('mouse'), Type.Literal('attach')]);
const ClientRole = Type.Union([Type.Literal('viewer'), Type.Literal('driver')]);

function event<T extends string, P extends TProperties>(type: T, description: string, props: P) {
  return Type.Object({ type: Type.Literal(type), ...props }, { description }) as TObject<
    P & { type: ReturnType<typeof Type.Literal<T>> }
  >;
}

export const EventFieldsSchema = Type.Union([
  event('session_opened', 'A session started.', { command: Type.Array(Type.String()), pid: Type.Integer() }),
  event('session_closed', 'A session was deleted and freed.', {}),
  event('process_exited', 'The process ended; every byte it wrote is on the screen.', {
    code: Type.Union([Type.Integer(), Type.Null()]),
    signal: Type.Union([Type.String(), Type.Null()]),
    reason: Type.Union([Type.Literal('completed'), Type.Literal('crashed'), Type.Literal('closed')]),
  }),
  event('screen_changed', 'The screen changed; coalesced to at most one per 16 ms per session.', { seq: Type.Integer() }),
  event('screen_updated', 'The screen changed; coalesced to at most one per 500 ms per session, for views that redraw a whole picture.', { seq: Type.Integer() }),
  event('output', 'Output arrived: a byte count, never the bytes. Coalesced like screen_changed.', { bytes: Type.Integer(), seq: Type.Integer() }),
  event('resized', 'The terminal size changed.', { cols: Type.Integer(), rows: Type.Integer() }),
  event('title_changed', 'The application set the window title.', { title: Type.String() }),
  event('input_accepted', 'Input was written; who sent it and how, never what.', { actor: EventActorSchema, source: Source }),
  event('input_rejected', 'Input was refused (lease, secret window, exited...).', { actor: EventActorSchema, source: Source, reason: Type.String() }),
  event('lease_acquired', 'An input lease was taken or renewed.', {
    lease_id: Type.String(),
    actor: EventActorSchema,
    mode: Type.Union([Type.Literal('shared'), Type.Literal('exclusive')]),
    expires_at: Type.String(),
  }),
  event('lease_released', 'An input lease ended (released, expired, preempted, session_closed).', {
    lease_id: Type.String(),
    actor: EventActorSchema,
    reason: Type.String(),
  }),
  event('input_preempted', "A person's input ended an agent's exclusive lease.", { lease_id: Type.String(), previous: EventActorSchema, by: EventActorSchema }),
  event('secret_input_started', 'A secret-input window opened: output is hidden until a person ends it.', { actor: EventActorSchema, reason: Type.String() }),
  event('secret_input_ended', 'The secret-input window closed.', { actor: EventActorSchema }),
  event('command_started', 'The shell started a command (GET .../commands/{command_id}); the command line is not in the event.', {
    command_id: Type.String(),
  }),
  event('command_finished', 'A command ended, with its exit status.', {
    command_id: Type.String(),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
    duration_ms: Type.Integer(),
  }),
  event('input_needed', 'The foreground program waits on the terminal for input (kernel evidence); the prompt is not in the event.', {
    command_id: Type.Union([Type.String(), Type.Null()]),
    kind: Type.Union([Type.Literal('line'), Type.Literal('password'), Type.Literal('raw')]),
  }),
  event('input_resumed', 'The program no longer waits: the input it waited for arrived, or it went on.', {
    command_id: Type.Union([Type.String(), Type.Null()]),
  }),
  event('client_attached', 'A live client attached.', { client_id: Type.Integer(), role: ClientRole, actor: EventActorSchema }),
  event('client_detached', 'A live client went away.', { client_id: Type.Integer(), role: ClientRole, actor: EventActorSchema }),
  event(
    'moderation_changed',
    'A person joined or left a moderated session, a moderator paused or resumed agent input, revoked a lease (lease_id) or ended the session, or the grace period ran out (actor system).',
    {
      change: Type.Union(MODERATION_CHANGES.map((c) => Type.Literal(c))),
      actor: EventActorSchema,
      lease_id: Type.Optional(Type.String()),
      moderation: ModerationStateSchema,
    },
  ),
  event('reset', 'SSE only: the requested Last-Event-ID is older than the backlog; what follows starts afresh.', { oldest_id: Type.Integer() }),
]);
export type EventFields = Static<typeof EventFieldsSchema>;
export type EventType = EventFields['type'];

const EnvelopeSchema = Type.Object({
  id: Type.Integer({ minimum: 0, description: 'Global and monotonic; 0 only on reset.' }),
  session_id: Type.Union([Type.String(), Type.Null()]),
  at: Type.String({ format: 'date-time' }),
});

export const RuntimeEventSchema = Type.Intersect([EventFieldsSchema, EnvelopeSchema], {
  description: 'One runtime event, as each SSE data line of GET /v1/events carries it.',
});
export type RuntimeEvent = EventFields & Static<typeof EnvelopeSchema>;

export const EVENT_TYPES: readonly EventType[] = EventFieldsSchema.anyOf.map((s) => s.properties.type.const as EventType);
