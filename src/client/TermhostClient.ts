/**
 * The typed client of the HTTP API v1, over TCP or a unix socket. The CLI uses it; so can anyone's code.
 * Types come from the same schemas the server validates with.
 */
import type { Static } from '@sinclair/typebox';
import type {
  AttachTokenSchema,
  LeaseSchema,
  SecretStateSchema,
  TokenInfoSchema,
  TranscriptPageSchema,
  CreateSession,
  CommandOutputPage,
  CommandResult,
  CommandSummary,
  InputItem,
  MouseRequest,
  Screen,
  ScreenChanges,
  SessionInfo,
  SessionRecordSchema,
  SignalAnswer,
  WaitRequest,
  WaitResult,
  WireScope,
  ProfilesAnswer,
} from '../protocol/http.js';
import type { AuditPage } from '../protocol/audit.js';
import type { ModerationAction, ModerationState } from '../protocol/moderation.js';
import type { AttachClient, AttachOptions } from './AttachClient.js';
import { EventStream } from './EventStream.js';
import { errorFromAnswer, TermhostError } from './errors.js';
import { resolveTarget, noDaemonMessage, unreachableError, type Address, type Target } from './address.js';
import { makeTransport, NetworkFailure, type Answer, type Transport, type TransportKind } from './transport.js';
import { mayBeTlsPort, probeTls, type Ca } from './tls.js';
import type { LoginCode, LoginCodeRequest } from '../protocol/ui.js';

export type Lease = Static<typeof LeaseSchema>;

export interface ScreenshotOptions {
  format?: 'png' | 'svg';
  scale?: number;
  maxWidth?: number;
  maxHeight?: number;
  theme?: 'dark' | 'light';
  rows?: { first: number; last: number };
  cursor?: boolean;
}

/** A picture of a screen and what it shows: the stream offset, the columns and rows drawn, the cell size in pixels. */
export interface Screenshot {
  format: 'png' | 'svg';
  bytes: Buffer;
  seq: number;
  cols: number;
  firstRow: number;
  lastRow: number;
  cellWidth: number;
  cellHeight: number;
  /** The picture's size in pixels. */
  width: number;
  height: number;
}

export type SecretState = Static<typeof SecretStateSchema>;
export type TokenInfo = Static<typeof TokenInfoSchema>;
export type AttachToken = Static<typeof AttachTokenSchema>;
export type TranscriptPage = Static<typeof TranscriptPageSchema>;
export type SessionRecord = Static<typeof SessionRecordSchema>;
export type { Screen, ScreenChanges, SessionInfo, SignalAnswer, InputItem, WaitRequest, WaitResult, CreateSession, MouseRequest, CommandResult, CommandSummary, CommandOutputPage, WireScope };

/** Options of `run`: how long to wait before answering "running", the output budget, and the lease to type under. */
export interface RunOptions {
  timeoutMs?: number;
  maxOutputBytes?: number;
  leaseId?: string;
}
export type { RuntimeEvent } from '../protocol/events.js';
export type { AuditEntry, AuditPage } from '../protocol/audit.js';

export { TermhostError } from './errors.js';
export { parseAddress, formatAddress, type Address } from './address.js';

export interface ClientOptions {
  /**
   * "host:port", "https://host:port" (TLS), "unix:/path". Default: $TERMHOST_ADDR (or $TERMHOST_URL), else the daemon
   * that `<stateDir>/daemon.json` names.
   */
  address?: string | Address;
  /**
   * For an https:// daemon: the PEM certificates to trust instead of Node's store (its CA, or its own certificate).
   * Default: the file $TERMHOST_CA names, else the certificate daemon.json names, else Node's store, which
   * NODE_EXTRA_CA_CERTS extends. The certificate is always verified.
   */
  ca?: Ca;
  /** Default: $TERMHOST_TOKEN, else the token file of that daemon, else `<stateDir>/token`. */
  token?: string;
  /** Where to look for daemon.json and the token file; default $XDG_STATE_HOME/termhost (~/.local/state/termhost). */
  stateDir?: string;
  /**
   * `pool` (default): keep-alive connections, the least cost per request. `once`: a connection per request and
   * nothing extra to load, for a process that makes a request or two and exits.
   */
  transport?: TransportKind;
}

export class TermhostClient {
  /** The daemon's address; when none was found this is the default one, and every request fails with `no_daemon`. */
  readonly address: Address;
  readonly token: string | undefined;
  /** How the address and token were found (see client/address.ts). */
  readonly target: Target;
  private readonly transport: Transport;
  /** The same on every request: built once. */
  private readonly headers: Record<string, string>;
  private readonly jsonHeaders: Record<string, string>;

