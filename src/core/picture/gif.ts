/**
 * A recording as an animated GIF: the timed event stream of a transcript (the one the asciicast export writes:
 * output and resizes, pauses already capped by the idle limit) is replayed through a headless emulator, the screen
 * is sampled at most FRAMES_PER_S times a second of playback, screens identical to the one before are merged into
 * it (their time added to its delay), and each frame is drawn by the PNG rasteriser and encoded with gifenc
 * (median-cut quantisation to a palette of its own per frame: anti-aliased glyphs blend many colours).
 *
 * Runs in the picture worker; the event loop never sees it.
 */
import gifenc from 'gifenc';
import { Emulator } from '../emulator/Emulator.js';
import { TermError } from '../errors.js';
import { cellGrid, type CellGrid } from '../snapshot/cells.js';
import { GlyphAtlas } from './GlyphAtlas.js';
import { layoutFor, type Layout, type PictureOptions } from './layout.js';
import { paletteOf } from './colors.js';
import { rasterize } from './raster.js';

const { GIFEncoder, quantize, applyPalette } = gifenc;

/** One event of a recording: how long after the one before it came (ms, after the idle limit), its kind and data. */
export interface RecordingEvent {
  intervalMs: number;
  /** "o" output, "r" a resize to "COLSxROWS"; others are ignored. */
  code: string;
  data: string;
}

export interface Recording {
  cols: number;
  rows: number;
  events: RecordingEvent[];
}

export interface GifOptions extends Pick<PictureOptions, 'scale' | 'theme' | 'cursor'> {
  /** Playback speed: 2 plays twice as fast. */
  speed?: number;
}

/** Frames per second of playback at most: output closer together than this shows as one frame. */
export const FRAMES_PER_S = 30;
/** The last frame stays this long before the animation loops. */
export const LAST_FRAME_HOLD_MS = 2000;
/** Frames one GIF may have (after merging); a longer recording is refused rather than drawn for minutes. */
export const GIF_FRAMES_MAX = 5000;
/** GIF delays are in hundredths of a second; shorter ones are drawn as 0.1 s by browsers. */
const MIN_DELAY_MS = 20;

export interface Frame {
  grid: CellGrid;
  /** Playback time the frame appears at, ms. */
  atMs: number;
  durationMs: number;
}

function sameScreen(a: CellGrid, b: CellGrid): boolean {
  if (a.cols !== b.cols || a.rows !== b.rows) return false;
  if (a.cursor.x !== b.cursor.x || a.cursor.y !== b.cursor.y || a.cursor.visible !== b.cursor.visible) return false;
  const eq = (x: ArrayLike<number>, y: ArrayLike<number>) => {
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  };
  return eq(a.chars, b.chars) && eq(a.fg, b.fg) && eq(a.bg, b.bg) && eq(a.attrs, b.attrs) && a.strings.join('\u0000') === b.strings.join('\u0000');
}

/** The frames of a recording: the screen after each playback tick with output, identical screens merged. */
export async function recordingFrames(rec: Recording, speed = 1): Promise<Frame[]> {
  const emu = new Emulator({ cols: rec.cols, rows: rec.rows, scrollback: 0, onReply: () => {} });
  const tickMs = 1000 / FRAMES_PER_S;
  const frames: Frame[] = [];
  const push = (grid: CellGrid, atMs: number) => {
    const last = frames[frames.length - 1];
    if (last && sameScreen(last.grid, grid)) return;
    if (last) last.durationMs = atMs - last.atMs;
    if (frames.length >= GIF_FRAMES_MAX) {
      throw new TermError('invalid_request', `the recording has more than ${GIF_FRAMES_MAX} distinct frames; cap the pauses with idle_limit, play it faster with speed, or export it as asciicast`, { field: 'speed' });
    }
    frames.push({ grid, atMs, durationMs: 0 });
  };
  try {
    let clock = 0;
    let tick = -1;
    for (let e = 0; e < rec.events.length; e++) {
      const ev = rec.events[e]!;
      clock += ev.intervalMs / speed;
      if (ev.code === 'o') emu.feed(Buffer.from(ev.data, 'utf8'));
      else if (ev.code === 'r') {
        const [c, r] = ev.data.split('x').map(Number);
        if (c! > 0 && r! > 0) emu.resize(c!, r!);
      } else continue;
      const next = rec.events[e + 1];
      const nextAt = next ? clock + next.intervalMs / speed : Infinity;
      // Sample once the playback leaves this tick: everything within one tick shows as one frame.
      if (Math.floor(nextAt / tickMs) === Math.floor(clock / tickMs)) continue;
      await emu.whenParsed();
      const at = Math.max(tick + 1, Math.floor(clock / tickMs)) * tickMs;
      tick = Math.floor(at / tickMs);
      // At its own time, also the first frame: its delay is the time to the next one, not since the recording began.
      push(cellGrid(emu), at);
    }
    await emu.whenParsed();
    if (frames.length === 0) push(cellGrid(emu), 0);
    else push(cellGrid(emu), frames[frames.length - 1]!.atMs + tickMs);
  } finally {
    emu.dispose();
  }
  frames[frames.length - 1]!.durationMs = LAST_FRAME_HOLD_MS;
  return frames;
}

/** Copy a frame's RGB scanlines into an RGBA canvas of the GIF's size, the rest in the theme's background. */
function toRgba(img: { width: number; height: number; stride: number; data: Uint8Array }, w: number, h: number, bg: number): Uint8Array {
  const out = new Uint8Array(w * h * 4);
  const fill = new Uint32Array(out.buffer);
  // Little-endian RGBA words, as every platform termhost runs on stores them.
  fill.fill(0xff000000 | ((bg & 255) << 16) | (bg & 0xff00) | ((bg >> 16) & 255));
  for (let y = 0; y < img.height; y++) {
    const src = y * img.stride + 1;
    const dst = y * w * 4;
    for (let x = 0; x < img.width; x++) {
      out[dst + x * 4] = img.data[src + x * 3]!;
      out[dst + x * 4 + 1] = img.data[src + x * 3 + 1]!;
      out[dst + x * 4 + 2] = img.data[src + x * 3 + 2]!;
    }
  }
  return out;
}

export async function renderGif(rec: Recording, opts: GifOptions): Promise<{ bytes: Uint8Array; frames: number; width: number; height: number }> {
  const frames = await recordingFrames(rec, opts.speed ?? 1);
  const layouts: Layout[] = [];
  for (const f of frames) {
    const l = layoutFor(f.grid.cols, f.grid.rows, { scale: opts.scale, theme: opts.theme, cursor: opts.cursor });
    if (!l.ok) throw l.error;
    layouts.push(l.value);
  }
  const width = Math.max(...layouts.map((l) => l.width));
  const height = Math.max(...layouts.map((l) => l.height));
  const atlas = new GlyphAtlas(layouts[0]!);
  const bg = paletteOf(layouts[0]!.theme).bg;
  const gif = GIFEncoder();
  for (const [i, f] of frames.entries()) {
    const rgba = toRgba(rasterize(f.grid, layouts[i]!, atlas), width, height, bg);
    const palette = quantize(rgba, 256, { format: 'rgb444' });
    gif.writeFrame(applyPalette(rgba, palette, 'rgb444'), width, height, { palette, delay: Math.max(MIN_DELAY_MS, Math.round(f.durationMs)) });
  }
  gif.finish();
  return { bytes: gif.bytes(), frames: frames.length, width, height };
}
