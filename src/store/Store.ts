/**
 * Session records and transcripts in SQLite (<state dir>/termhost.db). The store is an edge: it listens to the
 * runtime's sessions, and the runtime does not know it exists. Records are written here, rarely, their command line,
 * labels and cwd redacted first (store/records.ts); so are the events beside the output (resizes, secret-window
 * markers). Output, with the times its chunks arrived, goes to a worker thread that redacts and writes it in batches
 * (store/writer.ts). Tables and migrations: store/schema.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { moduleWorker, visible, type Actor, type Runtime, type ScopeTarget, type Session } from '../core/index.js';
import { asciicast, replayEvents, type CastOptions, type ReplayEvent } from './asciicast.js';
import { AuditLog, type AuditFilter } from './audit.js';
import { recordTarget, recordVisible, toRecord, writeRecordFields, type RecordRow, type SessionRecord, type TranscriptPolicy } from './records.js';
import type { AuditPage } from '../protocol/audit.js';
import { SCHEMA_VERSION, migrate } from './schema.js';
import { TIME_RESOLUTION_MS, decodeTimes, type TimePair } from './timing.js';
import type { WriterMessage } from './writer.js';

export type { SessionRecord, TranscriptPolicy };

export interface StoreOptions {
  stateDir: string;
  /** Days chunks are kept: 0 writes nothing, -1 keeps forever. Default 30. */
  retentionDays?: number;
  /** false: no transcript is written at all (--no-transcripts); records are still kept. */
  transcripts?: boolean;
  /**
   * How old a batch of a session's output must be before it is handed to the writer, once the output pauses; a crash
   * loses about this much output, and at most three times this much (see HANDOVER_QUIET_MS).
   */
  batchMs?: number;
  /** How often old chunks are swept. */
  sweepIntervalMs?: number;
  now?: () => number;
}

export interface TranscriptChunk {
  seq: number;
  text: string;
  at: string;
  /** When parts of the text arrived: (code point offset into `text`, ms after `at`) pairs; see store/timing.ts. */
  times: TimePair[];
}

/** A stored row, for export. */
export interface StoredRow {
  seq: number;
  at: number;
  text: string;
  bytes: number;
  times: string | null;
}

/** An event beside the output (store/schema.ts): a resize or a marker. */
export interface StoredEvent {
  seq: number;
  at: number;
  kind: string;
  data: string;
}

/** Marker labels for a secret-input window: only that one opened and closed, never anything of what it hid. */
export const SECRET_MARKERS = { opened: 'secret input: output hidden', closed: 'secret input ended' } as const;

/** The markers of a command's boundaries, by its id: no command line (it may hold a credential), only the status. */
export const COMMAND_MARKERS = {
  started: (id: string) => `command ${id} started`,
  ended: (id: string, exitCode: number | null) => `command ${id} ${exitCode === null ? 'ended' : `exited ${exitCode}`}`,
} as const;

/** The longest pause an asciicast export's idle limit may ask for: a day. */
export const CAST_IDLE_LIMIT_MAX_S = 24 * 60 * 60;
/** A page of transcript holds at most this many chunks and this much text. */
export const PAGE_MAX_CHUNKS = 500;
export const PAGE_MAX_BYTES = 512 * 1024;
/** Output queued for the writer beyond this is not stored (the record says its transcript is incomplete). */
const MAX_WRITER_BACKLOG_BYTES = 32 * 1024 * 1024;
/**
 * When a session's output is handed to the writer. Redacting and storing is batch work, and while a session prints at
 * full speed the event loop (which turns that output into the screen) and the program producing it need the CPU
 * more: on two cores, a writer pass in the middle of a 16 MiB burst took 100-200 ms of CPU from the core `cat` and
 * the kernel's tty worker need. So a batch is collected (in pages, see `track`) until it is `batchMs` old and the
 * output has paused for `HANDOVER_QUIET_MS`, and only then handed over. Output that never pauses is handed over when its batch
 * is `MAX_DEFER_BATCHES` times `batchMs` old. When the batches of all sessions together reach `HANDOVER_PRESSURE_BYTES`
 * (three quarters of the backlog bound), all are handed over at once, so the writer can start on a burst too long to
 * wait for. A flush hands everything over first.
 */
