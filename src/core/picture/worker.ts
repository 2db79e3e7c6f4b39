/**
 * The picture worker: draws screens (PNG, SVG) and recordings (GIF) off the daemon's event loop. One glyph atlas per
 * cell size lives here for the worker's lifetime, so a glyph is rasterised once however many pictures show it.
 */
import { parentPort } from 'node:worker_threads';
import { GlyphAtlas } from './GlyphAtlas.js';
import { renderGif } from './gif.js';
import { encodePng } from './png.js';
import { rasterize, rasterizeIndexed } from './raster.js';
import { renderSvg } from './svg.js';
import type { WorkerJob, WorkerReply } from './PictureRenderer.js';

/** Atlases kept, one per cell size; the wall's tiles and full-size pictures need a few. */
const ATLASES_MAX = 8;
const atlases = new Map<number, GlyphAtlas>();

function atlasFor(layout: ConstructorParameters<typeof GlyphAtlas>[0]): GlyphAtlas {
  let a = atlases.get(layout.cellH);
  if (!a) {
    if (atlases.size >= ATLASES_MAX) atlases.delete(atlases.keys().next().value!);
    atlases.set(layout.cellH, (a = new GlyphAtlas(layout)));
  }
  return a;
}

async function run(job: WorkerJob): Promise<WorkerReply> {
  if (job.kind === 'gif') {
    const gif = await renderGif(job.recording, job.options);
    return { id: job.id, ok: true, bytes: gif.bytes, frames: gif.frames };
  }
  if (job.kind === 'svg') return { id: job.id, ok: true, bytes: Buffer.from(renderSvg(job.grid, job.layout), 'utf8') };
  const atlas = atlasFor(job.layout);
  // Indexed colour when the screen has at most 256 colours (most do): a third of the bytes to write and deflate.
  const image = rasterizeIndexed(job.grid, job.layout, atlas) ?? rasterize(job.grid, job.layout, atlas);
  return { id: job.id, ok: true, bytes: encodePng(image) };
}

parentPort!.on('message', (job: WorkerJob) => {
  void run(job).then(
    // Copied, not transferred: a small Buffer is a view of Node's shared pool, which must not be detached.
    (reply) => parentPort!.postMessage(reply),
    (err: Error & { code?: string; extra?: Record<string, unknown> }) =>
      parentPort!.postMessage({ id: job.id, ok: false, error: err.message, code: err.code, extra: err.extra } satisfies WorkerReply),
  );
});
