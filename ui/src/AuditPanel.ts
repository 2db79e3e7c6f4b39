/**
 * A session's audit trail beside its terminal or transcript (GET /v1/audit?session=ID): who attached, typed (byte
 * counts, never what), took leases, opened secret windows, moderated and ended it. Folded by default and loaded when
 * opened; refreshed on the session's events while open. Reading the trail takes a person: a read-only sign-in is
 * told so instead of shown an error.
 */
import { api, ApiError, enc } from './api.js';
import { fill, h } from './dom.js';
import type { AuditPage, Me } from './types.js';

/** Entries one panel shows: one page, oldest first, as the trail is kept. */
const AUDIT_PANEL_ENTRIES = 200;

export class AuditPanel {
  readonly root: HTMLDetailsElement;
  private readonly body = h('div', { class: 'audit-body' });
  private loading = false;

  constructor(
    private readonly sessionId: string,
    private readonly me: Me | undefined,
  ) {
    this.root = h('details', { class: 'audit-panel', ontoggle: () => this.root.open && void this.load() }, h('summary', {}, 'Audit trail'), this.body);
  }

  /** Something happened to the session: reload if anyone is looking. */
  changed(): void {
    if (this.root.open) void this.load();
  }

  private async load(): Promise<void> {
    const k = this.me?.actor.kind;
    if (k !== 'human' && k !== 'admin') return fill(this.body, h('p', { class: 'muted' }, 'The audit trail is for people; this browser signed in read-only.'));
    if (this.loading) return;
    this.loading = true;
    try {
      const page = await api<AuditPage>('GET', `/v1/audit?session=${enc(this.sessionId)}&limit=${AUDIT_PANEL_ENTRIES}`);
      this.render(page);
    } catch (err) {
      fill(this.body, h('p', { class: 'muted' }, err instanceof ApiError ? err.message : String(err)));
    } finally {
      this.loading = false;
    }
  }

  private render(page: AuditPage): void {
    if (page.entries.length === 0) return fill(this.body, h('p', { class: 'muted' }, 'Nothing recorded yet.'));
    // As protocol/audit.ts auditDetailText writes it; not imported, so the page does not bundle the server's schemas.
    const detail = (d: AuditPage['entries'][number]['detail']) =>
      Object.entries(d)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
    fill(
      this.body,
      h(
        'table',
        { class: 'audit' },
        h('thead', {}, h('tr', {}, ...['Time', 'Who', 'Action', 'Detail'].map((t) => h('th', {}, t)))),
        h(
          'tbody',
          {},
          ...page.entries.map((e) =>
            h(
              'tr',
              { 'data-action': e.action },
              h('td', { class: 'audit-at' }, new Date(e.at).toLocaleTimeString()),
              h('td', {}, `${e.actor.name} (${e.actor.kind})`),
              h('td', { class: 'audit-action' }, e.action),
              h('td', { class: 'audit-detail' }, detail(e.detail)),
            ),
          ),
        ),
      ),
      page.next_after !== null && h('p', { class: 'muted' }, `The first ${page.entries.length} entries; termhost audit --session ${this.sessionId} prints them all.`),
    );
  }
}
