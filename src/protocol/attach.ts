/**
 * The attach protocol: one WebSocket per client at GET /v1/sessions/{id}/attach (no query string), used by the CLI
 * and the browser alike. Each frame kind is valid in one direction only. Control frames are JSON text frames;
 * terminal bytes travel in binary frames whose first byte names the kind. docs/protocol.md mirrors this file.
 *
 * Decoding never throws and builds every frame field by field, so unknown keys (and `__proto__`) never survive.
 */

/** Largest frame accepted in either direction; larger ones are refused before they are parsed. */
import type { ModerationState } from './moderation.js';

export const MAX_FRAME_BYTES = 1024 * 1024;
/** Longest token accepted in an auth frame. */
export const MAX_TOKEN_CHARS = 4096;
/** Longest banner text. */
export const MAX_BANNER_CHARS = 8192;

/** WebSocket close codes, beyond the standard 1000 (normal), 1009 (too big) and 1011 (server error). */
export const CloseCode = {
  /** No valid auth frame within 5 s, or the first frame was not a valid auth frame. */
  authTimeout: 4001,
  /** The credential was missing, wrong, expired, revoked or for another session. */
  forbidden: 4003,
  /** The session does not exist (any more). */
  notFound: 4004,
  /** The client fell too far behind the output; it is dropped so the session and others go on at full speed. */
  slowConsumer: 4008,
  /** The peer stopped answering pings. */
  unresponsive: 4009,
} as const;

export type Role = 'viewer' | 'driver';
export type View = 'stream' | 'render';
export type ExitReason = 'completed' | 'crashed' | 'closed';

/** Binary frame tags: the first byte of every binary frame. */
export const BinaryTag = {
  /** server -> client: [tag][seq: uint64 BE][raw PTY bytes starting at stream offset seq]. */
  stdout: 0x01,
  /** client -> server: [tag][bytes for the PTY, already encoded by the client's terminal]. */
  stdin: 0x02,
  /** server -> client: [tag][seq: uint64 BE][ANSI that redraws the whole screen as of stream offset seq]. */
  repaint: 0x03,
} as const;

export interface AuthFrame {
  kind: 'auth';
  /** An attach token or the daemon's bearer token; optional when the upgrade carried Authorization: Bearer. */
  token?: string;
  /** Default viewer: watching never risks typing into someone's session. */
  role?: Role;
  /** stream (default): raw bytes; render: debounced full-frame repaints for a client larger than the session. */
  view?: View;
  /** Resume: the client already has output up to this stream offset. */
  since_seq?: number;
  /** The client's terminal size, which sizes render-view frames. It does not resize the session (send `resize`). */
  cols?: number;
  rows?: number;
}

export type ClientFrame =
  /** Always the first frame: credentials and options. */
  | AuthFrame
  /** Bytes for the PTY (driver only). Also sent as a binary frame tagged `stdin`. */
  | { kind: 'stdin'; data: Buffer }
  /** Resize the session (driver only); each dimension 1..1000. */
  | { kind: 'resize'; cols: number; rows: number };

export interface HelloSession {
  id: string;
  command: string[];
  cols: number;
  rows: number;
  title: string;
  exited: boolean;
}

export type ServerFrame =
  /** First frame after a successful auth: who you are and where the live stream starts. */
  | { kind: 'hello'; session: HelloSession; role: Role; view: View; seq: number }
  /** Raw PTY bytes at stream offset `seq` (binary frame tagged `stdout`). */
  | { kind: 'stdout'; seq: number; data: Buffer }
  /** A full redraw of the screen as of stream offset `seq` (binary frame tagged `repaint`). */
  | { kind: 'repaint'; seq: number; data: Buffer }
  /** The session's size changed. */
  | { kind: 'resized'; cols: number; rows: number }
  /** A notice for people: banner text, never terminal bytes. */
  | { kind: 'error'; message: string; code?: string }
  /**
   * Session state that changes what the client sees or may do: while a secret-input window is open no output is
   * sent; `moderation` (on join when the session is moderated or paused, and on every change) says who must be
   * present and whether agents may type. The words of a change come as a notice (`error` without a code).
   */
  | { kind: 'state'; secret_input: SecretInputState; moderation?: ModerationState }
  /** The process ended; always delivered and always the last frame. */
  | { kind: 'exit'; code: number | null; signal: string | null; reason: ExitReason };

