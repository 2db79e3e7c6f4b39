/**
 * The MCP tools on a runtime in this process, acting as one actor: `termhost mcp --embedded` (an agent of its own)
 * and the daemon's /mcp endpoint (the caller's token decides the actor). Expected failures become thrown TermErrors,
 * as the HTTP routes do.
 */
import type { Actor, Result, Runtime, Session, Signal } from '../core/index.js';
import type { RuntimeEvent } from '../protocol/events.js';
import type { CreateSession, InputItem, WaitRequest } from '../protocol/http.js';
import type { Backend, MouseInput } from './backend.js';
import type { Screenshot, ScreenshotOptions } from '../client/TermhostClient.js';

function unwrap<T>(r: Result<T>): T {
  if (!r.ok) throw r.error;
  return r.value;
}

export class RuntimeBackend implements Backend {
  constructor(
    private readonly runtime: Runtime,
    private readonly actor: Actor,
    /** Called on close; the embedded server owns its runtime, the daemon's endpoint does not. */
    private readonly onClose: () => Promise<void> = async () => {},
    /** Working directory for sessions created without `cwd`; the runtime's default (HOME) otherwise. */
    private readonly defaultCwd?: string,
    /** The daemon's cap on waits in progress, which `wait_for` and long polls count against; none when embedded. */
    private readonly waitSlots?: { take(): Result<() => void> },
    /** The daemon's /mcp: people can attach to its sessions. `termhost mcp --embedded`: nobody can. */
    readonly peopleCanReach: boolean = true,
    /** The daemon's per-token limit on session starts: an error when this start is one too many. */
    private readonly startGate: () => Promise<Error | undefined> = async () => undefined,
  ) {}

  /** Run a wait in one of the daemon's wait slots, if it has them. */
  private async inWaitSlot<T>(fn: () => Promise<T>): Promise<T> {
    const release = this.waitSlots ? unwrap(this.waitSlots.take()) : undefined;
    try {
      return await fn();
    } finally {
      release?.();
    }
  }

  private session(id: string): Session {
    return unwrap(this.runtime.sessions.get(id, this.actor));
  }

  async create(spec: CreateSession) {
    const limited = await this.startGate();
    if (limited) throw limited;
    // A profile brings its own cwd (or the runtime's default); the server's directory is for commands of the caller's.
    const withCwd = spec.cwd === undefined && spec.profile === undefined && this.defaultCwd !== undefined ? { ...spec, cwd: this.defaultCwd } : spec;
    return unwrap(this.runtime.sessions.create(withCwd, this.actor)).info();
  }
  async list() {
    return this.runtime.sessions.list({}, this.actor).map((s) => s.info());
  }
  async kill(id: string, signal?: string) {
    unwrap(await this.runtime.sessions.delete(this.actor, id, (signal ?? 'HUP') as Signal));
  }
  async send(id: string, items: InputItem[], leaseId?: string) {
    return unwrap(this.session(id).send(this.actor, items, { leaseId, source: 'api' }));
  }
  async screen(id: string, opts: { highlights?: boolean }) {
    return unwrap(await this.session(id).screen(this.actor, opts));
  }
  async changes(id: string, sinceSeq: number, opts: { highlights?: boolean; waitMs?: number }) {
    const s = this.session(id);
    if (!opts.waitMs) return unwrap(await s.changes(this.actor, sinceSeq, opts));
    return this.inWaitSlot(async () => unwrap(await s.changes(this.actor, sinceSeq, opts)));
  }
  async scrollback(id: string, lines: number) {
    return unwrap(await this.session(id).scrollback(this.actor, lines));
  }
  async picture(id: string, opts: ScreenshotOptions): Promise<Screenshot> {
    const p = unwrap(await this.session(id).picture(this.actor, { ...opts, format: opts.format ?? 'png' }));
    return { format: p.format, bytes: p.bytes, seq: p.seq, cols: p.cols, firstRow: p.firstRow, lastRow: p.lastRow, cellWidth: p.cellWidth, cellHeight: p.cellHeight, width: p.width, height: p.height };
  }
  async wait(id: string, cond: WaitRequest) {
    const s = this.session(id);
    return this.inWaitSlot(async () => unwrap(await s.wait(this.actor, cond)));
  }
  async run(id: string, command: string, opts: { timeoutMs?: number; maxOutputBytes?: number; leaseId?: string }) {
    const s = this.session(id);
    const req = { command, timeout_ms: opts.timeoutMs, max_output_bytes: opts.maxOutputBytes, lease_id: opts.leaseId };
    return this.inWaitSlot(async () => unwrap(await s.run(this.actor, req)));
  }
  async command(id: string, commandId: string, opts: { waitMs?: number; maxOutputBytes?: number }) {
    const s = this.session(id);
    if (!opts.waitMs) return unwrap(await s.command(this.actor, commandId, opts));
    return this.inWaitSlot(async () => unwrap(await s.command(this.actor, commandId, opts)));
  }
  async mouse(id: string, event: MouseInput, leaseId?: string) {
    const s = this.session(id);
    const written = unwrap(s.mouse(this.actor, event, leaseId));
    return { written, modes: s.emulator.modes };
  }
  async resize(id: string, cols: number, rows: number) {
    const s = this.session(id);
    unwrap(s.resize(this.actor, cols, rows));
    return s.info();
  }
  async signal(id: string, signal: string) {
    const s = this.session(id);
    const signalled = unwrap(s.signal(this.actor, signal as Signal));
    return { ...s.info(), signalled };
  }
  async acquireLease(id: string, mode: 'shared' | 'exclusive', ttlMs: number, leaseId?: string) {
    return unwrap(this.session(id).acquireLease(this.actor, mode, ttlMs, leaseId));
  }
  async releaseLease(id: string, leaseId: string) {
    unwrap(this.session(id).releaseLease(this.actor, leaseId));
  }
  /** Only events about sessions this actor may see, as the daemon's event stream sends them. */
  subscribe(listener: (e: RuntimeEvent) => void): () => void {
    const bus = this.runtime.events;
    return bus.subscribe((e) => bus.visibleTo(this.actor, e) && listener(e));
  }
  close(): Promise<void> {
    return this.onClose();
  }
}
