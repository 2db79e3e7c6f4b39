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
import { StreamRedactor, editedIndex, redactRecordFields, type Edit } from './redact.js';
import { encodeTimes, toCodePoints, type TimePair } from './timing.js';

export type WriterMessage =
  /**
   * Output from stream offset `seq`. `times` (flat: stream offset, epoch ms, ...) says when the output chunks in it
   * arrived; a batch's first page carries its batch's times.
   */
  | { t: 'chunk'; sid: string; seq: number; data: Uint8Array; raw: boolean; times?: number[] }
  /** The stream ended (exit) or has a hole (a secret window): release what is held back. */
  | { t: 'end'; sid: string }
  | { t: 'purge'; sid: string }
  /** Write everything now and answer `flushed` with the same id. */
  | { t: 'flush'; id: number }
  /** Redact the records stored before records were redacted (a migrated database), then set the schema version. */
  | { t: 'redactRecords'; version: number };

/** session, seq (stream offset), time, stored text, original bytes it stands for, output times (store/timing.ts) */
type Row = [string, number, number, string, number, string | null];

interface Stream {
  decoder: StringDecoder;
  redactor: StreamRedactor | undefined;
  /** Stream offset of the first byte not yet released into a row. */
  pos: number;
  /** Offset the next chunk should start at; anything else is a hole. */
  expected: number;
  pending: string;
  /** Times not yet decoded: flat (stream offset, epoch ms). */
  byteTimes: number[];
  /** Times decoded, not yet in a row: flat (character index since the stream (re)started, epoch ms). */
  charTimes: number[];
  /** Characters decoded since the stream (re)started; the next decoded character has this index. */
  decoded: number;
  /** Characters released into rows since the stream (re)started. */
  released: number;
  /** When the character at `released` arrived. */
  timeAt: number;
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
const insert = db.prepare('INSERT OR IGNORE INTO chunks (session_id, seq, at, text, bytes, times) VALUES (?, ?, ?, ?, ?, ?)');
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
    s = { decoder: new StringDecoder('utf8'), redactor: raw ? undefined : new StreamRedactor(), pos: seq, expected: seq, pending: '', byteTimes: [], charTimes: [], decoded: 0, released: 0, timeAt: 0 };
    streams.set(sid, s);
  }
  return s;
}

/** After a hole or an end: the next output starts a new text (a new decoder, redactor and character count). */
function restart(s: Stream, pos: number): void {
  s.decoder = new StringDecoder('utf8');
  s.redactor = s.redactor ? new StreamRedactor() : undefined;
  s.pos = pos;
  s.charTimes = [];
  s.decoded = 0;
  s.released = 0;
}

/**
 * Decode a page into the stream's pending text, turning the byte offsets of its times into character indices: the
 * page is decoded in pieces cut at each time's offset, so a character split across two PTY reads (and pieces) counts
 * as printed when its last byte came, as a terminal draws it.
 */
function decode(s: Stream, seq: number, data: Buffer): void {
  let done = 0;
  while (s.byteTimes.length > 0 && s.byteTimes[0]! < seq + data.length) {
    const at = Math.max(0, s.byteTimes[0]! - seq);
    if (at > done) {
      const piece = s.decoder.write(data.subarray(done, at));
      s.pending += piece;
      s.decoded += piece.length;
      done = at;
    }
    s.charTimes.push(s.decoded, s.byteTimes[1]!);
    s.byteTimes.splice(0, 2);
  }
  const rest = s.decoder.write(done === 0 ? data : data.subarray(done));
  s.pending += rest;
  s.decoded += rest.length;
}

/**
 * The times of a row that stands for characters [released, released + chars) of the stream, and became `text` by
 * `edits`: its `at` and its (code point offset, ms after `at`) pairs.
 */
function rowTimes(s: Stream, chars: number, text: string, edits: readonly Edit[]): { at: number; times: string | null } {
  const start = s.released;
  const end = start + chars;
  const t = s.charTimes;
  let i = 0;
  for (; i < t.length && t[i]! <= start; i += 2) s.timeAt = t[i + 1]!;
  let at = s.timeAt || Date.now();
  const indices: number[] = [];
  const ms: number[] = [];
  for (; i < t.length && t[i]! < end; i += 2) {
    const index = editedIndex(edits, t[i]! - start);
    s.timeAt = t[i + 1]!;
    // Times that land on one spot of the stored text (inside a redacted stretch) keep the last: the text from there
    // on is complete only then.
    if (index === 0) at = t[i + 1]!;
    else if (indices.length > 0 && indices[indices.length - 1] === index) ms[ms.length - 1] = t[i + 1]! - at;
    else indices.push(index), ms.push(t[i + 1]! - at);
  }
  t.splice(0, i);
  s.released = end;
  const offsets = toCodePoints(text, indices);
  return { at, times: encodeTimes(offsets.map((o, k): TimePair => [o, Math.max(0, ms[k]!)])) };
}