  constructor(opts: ClientOptions = {}) {
    this.target = resolveTarget(opts);
    this.address = this.target.address ?? { kind: 'tcp', host: '127.0.0.1', port: 7070 };
    this.token = this.target.token;
    this.transport = makeTransport(opts.transport ?? 'pool', this.address, this.target.trust);
    this.headers = { accept: 'application/json' };
    if (this.token) this.headers.authorization = `Bearer ${this.token}`;
    this.jsonHeaders = { ...this.headers, 'content-type': 'application/json' };
  }

  /** Release pooled keep-alive connections. */
  close(): void {
    this.transport.close();
  }

  health(): Promise<{ ok: boolean; version: string }> {
    return this.request('GET', '/health');
  }

  createSession(spec: CreateSession = {}): Promise<SessionInfo> {
    return this.request('POST', '/v1/sessions', spec);
  }

  async listSessions(labels: Record<string, string> = {}): Promise<SessionInfo[]> {
    const q = Object.entries(labels).map(([k, v]) => `label=${encodeURIComponent(`${k}=${v}`)}`).join('&');
    return (await this.request<{ sessions: SessionInfo[] }>('GET', `/v1/sessions${q ? `?${q}` : ''}`)).sessions;
  }

  /** Live sessions and the stored records of ended ones (records have `live: false`). */
  async listAllSessions(labels: Record<string, string> = {}): Promise<Array<SessionInfo | SessionRecord>> {
    const q = Object.entries(labels).map(([k, v]) => `&label=${encodeURIComponent(`${k}=${v}`)}`).join('');
    return (await this.request<{ sessions: Array<SessionInfo | SessionRecord> }>('GET', `/v1/sessions?include=ended${q}`)).sessions;
  }

  /** A live session, or the stored record of one that is gone. */
  getSession(id: string): Promise<SessionInfo> {
    return this.request('GET', `/v1/sessions/${enc(id)}`);
  }

  /** Kill (with `signal`, default HUP) and free a session; `purge` also deletes its record and transcript. */
  async deleteSession(id: string, signal?: string, opts: { purge?: boolean } = {}): Promise<void> {
    const q = [signal ? `signal=${enc(signal)}` : '', opts.purge ? 'purge=true' : ''].filter(Boolean).join('&');
    await this.request('DELETE', `/v1/sessions/${enc(id)}${q ? `?${q}` : ''}`);
  }

  /** Signal the terminal's foreground process group; the answer's `signalled` says which group got it. */
  signal(id: string, signal: string): Promise<SignalAnswer> {
    return this.request('POST', `/v1/sessions/${enc(id)}/signal`, { signal });
  }

  resize(id: string, cols: number, rows: number): Promise<SessionInfo> {
    return this.request('POST', `/v1/sessions/${enc(id)}/resize`, { cols, rows });
  }

  /** Free every session whose process has exited (their records stay). */
  prune(): Promise<{ removed: string[] }> {
    return this.request('POST', '/v1/sessions/prune');
  }

  input(id: string, input: InputItem[], opts: { leaseId?: string } = {}): Promise<{ written: number; seq: number }> {
    return this.request('POST', `/v1/sessions/${enc(id)}/input`, { input, ...(opts.leaseId ? { lease_id: opts.leaseId } : {}) });
  }

  mouse(id: string, event: MouseRequest): Promise<{ written: number }> {
    return this.request('POST', `/v1/sessions/${enc(id)}/mouse`, event);
  }

  /** `raw`: with styled ANSI that repaints it; `styled`: with each row as spans of text and style. */
  screen(id: string, opts: { raw?: boolean; styled?: boolean; highlights?: boolean } = {}): Promise<Screen> {
    const format = opts.raw ? 'format=raw' : opts.styled ? 'format=styled' : '';
    const q = [format, opts.highlights ? 'highlights=true' : ''].filter(Boolean).join('&');
    return this.request('GET', `/v1/sessions/${enc(id)}/screen${q ? `?${q}` : ''}`);
  }

  /**
   * What changed since the screen served at `sinceSeq` (any earlier screen, wait or changes answer gives a seq).
   * With `waitMs`, an unchanged screen is awaited up to that long (a long poll).
   */
  screenChanges(id: string, sinceSeq: number, opts: { waitMs?: number; highlights?: boolean } = {}): Promise<ScreenChanges> {
    const q = [`since_seq=${sinceSeq}`, opts.waitMs ? `wait_ms=${opts.waitMs}` : '', opts.highlights ? 'highlights=true' : ''].filter(Boolean).join('&');
    return this.request('GET', `/v1/sessions/${enc(id)}/screen?${q}`);
  }

