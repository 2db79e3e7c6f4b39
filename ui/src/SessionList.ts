/**
 * Every session at a glance: command, title, labels, age, state, who holds input, who is attached. Kept current from
 * the event stream: an event about a session refetches that session (coalesced), a lease event its leases; a
 * possible gap in the stream reloads everything. "Show ended" adds the stored records of sessions that are gone.
 */
import { api, ApiError, enc } from './api.js';
import { fill, h } from './dom.js';
import type { EventStream, RuntimeEvent } from './events.js';
import { age, inputHolder, joinCommand, splitCommand } from './format.js';
import { describeExit } from './paneState.js';
import type { AnySession, Lease, Me, ProfilesAnswer, SessionInfo } from './types.js';

/** Events about one session arriving within this window cause one refetch. */
const REFETCH_COALESCE_MS = 100;
/** How often ages and lease expiries are redrawn. */
const TICK_MS = 5000;

/** Events that change what a row shows (output and screen changes do not). */
const ROW_EVENTS = new Set([
  'session_opened',
  'process_exited',
  'resized',
  'title_changed',
  'client_attached',
  'client_detached',
  'secret_input_started',
  'secret_input_ended',
  'moderation_changed',
]);
const LEASE_EVENTS = new Set(['lease_acquired', 'lease_released', 'input_preempted']);

/** "1 driving · 2 watching", only the parts that are not zero. */
function attached(c: { drivers: number; viewers: number }): string {
  const parts = [c.drivers > 0 && `${c.drivers} driving`, c.viewers > 0 && `${c.viewers} watching`].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : 'nobody';
}

export interface ListContext {
  me: Me | undefined;
  events: EventStream;
  navigate(path: string): void;
}

export class SessionList {
  readonly root: HTMLElement;
  private readonly rows = new Map<string, AnySession>();
  private readonly leases = new Map<string, Lease[]>();
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private showEnded = new URLSearchParams(location.search).get('ended') === '1';
  private readonly tbody = h('tbody');
  private readonly emptyEl = h('div', { class: 'empty', hidden: true });
  private readonly errorEl = h('div', { class: 'notices' });
  private readonly formEl: HTMLFormElement;
  /** The daemon's command profiles, offered when there are any; the only choice when the daemon is restricted. */
  private readonly profileEl = h('label', { class: 'profile-choice', hidden: true }, 'Profile', h('select', { name: 'profile' }));
  private readonly commandEl = h('label', {}, 'Command', h('input', { name: 'command', type: 'text', placeholder: 'your shell', autocomplete: 'off', spellcheck: false, size: 40 }));
  private readonly cleanups: Array<() => void> = [];
  private loadGeneration = 0;

  constructor(private readonly ctx: ListContext) {
    const canCreate = ctx.me !== undefined && ctx.me.actor.kind !== 'viewer';
    this.formEl = this.newSessionForm();
    if (canCreate) void this.loadProfiles();
    this.root = h(
      'section',
      { class: 'list' },
      h(
        'div',
        { class: 'toolbar' },
        h('h1', {}, 'Sessions'),
        h('a', { class: 'link', href: '/ui/wall', onclick: (e: MouseEvent) => (e.preventDefault(), ctx.navigate('/ui/wall')) }, 'wall'),
        h('div', { class: 'spacer' }),
        h(
          'label',
          { class: 'toggle' },
          h('input', {
            type: 'checkbox',
            checked: this.showEnded,
            onchange: (e: Event) => this.setShowEnded((e.target as HTMLInputElement).checked),
          }),
          'Show ended',
        ),
        h(
          'button',
          {
            class: 'btn btn-primary',
            disabled: !canCreate,
            title: canCreate ? 'Start a program in a new terminal' : 'This browser signed in read-only',
            onclick: () => {
              this.formEl.hidden = !this.formEl.hidden;
              if (!this.formEl.hidden) (this.formEl.elements.namedItem('command') as HTMLInputElement).focus();
            },
          },
          'New session',
        ),
      ),
      this.formEl,
      this.errorEl,
      h(
        'table',
        { class: 'sessions' },
        h(
          'thead',
          {},
          h('tr', {}, ...['Session', 'Command', 'Title', 'Labels', 'Age', 'State', 'Input', 'Attached', ''].map((t) => h('th', {}, t))),
        ),
        this.tbody,
      ),
      this.emptyEl,
    );
    this.cleanups.push(ctx.events.on((e) => this.onEvent(e)));
    this.cleanups.push(ctx.events.onResync(() => void this.load()));
    const tick = setInterval(() => this.render(), TICK_MS);
    this.cleanups.push(() => clearInterval(tick));
    void this.load();
  }

