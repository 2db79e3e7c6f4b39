/**
 * The embeddable runtime: sessions plus the global event stream, with no HTTP anywhere. The daemon is one host of
 * it; a program can be another. Every session's lifecycle, input, lease, secret-window and attach activity becomes an
 * event on one bus with global ids. Screen and output events are coalesced per session (at most one per 16 ms, and
 * screen_updated at most one per 500 ms), carry no bytes, and are never published while a secret-input window is
 * open. Who did what also goes to the audit trail (audit/), which the store keeps.
 */
import type { EventActor } from '../protocol/events.js';
import { AuditTrail } from './audit/AuditTrail.js';
import { auditSession } from './audit/auditSession.js';
import type { Actor } from './control/actor.js';
import { Coalescer } from './events/Coalescer.js';
import { EventBus, type EventInput } from './events/EventBus.js';
import type { Session } from './session/Session.js';
import { SessionManager, type SessionManagerOptions } from './session/SessionManager.js';

/** At most one screen_changed (and one output) event per session per this interval. */
export const SCREEN_EVENT_INTERVAL_MS = 16;
/**
 * At most one screen_updated event per session per this interval: often enough that a tile is redrawn within a
 * second of a change, rarely enough that a wall of busy sessions does not flood its viewer or the picture worker.
 */
export const SCREEN_UPDATE_INTERVAL_MS = 500;

export interface RuntimeOptions extends SessionManagerOptions {
  /** Events kept for consumers that resume by id. */
  eventBacklog?: number;
}

const who = (a: Actor): EventActor => ({ name: a.name, kind: a.kind });

export class Runtime {
  readonly sessions: SessionManager;
  readonly events: EventBus;
  readonly audit = new AuditTrail();

  constructor(opts: RuntimeOptions = {}) {
    this.sessions = new SessionManager(opts);
    this.events = new EventBus(opts.eventBacklog);
    this.sessions.events.on('created', (s) => this.wire(s));
    this.sessions.events.on('removed', (s) => this.events.publish(s.id, { type: 'session_closed' }, s.scopeTarget));
  }

  /** Kill and free every session; then record the input still being counted. */
  async close(): Promise<void> {
    await this.sessions.closeAll('HUP');
    this.audit.dispose();
  }

  private wire(s: Session): void {
    // Every event about the session carries it as its scope target, so a stream leaves it out for whoever may not see it.
    const events = this.events;
    const bus = { publish: (sid: string, fields: EventInput) => events.publish(sid, fields, s.scopeTarget) };
    const id = s.id;
    bus.publish(id, { type: 'session_opened', command: s.spec.command, pid: s.pid });
    auditSession(this.audit, s);

    // Coalesce output and screen changes: the first change in a quiet period is published at once, later ones at the
    // end of the interval, so a burst costs two events and the last state is always reported.
    let pendingBytes = 0;
    let screenPublished = -1;
    let screenDirty = false;
    const fast = new Coalescer(SCREEN_EVENT_INTERVAL_MS, () => {
      if (s.secretActive) return void (pendingBytes = 0);
      if (pendingBytes > 0) bus.publish(id, { type: 'output', bytes: pendingBytes, seq: s.seq });
      pendingBytes = 0;
      if (screenDirty || s.parsedSeq !== screenPublished) bus.publish(id, { type: 'screen_changed', seq: s.parsedSeq });
      screenPublished = s.parsedSeq;
      screenDirty = false;
    });
    // The same change, at the pace of a view that redraws a whole picture (the wall of tiles): at most one per
    // SCREEN_UPDATE_INTERVAL_MS, so 50 busy sessions cost a viewer 100 events and at most 100 pictures a second,
    // where screen_changed would be 3,000 events.
    let updatePublished = -1;
    const slow = new Coalescer(SCREEN_UPDATE_INTERVAL_MS, () => {
      if (s.secretActive || s.parsedSeq === updatePublished) return;
      updatePublished = s.parsedSeq;
      bus.publish(id, { type: 'screen_updated', seq: s.parsedSeq });
    });
    const e = s.events;
    // A chunk is parsed (and reported parsed) while it is fed, before its output event: both schedule a flush, so the
    // last chunk's bytes are reported too.
    e.on('output', (chunk) => {
      pendingBytes += chunk.length;
      fast.poke();
    });
    e.on('parsed', () => {
      screenDirty = true;
      fast.poke();
      slow.poke();
    });
    e.on('resized', (cols, rows) => bus.publish(id, { type: 'resized', cols, rows }));
    e.on('title', (title) => bus.publish(id, { type: 'title_changed', title }));
    e.on('exit', (exit, reason) => {
      fast.flush();
      slow.flush();
      bus.publish(id, { type: 'process_exited', code: exit.exitCode, signal: exit.signal, reason });
    });
    // Keystroke events during a secret window would give away the secret's length and rhythm: not published.
    e.on('inputAccepted', (actor, source) => !s.secretActive && bus.publish(id, { type: 'input_accepted', actor: who(actor), source }));
    e.on('inputRejected', (actor, source, reason) => !s.secretActive && bus.publish(id, { type: 'input_rejected', actor: who(actor), source, reason }));
    e.on('leaseAcquired', (l) => bus.publish(id, { type: 'lease_acquired', lease_id: l.lease_id, actor: who(l.actor), mode: l.mode, expires_at: l.expires_at }));
    e.on('leaseReleased', (l, reason) => bus.publish(id, { type: 'lease_released', lease_id: l.lease_id, actor: who(l.actor), reason }));
    e.on('inputPreempted', (l, by) => bus.publish(id, { type: 'input_preempted', lease_id: l.lease_id, previous: who(l.actor), by: who(by) }));
    e.on('secretStarted', (actor, reason) => {
      fast.cancel();
      slow.cancel();
      pendingBytes = 0;
      bus.publish(id, { type: 'secret_input_started', actor: who(actor), reason });
    });
    e.on('secretEnded', (actor) => bus.publish(id, { type: 'secret_input_ended', actor: who(actor) }));
    // Command events come from the output, so the session holds them back while a secret window is open.
    e.on('commandStarted', (c) => bus.publish(id, { type: 'command_started', command_id: c.id }));
    e.on('commandFinished', (c) =>
      bus.publish(id, { type: 'command_finished', command_id: c.id, exit_code: c.exitCode, duration_ms: Math.max(0, (c.endedAt ?? c.startedAt) - c.startedAt) }),
    );
    // Waiting for input comes from the kernel; during a window its flips would give away the rhythm of the typing.
    e.on('inputNeeded', (c, needed) => {
      if (s.secretActive) return;
      const kind = s.shell.inputNeeded?.kind;
      if (needed && kind) bus.publish(id, { type: 'input_needed', command_id: c?.id ?? null, kind });
      else if (!needed) bus.publish(id, { type: 'input_resumed', command_id: c?.id ?? null });
    });
    e.on('clientAttached', (c) => bus.publish(id, { type: 'client_attached', client_id: c.id, role: c.role, actor: who(c.actor) }));
    e.on('clientDetached', (c) => bus.publish(id, { type: 'client_detached', client_id: c.id, role: c.role, actor: who(c.actor) }));
    e.on('moderation', (change, actor, detail) =>
      bus.publish(id, { type: 'moderation_changed', change, actor: who(actor), ...(detail.lease_id ? { lease_id: detail.lease_id } : {}), moderation: s.moderation }),
    );
    e.on('disposed', () => {
      fast.cancel();
      slow.cancel();
    });
  }
}