  /**
   * A picture of the screen (PNG by default, or SVG), drawn by the daemon with its bundled font. `scale` is pixels per
   * cell row; `maxWidth` and `maxHeight` shrink it to fit; `rows` draws only a range of screen rows (0-based, inclusive).
   */
  async screenshot(id: string, opts: ScreenshotOptions = {}): Promise<Screenshot> {
    const format = opts.format ?? 'png';
    const q = new URLSearchParams({ format });
    if (opts.scale !== undefined) q.set('scale', String(opts.scale));
    if (opts.maxWidth !== undefined) q.set('max_width', String(opts.maxWidth));
    if (opts.maxHeight !== undefined) q.set('max_height', String(opts.maxHeight));
    if (opts.theme !== undefined) q.set('theme', opts.theme);
    if (opts.rows !== undefined) q.set('rows', opts.rows.first === opts.rows.last ? String(opts.rows.first) : `${opts.rows.first}-${opts.rows.last}`);
    if (opts.cursor !== undefined) q.set('cursor', String(opts.cursor));
    const answer = await this.send('GET', `/v1/sessions/${enc(id)}/screen?${q}`);
    const header = (name: string) => String(answer.headers[name] ?? '');
    const [cellWidth, cellHeight] = header('x-termhost-cell').split('x').map(Number);
    const [firstRow, lastRow] = header('x-termhost-rows').split('-').map(Number);
    return {
      format,
      bytes: answer.body,
      seq: Number(header('x-termhost-seq')),
      cols: Number(header('x-termhost-cols')),
      firstRow: firstRow!,
      lastRow: lastRow!,
      cellWidth: cellWidth!,
      cellHeight: cellHeight!,
      width: cellWidth! * Number(header('x-termhost-cols')),
      height: cellHeight! * (lastRow! - firstRow! + 1),
    };
  }

  scrollback(id: string, lines?: number): Promise<{ lines: string[]; total: number }> {
    return this.request('GET', `/v1/sessions/${enc(id)}/scrollback${lines === undefined ? '' : `?lines=${lines}`}`);
  }

  wait(id: string, cond: WaitRequest): Promise<WaitResult> {
    return this.request('POST', `/v1/sessions/${enc(id)}/wait`, cond);
  }

  /**
   * Type `command` at the shell's prompt and answer when it ends (`status: "exited"`, with `exit_code` and its own
   * `output`), when it waits for input (`"input_needed"`), or at `timeoutMs` (`"running"`: wait again with `command`).
   */
  run(id: string, command: string, opts: RunOptions = {}): Promise<CommandResult> {
    return this.request('POST', `/v1/sessions/${enc(id)}/commands`, {
      command,
      ...(opts.timeoutMs !== undefined ? { timeout_ms: opts.timeoutMs } : {}),
      ...(opts.maxOutputBytes !== undefined ? { max_output_bytes: opts.maxOutputBytes } : {}),
      ...(opts.leaseId ? { lease_id: opts.leaseId } : {}),
    });
  }

  /** One command; with `waitMs`, a running one is waited on until it ends or needs input. */
  command(id: string, commandId: string, opts: { waitMs?: number; maxOutputBytes?: number } = {}): Promise<CommandResult> {
    const q = [opts.waitMs ? `wait_ms=${opts.waitMs}` : '', opts.maxOutputBytes !== undefined ? `max_output_bytes=${opts.maxOutputBytes}` : ''].filter(Boolean).join('&');
    return this.request('GET', `/v1/sessions/${enc(id)}/commands/${enc(commandId)}${q ? `?${q}` : ''}`);
  }

  /** The last 100 commands the session's shell ran, typed by anyone, oldest first. */
  async commands(id: string): Promise<CommandSummary[]> {
    return (await this.request<{ commands: CommandSummary[] }>('GET', `/v1/sessions/${enc(id)}/commands`)).commands;
  }

  /** A page of a command's whole output from byte `offset`; page on with `next_offset` until `eof`. */
  commandOutput(id: string, commandId: string, opts: { offset?: number; limit?: number } = {}): Promise<CommandOutputPage> {
    const q = [opts.offset !== undefined ? `offset=${opts.offset}` : '', opts.limit !== undefined ? `limit=${opts.limit}` : ''].filter(Boolean).join('&');
    return this.request('GET', `/v1/sessions/${enc(id)}/commands/${enc(commandId)}/output${q ? `?${q}` : ''}`);
  }

