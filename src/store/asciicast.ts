/**
 * A stored transcript as an asciicast file, for asciinema's players: v3 (the default; asciinema 3.x) or v2 (asciinema
 * 2.x, the version Debian ships). Pure: a record, its rows and its events in, the file out.
 *
 * - Output (`o`): each row is split at its stored times (store/timing.ts), so the replay keeps the output's rhythm to
 *   within 10 ms instead of jumping a row (up to seconds) at a time.
 * - Resizes (`r`), and markers (`m`) when asked for: where secret-input windows opened and closed, where each
 *   command started and ended (with its exit status).
 * - v3 only: the exit (`x`) with the exit status, a signal's as 128 + its number, as a shell reports it.
 * - `idleLimitS` caps every pause at that many seconds, in the file itself (and says so in the header).
 *
 * Events are placed by stream offset against the output: an event at offset N comes after every row that ends by N
 * and before every row that starts at or after it. Inside a row, output that arrived before the event's time comes
 * first (the store gives the first output after a resize a time of its own, so a redraw never lands before its
 * resize).
 */
import os from 'node:os';
import type { SessionRecord, StoredEvent, StoredRow } from './Store.js';
import { decodeTimes, toUtf16 } from './timing.js';

export interface CastOptions {
  version: 2 | 3;
  /** Cap pauses at this many seconds. */
  idleLimitS?: number;
  /** Include markers (`m` events). */
  markers?: boolean;
}

/** The terminal type the file declares: the daemon's default (records do not keep a session's own). */
const TERM_TYPE = 'xterm-256color';
/** Event codes this export writes from stored events; other kinds are skipped. */
const EVENT_CODES = new Set(['r', 'm']);

type Timed = { ms: number; code: string; data: string };

/** One event of a replay: ms since the one before (pauses capped by the idle limit), its code and its data. */
export interface ReplayEvent {
  intervalMs: number;
  code: string;
  data: string;
}

/** The transcript's events in order, with the pauses between them (the asciicast file and GIF frames both come from this). */
export function replayEvents(record: SessionRecord, rows: Iterable<StoredRow>, events: readonly StoredEvent[], opts: CastOptions): ReplayEvent[] {
  const start = Date.parse(record.created_at);
  const wanted = events.filter((e) => EVENT_CODES.has(e.kind) && (e.kind !== 'm' || opts.markers)).sort((a, b) => a.seq - b.seq || a.at - b.at);
  const timed: Timed[] = [];
  let next = 0;
  const eventAt = (e: StoredEvent) => timed.push({ ms: e.at, code: e.kind, data: e.data });
  for (const row of rows) {
    while (next < wanted.length && wanted[next]!.seq <= row.seq) eventAt(wanted[next++]!);
    const end = row.seq + row.bytes;
    for (const piece of pieces(row)) {
      // A marker goes where its byte offset falls, cutting the piece there: a command's end mark read in the same
      // PTY chunk as its last output line comes after that line, not before it. (Offsets within a row are the
      // stored text's; where redaction changed a row's length, a marker lands near its place, never outside its row.)
      let text = piece.text;
      let at = row.seq + piece.from;
      while (next < wanted.length && wanted[next]!.seq < end) {
        const m = wanted[next]!;
        const bytes = Buffer.byteLength(text);
        if (m.seq >= at + bytes) break;
        const [head, tail] = splitUtf8(text, m.seq - at);
        if (head !== '') timed.push({ ms: piece.ms, code: 'o', data: head });
        at += Buffer.byteLength(head);
        text = tail;
        eventAt(m);
        next++;
      }
      if (text !== '') timed.push({ ms: piece.ms, code: 'o', data: text });
    }
  }
  while (next < wanted.length) eventAt(wanted[next++]!);
  const status = exitStatus(record);
  if (opts.version === 3 && status !== null && record.ended_at) timed.push({ ms: Date.parse(record.ended_at), code: 'x', data: String(status) });

  const limitMs = opts.idleLimitS === undefined ? Infinity : opts.idleLimitS * 1000;
  let lastRaw = start;
  return timed.map((t) => {
    const raw = Math.max(lastRaw, t.ms);
    const intervalMs = Math.min(raw - lastRaw, limitMs);
    lastRaw = raw;
    return { intervalMs, code: t.code, data: t.data };
  });
}

export function asciicast(record: SessionRecord, rows: Iterable<StoredRow>, events: readonly StoredEvent[], opts: CastOptions): string {
  const start = Date.parse(record.created_at);
  const lines = [JSON.stringify(header(record, start, opts))];
  let clock = 0;
  for (const e of replayEvents(record, rows, events, opts)) {
    clock += e.intervalMs;
    lines.push(JSON.stringify([seconds(opts.version === 3 ? e.intervalMs : clock), e.code, e.data]));
  }
  return `${lines.join('\n')}\n`;
}

function header(record: SessionRecord, start: number, opts: CastOptions): Record<string, unknown> {
  const command = record.command.join(' ');
  const idle = opts.idleLimitS === undefined ? {} : { idle_time_limit: opts.idleLimitS };
  const timestamp = Math.floor(start / 1000);
  if (opts.version === 2) return { version: 2, width: record.cols, height: record.rows, timestamp, ...idle, command, title: command, env: { TERM: TERM_TYPE } };
  return { version: 3, term: { cols: record.cols, rows: record.rows, type: TERM_TYPE }, timestamp, ...idle, command, title: command };
}

/** A row's text cut at its stored times, each piece with the epoch ms it arrived at. */
/** A row's output cut where its chunks arrived: each piece's time, text, and UTF-8 byte offset in the row's text. */
function pieces(row: StoredRow): Array<{ ms: number; text: string; from: number }> {
  const pairs = decodeTimes(row.times);
  if (pairs.length === 0) return [{ ms: row.at, text: row.text, from: 0 }];
  const cuts = toUtf16(row.text, pairs.map(([offset]) => offset));
  const out = [{ ms: row.at, text: row.text.slice(0, cuts[0]), from: 0 }];
  for (const [i, [, ms]] of pairs.entries()) {
    const before = out[out.length - 1]!;
    out.push({ ms: row.at + ms, text: row.text.slice(cuts[i], cuts[i + 1] ?? row.text.length), from: before.from + Buffer.byteLength(before.text) });
  }
  return out.filter((p) => p.text !== '');
}

/** `text` cut after `bytes` bytes of its UTF-8, moved back to the start of a character; [before, after]. */
function splitUtf8(text: string, bytes: number): [string, string] {
  if (bytes <= 0) return ['', text];
  const buf = Buffer.from(text, 'utf8');
  let cut = Math.min(bytes, buf.length);
  while (cut > 0 && cut < buf.length && (buf[cut]! & 0xc0) === 0x80) cut--;
  return [buf.subarray(0, cut).toString('utf8'), buf.subarray(cut).toString('utf8')];
}

/** The status a shell would report: the exit code, or 128 + the signal's number. Null when it is not known. */
function exitStatus(record: SessionRecord): number | null {
  if (record.exit_code !== null) return record.exit_code;
  const signo = record.exit_signal ? os.constants.signals[record.exit_signal as keyof typeof os.constants.signals] : undefined;
  return signo === undefined ? null : 128 + signo;
}

/** Seconds with millisecond precision: the stored times' own. */
function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}
