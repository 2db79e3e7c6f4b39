/**
 * The browser side of the attach protocol (docs/protocol.md): open the socket, send the attach token in the first
 * frame (never in the URL), and hand each server frame to the pane. Terminal bytes travel in binary frames tagged
 * by their first byte; the rest is JSON.
 */
import type { ModerationState } from './types.js';

export interface SecretInput {
  active: boolean;
  since: string | null;
  reason: string | null;
  started_by: { name: string; kind: string } | null;
}

export interface AttachHandlers {
  hello(f: { role: 'driver' | 'viewer'; seq: number; session: { cols: number; rows: number; title: string; exited: boolean } }): void;
  stdout(seq: number, data: Uint8Array): void;
  repaint(seq: number, data: Uint8Array): void;
  resized(cols: number, rows: number): void;
  /** `moderation` comes with every state frame of a moderated (or paused) session. */
  state(secret: SecretInput, moderation: ModerationState | undefined): void;
  notice(message: string, code: string | undefined): void;
  exit(f: { code: number | null; signal: string | null; reason: string }): void;
  /** The socket closed; `exited` says whether the exit frame came first. */
  closed(code: number, reason: string, exited: boolean): void;
}

const TAG_STDOUT = 0x01;
const TAG_STDIN = 0x02;
const TAG_REPAINT = 0x03;

export class AttachSocket {
  private readonly ws: WebSocket;
  private exited = false;
  private done = false;
  private readonly encoder = new TextEncoder();

  constructor(sessionId: string, auth: { token: string; role: 'driver' | 'viewer' }, private readonly on: AttachHandlers) {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    this.ws = new WebSocket(`${scheme}//${location.host}/v1/sessions/${encodeURIComponent(sessionId)}/attach`);
    this.ws.binaryType = 'arraybuffer';
    this.ws.onopen = () => this.ws.send(JSON.stringify({ kind: 'auth', token: auth.token, role: auth.role }));
    this.ws.onmessage = (m) => this.onMessage(m.data as ArrayBuffer | string);
    this.ws.onclose = (e) => {
      if (this.done) return;
      this.done = true;
      this.on.closed(e.code, e.reason, this.exited);
    };
  }

  private onMessage(data: ArrayBuffer | string): void {
    if (this.done) return;
    if (typeof data !== 'string') {
      const bytes = new Uint8Array(data);
      if (bytes.length < 9) return;
      const seq = Number(new DataView(data).getBigUint64(1));
      const payload = bytes.subarray(9);
      if (bytes[0] === TAG_STDOUT) this.on.stdout(seq, payload);
      else if (bytes[0] === TAG_REPAINT) this.on.repaint(seq, payload);
      return;
    }
    let f: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a server frame, checked by kind
    try {
      f = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    switch (f.kind) {
      case 'hello':
        return this.on.hello({ role: f.role === 'driver' ? 'driver' : 'viewer', seq: Number(f.seq), session: f.session });
      case 'resized':
        return this.on.resized(Number(f.cols), Number(f.rows));
      case 'state':
        return this.on.state(f.secret_input as SecretInput, f.moderation as ModerationState | undefined);
      case 'error':
        return this.on.notice(String(f.message ?? ''), typeof f.code === 'string' ? f.code : undefined);
      case 'exit':
        this.exited = true;
        return this.on.exit({ code: typeof f.code === 'number' ? f.code : null, signal: typeof f.signal === 'string' ? f.signal : null, reason: String(f.reason) });
    }
  }

  /** Keystrokes for the PTY (drivers only; the server refuses a viewer's). */
  sendStdin(data: string | Uint8Array): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const bytes = typeof data === 'string' ? this.encoder.encode(data) : data;
    const frame = new Uint8Array(bytes.length + 1);
    frame[0] = TAG_STDIN;
    frame.set(bytes, 1);
    this.ws.send(frame);
  }

  sendResize(cols: number, rows: number): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ kind: 'resize', cols, rows }));
  }

  /** Leave without reporting a close: the pane that calls this is moving on. */
  close(): void {
    this.done = true;
    this.ws.close(1000, 'leaving');
  }
}