export interface SecretInputState {
  active: boolean;
  since: string | null;
  reason: string | null;
  started_by: { name: string; kind: string } | null;
}

export type Decoded<T> = { ok: true; frame: T } | { ok: false; error: string };

const isInt = (v: unknown, min: number, max: number): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** Decode a client frame from a WebSocket message. Never throws. */
export function decodeClientFrame(data: Buffer, isBinary: boolean): Decoded<ClientFrame> {
  if (data.length > MAX_FRAME_BYTES) return { ok: false, error: `frame of ${data.length} bytes is over the 1 MiB limit` };
  if (isBinary) {
    if (data[0] !== BinaryTag.stdin) return { ok: false, error: `binary frame tag ${data[0]} is not valid from a client` };
    return { ok: true, frame: { kind: 'stdin', data: data.subarray(1) } };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(data.toString('utf8'));
  } catch {
    return { ok: false, error: 'frame is not valid JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, error: 'frame must be a JSON object' };
  const o = raw as Record<string, unknown>;
  switch (o.kind) {
    case 'auth': {
      const f: AuthFrame = { kind: 'auth' };
      if (o.token !== undefined) {
        if (typeof o.token !== 'string' || o.token.length > MAX_TOKEN_CHARS) return { ok: false, error: 'auth.token must be a string of at most 4096 characters' };
        f.token = o.token;
      }
      if (o.role !== undefined) {
        if (o.role !== 'viewer' && o.role !== 'driver') return { ok: false, error: 'auth.role must be "viewer" or "driver"' };
        f.role = o.role;
      }
      if (o.view !== undefined) {
        if (o.view !== 'stream' && o.view !== 'render') return { ok: false, error: 'auth.view must be "stream" or "render"' };
        f.view = o.view;
      }
      if (o.since_seq !== undefined) {
        if (!isInt(o.since_seq, 0, Number.MAX_SAFE_INTEGER)) return { ok: false, error: 'auth.since_seq must be a non-negative integer' };
        f.since_seq = o.since_seq;
      }
      if (o.cols !== undefined || o.rows !== undefined) {
        if (!isInt(o.cols, 1, 1000) || !isInt(o.rows, 1, 1000)) return { ok: false, error: 'auth.cols and auth.rows must both be integers 1..1000' };
        f.cols = o.cols;
        f.rows = o.rows;
      }
      return { ok: true, frame: f };
    }
    case 'stdin': {
      if (typeof o.data !== 'string') return { ok: false, error: 'stdin.data must be base64 text' };
      return { ok: true, frame: { kind: 'stdin', data: Buffer.from(o.data, 'base64') } };
    }
    case 'resize': {
      if (!isInt(o.cols, 1, 1000) || !isInt(o.rows, 1, 1000)) return { ok: false, error: 'resize.cols and resize.rows must be integers 1..1000' };
      return { ok: true, frame: { kind: 'resize', cols: o.cols, rows: o.rows } };
    }
    case 'hello':
    case 'stdout':
    case 'repaint':
    case 'resized':
    case 'state':
    case 'error':
    case 'exit':
      return { ok: false, error: `"${o.kind}" frames only travel from server to client` };
    default:
      return { ok: false, error: `unknown frame kind ${JSON.stringify(o.kind)}` };
  }
}

const actorOrNull = (v: unknown) => (v && typeof v === 'object' ? { name: String((v as Record<string, unknown>).name), kind: String((v as Record<string, unknown>).kind) } : null);

/** A state frame's moderation, field by field like every decoded frame. */
function decodeModeration(m: Record<string, unknown>): ModerationState {
  const presence = m.presence === 'present' || m.presence === 'absent' ? m.presence : 'waiting';
  return {
    required: m.required === true,
    presence,
    present: Array.isArray(m.present) ? m.present.flatMap((a) => actorOrNull(a) ?? []) : [],
    required_person: String(m.required_person ?? ''),
    paused_by: actorOrNull(m.paused_by),
    agent_input: m.agent_input === 'refused' ? 'refused' : 'allowed',
    grace_ms: Number(m.grace_ms),
    ends_at: typeof m.ends_at === 'string' ? m.ends_at : null,
  };
}

function withSeq(tag: number, seq: number, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(9 + data.length);
  out[0] = tag;
  out.writeBigUInt64BE(BigInt(seq), 1);
  data.copy(out, 9);
  return out;
}

/** Encode a server frame: binary for terminal bytes, JSON text for the rest. */
export function encodeServerFrame(frame: ServerFrame): { data: Buffer | string; binary: boolean } {
  switch (frame.kind) {
    case 'stdout':
      return { data: withSeq(BinaryTag.stdout, frame.seq, frame.data), binary: true };
    case 'repaint':
      return { data: withSeq(BinaryTag.repaint, frame.seq, frame.data), binary: true };
    default:
      return { data: JSON.stringify(frame), binary: false };
  }
}

/** Decode a server frame on the client side. Never throws. */
export function decodeServerFrame(data: Buffer, isBinary: boolean): Decoded<ServerFrame> {
  if (isBinary) {
    if (data.length < 9) return { ok: false, error: 'binary frame too short' };
    const seq = Number(data.readBigUInt64BE(1));
    if (data[0] === BinaryTag.stdout) return { ok: true, frame: { kind: 'stdout', seq, data: data.subarray(9) } };
    if (data[0] === BinaryTag.repaint) return { ok: true, frame: { kind: 'repaint', seq, data: data.subarray(9) } };
    return { ok: false, error: `binary frame tag ${data[0]} is not valid from a server` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(data.toString('utf8'));
  } catch {
    return { ok: false, error: 'frame is not valid JSON' };
  }
  if (typeof raw !== 'object' || raw === null) return { ok: false, error: 'frame must be a JSON object' };
  const o = raw as Record<string, unknown>;
  switch (o.kind) {
    case 'hello': {
      const s = (o.session ?? {}) as Record<string, unknown>;
      return {
        ok: true,
        frame: {
          kind: 'hello',
          session: {
            id: String(s.id),
            command: Array.isArray(s.command) ? s.command.map(String) : [],
            cols: Number(s.cols),
            rows: Number(s.rows),
            title: String(s.title ?? ''),
            exited: s.exited === true,
          },
          role: o.role === 'driver' ? 'driver' : 'viewer',
          view: o.view === 'render' ? 'render' : 'stream',
          seq: Number(o.seq),
        },
      };
    }
    case 'resized':
      return { ok: true, frame: { kind: 'resized', cols: Number(o.cols), rows: Number(o.rows) } };
    case 'state': {
      const si = (o.secret_input ?? {}) as Record<string, unknown>;
      const by = si.started_by as Record<string, unknown> | null | undefined;
      return {
        ok: true,
        frame: {
          kind: 'state',
          secret_input: {
            active: si.active === true,
            since: typeof si.since === 'string' ? si.since : null,
            reason: typeof si.reason === 'string' ? si.reason : null,
            started_by: by && typeof by === 'object' ? { name: String(by.name), kind: String(by.kind) } : null,
          },
          ...(o.moderation && typeof o.moderation === 'object' ? { moderation: decodeModeration(o.moderation as Record<string, unknown>) } : {}),
        },
      };
    }
    case 'error':
      return { ok: true, frame: { kind: 'error', message: String(o.message ?? ''), ...(typeof o.code === 'string' ? { code: o.code } : {}) } };
    case 'exit': {
      const reason = o.reason === 'crashed' || o.reason === 'closed' ? o.reason : 'completed';
      return {
        ok: true,
        frame: { kind: 'exit', code: typeof o.code === 'number' ? o.code : null, signal: typeof o.signal === 'string' ? o.signal : null, reason },
      };
    }
    default:
      return { ok: false, error: `unknown frame kind ${JSON.stringify(o.kind)}` };
  }
}
