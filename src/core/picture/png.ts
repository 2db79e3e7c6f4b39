/**
 * PNG encoding with node:zlib, 8 bits per channel or index, no interlace. The rasteriser lays the pixels out as PNG
 * scanlines (filter byte 0, "none"), so encoding needs no copy of them: an indexed-colour image (a palette and one
 * byte per pixel, what most screens fit in) or an RGB one (raster.ts says which).
 *
 * Filters other than "none" were measured and left out: on terminal pictures Sub and Up made the output larger.
 */
import zlib from 'node:zlib';
import type { IndexedImage, RgbImage } from './raster.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Deflate level: 6 (zlib's default) costs twice the time of 3 for a few per cent less on terminal pictures. */
const DEFLATE_LEVEL = 3;

function chunk(type: string, body: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  out.set(body, 8);
  out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

function header(img: RgbImage, colourType: 2 | 3): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(img.width, 0);
  ihdr.writeUInt32BE(img.height, 4);
  ihdr[8] = 8; // bits per channel, or per index
  ihdr[9] = colourType; // 2: RGB, 3: indexed
  return chunk('IHDR', ihdr);
}

export function encodePng(img: RgbImage | IndexedImage): Buffer {
  const idat = chunk('IDAT', zlib.deflateSync(img.data, { level: DEFLATE_LEVEL }));
  const end = chunk('IEND', new Uint8Array(0));
  if ('palette' in img) return Buffer.concat([SIGNATURE, header(img, 3), chunk('PLTE', img.palette), idat, end]);
  return Buffer.concat([SIGNATURE, header(img, 2), idat, end]);
}
