/**
 * Reading pictures back in tests: a small PNG decoder (8-bit RGB, RGBA or indexed colour, every filter type, as any
 * encoder may write them) and golden images compared with a tolerance, so a test checks pixels rather than that some PNG came back.
 *
 * Golden files live in test/fixtures/pictures/. To draw them anew after a deliberate change of the renderer, run the
 * test with TERMHOST_UPDATE_GOLDEN=1 and look at every changed file before committing it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT, waitText, type TestDaemon } from './helpers.js';

export interface Rgb {
  width: number;
  height: number;
  /** 3 bytes per pixel, row-major, no padding. */
  data: Uint8Array;
}

export function decodePng(png: Buffer): Rgb {
  assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'a PNG signature');
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  let palette: Buffer | undefined;
  const idat: Buffer[] = [];
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + len);
    assert.equal(png.readUInt32BE(at + 8 + len), zlib.crc32(png.subarray(at + 4, at + 8 + len)), `CRC of ${type}`);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      assert.equal(body[8], 8, '8 bits per channel');
      channels = body[9] === 2 ? 3 : body[9] === 6 ? 4 : body[9] === 3 ? 1 : 0;
      assert.ok(channels, `colour type ${body[9]} is RGB, RGBA or indexed`);
    } else if (type === 'PLTE') palette = body;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    at += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = rows.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[x - channels]! : 0;
      const b = up[x]!;
      const c = x >= channels ? up[x - channels]! : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      assert.ok(predictor !== undefined, `filter type ${filter}`);
      out[x] = (src[x]! + predictor) & 255;
    }
  }
  const data = new Uint8Array(width * height * 3);
  if (channels === 1) {
    assert.ok(palette, 'an indexed PNG has a palette');
    for (let i = 0; i < width * height; i++) {
      assert.ok(rows[i]! * 3 < palette.length, `index ${rows[i]} is in the palette`);
      data.set(palette.subarray(rows[i]! * 3, rows[i]! * 3 + 3), i * 3);
    }
  } else for (let i = 0; i < width * height; i++) data.set(rows.subarray(i * channels, i * channels + 3), i * 3);
  return { width, height, data };
}

/** The colour at a pixel, as "#rrggbb". */
export function pixel(img: Rgb, x: number, y: number): string {
  const i = (y * img.width + x) * 3;
  return `#${Buffer.from(img.data.subarray(i, i + 3)).toString('hex')}`;
}

/** The distinct colours inside a rectangle, most frequent first. */
export function coloursIn(img: Rgb, x0: number, y0: number, w: number, h: number): string[] {
  const count = new Map<string, number>();
  for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) count.set(pixel(img, x, y), (count.get(pixel(img, x, y)) ?? 0) + 1);
  return [...count.entries()].sort((a, b) => b[1] - a[1]).map(([c]) => c);
}

/** The pixels of one cell, given the cell size the daemon reported. */
export function cellColours(img: Rgb, cell: { cellWidth: number; cellHeight: number }, col: number, row: number, cells = 1): string[] {
  return coloursIn(img, col * cell.cellWidth, row * cell.cellHeight, cell.cellWidth * cells, cell.cellHeight);
}

/** Channel difference above which two pixels count as different (anti-aliasing may differ a little across builds). */
const PIXEL_TOLERANCE = 48;
/** Share of pixels that may differ from the golden image. */
const DIFFERING_SHARE_MAX = 0.01;

export const GOLDEN_DIR = path.join(ROOT, 'test', 'fixtures', 'pictures');

/** The share of pixels of `got` that differ from `want` by more than the tolerance (same size required). */
export function differingShare(got: Rgb, want: Rgb, name: string): number {
  assert.deepEqual([got.width, got.height], [want.width, want.height], `${name}: the picture's size`);
  let differing = 0;
  for (let i = 0; i < got.width * got.height; i++) {
    for (let c = 0; c < 3; c++) {
      if (Math.abs(got.data[i * 3 + c]! - want.data[i * 3 + c]!) > PIXEL_TOLERANCE) {
        differing++;
        break;
      }
    }
  }
  return differing / (got.width * got.height);
}

/** Assert two pictures are the same within the tolerance. */
export function assertSimilar(got: Rgb, want: Rgb, name: string): void {
  const share = differingShare(got, want, name);
  assert.ok(share <= DIFFERING_SHARE_MAX, `${name}: ${(share * 100).toFixed(2)}% of pixels differ (at most ${DIFFERING_SHARE_MAX * 100}%)`);
}

