/**
 * Owns every session of one runtime: creation from a spec (with defaults), lookup, listing by label, the session
 * cap, and deletion (signal, escalate, reap, free).
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { TermError, fail, ok, type Result } from '../errors.js';
import { Emitter } from '../events/Emitter.js';
import { Limits } from '../limits.js';
import type { Signal } from '../pty/PtyProcess.js';
import { spawnPty } from '../pty/spawnPty.js';
import { Session, type ResolvedSpec } from './Session.js';
import type { ControlOptions } from '../control/SessionControl.js';
import type { InputPolicy } from '../control/LeaseTable.js';
import type { Actor } from '../control/actor.js';

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
}

export type ManagerEvents = {
  created: [session: Session];
  removed: [session: Session];
};

export class SessionManager {
  readonly events = new Emitter<ManagerEvents>();
  private readonly sessions = new Map<string, Session>();
  private readonly maxSessions: number;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly defaults: ControlOptions;
  private readonly idInUse: (id: string) => boolean;

  constructor(opts: SessionManagerOptions = {}) {
    this.maxSessions = opts.maxSessions ?? Limits.maxSessions;
    this.baseEnv = opts.baseEnv ?? process.env;
    this.defaults = { inputPolicy: opts.inputPolicy ?? 'auto', secretDetect: opts.secretDetect ?? true };
    this.idInUse = opts.idInUse ?? (() => false);
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
    };
  }

  /** Start a session; `createdBy` is recorded as its creator. */
  create(spec: SessionSpec = {}, createdBy?: Actor): Result<Session> {
    if (this.sessions.size >= this.maxSessions) {
      return fail(
        new TermError('session_limit', `the session limit (${this.maxSessions}) is reached; delete a session first`, {}, true),
      );
    }
    const resolved = this.resolveSpec(spec);
    const [file, ...args] = resolved.command;
    const spawned = spawnPty({
      file: file!,
      args,
      cwd: resolved.cwd,
      env: resolved.env,
      cols: resolved.cols,
      rows: resolved.rows,
      term: resolved.term,
    });
    if (!spawned.ok) return spawned;
    const session = new Session(
      this.newId(),
      resolved,
      spawned.value,
      { inputPolicy: spec.input_policy ?? this.defaults.inputPolicy, secretDetect: spec.secret_detect ?? this.defaults.secretDetect },
      createdBy,
    );
    this.sessions.set(session.id, session);
    this.events.emit('created', session);
    return ok(session);
  }

  get(id: string): Result<Session> {
    const session = this.sessions.get(id);
    if (!session) return fail(new TermError('session_not_found', `no session "${id}"`));
    return ok(session);
  }

  list(labels: Record<string, string> = {}): Session[] {
    const wanted = Object.entries(labels);
    return [...this.sessions.values()].filter((s) => wanted.every(([k, v]) => s.spec.labels[k] === v));
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Signal the process group (escalating to SIGKILL), wait for the exit, then free the session. */
  async delete(id: string, sig: Signal = 'HUP'): Promise<Result<void>> {
    const found = this.get(id);
    if (!found.ok) return found;
    const session = found.value;
    await session.kill(sig);
    // A concurrent delete may have removed it while we waited.
    if (this.sessions.get(id) === session) {
      this.sessions.delete(id);
      session.dispose();
      this.events.emit('removed', session);
    }
    return ok(undefined);
  }

  /** Kill and free everything, for shutdown. */
  async closeAll(sig: Signal = 'HUP'): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.delete(id, sig)));
  }

  private newId(): string {
    for (;;) {
      const id = crypto.randomBytes(4).toString('hex');
      if (!this.sessions.has(id) && !this.idInUse(id)) return id;
    }
  }
}
