/** termhost audit: print the audit trail (who did what, to which session), oldest first, every page of it. */
import type { AuditEntry } from '../../client/TermhostClient.js';
import { Bounds } from '../../protocol/bounds.js';
import { noMoreArgs, UsageError } from '../args.js';
import { printJson, printTable, withClient } from '../context.js';
import type { Command } from './types.js';

export const audit: Command = {
  name: 'audit',
  summary: 'print the audit trail: who created, attached, typed, resized, signalled or ended what (human role)',
  details: [
    'Prints AT, SESSION, ACTOR, KIND, ACTION, DETAIL (tab-separated), oldest first; SESSION is - for tokens and sign-ins.',
    'Input is counted, never shown: one line per actor and second of typing, with its byte count, and none during a',
    'secret-input window. A person sees what concerns the sessions its token may see; an admin sees everything.',
  ],
  flags: [
    { name: 'session', kind: 'string', value: 'ID', help: 'only this session (an id, or the name of a live one)', field: '/session', complete: 'session' },
    { name: 'actor', kind: 'string', value: 'NAME', help: 'only what this token name did', field: '/actor' },
    { name: 'since', kind: 'string', value: 'TIME', help: 'only from this ISO time on (2026-12-01T10:00:00Z)', field: '/since' },
    { name: 'json', kind: 'boolean', help: 'print the entries as JSON' },
  ],
  examples: ['termhost audit', 'termhost audit --session 3f9c2a1b', 'termhost audit --actor claude --since 2026-12-01T00:00:00Z'],
  async run(parsed, io) {
    noMoreArgs(parsed, 0);
    const f = parsed.flags;
    const since = f.since as string | undefined;
    if (since !== undefined && Number.isNaN(Date.parse(since))) throw new UsageError(`--since wants an ISO time such as 2026-12-01T10:00:00Z, got "${since}"`);
    return withClient(parsed, async (client) => {
      const entries: AuditEntry[] = [];
      for (let after: number | null = 0; after !== null; ) {
        const page = await client.audit({ session: f.session as string | undefined, actor: f.actor as string | undefined, since, after, limit: Bounds.auditPageMax });
        entries.push(...page.entries);
        after = page.next_after;
      }
      if (f.json) printJson(io, entries);
      else {
        const { auditDetailText } = await import('../../protocol/audit.js');
        printTable(io, ['AT', 'SESSION', 'ACTOR', 'KIND', 'ACTION', 'DETAIL'], entries.map((e) => [e.at, e.session_id ?? '-', e.actor.name, e.actor.kind, e.action, auditDetailText(e.detail)]));
      }
      return 0;
    });
  },
};