  private newSessionForm(): HTMLFormElement {
    const form: HTMLFormElement = h(
      'form',
      {
        class: 'new-session',
        hidden: true,
        onsubmit: (e: Event) => {
          e.preventDefault();
          void this.create(form);
        },
      },
      this.profileEl,
      this.commandEl,
      h('label', {}, 'Columns', h('input', { name: 'cols', type: 'number', min: 1, max: 1000, value: '100', required: true })),
      h('label', {}, 'Rows', h('input', { name: 'rows', type: 'number', min: 1, max: 1000, value: '30', required: true })),
      h('label', { class: 'check', title: 'Agents may type only while a person is attached as driver' }, h('input', { name: 'moderated', type: 'checkbox' }), 'Moderated'),
      h('button', { class: 'btn btn-primary', type: 'submit' }, 'Start'),
      h('button', { class: 'btn', type: 'button', onclick: () => (form.hidden = true) }, 'Cancel'),
    );
    return form;
  }

  /** GET /v1/profiles: with profiles, a choice; when restricted, the command field goes (the daemon would refuse it). */
  private async loadProfiles(): Promise<void> {
    let answer: ProfilesAnswer;
    try {
      answer = await api<ProfilesAnswer>('GET', '/v1/profiles');
    } catch {
      return; // the form still offers a command; the daemon says what it refuses
    }
    if (answer.profiles.length === 0 && !answer.restricted) return; // nothing to offer: the form stays as it was
    const select = this.profileEl.querySelector('select')!;
    const options = answer.profiles.map((p) =>
      h('option', { value: p.name, title: joinCommand(p.command) }, `${p.name} (${joinCommand(p.command)})${p.require_moderator ? ' · moderated' : ''}`),
    );
    fill(select, !answer.restricted && h('option', { value: '' }, 'none: run what I type'), ...options);
    this.profileEl.hidden = false;
    this.commandEl.hidden = answer.restricted;
    const sync = () => (this.commandEl.hidden = answer.restricted || select.value !== '');
    select.onchange = sync;
    sync();
  }

  private async create(form: HTMLFormElement): Promise<void> {
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value;
    const profile = value('profile');
    const split = profile ? { ok: true as const, argv: [] } : splitCommand(value('command'));
    if (!split.ok) return this.error(`Command: ${split.error}`);
    const moderated = (form.elements.namedItem('moderated') as HTMLInputElement).checked;
    try {
      const info = await api<SessionInfo>('POST', '/v1/sessions', {
        ...(profile ? { profile } : {}),
        ...(split.argv.length > 0 ? { command: split.argv } : {}),
        ...(moderated ? { require_moderator: true } : {}),
        cols: Number(value('cols')),
        rows: Number(value('rows')),
      });
      this.ctx.navigate(`/ui/sessions/${info.id}`);
    } catch (err) {
      this.error((err as Error).message);
    }
  }

  private setShowEnded(on: boolean): void {
    this.showEnded = on;
    history.replaceState(null, '', on ? '/ui/?ended=1' : '/ui/');
    void this.load();
  }

  private error(message: string): void {
    fill(this.errorEl, h('div', { class: 'notice notice-error' }, h('span', {}, message), h('button', { class: 'link', onclick: () => fill(this.errorEl) }, '×')));
  }

  /** Everything from scratch: the list, then each live session's leases. */
  async load(): Promise<void> {
    const gen = ++this.loadGeneration;
    try {
      const { sessions } = await api<{ sessions: AnySession[] }>('GET', `/v1/sessions${this.showEnded ? '?include=ended' : ''}`);
      if (gen !== this.loadGeneration) return;
      this.rows.clear();
      for (const s of sessions) this.rows.set(s.id, s);
      fill(this.errorEl);
      this.render();
      await Promise.all(sessions.filter((s) => s.live).map((s) => this.loadLeases(s.id)));
    } catch (err) {
      if (gen !== this.loadGeneration) return;
      const e = err as ApiError;
      this.error(e.status === 401 ? 'This browser is not signed in: run `termhost ui` to open a signed-in page.' : e.message);
    }
  }

