/**
 * ALiS v1, the asciinema live stream: the wire format asciinema's server relays and asciinema-player plays, served
 * read-only at GET /v1/sessions/{id}/alis (WebSocket subprotocol `v1.alis`). docs/protocol.md mirrors this file.
 *
 * Every message is a binary WebSocket frame. The first is the magic "ALiS\x01"; then a reset, then events; each
 * event names its type in its first byte and carries an event id and the time since the previous event (both
 * LEB128 unsigned varints, time in microseconds). A reset (re)starts the viewer's terminal from a serialised screen;
 * EOT says the stream ended (a reset may follow it to start a new one).
 *
 * The encoder is the server's; the decoder is for our page adaptor (ui/src/alisDriver.ts) and tests. Decoding never
 * throws. The player decodes each output frame on its own (no streaming UTF-8 decoder), so an encoder must cut output
 * only between characters: `utf8CompleteLength` says where.
 */

/** The WebSocket subprotocol asciinema-player asks for first. */
export const ALIS_SUBPROTOCOL = 'v1.alis';
/** The first message of every stream. */
export const ALIS_MAGIC: Uint8Array = new Uint8Array([0x41, 0x4c, 0x69, 0x53, 0x01]); // "ALiS" 0x01

/** Frame types: the first byte of every frame after the magic. */
export const AlisType = {
  /** A new start: size, no theme, and the terminal's current screen as text that redraws it. */
  reset: 0x01,
  /** End of transmission: the stream is over (a new reset may start another). */
  eot: 0x04,
  /** "o": terminal output. */
  output: 0x6f,
  /** "r": the terminal was resized. */
  resize: 0x72,
  /** "x": the program exited with a status. */
  exit: 0x78,
} as const;

/** Output bytes per frame at most: larger runs are split (between characters). */
export const MAX_ALIS_OUTPUT_BYTES = 256 * 1024;

export type AlisFrame =
  /** Start (or restart) the viewer's terminal at stream time `timeUs`, with `init` drawn first. */
  | { type: 'reset'; lastId: number; timeUs: number; cols: number; rows: number; init: string }
  /** Terminal output, `relUs` after the previous event; whole characters only. */
  | { type: 'output'; id: number; relUs: number; data: Uint8Array }
  /** The terminal's new size. */
  | { type: 'resize'; id: number; relUs: number; cols: number; rows: number }
  /** The program's exit status (128 plus the signal's number for a signal). */
  | { type: 'exit'; id: number; relUs: number; status: number }
  /** The stream is over. */
  | { type: 'eot' };

function varuint(n: number, out: number[]): void {
  let v = Math.max(0, Math.floor(n));
  // Division rather than bit operations: times in microseconds outgrow 32 bits after 71 minutes.
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** Encode one frame (not the magic). */
export function encodeAlisFrame(f: AlisFrame): Uint8Array {
  const head: number[] = [];
  let tail: Uint8Array | undefined;
  switch (f.type) {
    case 'reset': {
      head.push(AlisType.reset);
      varuint(f.lastId, head);
      varuint(f.timeUs, head);
      varuint(f.cols, head);
      varuint(f.rows, head);
      head.push(0); // no theme: the viewer keeps its own colours
      tail = new TextEncoder().encode(f.init);
      varuint(tail.length, head);
      break;
    }
    case 'output':
      head.push(AlisType.output);
      varuint(f.id, head);
      varuint(f.relUs, head);
      varuint(f.data.length, head);
      tail = f.data;
      break;
    case 'resize':
      head.push(AlisType.resize);
      varuint(f.id, head);
      varuint(f.relUs, head);
      varuint(f.cols, head);
      varuint(f.rows, head);
      break;
    case 'exit':
      head.push(AlisType.exit);
      varuint(f.id, head);
      varuint(f.relUs, head);
      varuint(f.status, head);
      break;
    case 'eot':
      head.push(AlisType.eot);
      break;
  }
  const out = new Uint8Array(head.length + (tail?.length ?? 0));
  out.set(head, 0);
  if (tail) out.set(tail, head.length);
  return out;
}

class Reader {
  offset = 0;
  constructor(private readonly bytes: Uint8Array) {}
  byte(): number {
    if (this.offset >= this.bytes.length) throw new RangeError('frame too short');
    return this.bytes[this.offset++]!;
  }
  varuint(): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
    throw new RangeError('varint longer than 8 bytes');
  }
  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw new RangeError('frame too short');
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

export function isAlisMagic(bytes: Uint8Array): boolean {
  return bytes.length === ALIS_MAGIC.length && ALIS_MAGIC.every((b, i) => bytes[i] === b);
}

/** Decode one frame after the magic; an unknown type or a truncated frame is an error value. */
export function decodeAlisFrame(bytes: Uint8Array): { ok: true; frame: AlisFrame } | { ok: false; error: string } {
  const r = new Reader(bytes);
  try {
    const type = r.byte();
    switch (type) {
      case AlisType.reset: {
        const lastId = r.varuint();
        const timeUs = r.varuint();
        const cols = r.varuint();
        const rows = r.varuint();
        const theme = r.byte();
        // 8 or 16 colours: foreground, background and the palette, three bytes each.
        if (theme === 8 || theme === 16) r.take((2 + theme) * 3);
        else if (theme !== 0) return { ok: false, error: `unknown theme format ${theme}` };
        const init = new TextDecoder().decode(r.take(r.varuint()));
        return { ok: true, frame: { type: 'reset', lastId, timeUs, cols, rows, init } };
      }
      case AlisType.output: {
        const id = r.varuint();
        const relUs = r.varuint();
        return { ok: true, frame: { type: 'output', id, relUs, data: r.take(r.varuint()) } };
      }
      case AlisType.resize: {
        const id = r.varuint();
        const relUs = r.varuint();
        return { ok: true, frame: { type: 'resize', id, relUs, cols: r.varuint(), rows: r.varuint() } };
      }
      case AlisType.exit: {
        const id = r.varuint();
        const relUs = r.varuint();
        return { ok: true, frame: { type: 'exit', id, relUs, status: r.varuint() } };
      }
      case AlisType.eot:
        return { ok: true, frame: { type: 'eot' } };
      default:
        return { ok: false, error: `unknown frame type 0x${type.toString(16)}` };
    }
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/**
 * How many leading bytes of `bytes` end on a character boundary: all of them, unless the last one to three bytes
 * begin a UTF-8 sequence that the next chunk completes. Bytes that are not UTF-8 at all are not held back (they
 * decode as U+FFFD either way).
 */
export function utf8CompleteLength(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
