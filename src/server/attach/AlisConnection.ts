/**
 * One asciinema live stream (ALiS v1) viewer on one session: read-only, at least the viewer role, authenticated by
 * the same first frame and the same rule as the attach socket. After the auth frame the viewer gets the magic, a
 * reset that draws the emulator's screen, then output and resizes as they happen, then the exit status and EOT.
 *
 * It sees exactly what an attach viewer sees: output reaches it through the session's `output` event, which the
 * runtime does not emit during a secret-input window, and when a window closes the stream restarts from the emulator
 * (a new reset), because the bytes in between were never sent. A viewer that falls behind is dropped (4008).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { WebSocket } from 'ws';
import { repaint, type AttachedClient, type Session } from '../../core/index.js';
import { ALIS_MAGIC, MAX_ALIS_OUTPUT_BYTES, encodeAlisFrame, utf8CompleteLength, type AlisFrame } from '../../protocol/alis.js';
import { CloseCode, decodeClientFrame, type AuthFrame } from '../../protocol/attach.js';
import type { Revocations } from '../Revocations.js';
import type { AttachSettings, Authenticate } from './AttachConnection.js';
import { closeSocket, keepAlive, sendBounded } from './liveSocket.js';

/** Policy close (RFC 6455 1008): the viewer sent something after its auth frame; the stream takes no input. */
const READ_ONLY_CLOSE = 1008;

type EventFrame = Extract<AlisFrame, { id: number }>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export class AlisConnection {
  private state: 'auth' | 'live' | 'closed' = 'auth';
  private readonly cleanups: Array<() => void> = [];
  private client: AttachedClient | undefined;
  /** Stream offset sent up to, so live chunks are never duplicated or skipped. */
  private sentSeq = 0;
  /** Ids count events on this stream; a reset names the last one sent. */
  private nextId = 1;
  /** Stream time of the last event, in microseconds since the session started. */
  private lastEventUs = 0;
  private readonly clock = { startUs: 0, startedAt: 0 };
  /** The start of a character a chunk ended in the middle of; the next chunk completes it. */
  private carry: Buffer | undefined;

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
    if (this.state === 'live') return this.close(READ_ONLY_CLOSE, 'the live stream is read-only; it takes no frames after auth');
    const decoded = decodeClientFrame(data, isBinary);
    if (!decoded.ok || decoded.frame.kind !== 'auth') {
      return this.close(CloseCode.authTimeout, decoded.ok ? 'the first frame must be an auth frame' : decoded.error);
    }
    this.start(decoded.frame);
  }

  private start(auth: AuthFrame): void {
    if (auth.role === 'driver') return this.close(CloseCode.forbidden, 'the live stream is read-only; ask for role "viewer" or none');
    const verdict = this.authenticate(auth);
    if (!verdict.ok) return this.close(verdict.missing ? CloseCode.notFound : CloseCode.forbidden, verdict.reason);
    this.session = verdict.session;
    for (const c of this.cleanups.splice(0)) c(); // the auth timer
    this.state = 'live';
    const s = this.session;
    // A viewer whatever its token could otherwise do: nothing here acts for it, but the audience counts it as one.
    this.client = s.attachClient('viewer', { name: verdict.actor.name, kind: 'viewer' });
    this.cleanups.push(() => this.client?.detach());
    this.cleanups.push(this.revocations.track(verdict.tokenName, () => this.close(CloseCode.forbidden, 'the token was revoked, or the browser signed out'), verdict.signIn));
    this.log.debug({ session: s.id }, 'alis.join');
    this.clock.startUs = Math.max(0, Date.now() - s.createdAt.getTime()) * 1000;
    this.clock.startedAt = performance.now();

    const ev = s.events;
    this.cleanups.push(
      ev.on('output', (chunk, seq) => this.onOutput(chunk, seq)),
      ev.on('resized', (cols, rows) => this.event({ type: 'resize', cols, rows })),
      ev.on('secretEnded', () => this.reset()),
      ev.on('exit', () => this.end()),
      ev.on('disposed', () => this.end()),
      keepAlive(this.ws, this.settings.pingIntervalMs, () => this.close(CloseCode.unresponsive, 'missed two pings')),
    );
    this.send(ALIS_MAGIC);
    this.reset();
    if (s.exited) this.end();
  }

  /**
   * Start the viewer's terminal over from the emulator: on join, and after a secret window, when the byte stream has
   * a hole. During a window the screen is not drawn (a blank terminal of the right size); it comes when the window ends.
   */
  private reset(): void {
    const s = this.session;
    const hidden = s.secretActive;
    const at = s.parsedSeq;
    const timeUs = this.nowUs();
    this.carry = undefined;
    this.sentSeq = at;
    this.lastEventUs = timeUs;
    this.send(encodeAlisFrame({ type: 'reset', lastId: this.nextId - 1, timeUs, cols: s.cols, rows: s.rows, init: hidden ? '' : repaint(s.emulator).toString('utf8') }));
    const pending = hidden ? undefined : s.ring.since(at);
    if (pending) this.output(pending, at);
  }

  private onOutput(chunk: Buffer, seq: number): void {
    const end = seq + chunk.length;
    if (end <= this.sentSeq) return; // already drawn by the reset
    this.output(seq < this.sentSeq ? chunk.subarray(this.sentSeq - seq) : chunk, Math.max(seq, this.sentSeq));
  }

  /** Output frames, cut only between characters: the player decodes each frame on its own. */
  private output(bytes: Buffer, seq: number): void {
    this.sentSeq = seq + bytes.length;
    let data = this.carry ? Buffer.concat([this.carry, bytes]) : bytes;
    this.carry = undefined;
    const complete = utf8CompleteLength(data);
    if (complete < data.length) {
      this.carry = Buffer.from(data.subarray(complete));
      data = data.subarray(0, complete);
    }
    for (let off = 0; off < data.length; ) {
      let end = Math.min(off + MAX_ALIS_OUTPUT_BYTES, data.length);
      if (end < data.length) end = off + (utf8CompleteLength(data.subarray(off, end)) || end - off);
      this.event({ type: 'output', data: data.subarray(off, end) });
      off = end;
    }
  }

  private end(): void {
    if (this.state !== 'live') return;
    const exit = this.session.exit?.exit;
    // The shell's convention: a signal's number plus 128.
    const signal = exit?.signal ? (os.constants.signals as Record<string, number>)[exit.signal] : undefined;
    const status = exit?.exitCode ?? (signal !== undefined ? 128 + signal : 0);
    this.event({ type: 'exit', status: Math.max(0, status) });
    this.send(encodeAlisFrame({ type: 'eot' }));
    this.close(1000, 'session ended');
  }

  private event(f: DistributiveOmit<EventFrame, 'id' | 'relUs'>): void {
    if (this.state !== 'live') return;
    const t = this.nowUs();
    const relUs = Math.max(0, t - this.lastEventUs);
    this.lastEventUs = t;
    this.send(encodeAlisFrame({ ...f, id: this.nextId++, relUs } as EventFrame));
  }

  /** Microseconds since the session started, from a monotonic clock: a viewer's time bar shows the session's age. */
  private nowUs(): number {
    return Math.round(this.clock.startUs + (performance.now() - this.clock.startedAt) * 1000);
  }

  private send(data: Uint8Array): void {
    if (this.state === 'closed') return;
    sendBounded(this.ws, data, true, this.settings.maxBufferedBytes, (code, reason) => this.close(code, reason));
  }

  private close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.teardown();
    closeSocket(this.ws, code, reason);
  }

  private teardown(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    for (const c of this.cleanups.splice(0)) c();
  }
}