const HANDOVER_QUIET_MS = 100;
const MAX_DEFER_BATCHES = 3;
const HANDOVER_PRESSURE_BYTES = (MAX_WRITER_BACKLOG_BYTES / 4) * 3;
/** Batches are collected in pages of this size, each handed over as one message and returned for reuse. */
const PAGE_BYTES = 256 * 1024;
/** The first page of each batch, which is not reused: a quiet session's batch costs this much at most. */
const FIRST_PAGE_BYTES = 16 * 1024;
/** Returned pages kept for reuse, all sessions together: 4 MiB that stay resident once a burst has used them. */
const FREE_PAGES_MAX = 16;
/** On shutdown the writer gets this long to finish its backlog; what is left then is lost, as in a crash. */
const CLOSE_FLUSH_MS = 3000;
const DAY_MS = 24 * 60 * 60 * 1000;

export class Store {
  readonly db: Database.Database;
  private readonly worker: Worker;
  private readonly now: () => number;
  private readonly retentionDays: number;
  private readonly transcripts: boolean;
  private backlog = 0;
  /** Bytes collected in batches, not yet handed over (part of the backlog). */
  private collected = 0;
  /** Pages the writer has sent back, for the next batches. */
  private readonly freePages: Uint8Array[] = [];
  private readonly batchMs: number;
  /** Each followed session's "hand the batch over now". */
  private readonly handovers = new Set<() => void>();
  private flushId = 0;
  /** Records whose redacted fields are still being computed (see track). */
  private readonly recordsPending = new Set<Promise<void>>();
  /**
   * The scope rule's view of records whose labels are not written yet: the session's own (its labels as given). A
   * record's stored labels read as none until then, which a selector such as `team!=red` would match.
   */
  private readonly pendingTargets = new Map<string, ScopeTarget>();
  private readonly insertEvent: Database.Statement;
  private readonly auditLog: AuditLog;
  private readonly flushWaiters = new Map<number, () => void>();
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(opts: StoreOptions) {
    this.now = opts.now ?? Date.now;
    this.retentionDays = opts.retentionDays ?? 30;
    this.transcripts = opts.transcripts ?? true;
    const file = path.join(opts.stateDir, 'termhost.db');
    fs.mkdirSync(opts.stateDir, { recursive: true, mode: 0o700 });
    this.db = new Database(file);
    fs.chmodSync(file, 0o600);
    this.db.pragma('journal_mode = WAL');
    // WAL with NORMAL sync: a power cut may lose the last commits, never corrupt the file.
    this.db.pragma('synchronous = NORMAL');
    // Deleted transcript text is overwritten, not just unlinked from the b-tree.
    this.db.pragma('secure_delete = ON');
    const oldRecords = migrate(this.db);
    // Sessions that were live when the daemon died did not end cleanly.
    this.db.prepare("UPDATE sessions SET ended_at = ?, exit_reason = 'crashed' WHERE ended_at IS NULL").run(this.now());
    this.batchMs = opts.batchMs ?? 1000;
    this.worker = moduleWorker(import.meta.url, 'writer', { workerData: { dbPath: file } });
    this.worker.on('message', (m: { t: string; id?: number; bytes?: number; page?: Uint8Array }) => {
      if (m.t === 'consumed') this.backlog -= m.bytes ?? 0;
      if (m.t === 'page' && m.page?.length === PAGE_BYTES && this.freePages.length < FREE_PAGES_MAX) this.freePages.push(m.page);
      if (m.t === 'flushed') this.flushWaiters.get(m.id!)?.(), this.flushWaiters.delete(m.id!);
    });
    if (oldRecords) this.post({ t: 'redactRecords', version: SCHEMA_VERSION });
    this.insertEvent = this.db.prepare('INSERT INTO transcript_events (session_id, seq, at, kind, data) VALUES (?, ?, ?, ?, ?)');
    this.auditLog = new AuditLog(this.db);
    this.sweepTimer = setInterval(() => this.sweep(), opts.sweepIntervalMs ?? 60 * 60 * 1000);
    this.sweepTimer.unref();
  }

