/**
 * The transcript writer, in a worker thread so redaction and disk writes never run on the daemon's event loop.
 * It receives each session's output chunks (with their stream offsets), decodes them, passes them through the
 * session's StreamRedactor, and writes the results in batches, idempotently on (session, seq). What a crash loses is
 * decided by when the daemon hands output over (see HANDOVER_QUIET_MS in Store.ts), plus the partial word a redactor
 * is holding back.
 */
import fs from 'node:fs';
import os from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { StreamRedactor } from './redact.js';

export type WriterMessage =
  | { t: 'chunk'; sid: string; seq: number; at: number; data: Uint8Array; raw: boolean }
  /** The stream ended (exit) or has a hole (a secret window): release what is held back. */
  | { t: 'end'; sid: string }
  | { t: 'purge'; sid: string }
  /** Write everything now and answer `flushed` with the same id. */
  | { t: 'flush'; id: number };

/** session, seq (stream offset), time, stored text, original bytes it stands for */
type Row = [string, number, number, string, number];

interface Stream {
  decoder: StringDecoder;
  redactor: StreamRedactor | undefined;
  /** Stream offset of the first byte not yet released into a row. */
  pos: number;
  /** Offset the next chunk should start at; anything else is a hole. */
  expected: number;
  pending: string;
  pendingAt: number;
  ending: boolean;
}

const { dbPath } = workerData as { dbPath: string };

/**
 * This thread yields the CPU to the daemon's own: redaction is batch work behind a bounded backlog, while the event
 * loop holds every session's screen and input path. Streaming at full speed, the writer needs about a core of its
 * own; on a two-core machine it took 10-20% of the daemon thread's CPU away (plain stream to the last byte, median of
 * 12 runs each: 25.9 MB/s at normal priority, 31.8 at niceness 10, 28.9 with transcripts off, all on a noisy
 * machine; later comparisons could not tell the niceness apart from noise). When the machine is idle it changes
 * nothing. Niceness is per thread on Linux (setpriority on the thread id), and raising it needs no privileges.
 */
const WRITER_NICENESS = 10;
try {
  const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  os.setPriority(tid, WRITER_NICENESS);
} catch {
  /* not Linux (no /proc/thread-self), or the priority cannot change: the writer runs at normal priority */
}
const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('secure_delete = ON');
const insert = db.prepare('INSERT OR IGNORE INTO chunks (session_id, seq, at, text, bytes) VALUES (?, ?, ?, ?, ?)');
const purgeChunks = db.prepare('DELETE FROM chunks WHERE session_id = ?');
const writeRows = db.transaction((rows: Array<Row>) => {
  for (const r of rows) insert.run(...r);
});

const streams = new Map<string, Stream>();
const inbox: WriterMessage[] = [];
let busy = false;

function streamOf(sid: string, seq: number, raw: boolean): Stream {
  let s = streams.get(sid);
  if (!s) {
    s = { decoder: new StringDecoder('utf8'), redactor: raw ? undefined : new StreamRedactor(), pos: seq, expected: seq, pending: '', pendingAt: 0, ending: false };
    streams.set(sid, s);
  }
  return s;
}

/**
 * Stored rows stand for at most this much text, so a page (512 KiB at most) always holds whole rows. Each row is one
 * pass of the redactor, and secretlint costs ~30 µs per call besides its work per byte: at 8 K characters a row,
 * redaction managed 36-37 MB/s of plain text, at 32 K 42-47 MB/s, which keeps up with the screen on two cores.
 */
const ROW_MAX_CHARS = 32 * 1024;

async function release(sid: string, s: Stream, rows: Array<Row>, final: boolean): Promise<void> {
  if (final) s.pending += s.decoder.end();
  if (s.pending === '' && !final) return;
  const all = s.pending;
  const at = s.pendingAt || Date.now();
  s.pending = '';
  s.pendingAt = 0;
  for (let off = 0; off < all.length || (final && off === 0); ) {
    let end = Math.min(all.length, off + ROW_MAX_CHARS);
    if (end < all.length && /[\uD800-\uDBFF]/.test(all[end - 1]!)) end--; // keep surrogate pairs whole
    await releaseOne(sid, s, rows, all.slice(off, end), at, final && end >= all.length);
    off = end;
    if (all.length === 0) break;
  }
}

async function releaseOne(sid: string, s: Stream, rows: Array<Row>, text: string, at: number, final: boolean): Promise<void> {
  if (!s.redactor) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (text) rows.push([sid, s.pos, at, text, bytes]);
    s.pos += bytes;
    return;
  }
  const out = final ? await s.redactor.push(text, true) : await s.redactor.push(text);
  if (out.text) rows.push([sid, s.pos, at, out.text, out.bytes]);
  s.pos += out.bytes;
}

/** Drain the inbox in order; one batch of rows per pass. */
async function pass(): Promise<void> {
  if (busy) return;
  busy = true;
  try {
    while (inbox.length > 0) {
      const msgs = inbox.splice(0);
      const rows: Array<Row> = [];
      const flushed: number[] = [];
      let consumed = 0;
      for (const m of msgs) {
        if (m.t === 'chunk') {
          // Read before the page goes back below: a transferred buffer reads as empty.
          const bytes = m.data.byteLength;
          consumed += bytes;
          const s = streamOf(m.sid, m.seq, m.raw);
          if (m.seq !== s.expected) {
            // A hole in the stream (a secret window's bytes were never sent): finish what came before it.
            await release(m.sid, s, rows, true);
            s.decoder = new StringDecoder('utf8');
            s.redactor = m.raw ? undefined : new StreamRedactor();
            s.pos = m.seq;
          }
          s.pending += s.decoder.write(Buffer.from(m.data.buffer, m.data.byteOffset, bytes));
          if (!s.pendingAt) s.pendingAt = m.at;
          s.expected = m.seq + bytes;
          // Decoded (the decoder keeps its own copy of a split character): the daemon may fill the page again.
          parentPort!.postMessage({ t: 'page', page: new Uint8Array(m.data.buffer) }, [m.data.buffer as ArrayBuffer]);
        } else if (m.t === 'end') {
          const s = streams.get(m.sid);
          if (s) {
            await release(m.sid, s, rows, true);
            s.decoder = new StringDecoder('utf8');
            s.redactor = s.redactor ? new StreamRedactor() : undefined;
            s.pos = s.expected;
          }
        } else if (m.t === 'purge') {
          streams.delete(m.sid);
          for (let i = rows.length - 1; i >= 0; i--) if (rows[i]![0] === m.sid) rows.splice(i, 1);
          purgeChunks.run(m.sid);
        } else flushed.push(m.id);
      }
      for (const [sid, s] of streams) await release(sid, s, rows, false);
      if (rows.length > 0) writeRows(rows);
      if (consumed > 0) parentPort!.postMessage({ t: 'consumed', bytes: consumed });
      for (const id of flushed) parentPort!.postMessage({ t: 'flushed', id });
    }
  } finally {
    busy = false;
  }
}

/** Messages are handled as they come (the daemon decides when to hand output over); a burst of them in one pass. */
let scheduled = false;
parentPort!.on('message', (m: WriterMessage) => {
  inbox.push(m);
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    void pass();
  });
});
