/**
 * Fetches the wall's tile pictures: only for tiles on screen, only when the screen changed since the picture shown,
 * at most FETCHES_MAX at once, oldest request first. The server draws each picture once per screen (its cache is
 * keyed by the screen's seq) and answers 304 to an If-None-Match it would draw the same again, so an unchanged
 * tile costs neither a drawing nor bytes.
 *
 * Why SVG and not PNG: a tile is small and its size follows the page, not the screen. SVG text stays crisp at any
 * tile width and device pixel ratio, where a small PNG is either blurry when scaled or unreadable at its own size;
 * and the server builds an SVG as a string, with no glyph rasterising. The picture is shown through a data: URL
 * (the page's CSP allows data: images, not blob:), in an <img>, where an SVG can run nothing.
 */
import { enc, keyHeader } from './api.js';

/** Tile pictures being fetched at most: the browser's six connections per host stay free for everything else. */
export const FETCHES_MAX = 4;
/** Pixels per cell row of a tile's SVG; the browser scales it to the tile, so this sets proportions, not sharpness. */
const TILE_SCALE = 10;
/** After a refusal that says "try again" (the renderer is busy), wait this long before asking again. */
const RETRY_AFTER_MS = 1000;

export type TileAnswer =
  /** A new picture: show it. */
  | { kind: 'picture'; url: string; seq: number }
  /** The same screen as the picture shown. */
  | { kind: 'unchanged' }
  /** A secret-input window is open: the server shows nothing of the screen. */
  | { kind: 'secret' }
  /** The session is gone (or out of this sign-in's scope). */
  | { kind: 'gone' }
  | { kind: 'failed'; message: string };

export interface TileSource {
  readonly id: string;
  /** On screen now. */
  readonly visible: boolean;
  /** Given each answer as it arrives. */
  answer(a: TileAnswer): void;
}

interface Entry {
  source: TileSource;
  etag: string | undefined;
  /** A change is known that the picture shown does not have. */
  dirty: boolean;
  fetching: boolean;
  retry: ReturnType<typeof setTimeout> | undefined;
}

export class TilePictures {
  private readonly entries = new Map<string, Entry>();
  /** Dirty tiles in the order they became dirty: the next fetch goes to the one that has waited longest. */
  private readonly queue = new Set<string>();
  private active = 0;
  private disposed = false;
  /** Pictures fetched and their answers, for the tests and the bench. */
  readonly counts = { fetched: 0, pictures: 0, unchanged: 0 };

  add(source: TileSource): void {
    this.entries.set(source.id, { source, etag: undefined, dirty: false, fetching: false, retry: undefined });
    this.changed(source.id);
  }

  remove(id: string): void {
    const e = this.entries.get(id);
    if (e) clearTimeout(e.retry);
    this.entries.delete(id);
    this.queue.delete(id);
  }

  /** The session's screen changed (or may have): fetch its picture when the tile is on screen. */
  changed(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    e.dirty = true;
    this.queue.add(id);
    this.pump();
  }

  /** Tiles came into view: fetch those that are behind. */
  pump(): void {
    if (this.disposed) return;
    for (const id of this.queue) {
      if (this.active >= FETCHES_MAX) return;
      const e = this.entries.get(id);
      if (!e || !e.dirty) {
        this.queue.delete(id);
        continue;
      }
      if (e.fetching || e.retry || !e.source.visible) continue;
      this.queue.delete(id);
      void this.fetch(e);
    }
  }

  private async fetch(e: Entry): Promise<void> {
    e.dirty = false;
    e.fetching = true;
    this.active++;
    this.counts.fetched++;
    let answer: TileAnswer;
    try {
      answer = await this.request(e);
    } catch (err) {
      answer = { kind: 'failed', message: `cannot reach the termhost daemon (${(err as Error).message})` };
    }
    this.active--;
    e.fetching = false;
    if (this.disposed || this.entries.get(e.source.id) !== e) return;
    if (answer.kind === 'failed' && !e.dirty) {
      // Asked again a little later, not at once: a busy renderer or a restarting daemon needs the moment.
      e.dirty = true;
      e.retry = setTimeout(() => {
        e.retry = undefined;
        this.queue.add(e.source.id);
        this.pump();
      }, RETRY_AFTER_MS);
    }
    if (answer.kind === 'picture') this.counts.pictures++;
    if (answer.kind === 'unchanged') this.counts.unchanged++;
    e.source.answer(answer);
    if (e.dirty && !e.retry) this.queue.add(e.source.id);
    this.pump();
  }

  private async request(e: Entry): Promise<TileAnswer> {
    const headers: Record<string, string> = { accept: 'image/svg+xml', ...keyHeader() };
    if (e.etag) headers['if-none-match'] = e.etag;
    // no-store: this code keeps the ETag itself, so the browser's cache never turns a 304 into an old 200.
    const res = await fetch(`/v1/sessions/${enc(e.source.id)}/screen?format=svg&scale=${TILE_SCALE}`, { headers, credentials: 'same-origin', cache: 'no-store' });
    if (res.status === 304) return { kind: 'unchanged' };
    if (res.ok) {
      const text = await res.text();
      e.etag = res.headers.get('etag') ?? undefined;
      return { kind: 'picture', url: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`, seq: Number(res.headers.get('x-termhost-seq') ?? -1) };
    }
    const body = (await res.json().catch(() => ({}))) as { error?: unknown; code?: unknown };
    if (res.status === 423) {
      e.etag = undefined; // what shows after the window must be fetched afresh
      return { kind: 'secret' };
    }
    if (res.status === 404) return { kind: 'gone' };
    return { kind: 'failed', message: typeof body.error === 'string' ? body.error : `HTTP ${res.status}` };
  }

  dispose(): void {
    this.disposed = true;
    for (const e of this.entries.values()) clearTimeout(e.retry);
    this.entries.clear();
    this.queue.clear();
  }
}
