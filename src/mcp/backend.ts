/**
 * What the MCP tools need from termhost, with two implementations: a running daemon through the typed client
 * (`termhost mcp`), or a runtime in this very process (`termhost mcp --embedded`, and the daemon's own /mcp). Both
 * fail by throwing an error that carries a stable `code`, which the tools turn into tool errors.
 */
import type { RuntimeEvent } from '../protocol/events.js';
import type { CommandResult, CreateSession, InputItem, Modes, Screen, ScreenChanges, SessionInfo, SignalAnswer, WaitRequest, WaitResult } from '../protocol/http.js';
import type { Lease, TermhostClient } from '../client/TermhostClient.js';
import type { MouseEvent } from '../core/index.js';

export type MouseInput = MouseEvent;

export interface Backend {
  /** Whether a person can reach these sessions (attach, the UI) to type a secret; false under --embedded. */
  readonly peopleCanReach: boolean;
  create(spec: CreateSession): Promise<SessionInfo>;
  list(): Promise<SessionInfo[]>;
  kill(id: string, signal?: string): Promise<void>;
  /** Answers the items written and the output offset at that moment (for a wait's after_seq). */
  send(id: string, items: InputItem[], leaseId?: string): Promise<{ written: number; seq: number }>;
  screen(id: string, opts: { highlights?: boolean }): Promise<Screen>;
  changes(id: string, sinceSeq: number, opts: { highlights?: boolean; waitMs?: number }): Promise<ScreenChanges>;
  scrollback(id: string, lines: number): Promise<{ lines: string[]; total: number }>;
  wait(id: string, cond: WaitRequest): Promise<WaitResult>;
  /** Type a command at the shell's prompt; answers when it ends, needs input, or at the timeout. */
  run(id: string, command: string, opts: { timeoutMs?: number; maxOutputBytes?: number; leaseId?: string }): Promise<CommandResult>;
  /** Wait again on a command (until it ends or needs input, at most `waitMs`). */
  command(id: string, commandId: string, opts: { waitMs?: number; maxOutputBytes?: number }): Promise<CommandResult>;
  mouse(id: string, event: MouseInput, leaseId?: string): Promise<{ written: number; modes: Modes }>;
  resize(id: string, cols: number, rows: number): Promise<SessionInfo>;
  signal(id: string, signal: string): Promise<SignalAnswer>;
  /** Take a lease, or renew `leaseId` (held by the same actor). */
  acquireLease(id: string, mode: 'shared' | 'exclusive', ttlMs: number, leaseId?: string): Promise<Lease>;
  releaseLease(id: string, leaseId: string): Promise<void>;
  /** Runtime events as they happen; returns an unsubscribe function. */
  subscribe(listener: (e: RuntimeEvent) => void): () => void;
  close(): Promise<void>;
}

/** A running daemon, over HTTP or a unix socket. */
export class ClientBackend implements Backend {
  readonly peopleCanReach = true;
  private stream: ReturnType<TermhostClient['events']> | undefined;
  private readonly listeners = new Set<(e: RuntimeEvent) => void>();

  constructor(private readonly client: TermhostClient) {}

  create(spec: CreateSession) {
    return this.client.createSession(spec);
  }
  list() {
    return this.client.listSessions();
  }
  kill(id: string, signal?: string) {
    return this.client.deleteSession(id, signal);
  }
  send(id: string, items: InputItem[], leaseId?: string) {
    return this.client.input(id, items, { leaseId });
  }
  screen(id: string, opts: { highlights?: boolean }) {
    return this.client.screen(id, opts);
  }
  changes(id: string, sinceSeq: number, opts: { highlights?: boolean; waitMs?: number }) {
    return this.client.screenChanges(id, sinceSeq, opts);
  }
  scrollback(id: string, lines: number) {
    return this.client.scrollback(id, lines);
  }
  wait(id: string, cond: WaitRequest) {
    return this.client.wait(id, cond);
  }
  run(id: string, command: string, opts: { timeoutMs?: number; maxOutputBytes?: number; leaseId?: string }) {
    return this.client.run(id, command, opts);
  }
  command(id: string, commandId: string, opts: { waitMs?: number; maxOutputBytes?: number }) {
    return this.client.command(id, commandId, opts);
  }
  async mouse(id: string, event: MouseInput, leaseId?: string) {
    return (await this.client.mouse(id, { ...event, ...(leaseId ? { lease_id: leaseId } : {}) })) as { written: number; modes: Modes };
  }
  resize(id: string, cols: number, rows: number) {
    return this.client.resize(id, cols, rows);
  }
  signal(id: string, signal: string) {
    return this.client.signal(id, signal);
  }
  acquireLease(id: string, mode: 'shared' | 'exclusive', ttlMs: number, leaseId?: string) {
    return this.client.acquireLease(id, mode, ttlMs, leaseId);
  }
  releaseLease(id: string, leaseId: string) {
    return this.client.releaseLease(id, leaseId);
  }

  /** One event stream for all subscribers, opened on first use; it reconnects and resumes by itself. */
  subscribe(listener: (e: RuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    if (!this.stream) {
      const stream = (this.stream = this.client.events());
      void (async () => {
        try {
          for await (const e of stream) for (const l of this.listeners) l(e);
        } catch {
          /* refused (token revoked): notifications stop; tool calls report the refusal themselves */
        }
      })();
    }
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.stream?.close();
    this.client.close();
  }
}
