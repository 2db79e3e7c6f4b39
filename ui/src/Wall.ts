/**
 * The wall (/ui/wall): every session at once, one live tile each with the picture the server draws of its screen,
 * its command, its state, who holds input, and a mark for a secret-input window or a program waiting for input.
 * Clicking a tile opens the session. `?label=k=v` (repeatable) shows only the sessions with those labels, filtered
 * by the server exactly as GET /v1/sessions filters, and stays in the address when changed here.
 *
 * Kept current from the event stream: `screen_updated` (at most two a second per session, from the server) marks
 * a tile's picture behind, and TilePictures fetches it when the tile is on screen; other events refetch what the
 * tile says about its session. A possible gap in the stream reloads everything.
 */
import { api, ApiError, enc } from './api.js';
import { fill, h, icon } from './dom.js';
import type { EventStream, RuntimeEvent } from './events.js';
import { inputHolder, joinCommand } from './format.js';
import { TilePictures, type TileAnswer, type TileSource } from './TilePictures.js';
import type { Lease, Me, SessionInfo } from './types.js';

/** Events about one session arriving within this window cause one refetch of it. */
const REFETCH_COALESCE_MS = 100;
/** How often lease expiries are redrawn. */
const TICK_MS = 5000;
/** Tiles this far outside the viewport count as on screen, so scrolling finds them drawn. */
const NEAR_VIEW = '200px';

const INFO_EVENTS = new Set(['process_exited', 'resized', 'title_changed', 'secret_input_started', 'secret_input_ended', 'input_needed', 'input_resumed']);
const LEASE_EVENTS = new Set(['lease_acquired', 'lease_released', 'input_preempted']);
/** Events after which the picture may differ although no screen_updated says so. */
const PICTURE_EVENTS = new Set(['resized', 'secret_input_ended', 'process_exited']);

export interface WallContext {
  me: Me | undefined;
  events: EventStream;
  navigate(path: string): void;
}

/** `?label=a=b&label=c=d` from an address, as the list route takes it. */
export function wallLabels(search: string): string[] {
  return new URLSearchParams(search).getAll('label').filter((l) => l !== '');
}

/** The labels as a query, with `=` left readable (`label=team=red`): it is as valid in a query value as it is clear. */
export function labelQuery(labels: readonly string[]): string {
  return labels.map((l) => `label=${encodeURIComponent(l).replace(/%3D/g, '=')}`).join('&');
}

class Tile implements TileSource {
  readonly el: HTMLAnchorElement;
  visible = false;
  leases: Lease[] = [];
  private readonly picture = h('div', { class: 'tile-picture' });
  private readonly img = h('img', { alt: '' });
  private readonly caption = h('div', { class: 'tile-caption' });
  private seq = -1;
  private hidden = false;

  constructor(
    public info: SessionInfo,
    private readonly onGone: (id: string) => void,
    open: (path: string) => void,
  ) {
    const href = `/ui/sessions/${info.id}`;
    this.el = h(
      'a',
      {
        class: 'tile',
        href,
        'data-session': info.id,
        onclick: (e: MouseEvent) => {
          if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
          e.preventDefault();
          open(href);
        },
      },
      this.picture,
      this.caption,
    );
    this.render();
  }

  get id(): string {
    return this.info.id;
  }

  answer(a: TileAnswer): void {
    if (a.kind === 'gone') return this.onGone(this.id);
    if (a.kind === 'picture') {
      this.img.src = a.url;
      this.seq = a.seq;
      this.hidden = false;
    } else if (a.kind === 'secret') this.hidden = true;
    else if (a.kind === 'unchanged') this.hidden = false;
    this.el.dataset.error = a.kind === 'failed' ? a.message : '';
    this.render();
  }

  /** The seq of the picture shown, -1 before the first. */
  get shownSeq(): number {
    return this.seq;
  }

