/**
 * What of a session's life the audit trail keeps, and with which actor: one listener per session event that says
 * who did something. Output, screens and titles are not actions and are left out. A secret-input window keeps its
 * promise here too: while it is open no input is counted, only its opening and its closing are recorded.
 */
import { SYSTEM_ACTOR } from '../control/actor.js';
import type { Session } from '../session/Session.js';
import type { AuditTrail } from './AuditTrail.js';

export function auditSession(trail: AuditTrail, s: Session): void {
  const id = s.id;
  const e = s.events;
  trail.record(id, s.createdBy ?? SYSTEM_ACTOR, 'session_created', { cols: s.spec.cols, rows: s.spec.rows }, 0);
  e.on('audited', (actor, action, detail) => trail.record(id, actor, action, detail, s.seq));
  e.on('clientAttached', (c) => trail.record(id, c.actor, 'client_attached', { role: c.role, client_id: c.id }, s.seq));
  e.on('clientDetached', (c) => trail.record(id, c.actor, 'client_detached', { role: c.role, client_id: c.id }, s.seq));
  e.on('leaseAcquired', (l) => trail.record(id, l.actor, 'lease_acquired', { lease_id: l.lease_id, mode: l.mode }, s.seq));
  e.on('leaseReleased', (l, reason) => trail.record(id, l.actor, 'lease_released', { lease_id: l.lease_id, reason }, s.seq));
  e.on('inputPreempted', (l, by) => trail.record(id, by, 'input_preempted', { lease_id: l.lease_id, previous_name: l.actor.name, previous_kind: l.actor.kind }, s.seq));
  // The input counted so far was typed before the window: it is recorded now, and nothing is counted until it closes.
  // The reason is left out: it quotes the prompt line, which is the program's output.
  e.on('secretStarted', (actor) => trail.record(id, actor, 'secret_input_started', {}, s.seq));
  e.on('secretEnded', (actor) => trail.record(id, actor, 'secret_input_ended', {}, s.seq));
  e.on('inputAccepted', (actor, source, bytes) => !s.secretActive && trail.input(id, actor, source, bytes, s.seq));
  e.on('moderation', (change, actor, detail) => trail.record(id, actor, 'moderation_changed', { change, ...detail }, s.seq));
  e.on('exit', (exit, reason) => trail.record(id, SYSTEM_ACTOR, 'process_exited', { code: exit.exitCode, signal: exit.signal, reason }, s.seq));
}
