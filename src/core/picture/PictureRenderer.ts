/**
 * Draws pictures in a worker thread, never on the event loop: one long-lived worker for screens (PNG and SVG, each a
 * few milliseconds; the worker keeps its glyph atlases), and a worker of its own for each recording (a GIF takes
 * seconds and must not hold up screens). Both are bounded: past RENDER_QUEUE_MAX screens waiting, or GIF_JOBS_MAX
 * recordings at once, a request is refused with `renderer_busy` (503, retryable).
 *
 * A worker that dies (out of memory, a crash in the canvas) fails the jobs it held with `render_failed`; the next
 * job starts a new one.
 */
import type { Worker } from 'node:worker_threads';
import { TermError, fail, ok, type ErrorCode, type Result } from '../errors.js';
import type { CellGrid } from '../snapshot/cells.js';
import { moduleWorker } from '../worker.js';
import type { GifOptions, Recording } from './gif.js';
import type { Layout } from './layout.js';

type Job = { kind: 'png' | 'svg'; grid: CellGrid; layout: Layout } | { kind: 'gif'; recording: Recording; options: GifOptions };
export type WorkerJob = Job & { id: number };

export type WorkerReply =
  | { id: number; ok: true; bytes: Uint8Array; frames?: number }
  | { id: number; ok: false; error: string; code?: string; extra?: Record<string, unknown> };

/** Screens waiting for the worker at most. */
export const RENDER_QUEUE_MAX = 64;
/** Recordings drawn at once at most. */
export const GIF_JOBS_MAX = 2;
/** Output in one recording drawn as a GIF at most (UTF-16 units); a longer one is refused before any work. */
export const GIF_RECORDING_CHARS_MAX = 64 * 1024 * 1024;
/** A worker's heap; a 16-megapixel picture needs about 200 MiB while it is drawn. */
const WORKER_HEAP_MB = 512;

type Pending = { resolve: (r: Result<{ bytes: Buffer; frames?: number }>) => void };

class JobWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  get size(): number {
    return this.pending.size;
  }

  run(job: Job): Promise<Result<{ bytes: Buffer; frames?: number }>> {
    const id = this.nextId++;
    const w = this.start();
    return new Promise((resolve) => {
      this.pending.set(id, { resolve });
      w.postMessage({ ...job, id });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = moduleWorker(import.meta.url, 'worker', { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    // An idle worker must not keep the process alive; one with jobs is held by the promises waiting on it.
    w.unref();
    w.on('message', (m: WorkerReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(ok({ bytes: Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength), frames: m.frames }));
      else p.resolve(fail(new TermError((m.code as ErrorCode | undefined) ?? 'render_failed', m.error, m.extra ?? {})));
    });
    const died = (why: string) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      for (const p of this.pending.values()) p.resolve(fail(new TermError('render_failed', `the picture worker stopped: ${why}`)));
      this.pending.clear();
    };
    w.on('error', (err) => died(err.message));
    w.on('exit', (code) => died(`exit code ${code}`));
    this.worker = w;
    return w;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }
}

export class PictureRenderer {
  private readonly screens = new JobWorker();
  private readonly gifs = new Set<JobWorker>();
  private drawn = 0;

  /** Screens sent to the worker to be drawn so far: what a cached or unchanged picture does not add to. */
  get screensDrawn(): number {
    return this.drawn;
  }

  /** A screen as PNG or SVG. */
  async screen(grid: CellGrid, layout: Layout, format: 'png' | 'svg'): Promise<Result<Buffer>> {
    if (this.screens.size >= RENDER_QUEUE_MAX) return fail(busy(`${RENDER_QUEUE_MAX} pictures are waiting to be drawn`));
    this.drawn++;
    const r = await this.screens.run({ kind: format, grid, layout });
    return r.ok ? ok(r.value.bytes) : r;
  }

  /** A recording as an animated GIF, in a worker of its own that ends with the job. */
  async gif(recording: Recording, options: GifOptions): Promise<Result<{ bytes: Buffer; frames: number }>> {
    let chars = 0;
    for (const e of recording.events) chars += e.data.length;
    if (chars > GIF_RECORDING_CHARS_MAX) {
      return fail(new TermError('invalid_request', `the recording holds ${chars} characters of output, more than the ${GIF_RECORDING_CHARS_MAX} a GIF is drawn from; export it as asciicast instead`));
    }
    if (this.gifs.size >= GIF_JOBS_MAX) return fail(busy(`${GIF_JOBS_MAX} recordings are being drawn`));
    const w = new JobWorker();
    this.gifs.add(w);
    try {
      const r = await w.run({ kind: 'gif', recording, options });
      return r.ok ? ok({ bytes: r.value.bytes, frames: r.value.frames ?? 0 }) : r;
    } finally {
      this.gifs.delete(w);
      await w.close();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.screens.close(), ...[...this.gifs].map((w) => w.close())]);
  }
}

function busy(what: string): TermError {
  return new TermError('renderer_busy', `${what}; try again shortly`);
}
