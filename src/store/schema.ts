/**
 * The database's tables, and how a database from an earlier termhost is brought up to date. The schema version is
 * SQLite's `user_version`:
 *
 * - 0: the first schema (records; chunks without times), or a new file.
 * - 1: chunks have `times` (when each part of a row was printed, store/timing.ts), and `transcript_events` holds what
 *      happened beside the output (resizes, markers).
 * - 2: every record's command line, labels and cwd are redacted. Records written by this version always are; the
 *      writer redacts the older ones in the background and then sets 2.
 * - 3: records have `owner` (the credential that started the session, for `own` scopes; null for older records, which
 *      only unscoped tokens then see), and `audit` holds who did what (store/audit.ts). Added beside version 2's
 *      background work, so the number itself stays 2 until that is done: the new parts are created whatever it is.
 */
import type Database from 'better-sqlite3';

export const SCHEMA_VERSION = 2;

const TABLES = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, command TEXT NOT NULL, cwd TEXT NOT NULL, labels TEXT NOT NULL, cols INTEGER NOT NULL,
  rows INTEGER NOT NULL, created_at INTEGER NOT NULL, ended_at INTEGER, exit_code INTEGER, exit_signal TEXT,
  exit_reason TEXT, last_seq INTEGER NOT NULL DEFAULT 0, created_by TEXT, transcript TEXT NOT NULL,
  transcript_complete INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS chunks (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL, text TEXT NOT NULL, bytes INTEGER NOT NULL,
  times TEXT,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS chunks_at ON chunks (at);
`;

/**
 * Events of a transcript that are not output, each at the stream offset (`seq`) where it happened: the output stored
 * before `seq` came before it. `kind` is the asciicast event code: `r` (a resize, data `COLSxROWS`) or `m` (a marker,
 * data its label: a secret window's opening and end, a command's start and end with its exit status). Later kinds add
 * rows of their own kind; readers skip kinds they do not know.
 */
const EVENTS = `
CREATE TABLE IF NOT EXISTS transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS transcript_events_session ON transcript_events (session_id, seq);
CREATE INDEX IF NOT EXISTS transcript_events_at ON transcript_events (at);
`;

/**
 * Who did what to which session (store/audit.ts). Kept like the records: never swept by age, only the oldest rows
 * past AUDIT_ROWS_MAX. `session_id` is null for what concerns no session (tokens, UI sign-ins); `seq` is the
 * session's output offset at that moment. `detail` is JSON and never holds what was typed or shown: input rows carry
 * a byte count.
 */
const AUDIT = `
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, session_id TEXT, seq INTEGER, actor_name TEXT NOT NULL,
  actor_kind TEXT NOT NULL, action TEXT NOT NULL, detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_session ON audit (session_id, id);
CREATE INDEX IF NOT EXISTS audit_at ON audit (at);
`;

/** Create or update the tables; true when old records still need redacting (the writer does that, then sets 2). */
export function migrate(db: Database.Database): boolean {
  db.exec(TABLES);
  const recordColumns = (db.prepare('PRAGMA table_info(sessions)').all() as Array<{ name: string }>).map((c) => c.name);
  if (!recordColumns.includes('owner')) db.exec('ALTER TABLE sessions ADD COLUMN owner TEXT');
  db.exec(AUDIT);
  // A newer version (a downgraded termhost) is used as it is: later versions only add, and never lower the number.
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version < 1) {
    const columns = (db.prepare('PRAGMA table_info(chunks)').all() as Array<{ name: string }>).map((c) => c.name);
    db.transaction(() => {
      if (!columns.includes('times')) db.exec('ALTER TABLE chunks ADD COLUMN times TEXT');
      db.exec(EVENTS);
      db.pragma('user_version = 1');
    })();
  }
  db.exec(EVENTS);
  return version < 2;
}