/** Compare a PNG with the golden image `name`.png (written instead, with TERMHOST_UPDATE_GOLDEN=1). */
export function assertGolden(name: string, png: Buffer): void {
  const file = path.join(GOLDEN_DIR, `${name}.png`);
  if (process.env.TERMHOST_UPDATE_GOLDEN === '1') {
    fs.mkdirSync(GOLDEN_DIR, { recursive: true });
    fs.writeFileSync(file, png);
    return;
  }
  assert.ok(fs.existsSync(file), `no golden image ${file}; draw it with TERMHOST_UPDATE_GOLDEN=1 and look at it`);
  const share = differingShare(decodePng(png), decodePng(fs.readFileSync(file)), name);
  if (share > DIFFERING_SHARE_MAX) {
    const out = path.join(GOLDEN_DIR, `${name}.actual.png`);
    fs.writeFileSync(out, png);
    assert.fail(`${name}: ${(share * 100).toFixed(2)}% of pixels differ from the golden image (at most ${DIFFERING_SHARE_MAX * 100}%); this drawing is in ${out}`);
  }
}

/** A session that prints `format` with printf(1) (escapes like \\033 are printf's) and then idles; waits for `last`. */
export async function printingSession(d: TestDaemon, format: string, size: { cols: number; rows: number }, last: string) {
  const s = await d.client.createSession({ command: ['sh', '-c', 'printf "$1"; exec sleep 60', 'sh', format], ...size });
  await waitText(d, s.id, last);
  return s;
}

/** The SGR screen: red background (41), a 256-colour block (196), a true-colour background, bold green text. */
export const SGR_SCREEN = '\\033[41m  \\033[0m\\033[38;5;196m\u2588\\033[0m\\033[48;2;1;2;3m   \\033[0m\\033[1;32mBold\\033[0m';

export interface GifFrame extends Rgb {
  /** How long the frame shows, in ms (GIF keeps hundredths of a second). */
  delayMs: number;
}

/** The frames of a GIF (full-size frames with a palette each, as termhost writes them), decoded to RGB. */
export function decodeGif(gif: Buffer): GifFrame[] {
  assert.match(gif.toString('latin1', 0, 6), /^GIF8[79]a$/, 'a GIF signature');
  const width = gif.readUInt16LE(6);
  const height = gif.readUInt16LE(8);
  let at = 13;
  const tableOf = (flags: number) => {
    const size = 3 * (1 << ((flags & 7) + 1));
    const t = gif.subarray(at, at + size);
    at += size;
    return t;
  };
  const global = gif[10]! & 0x80 ? tableOf(gif[10]!) : undefined;
  const frames: GifFrame[] = [];
  let delayMs = 0;
  const subBlocks = () => {
    const parts: Buffer[] = [];
    for (let n = gif[at++]!; n > 0; n = gif[at++]!) {
      parts.push(gif.subarray(at, at + n));
      at += n;
    }
    return Buffer.concat(parts);
  };
  for (;;) {
    const kind = gif[at++];
    if (kind === 0x3b || kind === undefined) break;
    if (kind === 0x21) {
      const label = gif[at++];
      const body = subBlocks();
      if (label === 0xf9) delayMs = body.readUInt16LE(1) * 10;
      continue;
    }
    assert.equal(kind, 0x2c, 'an image descriptor');
    const [x, y, w, h] = [gif.readUInt16LE(at), gif.readUInt16LE(at + 2), gif.readUInt16LE(at + 4), gif.readUInt16LE(at + 6)];
    assert.deepEqual([x, y, w, h], [0, 0, width, height], 'termhost writes full frames');
    const flags = gif[at + 8]!;
    at += 9;
    const table = flags & 0x80 ? tableOf(flags) : global;
    assert.ok(table, 'a colour table');
    const minCode = gif[at++]!;
    const indices = lzwDecode(subBlocks(), minCode, w * h);
    const data = new Uint8Array(w * h * 3);
    for (let i = 0; i < w * h; i++) data.set(table.subarray(indices[i]! * 3, indices[i]! * 3 + 3), i * 3);
    frames.push({ width, height, data, delayMs });
  }
  return frames;
}

function lzwDecode(bytes: Buffer, minCode: number, pixels: number): Uint8Array {
  const out = new Uint8Array(pixels);
  const clear = 1 << minCode;
  let size = minCode + 1;
  let dict: number[][] = [];
  const reset = () => {
    dict = Array.from({ length: clear + 2 }, (_, i) => [i]);
    size = minCode + 1;
  };
  reset();
  let prev: number[] | undefined;
  let n = 0;
  let bit = 0;
  while (bit + size <= bytes.length * 8 && n < pixels) {
    let code = 0;
    for (let b = 0; b < size; b++, bit++) code |= ((bytes[bit >> 3]! >> (bit & 7)) & 1) << b;
    if (code === clear) {
      reset();
      prev = undefined;
      continue;
    }
    if (code === clear + 1) break;
    const entry = code < dict.length ? dict[code]! : [...prev!, prev![0]!];
    if (prev) dict.push([...prev, entry[0]!]);
    for (const v of entry) out[n++] = v;
    prev = entry;
    if (dict.length === 1 << size && size < 12) size++;
  }
  return out;
}