  /** Is this id used by a record (live or ended)? New sessions must not reuse one. */
  hasRecord(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id) !== undefined;
  }

  /** Follow every session the runtime creates from now on, and keep its audit trail. */
  follow(runtime: Runtime): void {
    runtime.sessions.events.on('created', (s) => this.track(s));
    runtime.audit.events.on('record', (r) => this.auditLog.insert(r));
  }

  /** A page of the audit trail, as this actor may read it (see store/audit.ts). */
  audit(actor: Actor, filter: AuditFilter): AuditPage {
    return this.auditLog.page(actor, filter, (id) => {
      const pending = this.pendingTargets.get(id);
      if (pending) return pending;
      const row = this.db.prepare('SELECT id, labels, owner FROM sessions WHERE id = ?').get(id) as Pick<RecordRow, 'id' | 'labels' | 'owner'> | undefined;
      return row ? recordTarget(row) : null;
    });
  }

  private track(s: Session): void {
    const asked = (s.spec.transcript ?? 'redacted') as TranscriptPolicy;
    const writes = this.transcripts && this.retentionDays !== 0 && asked !== 'off';
    // The record says what is really stored: nothing, when the daemon keeps no transcripts.
    const policy: TranscriptPolicy = writes ? asked : 'off';
    this.db
      .prepare('INSERT OR REPLACE INTO sessions (id, command, cwd, labels, cols, rows, created_at, created_by, transcript, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(s.id, '[]', '', '{}', s.spec.cols, s.spec.rows, s.createdAt.getTime(), s.createdBy ? JSON.stringify(s.createdBy) : null, policy, s.scopeTarget.owner);
    this.pendingTargets.set(s.id, s.scopeTarget);
    const fields = writeRecordFields(this.db, s.id, { command: s.spec.command, labels: s.spec.labels, cwd: s.spec.cwd }).then(() => {
      this.recordsPending.delete(fields);
      this.pendingTargets.delete(s.id);
    });
    this.recordsPending.add(fields);
    // A batch is copied, as the output arrives, into pages of PAGE_BYTES (a 4 KiB copy per PTY read), which a handover
    // transfers to the writer without copying again; the writer sends each page back once it has decoded it, for
    // reuse. Holding on to the chunks themselves until the handover would be no copy at all, but it kept thousands of
    // buffers alive into V8's old generation: 3x the major GCs and ~70 ms of marking per 16 MiB on the GC threads,
    // which share the second core with the program producing the output. See HANDOVER_QUIET_MS for when a handover
    // happens.
    let pages: Uint8Array[] = [];
    /** Bytes used in the last page. */
    let pageUsed = 0;
    let batchSeq = 0;
    let batchAt = 0;
    let batchBytes = 0;
    let firstMs = 0;
    let lastMs = 0;
    /**
     * When the batch's output chunks arrived, flat (stream offset, epoch ms): one entry per chunk that came at least
     * TIME_RESOLUTION_MS after the last entry, so a burst costs a few entries and a replay is exact to 10 ms.
     */
    let times: number[] = [];
    let lastTimeMs = 0;
    /** The next chunk gets a time of its own, however soon it comes (it follows a resize). */
    let timeNext = false;
    /** While a secret-input window is open: the stream offset where it opened. */
    let windowSeq: number | undefined;
    /** The last window that closed, [opened, closed): command marks held back during it are placed at its start. */
    let lastWindow: [number, number] | undefined;
    /**
     * Command marks parsed before the chunk that carries them reached the store (the emulator parses a chunk before
     * the session hands it on). An export places an event inside a row by time, so each gets an output time of its
     * own at its exact offset, a millisecond after the output before it, once that chunk is here.
     */
    const marksAhead: Array<{ seq: number; label: string }> = [];
    /** The last output time given (epoch ms), so a mark's time comes after it. */
    let lastGivenMs = 0;
    /** The stream offset just past the last chunk the store has seen. */
    let seenEnd = 0;
    const placeMarks = (end: number) => {
      seenEnd = end;
      while (marksAhead.length > 0 && marksAhead[0]!.seq <= end) {
        const m = marksAhead.shift()!;
        const at = Math.max(this.now(), lastGivenMs + 1);
        if (batchBytes > 0 && m.seq > batchSeq && m.seq <= batchSeq + batchBytes) times.push(m.seq, at);
        lastGivenMs = at;
        this.insertEvent.run(s.id, m.seq, at, 'm', m.label);
      }
    };
    let timer: NodeJS.Timeout | undefined;
    /** The process exited with a batch still collecting: the stream's end follows that batch. */
    let endAfterBatch = false;
    const send = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (batchBytes > 0) handOver();
      if (endAfterBatch) {
        endAfterBatch = false;
        this.post({ t: 'end', sid: s.id });
      }
    };
    const handOver = () => {
      let seq = batchSeq;
      for (const [i, page] of pages.entries()) {
        const data = i === pages.length - 1 ? page.subarray(0, pageUsed) : page;
        // Counted before the post: a transferred buffer reads as empty.
        const bytes = data.length;
        this.post({ t: 'chunk', sid: s.id, seq, data, raw: policy === 'raw', times: i === 0 ? times : undefined }, [page.buffer as ArrayBuffer]);
        seq += bytes;
      }
      times = [];
      this.collected -= batchBytes;
      pages = [];
      pageUsed = 0;
      batchBytes = 0;
    };
    const append = (chunk: Buffer) => {
      let off = 0;
      while (off < chunk.length) {
        if (pages.length === 0 || pageUsed === pages[pages.length - 1]!.length) {
          // A batch starts small: most batches of an interactive session are a few bytes, and a batch's page is held
          // (by the writer's queue) until it is decoded, whatever it holds.
          pages.push(pages.length === 0 ? new Uint8Array(new ArrayBuffer(FIRST_PAGE_BYTES)) : (this.freePages.pop() ?? new Uint8Array(new ArrayBuffer(PAGE_BYTES))));
          pageUsed = 0;
        }
        const n = Math.min(chunk.length - off, pages[pages.length - 1]!.length - pageUsed);
        pages[pages.length - 1]!.set(off === 0 && n === chunk.length ? chunk : chunk.subarray(off, off + n), pageUsed);
        pageUsed += n;
        off += n;
      }
    };
    /** Milliseconds until the batch is due, 0 when it is due now. */
    const dueIn = (now: number): number => {
      const age = now - firstMs;
      const quiet = now - lastMs;
      const latest = MAX_DEFER_BATCHES * this.batchMs;
      if (age >= latest || (age >= this.batchMs && quiet >= HANDOVER_QUIET_MS)) return 0;
      return Math.min(latest - age, Math.max(this.batchMs - age, HANDOVER_QUIET_MS - quiet));
    };
    const check = () => {
      timer = undefined;
      if (batchBytes === 0) return;
      const wait = dueIn(performance.now());
      if (wait > 0) timer = setTimeout(check, wait);
      else send();
    };
    if (writes) {
      let complete = true;
      this.handovers.add(send);
      s.events.on('output', (chunk, seq) => {
        if (this.backlog + chunk.length > MAX_WRITER_BACKLOG_BYTES) {
          if (complete) this.db.prepare('UPDATE sessions SET transcript_complete = 0 WHERE id = ?').run(s.id);
          complete = false;
          placeMarks(seq + chunk.length);
          return;
        }
        if (batchBytes > 0 && seq !== batchSeq + batchBytes) send(); // not contiguous: never merge across a hole
        const now = performance.now();
        if (batchBytes === 0) {
          batchSeq = seq;
          batchAt = this.now();
          firstMs = now;
          times.push(seq, batchAt);
          lastGivenMs = Math.max(lastGivenMs, batchAt);
          lastTimeMs = now;
          timeNext = false;
        } else if (timeNext || now - lastTimeMs >= TIME_RESOLUTION_MS) {
          times.push(seq, Math.round(batchAt + (now - firstMs)));
          lastGivenMs = Math.max(lastGivenMs, times[times.length - 1]!);
          lastTimeMs = now;
          timeNext = false;
        }
        lastMs = now;
        append(chunk);
        batchBytes += chunk.length;
        this.backlog += chunk.length;
        this.collected += chunk.length;
        placeMarks(seq + chunk.length);
        if (this.collected >= HANDOVER_PRESSURE_BYTES) for (const handover of this.handovers) handover();
        else timer ??= setTimeout(check, dueIn(now));
      });
      // A secret window leaves a hole: what was held back before it is released now. The window itself is marked
      // where it opened and closed, and that is all a transcript keeps of it.
      s.events.on('secretStarted', () => {
        send();
        this.post({ t: 'end', sid: s.id });
        windowSeq = s.seq;
        this.insertEvent.run(s.id, windowSeq, this.now(), 'm', SECRET_MARKERS.opened);
      });
      s.events.on('secretEnded', () => {
        lastWindow = windowSeq === undefined ? undefined : [windowSeq, s.seq];
        windowSeq = undefined;
        this.insertEvent.run(s.id, s.seq, this.now(), 'm', SECRET_MARKERS.closed);
      });
      // Where each command began and ended: just past the chunk that carried its mark. The session holds these back
      // while a window is open; one released when it closes is placed where the window opened.
      const mark = (seq: number | null, label: string) => {
        let at = Math.min(seq ?? s.seq, windowSeq ?? Infinity);
        if (lastWindow && at > lastWindow[0] && at <= lastWindow[1]) at = lastWindow[0];
        if (at > seenEnd) return void marksAhead.push({ seq: at, label });
        // Its chunk is here already (parsed after it arrived, under load): placed by the time it was parsed.
        lastGivenMs = Math.max(this.now(), lastGivenMs);
        this.insertEvent.run(s.id, at, lastGivenMs, 'm', label);
      };
      s.events.on('commandStarted', (c) => mark(c.startSeq, COMMAND_MARKERS.started(c.id)));
      s.events.on('commandFinished', (c) => mark(c.endSeq, COMMAND_MARKERS.ended(c.id, c.exitCode)));
      // A resize during a window is stored at the window's start: its offset inside the window would tell how much
      // was printed there before it.
      s.events.on('resized', (cols, rows) => {
        timeNext = true;
        this.insertEvent.run(s.id, windowSeq ?? s.seq, this.now(), 'r', `${cols}x${rows}`);
      });
      s.events.on('disposed', () => {
        send();
        this.handovers.delete(send);
      });
    }
    s.events.on('exit', (exit, reason) => {
      // The batch still collecting goes on the usual schedule (the writer's pass is not urgent; a flush or the
      // transcript route hands it over at once), and the stream's end follows it.
      if (writes) {
        endAfterBatch = true;
        if (batchBytes === 0) send();
      }
      this.db
        .prepare('UPDATE sessions SET ended_at = ?, exit_code = ?, exit_signal = ?, exit_reason = ?, last_seq = ? WHERE id = ?')
        .run(this.now(), exit.exitCode, exit.signal, reason, s.seq, s.id);
    });
  }

  private post(m: WriterMessage, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(m, transfer);
  }

  /** Resolves once everything sent so far is on disk. */
  async flush(): Promise<void> {
    for (const handover of this.handovers) handover();
    const id = ++this.flushId;
    await Promise.all([...this.recordsPending, new Promise<void>((resolve) => {
      this.flushWaiters.set(id, resolve);
      this.post({ t: 'flush', id });
    })]);
  }

  /** A record, as this actor may know it: one outside the actor's scope is undefined, exactly as a missing one. */
  record(id: string, actor: Actor): SessionRecord | undefined {
    const row = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as RecordRow | undefined;
    return row && this.mayKnow(actor, row) ? toRecord(row) : undefined;
  }

  /** Records of sessions that are no longer live, newest first, that this actor may see. */
  records(exclude: ReadonlySet<string>, actor: Actor): SessionRecord[] {
    return (this.db.prepare('SELECT * FROM sessions ORDER BY created_at DESC LIMIT 1000').all() as RecordRow[])
      .filter((r) => !exclude.has(r.id) && this.mayKnow(actor, r))
      .map(toRecord);
  }

  private mayKnow(actor: Actor, row: RecordRow): boolean {
    const pending = this.pendingTargets.get(row.id);
    return pending ? visible(actor, pending) : recordVisible(actor, row);
  }

  /** Chunks from `fromSeq` on, at most `limit` chunks and PAGE_MAX_BYTES of text. */
  page(id: string, fromSeq: number, limit: number): { chunks: TranscriptChunk[]; last_seq: number | null; next_seq: number; has_more: boolean; total: number } {
    const max = Math.min(limit, PAGE_MAX_CHUNKS);
    const rows = this.db.prepare('SELECT seq, at, text, bytes, times FROM chunks WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?').all(id, fromSeq, max + 1) as StoredRow[];
    let end = fromSeq;
    const chunks: TranscriptChunk[] = [];
    let bytes = 0;
    for (const r of rows.slice(0, max)) {
      const size = Buffer.byteLength(r.text);
      if (chunks.length > 0 && bytes + size > PAGE_MAX_BYTES) break;
      bytes += size;
      chunks.push({ seq: r.seq, text: r.text, at: new Date(r.at).toISOString(), times: decodeTimes(r.times) });
      end = r.seq + r.bytes;
    }
    const total = (this.db.prepare('SELECT COUNT(*) AS n FROM chunks WHERE session_id = ?').get(id) as { n: number }).n;
    return { chunks, last_seq: chunks.length > 0 ? end - 1 : null, next_seq: end, has_more: rows.length > chunks.length, total };
  }

  /** The whole transcript of a record as an asciicast file (store/asciicast.ts). */
  /** `audit`: the session's audit trail as markers too (the caller has checked that its reader may read it). */
  asciicast(record: SessionRecord, opts: CastOptions & { audit?: boolean }): string {
    const { rows, events } = this.transcriptOf(record);
    const audit = opts.audit ? this.auditLog.markers(record.id) : [];
    return asciicast(record, rows, [...events, ...audit], { ...opts, markers: opts.markers || audit.length > 0 });
  }

  /** The whole transcript of a record as timed events, for drawing it (a GIF): its size at the start, then output and resizes. */
  recording(record: SessionRecord, opts: { idleLimitS?: number }): { cols: number; rows: number; events: ReplayEvent[] } {
    const { rows, events } = this.transcriptOf(record);
    return { cols: record.cols, rows: record.rows, events: replayEvents(record, rows, events, { version: 3, idleLimitS: opts.idleLimitS }) };
  }

  private transcriptOf(record: SessionRecord): { rows: StoredRow[]; events: StoredEvent[] } {
    const rows = this.db.prepare('SELECT seq, at, text, bytes, times FROM chunks WHERE session_id = ? ORDER BY seq').all(record.id) as StoredRow[];
    const events = this.db.prepare('SELECT seq, at, kind, data FROM transcript_events WHERE session_id = ? ORDER BY seq, at').all(record.id) as StoredEvent[];
    return { rows, events };
  }

  /** Delete a record and its transcript. */
  purge(id: string): boolean {
    this.post({ t: 'purge', sid: id });
    this.db.prepare('DELETE FROM chunks WHERE session_id = ?').run(id);
    this.db.prepare('DELETE FROM transcript_events WHERE session_id = ?').run(id);
    const gone = this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id).changes > 0;
    // Fold the write-ahead log back into the (securely deleted) database so no copy of the text stays in it.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return gone;
  }

  /**
   * Delete chunks (and the events beside them) older than the retention, and audit rows past their bound; returns how
   * many chunks went.
   */
  sweep(): number {
    this.auditLog.trim();
    if (this.retentionDays < 0) return 0;
    const before = this.now() - this.retentionDays * DAY_MS;
    this.db.prepare('DELETE FROM transcript_events WHERE at < ?').run(before);
    return this.db.prepare('DELETE FROM chunks WHERE at < ?').run(before).changes;
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise((r) => (timer = setTimeout(r, CLOSE_FLUSH_MS)))]);
    clearTimeout(timer);
    await this.worker.terminate();
    this.db.close();
  }
}
