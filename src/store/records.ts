/**
 * Session records: the stored row, its wire form, and how the fields that can carry a credential (command line,
 * labels, cwd) reach the database: only redacted, through the same scan as output (store/redact.ts).
 */
import type Database from 'better-sqlite3';
import { visible, type Actor, type ScopeTarget } from '../core/index.js';
import { REDACTED, redactRecordFields, type RecordFields } from './redact.js';

export type TranscriptPolicy = 'off' | 'redacted' | 'raw';

export interface SessionRecord {
  id: string;
  live: false;
  command: string[];
  cwd: string;
  labels: Record<string, string>;
  cols: number;
  rows: number;
  created_at: string;
  ended_at: string | null;
  exit_code: number | null;
  exit_signal: string | null;
  exit_reason: string | null;
  last_seq: number;
  created_by: Actor | null;
  transcript: TranscriptPolicy;
  transcript_complete: boolean;
}

/** A `sessions` row as SQLite returns it. */
export interface RecordRow {
  id: string;
  command: string;
  cwd: string;
  labels: string;
  cols: number;
  rows: number;
  created_at: number;
  ended_at: number | null;
  exit_code: number | null;
  exit_signal: string | null;
  exit_reason: string | null;
  last_seq: number;
  created_by: string | null;
  transcript: TranscriptPolicy;
  transcript_complete: number;
  /** The credential that started the session (Actor.owner); null for records from before owners were kept. */
  owner: string | null;
}

/**
 * What the scope rule of live sessions (core's `visible`) looks at, from what a record keeps: its id, its labels as
 * stored and its owner. A label whose stored value was redacted can no longer be compared, so a selector that names
 * it does not match (never the wider way).
 */
export function recordTarget(r: Pick<RecordRow, 'id' | 'labels' | 'owner'>): ScopeTarget {
  const labels = JSON.parse(r.labels) as Record<string, string>;
  const unknownLabels = new Set(Object.keys(labels).filter((k) => labels[k]!.includes(REDACTED)));
  return { id: r.id, labels, owner: r.owner, unknownLabels };
}

/** May this actor know of this record? */
export function recordVisible(actor: Actor, r: Pick<RecordRow, 'id' | 'labels' | 'owner'>): boolean {
  return visible(actor, recordTarget(r));
}

export function toRecord(r: RecordRow): SessionRecord {
  return {
    id: r.id,
    live: false,
    command: JSON.parse(r.command) as string[],
    cwd: r.cwd,
    labels: JSON.parse(r.labels) as Record<string, string>,
    cols: r.cols,
    rows: r.rows,
    created_at: new Date(r.created_at).toISOString(),
    ended_at: r.ended_at === null ? null : new Date(r.ended_at).toISOString(),
    exit_code: r.exit_code,
    exit_signal: r.exit_signal,
    exit_reason: r.exit_reason,
    last_seq: r.last_seq,
    created_by: r.created_by ? (JSON.parse(r.created_by) as Actor) : null,
    transcript: r.transcript,
    transcript_complete: r.transcript_complete === 1,
  };
}

/**
 * Complete a record's row, written with empty fields (so its id is taken and its end can be recorded at once), with
 * its fields redacted. The scan runs in promise callbacks only, so the row is complete before any other I/O is
 * handled; the promise resolves once it is.
 */
export async function writeRecordFields(db: Database.Database, id: string, fields: RecordFields): Promise<void> {
  let stored: RecordFields;
  try {
    stored = await redactRecordFields(fields);
  } catch {
    // The scan failed (it should not): store nothing of the values rather than something unscanned.
    stored = { command: fields.command.map(() => REDACTED), labels: Object.fromEntries(Object.keys(fields.labels).map((k) => [k, REDACTED])), cwd: REDACTED };
  }
  db.prepare('UPDATE sessions SET command = ?, labels = ?, cwd = ? WHERE id = ?').run(JSON.stringify(stored.command), JSON.stringify(stored.labels), stored.cwd, id);
}