  render(): void {
    const s = this.info;
    const needed = s.shell.input_needed;
    const secret = s.secret_input || this.hidden;
    let state: HTMLElement;
    if (s.exited) state = h('span', { class: 'pill pill-exited' }, `exited · ${s.exit_signal ?? `code ${s.exit_code}`}`);
    else state = h('span', { class: 'pill pill-running' }, 'running');
    const marks = [
      secret && h('span', { class: 'mark mark-secret', 'data-mark': 'secret' }, icon('lock'), 'secret input'),
      needed && !secret && h('span', { class: 'mark mark-input', 'data-mark': 'input-needed', title: 'The program waits for input' }, needed.kind === 'line' ? 'waiting for a line' : needed.kind === 'password' ? 'waiting for a password' : 'waiting for input'),
    ];
    this.el.dataset.state = s.exited ? 'exited' : secret ? 'secret' : needed ? 'input-needed' : 'running';
    fill(
      this.caption,
      h('div', { class: 'tile-line' }, h('span', { class: 'tile-id' }, s.name ?? s.id), h('span', { class: 'tile-cmd', title: joinCommand(s.command) }, joinCommand(s.command))),
      h('div', { class: 'tile-line' }, state, ...marks, h('span', { class: 'spacer' }), h('span', { class: 'tile-holder', title: 'Who holds input' }, s.exited ? '—' : inputHolder(this.leases, Date.now()))),
    );
    this.renderPicture();
  }

  private renderPicture(): void {
    if (this.info.secret_input || this.hidden) {
      fill(this.picture, h('div', { class: 'tile-hidden' }, icon('lock', 'icon icon-big'), h('span', {}, 'Secret input: the screen is hidden until a person ends the window')));
    } else if (this.seq < 0) fill(this.picture, h('div', { class: 'tile-hidden' }, this.el.dataset.error || 'drawing…'));
    else if (this.img.parentElement !== this.picture) fill(this.picture, this.img);
    this.el.dataset.seq = String(this.seq);
  }
}