  private async loadLeases(id: string): Promise<void> {
    try {
      this.leases.set(id, (await api<{ leases: Lease[] }>('GET', `/v1/sessions/${enc(id)}/leases`)).leases);
    } catch {
      this.leases.delete(id); // gone meanwhile
    }
    this.render();
  }

  private async refetch(id: string): Promise<void> {
    try {
      const s = await api<AnySession>('GET', `/v1/sessions/${enc(id)}`);
      if (s.live || this.showEnded) this.rows.set(id, s);
      else this.rows.delete(id);
    } catch (err) {
      if ((err as ApiError).status === 404) this.rows.delete(id);
    }
    this.render();
  }

  private onEvent(e: RuntimeEvent): void {
    const id = e.session_id;
    if (!id) return;
    if (e.type === 'session_closed') {
      if (this.showEnded) this.coalesce(id);
      else {
        this.rows.delete(id);
        this.leases.delete(id);
        this.render();
      }
    } else if (ROW_EVENTS.has(e.type)) this.coalesce(id);
    else if (LEASE_EVENTS.has(e.type)) void this.loadLeases(id);
  }

  private coalesce(id: string): void {
    if (this.pending.has(id)) return;
    this.pending.set(
      id,
      setTimeout(() => {
        this.pending.delete(id);
        void this.refetch(id);
      }, REFETCH_COALESCE_MS),
    );
  }

  private render(): void {
    const now = Date.now();
    const sessions = [...this.rows.values()].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    fill(this.tbody, ...sessions.map((s) => this.row(s, now)));
    this.emptyEl.hidden = sessions.length > 0;
    fill(
      this.emptyEl,
      this.showEnded ? 'No sessions, live or ended.' : 'No sessions yet. Start one with “New session”, or from a shell: ',
      !this.showEnded && h('code', {}, 'termhost new bash'),
    );
  }

  private row(s: AnySession, now: number): HTMLTableRowElement {
    const href = `/ui/sessions/${s.id}`;
    const open = (e: MouseEvent, path: string) => {
      if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
      e.preventDefault();
      this.ctx.navigate(path);
    };
    const labels = Object.entries(s.labels).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`));
    let state: HTMLElement;
    if (!s.live) state = h('span', { class: 'pill pill-ended', title: describeExit(s.exit_reason ?? 'unknown', s.exit_code, s.exit_signal) }, `ended · ${s.exit_signal ?? `code ${s.exit_code}`}`);
    else if (s.exited) state = h('span', { class: 'pill pill-exited', title: s.exit_reason ?? '' }, `exited · ${s.exit_signal ?? `code ${s.exit_code}`}`);
    else if (s.moderation.required && s.moderation.present.length === 0) {
      state = h('span', { class: 'pill pill-running pill-moderation', title: `Agents wait for ${s.moderation.required_person}` }, 'running · needs a person');
    } else state = h('span', { class: 'pill pill-running' }, s.secret_input ? 'running · secret input' : s.moderation.paused_by ? 'running · agents paused' : 'running');
    return h(
      'tr',
      { 'data-session': s.id, class: s.live ? '' : 'row-ended' },
      h('td', {}, h('a', { class: 'sid', href, onclick: (e: MouseEvent) => open(e, href) }, s.id)),
      h('td', { class: 'cmd', title: joinCommand(s.command) }, joinCommand(s.command)),
      h('td', { class: 'title-cell' }, s.live ? s.title : ''),
      h('td', {}, ...labels),
      h('td', { class: 'age', title: s.created_at }, age(s.created_at, now)),
      h('td', { class: 'state' }, state),
      h('td', { class: 'holder' }, s.live && !s.exited ? inputHolder(this.leases.get(s.id) ?? [], now) : '—'),
      h('td', { class: 'clients' }, s.live ? attached(s.clients) : '—'),
      h(
        'td',
        { class: 'actions' },
        s.live
          ? h('a', { class: 'link', href: `${href}?role=viewer`, onclick: (e: MouseEvent) => open(e, `${href}?role=viewer`) }, 'watch')
          : s.transcript !== 'off' && h('a', { class: 'link', href, onclick: (e: MouseEvent) => open(e, href) }, 'transcript'),
      ),
    );
  }

  dispose(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    for (const c of this.cleanups.splice(0)) c();
    this.root.remove();
  }
}
