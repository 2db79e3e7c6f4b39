/**
 * Runtime events, as published by the core and streamed over SSE at GET /v1/events. Every event has a global,
 * monotonic `id`, a `type`, the `session_id` it concerns (null for none) and `at`, an ISO timestamp. Nothing in an
 * event carries terminal bytes or typed input; output is reported as byte counts only.
 */
export interface EventActor {
  name: string;
  kind: string;
}

export type EventFields =
  /** A session started. */
  | { type: 'session_opened'; command: string[]; pid: number }
  /** A session was deleted and freed. */
  | { type: 'session_closed' }
  /** The process ended; every byte it wrote is on the screen. */
  | { type: 'process_exited'; code: number | null; signal: string | null; reason: 'completed' | 'crashed' | 'closed' }
  /** The screen changed; coalesced to at most one per 16 ms per session. */
  | { type: 'screen_changed'; seq: number }
  /** Output arrived: a byte count, never the bytes. Coalesced like screen_changed. */
  | { type: 'output'; bytes: number; seq: number }
  | { type: 'resized'; cols: number; rows: number }
  | { type: 'title_changed'; title: string }
  /** Input was written; who sent it and how, never what. */
  | { type: 'input_accepted'; actor: EventActor; source: 'api' | 'mouse' | 'attach' }
  | { type: 'input_rejected'; actor: EventActor; source: 'api' | 'mouse' | 'attach'; reason: string }
  | { type: 'lease_acquired'; lease_id: string; actor: EventActor; mode: 'shared' | 'exclusive'; expires_at: string }
  | { type: 'lease_released'; lease_id: string; actor: EventActor; reason: string }
  /** A person's input ended an agent's exclusive lease. */
  | { type: 'input_preempted'; lease_id: string; previous: EventActor; by: EventActor }
  | { type: 'secret_input_started'; actor: EventActor; reason: string }
  | { type: 'secret_input_ended'; actor: EventActor }
  | { type: 'client_attached'; client_id: number; role: 'viewer' | 'driver'; actor: EventActor }
  | { type: 'client_detached'; client_id: number; role: 'viewer' | 'driver'; actor: EventActor }
  /** SSE only: the requested Last-Event-ID is older than the backlog; what follows starts afresh. */
  | { type: 'reset'; oldest_id: number };

export type EventType = EventFields['type'];

export type RuntimeEvent = EventFields & { id: number; session_id: string | null; at: string };

export const EVENT_TYPES: readonly EventType[] = [
  'session_opened',
  'session_closed',
  'process_exited',
  'screen_changed',
  'output',
  'resized',
  'title_changed',
  'input_accepted',
  'input_rejected',
  'lease_acquired',
  'lease_released',
  'input_preempted',
  'secret_input_started',
  'secret_input_ended',
  'client_attached',
  'client_detached',
  'reset',
];
