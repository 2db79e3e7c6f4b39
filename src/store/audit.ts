/**
 * The audit trail on disk: the `audit` table (schema.ts), written from the runtime's AuditTrail as records arrive,
 * paged for `GET /v1/audit` with the reader's scope applied row by row (core's mayReadAuditEntry), and turned into
 * asciicast markers for one session on request.
 *
 * Rows are kept like session records: not swept by age. A purge removes a session's record and transcript but keeps
 * its audit rows (who ran what, and who purged it, is what an audit is for); from then on only admins read them. The
 * table is bounded: past AUDIT_ROWS_MAX rows the oldest go at the next sweep.
 */
import type Database from 'better-sqlite3';
import { mayReadAuditEntry, type Actor, type AuditRecord, type ScopeTarget } from '../core/index.js';
import { auditDetailText, type AuditEntry, type AuditPage } from '../protocol/audit.js';
import type { StoredEvent } from './Store.js';

/** Rows kept at most; about 200 bytes each, so the table stays under a few hundred MB. */
export const AUDIT_ROWS_MAX = 1_000_000;
/** Rows one page request looks at, whatever it finds visible: a scoped reader's page is bounded work too. */
const AUDIT_SCAN_MAX = 20_000;
export const AUDIT_PAGE_DEFAULT = 200;

interface AuditRow {
  id: number;
  at: number;
  session_id: string | null;
  seq: number | null;
  actor_name: string;
  actor_kind: string;
  action: AuditEntry['action'];
  detail: string;
}

export interface AuditFilter {
  sessionId?: string;
  actorName?: string;
  sinceMs?: number;
  after?: number;
  limit?: number;
}

export class AuditLog {
  private readonly insertRow: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.insertRow = db.prepare('INSERT INTO audit (at, session_id, seq, actor_name, actor_kind, action, detail) VALUES (?, ?, ?, ?, ?, ?, ?)');
  }

  insert(r: AuditRecord): void {
    this.insertRow.run(r.at, r.sessionId, r.seq, r.actor.name, r.actor.kind, r.action, JSON.stringify(r.detail));
  }

  /**
   * One page of entries this actor may read, oldest first. `targetOf` is the scope rule's view of a session (null
   * once its record is gone).
   */
  page(actor: Actor, f: AuditFilter, targetOf: (sessionId: string) => ScopeTarget | null): AuditPage {
    const limit = f.limit ?? AUDIT_PAGE_DEFAULT;
    const where: string[] = ['id > ?'];
    const args: Array<string | number> = [];
    if (f.sessionId !== undefined) where.push('session_id = ?'), args.push(f.sessionId);
    if (f.actorName !== undefined) where.push('actor_name = ?'), args.push(f.actorName);
    if (f.sinceMs !== undefined) where.push('at >= ?'), args.push(f.sinceMs);
    const select = this.db.prepare(`SELECT * FROM audit WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`);
    const targets = new Map<string, ScopeTarget | null>();
    const readable = (row: AuditRow) => {
      if (row.session_id === null) return mayReadAuditEntry(actor, null);
      if (!targets.has(row.session_id)) targets.set(row.session_id, targetOf(row.session_id));
      return mayReadAuditEntry(actor, targets.get(row.session_id)!);
    };
    const entries: AuditEntry[] = [];
    let cursor = f.after ?? 0;
    let scanned = 0;
    while (entries.length < limit && scanned < AUDIT_SCAN_MAX) {
      const rows = select.all(cursor, ...args, Math.min(limit, AUDIT_SCAN_MAX - scanned)) as AuditRow[];
      if (rows.length === 0) return { entries, next_after: null };
      for (const row of rows) {
        cursor = row.id;
        scanned++;
        if (readable(row)) entries.push(toEntry(row));
        if (entries.length === limit) break;
      }
    }
    const more = this.db.prepare(`SELECT 1 FROM audit WHERE ${where.join(' AND ')} LIMIT 1`).get(cursor, ...args);
    return { entries, next_after: more ? cursor : null };
  }

  /** A session's audit rows as asciicast markers, placed by the output offset at which each happened. */
  markers(sessionId: string): StoredEvent[] {
    const rows = this.db.prepare('SELECT * FROM audit WHERE session_id = ? ORDER BY id').all(sessionId) as AuditRow[];
    return rows.map((r) => ({ seq: r.seq ?? 0, at: r.at, kind: 'm', data: describe(toEntry(r)) }));
  }

  /** Drop the oldest rows past the bound; returns how many went. */
  trim(max = AUDIT_ROWS_MAX): number {
    return this.db.prepare('DELETE FROM audit WHERE id <= (SELECT MAX(id) FROM audit) - ?').run(max).changes;
  }
}

function toEntry(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    session_id: r.session_id,
    actor: { name: r.actor_name, kind: r.actor_kind },
    action: r.action,
    detail: JSON.parse(r.detail) as AuditEntry['detail'],
  };
}

/** One line for a person: `alice (human) client_attached role=driver`. */
export function describe(e: Pick<AuditEntry, 'actor' | 'action' | 'detail'>): string {
  const detail = auditDetailText(e.detail);
  return `${e.actor.name} (${e.actor.kind}) ${e.action}${detail ? ` ${detail}` : ''}`;
}
