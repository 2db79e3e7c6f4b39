/**
 * Owns every session of one runtime: creation from a spec (with defaults), lookup, listing by label, the session
 * cap, and deletion (signal, escalate, reap, free).
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { TermError, fail, ok, type Result } from '../errors.js';
import { Emitter } from '../events/Emitter.js';
import { Limits } from '../limits.js';
import { SIGNALS, type Signal } from '../pty/PtyProcess.js';
import { spawnPty } from '../pty/spawnPty.js';
import { Session, type ResolvedSpec } from './Session.js';
import type { ControlOptions } from '../control/SessionControl.js';
import type { InputPolicy } from '../control/LeaseTable.js';
import { SYSTEM_ACTOR, type Actor } from '../control/actor.js';
import { DEFAULT_MODERATOR_GRACE_MS } from '../control/Moderation.js';
import { mayStartWithin, mayStoreRaw, requireRole, visible } from '../control/policy.js';
import { validateSpec } from './validateSpec.js';
import { PictureRenderer } from '../picture/index.js';
import { applyProfile, type CommandPolicy } from './profiles.js';
import { planShell } from '../shell/integration.js';

/** First characters of session ids: letters other than "e" (which could make an id read as a number, "1e5"). */
const ID_FIRST = 'abcdfghjkmnpqrstuvwxyz';

/** The daemon's own credentials never leak into the programs it runs. */
const PRIVATE_ENV = new Set(['TERMHOST_TOKEN']);

export interface SessionSpec {
  /** argv; defaults to $SHELL, else /bin/sh. */
  command?: string[];
  cwd?: string;
  /** Merged over the daemon's environment. */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** Exported as TERM; default xterm-256color. */
  term?: string;
  scrollback?: number;
  labels?: Record<string, string>;
  /** auto (default): agents without a lease get an implicit shared one per request; lease: they need one. */
  input_policy?: InputPolicy;
  /** Open a secret-input window by itself on password prompts; default true. */
  secret_detect?: boolean;
  /** What a transcript store keeps of this session's output: off, redacted (default) or raw. */
  transcript?: 'off' | 'redacted' | 'raw';
  /** A name to address the session by wherever an id is accepted; unique among the sessions held. */
  name?: string;
  /** Free the session as soon as its process has exited (its record stays in the store). */
  remove_on_exit?: boolean;
  /** Start this command profile of the runtime's (see profiles.ts) instead of a command of the caller's. */
  profile?: string;
  /** Shell integration for bash, zsh and fish (prompts, commands, exit statuses); default true. */
  shell_integration?: boolean;
  /** Agents may type only while a person is attached as driver (control/Moderation.ts); a profile may require it. */
  require_moderator?: boolean;
  /** How long a moderated session waits for a person before it ends; default the runtime's (5 min). */
  moderator_grace_ms?: number;
}

export interface SessionManagerOptions {
  maxSessions?: number;
  /** Environment new sessions inherit; defaults to this process's. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Daemon-wide default input policy (`--require-leases` sets "lease"). */
  inputPolicy?: InputPolicy;
  /** Daemon-wide default for the secret prompt detector. */
  secretDetect?: boolean;
  /** Ids that must not be given out again, such as those of stored records. */
  idInUse?: (id: string) => boolean;
  /** How long an exited session stays readable before it is freed (default 1 h); 0 frees it at once. */
  exitedTtlMs?: number;
  /** The operator's command profiles, and whether only they may be started (default: none, unrestricted). */
  commands?: CommandPolicy;
  /** How long a moderated session waits for a person, unless its spec or profile says; default 5 min. */
  moderatorGraceMs?: number;
}

export type ManagerEvents = {
  created: [session: Session];
  removed: [session: Session];
};

export class SessionManager {
  readonly events = new Emitter<ManagerEvents>();
  /** Draws the sessions' pictures, in a worker started on first use. */
  readonly pictures = new PictureRenderer();
  private readonly sessions = new Map<string, Session>();
  private readonly maxSessions: number;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly defaults: ControlOptions;
  private readonly idInUse: (id: string) => boolean;
  private readonly exitedTtlMs: number;
  private readonly moderatorGraceMs: number;
  readonly commands: CommandPolicy;
  /** Timers that free exited sessions. */
  private readonly expiry = new Map<string, NodeJS.Timeout>();

  constructor(opts: SessionManagerOptions = {}) {
    this.maxSessions = opts.maxSessions ?? Limits.maxSessions;
    this.baseEnv = opts.baseEnv ?? process.env;
    this.defaults = { inputPolicy: opts.inputPolicy ?? 'auto', secretDetect: opts.secretDetect ?? true };
    this.idInUse = opts.idInUse ?? (() => false);
    this.exitedTtlMs = opts.exitedTtlMs ?? Limits.exitedSessionTtlMs;
    this.moderatorGraceMs = opts.moderatorGraceMs ?? DEFAULT_MODERATOR_GRACE_MS;
    this.commands = opts.commands ?? { profiles: {}, restrict: false };
  }