export class Wall {
  readonly root: HTMLElement;
  private readonly tiles = new Map<string, Tile>();
  private readonly pictures = new TilePictures();
  private readonly grid = h('div', { class: 'wall-grid' });
  private readonly emptyEl = h('div', { class: 'empty', hidden: true });
  private readonly errorEl = h('div', { class: 'notices' });
  private readonly filterEl: HTMLInputElement;
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly cleanups: Array<() => void> = [];
  private readonly observer: IntersectionObserver;
  private labels = wallLabels(location.search);
  private loadGeneration = 0;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly ctx: WallContext) {
    this.filterEl = h('input', {
      class: 'wall-filter',
      type: 'search',
      name: 'label',
      placeholder: 'label filter: team=red, env=prod',
      value: this.labels.join(', '),
      spellcheck: false,
      autocomplete: 'off',
      onchange: () => this.setLabels(this.filterEl.value),
    });
    this.root = h(
      'section',
      { class: 'wall' },
      h(
        'div',
        { class: 'toolbar' },
        h('h1', {}, 'Wall'),
        h('a', { class: 'link', href: '/ui/', onclick: (e: MouseEvent) => (e.preventDefault(), ctx.navigate('/ui/')) }, 'list'),
        h('div', { class: 'spacer' }),
        this.filterEl,
      ),
      this.errorEl,
      this.grid,
      this.emptyEl,
    );
    this.observer = new IntersectionObserver(
      (entries) => {
        for (const en of entries) {
          const tile = this.tiles.get((en.target as HTMLElement).dataset.session ?? '');
          if (tile) tile.visible = en.isIntersecting;
        }
        this.pictures.pump();
      },
      { rootMargin: NEAR_VIEW },
    );
    this.cleanups.push(ctx.events.on((e) => this.onEvent(e)));
    this.cleanups.push(ctx.events.onResync(() => void this.load()));
    const tick = setInterval(() => this.renderAll(), TICK_MS);
    this.cleanups.push(() => clearInterval(tick));
    void this.load();
  }

  /** The pictures' counters, for tests and the bench (window.__wall). */
  get counts(): { fetched: number; pictures: number; unchanged: number } {
    return this.pictures.counts;
  }

  private setLabels(text: string): void {
    this.labels = text
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    const q = labelQuery(this.labels);
    history.replaceState(null, '', q ? `/ui/wall?${q}` : '/ui/wall');
    void this.load();
  }

  private error(message: string): void {
    fill(this.errorEl, h('div', { class: 'notice notice-error' }, h('span', {}, message), h('button', { class: 'link', onclick: () => fill(this.errorEl) }, '×')));
  }

  /** Every tile from scratch: the sessions the filter selects, then their leases. */
  async load(): Promise<void> {
    const gen = ++this.loadGeneration;
    const q = labelQuery(this.labels);
    try {
      const { sessions } = await api<{ sessions: SessionInfo[] }>('GET', `/v1/sessions${q ? `?${q}` : ''}`);
      if (gen !== this.loadGeneration) return;
      fill(this.errorEl);
      const keep = new Set(sessions.map((s) => s.id));
      for (const id of [...this.tiles.keys()]) if (!keep.has(id)) this.drop(id);
      const sorted = sessions.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
      for (const s of sorted) {
        const tile = this.tiles.get(s.id);
        if (tile) {
          tile.info = s;
          tile.render();
          this.pictures.changed(s.id);
        } else this.addTile(s);
      }
      fill(this.grid, ...sorted.map((s) => this.tiles.get(s.id)!.el));
      this.renderEmpty();
      await Promise.all(sorted.map((s) => this.loadLeases(s.id)));
    } catch (err) {
      if (gen !== this.loadGeneration) return;
      const e = err as ApiError;
      this.error(e.status === 401 ? 'This browser is not signed in: run `termhost ui` to open a signed-in page.' : e.message);
    }
  }

  private addTile(s: SessionInfo): void {
    const tile = new Tile(s, (id) => this.drop(id), (path) => this.ctx.navigate(path));
    this.tiles.set(s.id, tile);
    this.observer.observe(tile.el);
    this.pictures.add(tile);
  }

  private drop(id: string): void {
    const tile = this.tiles.get(id);
    if (!tile) return;
    this.observer.unobserve(tile.el);
    tile.el.remove();
    this.tiles.delete(id);
    this.pictures.remove(id);
    this.renderEmpty();
  }

  private renderEmpty(): void {
    this.emptyEl.hidden = this.tiles.size > 0;
    fill(this.emptyEl, this.labels.length > 0 ? `No live session has the labels ${this.labels.join(', ')}.` : 'No sessions yet. Start one from the list, or from a shell: ', this.labels.length === 0 && h('code', {}, 'termhost new bash'));
  }

  private renderAll(): void {
    for (const t of this.tiles.values()) t.render();
  }

  private async loadLeases(id: string): Promise<void> {
    const tile = this.tiles.get(id);
    if (!tile) return;
    try {
      tile.leases = (await api<{ leases: Lease[] }>('GET', `/v1/sessions/${enc(id)}/leases`)).leases;
    } catch {
      tile.leases = []; // gone meanwhile: the next event or load removes the tile
    }
    tile.render();
  }

  private async refetch(id: string): Promise<void> {
    try {
      const s = await api<SessionInfo>('GET', `/v1/sessions/${enc(id)}`);
      const tile = this.tiles.get(id);
      if (!tile) return;
      tile.info = s;
      tile.render();
    } catch (err) {
      if ((err as ApiError).status === 404) this.drop(id);
    }
  }

  private onEvent(e: RuntimeEvent): void {
    const id = e.session_id;
    if (!id) return;
    if (e.type === 'session_opened') return this.reloadSoon();
    if (e.type === 'session_closed') return this.drop(id);
    const tile = this.tiles.get(id);
    if (!tile) return;
    if (e.type === 'screen_updated') {
      if (e.seq !== tile.shownSeq) this.pictures.changed(id);
      return;
    }
    if (PICTURE_EVENTS.has(e.type)) this.pictures.changed(id);
    if (e.type === 'secret_input_started') {
      tile.info = { ...tile.info, secret_input: true };
      tile.render();
    }
    if (INFO_EVENTS.has(e.type)) this.coalesce(id);
    else if (LEASE_EVENTS.has(e.type)) void this.loadLeases(id);
  }

  /** A new session may match the filter; the server decides, so ask it (once for a burst of new sessions). */
  private reloadSoon(): void {
    if (this.reloadTimer) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      void this.load();
    }, REFETCH_COALESCE_MS);
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

  dispose(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    clearTimeout(this.reloadTimer);
    for (const c of this.cleanups.splice(0)) c();
    this.observer.disconnect();
    this.pictures.dispose();
    this.root.remove();
  }
}