  mintAttachToken(id: string, role: 'viewer' | 'driver' = 'viewer'): Promise<AttachToken> {
    return this.request('POST', `/v1/sessions/${enc(id)}/attach-tokens`, { role });
  }

  banner(id: string, message: string): Promise<SessionInfo> {
    return this.request('POST', `/v1/sessions/${enc(id)}/banner`, { message });
  }

  async leases(id: string): Promise<Lease[]> {
    return (await this.request<{ leases: Lease[] }>('GET', `/v1/sessions/${enc(id)}/leases`)).leases;
  }

  acquireLease(id: string, mode: 'shared' | 'exclusive', ttlMs: number, leaseId?: string): Promise<Lease> {
    return this.request('POST', `/v1/sessions/${enc(id)}/leases`, { mode, ttl_ms: ttlMs, ...(leaseId ? { lease_id: leaseId } : {}) });
  }

  async releaseLease(id: string, leaseId: string): Promise<void> {
    await this.request('DELETE', `/v1/sessions/${enc(id)}/leases/${enc(leaseId)}`);
  }

  secretInput(id: string): Promise<SecretState> {
    return this.request('GET', `/v1/sessions/${enc(id)}/secret-input`);
  }

  secretAction(id: string, action: 'start' | 'end', reason?: string): Promise<SecretState> {
    return this.request('POST', `/v1/sessions/${enc(id)}/secret-input/actions`, { action, ...(reason ? { reason } : {}) });
  }

  /** Who must be present for agents to type, who is, and whether agent input is paused. */
  moderation(id: string): Promise<ModerationState> {
    return this.request('GET', `/v1/sessions/${enc(id)}/moderation`);
  }

  /** A moderator's action (a person's token): pause or resume agent input, revoke an agent's lease, end the session. */
  moderate(id: string, action: ModerationAction, leaseId?: string): Promise<ModerationState> {
    return this.request('POST', `/v1/sessions/${enc(id)}/moderation`, { action, ...(leaseId ? { lease_id: leaseId } : {}) });
  }

  /** A named token; `scope` limits which sessions it may know of (unscoped: all), `profiles` what it may start. */
  createToken(name: string, role: 'admin' | 'human' | 'agent' | 'viewer', opts: { scope?: WireScope; profiles?: string[] } = {}): Promise<TokenInfo & { token: string }> {
    return this.request('POST', '/v1/tokens', { name, role, ...(opts.scope ? { scope: opts.scope } : {}), ...(opts.profiles ? { profiles: opts.profiles } : {}) });
  }

  /** The daemon's command profiles, and whether this token may start only them. */
  profiles(): Promise<ProfilesAnswer> {
    return this.request('GET', '/v1/profiles');
  }

  async listTokens(): Promise<TokenInfo[]> {
    return (await this.request<{ tokens: TokenInfo[] }>('GET', '/v1/tokens')).tokens;
  }

  async revokeToken(name: string): Promise<void> {
    await this.request('DELETE', `/v1/tokens/${enc(name)}`);
  }

  /** One page of a session's stored (redacted) output; page on with fromSeq = last_seq + 1. */
  transcript(id: string, opts: { fromSeq?: number; limit?: number } = {}): Promise<TranscriptPage> {
    const q = [opts.fromSeq !== undefined ? `from_seq=${opts.fromSeq}` : '', opts.limit !== undefined ? `limit=${opts.limit}` : ''].filter(Boolean).join('&');
    return this.request('GET', `/v1/sessions/${enc(id)}/transcript${q ? `?${q}` : ''}`);
  }

  /**
   * The whole transcript as an asciicast file: v3 unless `version: 2` (for asciinema 2.x); `idleLimit` caps pauses
   * (seconds); `markers` adds marker events.
   */
  /** `audit`: the session's audit trail as markers too (needs the human role). */
  transcriptCast(id: string, opts: { version?: 2 | 3; idleLimit?: number; markers?: boolean; audit?: boolean } = {}): Promise<string> {
    const q = [
      'format=asciicast',
      opts.version ? `version=${opts.version}` : '',
      opts.idleLimit !== undefined ? `idle_limit=${opts.idleLimit}` : '',
      opts.markers ? 'markers=1' : '',
      opts.audit ? 'audit=1' : '',
    ];
    return this.request('GET', `/v1/sessions/${enc(id)}/transcript?${q.filter(Boolean).join('&')}`, undefined, true);
  }