/**
 * Stored rows stand for at most this much text, so a page (512 KiB at most) always holds whole rows. Each row is one
 * pass of the redactor, and secretlint costs ~30 µs per call besides its work per byte: at 8 K characters a row,
 * redaction managed 36-37 MB/s of plain text, at 32 K 42-47 MB/s, which keeps up with the screen on two cores.
 */
const ROW_MAX_CHARS = 32 * 1024;

async function release(sid: string, s: Stream, rows: Array<Row>, final: boolean): Promise<void> {
  if (final) {
    const tail = s.decoder.end();
    s.pending += tail;
    s.decoded += tail.length;
  }
  if (s.pending === '' && !final) return;
  const all = s.pending;
  s.pending = '';
  for (let off = 0; off < all.length || (final && off === 0); ) {
    let end = Math.min(all.length, off + ROW_MAX_CHARS);
    if (end < all.length && /[\uD800-\uDBFF]/.test(all[end - 1]!)) end--; // keep surrogate pairs whole
    await releaseOne(sid, s, rows, all.slice(off, end), final && end >= all.length);
    off = end;
    if (all.length === 0) break;
  }
}

async function releaseOne(sid: string, s: Stream, rows: Array<Row>, text: string, final: boolean): Promise<void> {
  const out = s.redactor ? await s.redactor.push(text, final) : { text, bytes: Buffer.byteLength(text, 'utf8'), chars: text.length, edits: [] };
  if (out.chars === 0) return;
  const { at, times } = rowTimes(s, out.chars, out.text, out.edits);
  if (out.text) rows.push([sid, s.pos, at, out.text, out.bytes, times]);
  s.pos += out.bytes;
}

/** Old records are redacted this many at a time, so a database with many does not sit in memory whole. */
const RECORDS_PER_PAGE = 500;
const recordPage = db.prepare('SELECT rowid, id, command, labels, cwd FROM sessions WHERE rowid > ? ORDER BY rowid LIMIT ?');
const updateRecord = db.prepare('UPDATE sessions SET command = ?, labels = ?, cwd = ? WHERE id = ?');

/**
 * Records written before records were redacted carry command lines as given. They are redacted once, here (off the
 * daemon's thread: a database may hold many), and the schema version then says it is done. Redacting is idempotent,
 * so records written meanwhile, already redacted, are left as they are; a crash before the end means it runs again.
 */
async function redactOldRecords(version: number): Promise<void> {
  for (let after = 0; ; ) {
    const page = recordPage.all(after, RECORDS_PER_PAGE) as Array<{ rowid: number; id: string; command: string; labels: string; cwd: string }>;
    for (const r of page) {
      const before = { command: JSON.parse(r.command) as string[], labels: JSON.parse(r.labels) as Record<string, string>, cwd: r.cwd };
      const redacted = await redactRecordFields(before);
      if (JSON.stringify(redacted) !== JSON.stringify(before)) updateRecord.run(JSON.stringify(redacted.command), JSON.stringify(redacted.labels), redacted.cwd, r.id);
    }
    if (page.length < RECORDS_PER_PAGE) break;
    after = page[page.length - 1]!.rowid;
  }
  db.pragma(`user_version = ${version}`);
  // The old text is overwritten in the database (secure_delete); fold the log back in so no copy stays there either.
  db.pragma('wal_checkpoint(TRUNCATE)');
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
            restart(s, m.seq);
          }
          if (m.times) s.byteTimes.push(...m.times);
          decode(s, m.seq, Buffer.from(m.data.buffer, m.data.byteOffset, bytes));
          s.expected = m.seq + bytes;
          // Decoded (the decoder keeps its own copy of a split character): the daemon may fill the page again.
          parentPort!.postMessage({ t: 'page', page: new Uint8Array(m.data.buffer) }, [m.data.buffer as ArrayBuffer]);
        } else if (m.t === 'end') {
          const s = streams.get(m.sid);
          if (s) {
            await release(m.sid, s, rows, true);
            restart(s, s.expected);
          }
        } else if (m.t === 'purge') {
          streams.delete(m.sid);
          for (let i = rows.length - 1; i >= 0; i--) if (rows[i]![0] === m.sid) rows.splice(i, 1);
          purgeChunks.run(m.sid);
        } else if (m.t === 'redactRecords') await redactOldRecords(m.version);
        else flushed.push(m.id);
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