  resolveSpec(spec: SessionSpec): ResolvedSpec {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.baseEnv)) if (v !== undefined && !PRIVATE_ENV.has(k)) env[k] = v;
    Object.assign(env, spec.env ?? {});
    const term = spec.term ?? 'xterm-256color';
    env.TERM = term;
    const shell = this.baseEnv.SHELL || '/bin/sh';
    return {
      command: spec.command && spec.command.length > 0 ? spec.command : [shell],
      cwd: spec.cwd ?? this.baseEnv.HOME ?? os.homedir(),
      env,
      cols: spec.cols ?? 80,
      rows: spec.rows ?? 24,
      term,
      scrollback: spec.scrollback ?? Limits.defaultScrollbackLines,
      labels: spec.labels ?? {},
      transcript: spec.transcript ?? 'redacted',
      name: spec.name,
      remove_on_exit: spec.remove_on_exit ?? false,
      shell_integration: spec.shell_integration ?? true,
    };
  }

  /**
   * Start a session for an actor, who is recorded as its creator. The one place a spec is checked: bounds, the
   * actor's role, who may store raw transcripts, a free name, and the cap on live sessions. An embedding program
   * that passes no actor acts as the runtime itself.
   */
  create(asked: SessionSpec = {}, actor?: Actor): Result<Session> {
    const who = actor ?? SYSTEM_ACTOR;
    const allowed = requireRole(who, 'agent', 'starting a session');
    if (!allowed.ok) return fail(allowed.error);
    if (asked === null || typeof asked !== 'object' || Array.isArray(asked)) return validateSpec(asked) as Result<never>;
    // A profile's command is the operator's, so its `raw` transcript is too; a caller's `raw` needs an admin (below).
    const applied = applyProfile(asked, who, this.commands);
    if (!applied.ok) return applied;
    const spec = applied.value;
    const valid = validateSpec(spec);
    if (!valid.ok) return valid;
    if (asked.transcript === 'raw') {
      const raw = mayStoreRaw(who);
      if (!raw.ok) return fail(raw.error);
    }
    const within = mayStartWithin(who, spec.labels ?? {});
    if (!within.ok) return fail(within.error);
    // A name need only be free among the sessions this actor can see: saying it is taken by one it cannot see would
    // tell it that session exists.
    if (spec.name !== undefined && this.byRef(spec.name, who).length > 0) {
      return fail(new TermError('session_name_taken', `a session named "${spec.name}" already exists; choose another name or delete it first`, { field: 'name' }));
    }
    const live = this.liveCount();
    if (live >= this.maxSessions) {
      return fail(
        new TermError('session_limit', `the limit of ${this.maxSessions} running sessions is reached; end one first (exited sessions do not count)`, { max: this.maxSessions }, true),
      );
    }
    const resolved = this.resolveSpec(spec);
    const plan = planShell(resolved.command, resolved.env, resolved.shell_integration);
    const [file, ...args] = plan.argv;
    const spawned = spawnPty({
      file: file!,
      args,
      cwd: resolved.cwd,
      env: plan.env,
      cols: resolved.cols,
      rows: resolved.rows,
      term: resolved.term,
    });
    if (!spawned.ok) return spawned;
    const session = new Session(
      this.newId(),
      resolved,
      spawned.value,
      {
        inputPolicy: spec.input_policy ?? this.defaults.inputPolicy,
        secretDetect: spec.secret_detect ?? this.defaults.secretDetect,
        moderation: { required: spec.require_moderator === true, graceMs: spec.moderator_grace_ms ?? this.moderatorGraceMs },
      },
      actor,
      plan,
      this.pictures,
    );
    this.sessions.set(session.id, session);
    session.events.on('exit', () => this.exited(session));
    this.events.emit('created', session);
    return ok(session);
  }

  /**
   * A session by id, or by name, as this actor may know it: one outside the actor's scope is answered exactly as a
   * missing one (same code, same message, same path through this function).
   */
  get(ref: string, actor: Actor): Result<Session> {
    const found = this.byRef(ref, actor);
    if (found.length === 1) return ok(found[0]!);
    if (found.length > 1) {
      // Only an actor that sees the sessions of several scoped creators can meet two sessions of one name.
      return fail(new TermError('invalid_request', `${found.length} sessions are named "${ref}": use the id (${found.map((s) => s.id).join(', ')})`, { field: 'id' }));
    }
    return fail(new TermError('session_not_found', `no session "${ref}"`));
  }

  /** The sessions this actor may see, optionally only those with all of `labels`. */
  list(labels: Record<string, string>, actor: Actor): Session[] {
    const wanted = Object.entries(labels);
    return [...this.sessions.values()].filter((s) => wanted.every(([k, v]) => s.spec.labels[k] === v) && visible(actor, s.scopeTarget));
  }

  /** Every session held, whoever may see it: for the runtime's own use (shutdown, the store, counts). */
  all(): Session[] {
    return [...this.sessions.values()];
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Sessions whose process is still running: what the session cap counts. */
  liveCount(): number {
    let n = 0;
    for (const s of this.sessions.values()) if (!s.exited) n++;
    return n;
  }

  /**
   * End a session for an actor: signal the whole session (escalating to SIGKILL), wait for the exit, then free it.
   * Its record stays in the store.
   */
  async delete(actor: Actor, ref: string, sig: Signal = 'HUP'): Promise<Result<void>> {
    const allowed = requireRole(actor, 'agent', 'ending a session');
    if (!allowed.ok) return allowed;
    if (!SIGNALS.includes(sig)) return fail(new TermError('invalid_request', `signal must be one of ${SIGNALS.join(', ')}`, { field: 'signal' }));
    const found = this.get(ref, actor);
    if (!found.ok) return found;
    found.value.events.emit('audited', actor, 'session_ended', { signal: sig });
    await this.end(found.value, sig);
    return ok(undefined);
  }

  /** Free every session whose process has exited; answers their ids. */
  prune(actor: Actor): Result<string[]> {
    const allowed = requireRole(actor, 'agent', 'pruning sessions');
    if (!allowed.ok) return fail(allowed.error);
    const gone = [...this.sessions.values()].filter((s) => s.exited && visible(actor, s.scopeTarget));
    for (const s of gone) {
      s.events.emit('audited', actor, 'session_removed', {});
      this.free(s);
    }
    return ok(gone.map((s) => s.id));
  }

  /** Kill and free everything, for shutdown. */
  async closeAll(sig: Signal = 'HUP'): Promise<void> {
    for (const t of this.expiry.values()) clearTimeout(t);
    this.expiry.clear();
    await Promise.all([...this.sessions.values()].map((s) => this.end(s, sig)));
    await this.pictures.close();
  }

  /** The sessions `ref` names (its id, else its name) among those `actor` may see. */
  private byRef(ref: string, actor: Actor): Session[] {
    const byId = this.sessions.get(ref);
    // An id the actor may not see is treated as no id at all: the name lookup goes on as it would for a missing one.
    if (byId && visible(actor, byId.scopeTarget)) return [byId];
    const named: Session[] = [];
    for (const s of this.sessions.values()) if (s.spec.name === ref && visible(actor, s.scopeTarget)) named.push(s);
    return named;
  }

  private async end(session: Session, sig: Signal): Promise<void> {
    await session.kill(sig);
    this.free(session);
  }

  /** Free a session once (a concurrent delete or expiry may have freed it while we waited). */
  private free(session: Session): void {
    clearTimeout(this.expiry.get(session.id));
    this.expiry.delete(session.id);
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    session.dispose();
    this.events.emit('removed', session);
  }

  /**
   * An exited session stays readable (final screen, exit code) for `exitedTtlMs`, or is freed at once when it asked
   * for that; the oldest exited sessions are freed early past EXITED_SESSIONS_MAX, so finished runs cannot pile up.
   */
  private exited(session: Session): void {
    // After the current turn, so every listener of the exit (waits, attach clients, the store) has seen it first.
    setImmediate(() => {
      if (this.sessions.get(session.id) !== session) return;
      if (session.spec.remove_on_exit || this.exitedTtlMs === 0) return this.free(session);
      const timer = setTimeout(() => this.free(session), this.exitedTtlMs);
      timer.unref();
      this.expiry.set(session.id, timer);
      const exited = [...this.sessions.values()].filter((s) => s.exited);
      for (const s of exited.slice(0, Math.max(0, exited.length - Limits.exitedSessionsMax))) this.free(s);
    });
  }

  /**
   * Eight characters, a letter first: an id made only of digits (or of digits and an "e") is turned into a number
   * by some JSON clients. Never the name of a session held, nor an id in use.
   */
  private newId(): string {
    for (;;) {
      const bytes = crypto.randomBytes(5);
      const id = ID_FIRST[bytes[0]! % ID_FIRST.length] + bytes.subarray(1).toString('hex').slice(0, 7);
      if (this.byRef(id, SYSTEM_ACTOR).length === 0 && !this.idInUse(id)) return id;
    }
  }
}
