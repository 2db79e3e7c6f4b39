/**
 * One attach client on one session: the auth handshake, role enforcement, the join repaint or exact resume, live
 * fan-out with a bound on what may queue for a slow client, render-view frames, pings, and the pinned exit frame.
 */
import type { WebSocket } from 'ws';
import { renderFrame, repaint, type Actor, type AttachedClient, type Session } from '../../core/index.js';
import type { Revocations } from '../Revocations.js';
import { closeSocket, keepAlive, sendBounded } from './liveSocket.js';
import {
  CloseCode,
  decodeClientFrame,
  encodeServerFrame,
  MAX_FRAME_BYTES,
  type AuthFrame,
  type Role,
  type ServerFrame,
  type View,
} from '../../protocol/attach.js';

export interface AttachSettings {
  /** A socket must authenticate within this time. */
  authTimeoutMs: number;
  /** Ping interval; a peer that misses two pongs in a row is dropped. */
  pingIntervalMs: number;
  /** Output queued for one client beyond this closes it with 4008. */
  maxBufferedBytes: number;
  /** Render view: at most one full-frame repaint per this interval. */
  renderDebounceMs: number;
}

/** Room for the frame header inside the largest frame a client accepts. */
const MAX_STDOUT_BYTES = MAX_FRAME_BYTES - 64;

/**
 * The last stdout frame encoded, by chunk and offset. A session's output event reaches all its viewers one after the
 * other with the same chunk, so the first encodes the frame and the rest send the very same bytes: one allocation and
 * copy per PTY read instead of one per viewer.
 */
let lastStdout: { chunk: Buffer; seq: number; data: Buffer | string } | undefined;

function stdoutFrame(chunk: Buffer, seq: number): Buffer | string {
  if (lastStdout?.chunk !== chunk || lastStdout.seq !== seq) lastStdout = { chunk, seq, data: encodeServerFrame({ kind: 'stdout', seq, data: chunk }).data };
  return lastStdout.data;
}

export const DEFAULT_ATTACH_SETTINGS: AttachSettings = {
  authTimeoutMs: 5000,
  pingIntervalMs: 30_000,
  maxBufferedBytes: 4 * 1024 * 1024,
  renderDebounceMs: 25,
};

/** Decides what a first frame's credentials allow: who it is and the most privileged role, or a refusal. */
/**
 * Decides what a first frame's credentials allow: the session the socket's path names, who it is and the most
 * privileged role; or a refusal, `missing` when the path names no session this credential may see (closed with 4004,
 * whether it is missing or out of scope).
 */
export type Authenticate = (
  frame: AuthFrame,
) => { ok: true; session: Session; maxRole: Role; actor: Actor; tokenName: string; signIn?: string } | { ok: false; reason: string; missing?: boolean };

export class AttachConnection {
  private state: 'auth' | 'live' | 'closed' = 'auth';
  private role: Role = 'viewer';
  private actor: Actor = { name: 'unknown', kind: 'viewer' };
  private view: View = 'stream';
  private client: AttachedClient | undefined;
  private readonly cleanups: Array<() => void> = [];
  private renderTimer: NodeJS.Timeout | undefined;
  private clientSize: { cols: number; rows: number } | undefined;
  /** Stream offset the client has been sent up to, so live chunks are never duplicated or skipped. */
  private sentSeq = 0;
  /** Known once the auth frame names a credential that may see it. */
  private session!: Session;