  /**
   * The stored transcript as an animated GIF, drawn by the daemon as its PNG screens are, identical frames merged.
   * `idleLimit` caps every pause (seconds), `speed` plays faster (2) or slower (0.5).
   */
  async transcriptGif(id: string, opts: { idleLimit?: number; speed?: number; scale?: number; theme?: 'dark' | 'light' } = {}): Promise<{ bytes: Buffer; frames: number }> {
    const q = new URLSearchParams({ format: 'gif' });
    if (opts.idleLimit !== undefined) q.set('idle_limit', String(opts.idleLimit));
    if (opts.speed !== undefined) q.set('speed', String(opts.speed));
    if (opts.scale !== undefined) q.set('scale', String(opts.scale));
    if (opts.theme !== undefined) q.set('theme', opts.theme);
    const answer = await this.send('GET', `/v1/sessions/${enc(id)}/transcript?${q}`);
    return { bytes: answer.body, frames: Number(answer.headers['x-termhost-frames'] ?? 0) };
  }

  /** One page of the audit trail, oldest first; pass `next_after` back as `after` for the next. */
  audit(q: { session?: string; actor?: string; since?: string; after?: number; limit?: number } = {}): Promise<AuditPage> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return this.request('GET', `/v1/audit${qs ? `?${qs}` : ''}`);
  }

  /** A single-use, 60 s code that signs a browser in to the UI: open `login_path` on the daemon's address. */
  mintUiLogin(opts: LoginCodeRequest = {}): Promise<LoginCode> {
    return this.request('POST', '/v1/ui/login-codes', opts);
  }

  openapi(): Promise<Record<string, unknown>> {
    return this.request('GET', '/openapi.json');
  }

  /** The index of the wire types' JSON Schemas, and one schema by name. */
  schemaIndex(): Promise<{ schemas: Array<{ name: string; url: string; description: string }> }> {
    return this.request('GET', '/schemas/index.json');
  }

  schema(name: string): Promise<Record<string, unknown>> {
    return this.request('GET', `/schemas/${enc(name)}.json`);
  }

  /**
   * The runtime's events as an async iterator that reconnects by itself and resumes with Last-Event-ID, so no event
   * is missed or repeated across a dropped connection. Call `close()` (or break out of the loop) to stop.
   */
  events(opts: { session?: string; lastEventId?: number } = {}): EventStream {
    return new EventStream({ address: this.address, token: this.token, trust: this.target.trust, ...opts });
  }

  /**
   * Attach to a session's live stream: mints a short-lived attach token with this client's credential, opens the
   * socket and authenticates. Iterate the result for frames; `sendStdin`/`sendResize` as a driver.
   */
  async attach(id: string, opts: { role?: 'viewer' | 'driver' } & Omit<AttachOptions, 'address' | 'session' | 'token' | 'role' | 'bearer'> = {}): Promise<AttachClient> {
    const role = opts.role ?? 'viewer';
    const { token } = await this.mintAttachToken(id, role);
    // Loaded here: ws and the frame codec are not needed by a client that never attaches.
    const { AttachClient } = await import('./AttachClient.js');
    return new AttachClient({ ...opts, address: this.address, trust: this.target.trust, session: id, token, role });
  }

  /** One JSON request; non-2xx answers become a TermhostError carrying the server's code. */
  async request<T>(method: string, path: string, body?: unknown, text = false): Promise<T> {
    const answer = await this.send(method, path, body);
    const s = answer.body.toString('utf8');
    if (text) return s as T;
    return (s ? JSON.parse(s) : undefined) as T;
  }

  /** One request answered with bytes and headers (pictures, recordings); non-2xx answers throw as `request` does. */
  private async send(method: string, path: string, body?: unknown): Promise<Answer> {
    if (!this.target.address) throw new TermhostError(noDaemonMessage(this.target.stateDir), 'no_daemon', 0, true);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let answer: Answer;
    try {
      answer = await this.transport.request(method, path, payload === undefined ? this.headers : this.jsonHeaders, payload);
    } catch (err) {
      if (!(err instanceof NetworkFailure)) throw err;
      // A TLS port drops a plain request unanswered; a handshake tells that apart from a daemon that died mid-request.
      if (this.address.kind === 'tcp' && mayBeTlsPort(this.address, err.errno) && (await probeTls(this.address))) throw unreachableError(this.target, 'tls_port');
      throw unreachableError(this.target, err.errno, err.detail);
    }
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw errorFromAnswer(answer.status, answer.body.toString('utf8'));
  }
}

function enc(s: string): string {
  return encodeURIComponent(s);
}