  constructor(
    private readonly ws: WebSocket,
    private readonly authenticate: Authenticate,
    private readonly settings: AttachSettings,
    private readonly log: { debug: (o: object, m: string) => void },
    private readonly revocations: Revocations,
  ) {
    const authTimer = setTimeout(() => this.close(CloseCode.authTimeout, 'no auth frame within 5 s'), settings.authTimeoutMs);
    this.cleanups.push(() => clearTimeout(authTimer));
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onMessage(data, isBinary));
    ws.on('close', () => this.teardown());
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.state === 'closed') return;
    const decoded = decodeClientFrame(data, isBinary);
    if (this.state === 'auth') {
      if (!decoded.ok || decoded.frame.kind !== 'auth') {
        this.close(CloseCode.authTimeout, decoded.ok ? 'the first frame must be an auth frame' : decoded.error);
        return;
      }
      this.start(decoded.frame);
      return;
    }
    if (!decoded.ok) return this.send({ kind: 'error', message: decoded.error, code: 'invalid_frame' });
    const frame = decoded.frame;
    if (frame.kind === 'auth') return this.send({ kind: 'error', message: 'already authenticated', code: 'invalid_frame' });
    if (this.role !== 'driver') {
      return this.send({ kind: 'error', message: `you are attached as a viewer; ${frame.kind} is refused`, code: 'read_only' });
    }
    if (frame.kind === 'stdin') {
      const written = this.session.input(this.actor, frame.data, { source: 'attach' });
      if (!written.ok) this.send({ kind: 'error', message: written.error.message, code: written.error.code });
    } else if (frame.kind === 'resize') {
      this.session.resize(this.actor, frame.cols, frame.rows);
    }
  }

  private start(auth: AuthFrame): void {
    const verdict = this.authenticate(auth);
    if (!verdict.ok) return this.close(verdict.missing ? CloseCode.notFound : CloseCode.forbidden, verdict.reason);
    this.session = verdict.session;
    for (const c of this.cleanups.splice(0)) c(); // the auth timer
    this.state = 'live';
    const wanted: Role = auth.role ?? 'viewer';
    this.role = verdict.maxRole === 'viewer' ? 'viewer' : wanted;
    // A viewer is a viewer whatever its token could otherwise do.
    this.actor = this.role === 'viewer' ? { name: verdict.actor.name, kind: 'viewer' } : verdict.actor;
    this.cleanups.push(this.revocations.track(verdict.tokenName, () => this.close(CloseCode.forbidden, 'the token was revoked, or the browser signed out'), verdict.signIn));
    this.view = auth.view ?? 'stream';
    // The client's own terminal size, used to size render-view frames. It never resizes the session: a driver that
    // wants to be the size authority sends a resize frame.
    if (auth.cols !== undefined && auth.rows !== undefined) this.clientSize = { cols: auth.cols, rows: auth.rows };
    this.client = this.session.attachClient(this.role, this.actor);
    this.log.debug({ session: this.session.id, role: this.role, view: this.view }, 'attach.join');

    const ev = this.session.events;
    this.cleanups.push(
      () => this.client?.detach(),
      ev.on('output', (chunk, seq) => this.onOutput(chunk, seq)),
      ev.on('parsed', () => this.view === 'render' && this.scheduleRender()),
      ev.on('resized', (cols, rows) => {
        this.send({ kind: 'resized', cols, rows });
        if (this.view === 'render') this.scheduleRender(); // the emulator re-wrapped without any new output
      }),
      ev.on('banner', (message) => this.send({ kind: 'error', message })),
      ev.on('secretStarted', () => this.sendState()),
      ev.on('secretEnded', () => {
        this.sendState();
        this.repaintNow();
      }),
      ev.on('moderation', () => this.sendState()),
      ev.on('exit', () => this.sendExitAndClose()),
      ev.on('disposed', () => this.sendExitAndClose()),
    );
    this.cleanups.push(keepAlive(this.ws, this.settings.pingIntervalMs, () => this.close(CloseCode.unresponsive, 'missed two pings')));

    this.join(auth.since_seq);
  }

  /** Hello, then either the exact bytes after `since` (still in the ring) or a repaint, then banners, then exit. */
  private join(since: number | undefined): void {
    const s = this.session;
    const info = { id: s.id, command: s.spec.command, cols: s.cols, rows: s.rows, title: s.info().title, exited: s.exited };
    const resume = this.view === 'stream' && since !== undefined ? s.ring.since(since) : undefined;
    if (s.secretActive) {
      // Nothing derived from output leaves while the window is open: the screen comes when it closes.
      this.send({ kind: 'hello', session: info, role: this.role, view: this.view, seq: s.info().seq });
      this.sendState();
    } else if (resume && since !== undefined) {
      this.send({ kind: 'hello', session: info, role: this.role, view: this.view, seq: since });
      this.sentSeq = since;
      this.sendStdout(resume, since);
    } else {
      this.send({ kind: 'hello', session: info, role: this.role, view: this.view, seq: s.parsedSeq });
      this.repaintNow();
    }
    const m = s.moderation;
    if (!s.secretActive && (m.required || m.paused_by)) this.sendState();
    for (const message of s.retainedBanners) this.send({ kind: 'error', message });
    if (s.exited) this.sendExitAndClose();
  }

  private sendState(): void {
    this.send({ kind: 'state', secret_input: this.session.secretState, moderation: this.session.moderation });
  }

  /**
   * A picture of the screen from the emulator, then the bytes it has received but not yet drawn: on join, and after a
   * secret window, when the byte stream has a hole.
   */
  private repaintNow(): void {
    if (this.view === 'render') return this.sendRender();
    const at = this.session.parsedSeq;
    this.send({ kind: 'repaint', seq: at, data: repaint(this.session.emulator) });
    this.sentSeq = at;
    const pending = this.session.ring.since(at);
    if (pending) this.sendStdout(pending, at);
  }

  private onOutput(chunk: Buffer, seq: number): void {
    if (this.view !== 'stream') return;
    const end = seq + chunk.length;
    if (end <= this.sentSeq) return; // already sent as part of the join
    if (seq === this.sentSeq && chunk.length <= MAX_STDOUT_BYTES) {
      // The usual case: the whole chunk, right after the last one, as the frame every viewer sends.
      this.sendEncoded(stdoutFrame(chunk, seq), true);
      this.sentSeq = end;
      return;
    }
    this.sendStdout(seq < this.sentSeq ? chunk.subarray(this.sentSeq - seq) : chunk, Math.max(seq, this.sentSeq));
  }

  private sendStdout(bytes: Buffer, seq: number): void {
    for (let off = 0; off < bytes.length; off += MAX_STDOUT_BYTES) {
      this.send({ kind: 'stdout', seq: seq + off, data: bytes.subarray(off, off + MAX_STDOUT_BYTES) });
    }
    this.sentSeq = seq + bytes.length;
  }

  private scheduleRender(): void {
    if (this.renderTimer) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.sendRender();
    }, this.settings.renderDebounceMs);
  }

  private sendRender(): void {
    if (this.state !== 'live' || this.session.secretActive) return;
    const size = this.clientSize ?? { cols: this.session.cols, rows: this.session.rows };
    this.send({ kind: 'repaint', seq: this.session.parsedSeq, data: renderFrame(this.session.emulator, size) });
  }

  private sendExitAndClose(): void {
    if (this.state !== 'live') return;
    const exit = this.session.exit;
    if (this.view === 'render' && !this.session.secretActive) this.sendRender();
    this.send({
      kind: 'exit',
      code: exit?.exit.exitCode ?? null,
      signal: exit?.exit.signal ?? null,
      reason: exit?.reason ?? 'closed',
    });
    this.close(1000, 'session ended');
  }

  private send(frame: ServerFrame): void {
    if (this.state === 'closed' || this.ws.readyState !== this.ws.OPEN) return;
    const { data, binary } = encodeServerFrame(frame);
    this.sendEncoded(data, binary);
  }

  private sendEncoded(data: Buffer | string, binary: boolean): void {
    if (this.state === 'closed') return;
    sendBounded(this.ws, data, binary, this.settings.maxBufferedBytes, (code, reason) => this.close(code, reason));
  }

  private close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.teardown();
    closeSocket(this.ws, code, reason);
  }

  private teardown(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (this.renderTimer) clearTimeout(this.renderTimer);
    for (const c of this.cleanups.splice(0)) c();
  }
}
