/**
 * Pure: a command's output text (UTF-8) cut to a budget, as head and tail with one line saying what was left out,
 * and pages of it by byte offset. Cuts fall on line ends where a line end is near, and never inside a character.
 */

export interface BudgetedOutput {
  text: string;
  truncated: boolean;
  /** Bytes of the whole output. */
  total_bytes: number;
  /** Bytes left out of `text`. */
  omitted_bytes: number;
}

/** How far back (or forward) a cut looks for a line end before it settles for a character boundary. */
const LINE_SEARCH_BYTES = 1024;

/** The first character boundary at or after `i`. */
function boundaryAfter(buf: Buffer, i: number): number {
  while (i < buf.length && (buf[i]! & 0xc0) === 0x80) i++;
  return i;
}

/** The last character boundary at or before `i`. */
function boundaryBefore(buf: Buffer, i: number): number {
  while (i > 0 && i < buf.length && (buf[i]! & 0xc0) === 0x80) i--;
  return i;
}

/** End of the head: just after the last newline before `limit` (if one is near), else a character boundary. */
function headEnd(buf: Buffer, limit: number): number {
  // lastIndexOf counts a negative offset from the end: a budget of 0 or 1 byte would search the whole output and keep it.
  if (limit <= 0) return 0;
  const nl = buf.lastIndexOf(0x0a, limit - 1);
  if (nl >= 0 && limit - nl <= LINE_SEARCH_BYTES) return nl + 1;
  return boundaryBefore(buf, limit);
}

/** Start of the tail: just after the first newline at or after `from` (if one is near), else a character boundary. */
function tailStart(buf: Buffer, from: number): number {
  const nl = buf.indexOf(0x0a, from);
  if (nl >= 0 && nl - from < LINE_SEARCH_BYTES) return nl + 1;
  return boundaryAfter(buf, from);
}

function lineCount(buf: Buffer, start: number, end: number): number {
  let n = 0;
  for (let i = buf.indexOf(0x0a, start); i >= 0 && i < end; i = buf.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** `output` within `maxBytes`: all of it, or its head and tail around one line that says how much is missing. */
export function budgetOutput(output: Buffer, maxBytes: number, pageHint = ''): BudgetedOutput {
  if (output.length <= maxBytes) return { text: output.toString('utf8'), truncated: false, total_bytes: output.length, omitted_bytes: 0 };
  const half = Math.floor(maxBytes / 2);
  const h = headEnd(output, half);
  let t = tailStart(output, output.length - (maxBytes - half));
  if (t < h) t = h;
  const omitted = t - h;
  const note = `[... ${omitted} bytes (${lineCount(output, h, t)} lines) left out${pageHint} ...]\n`;
  const head = output.toString('utf8', 0, h);
  return { text: `${head}${head.endsWith('\n') || head === '' ? '' : '\n'}${note}${output.toString('utf8', t)}`, truncated: true, total_bytes: output.length, omitted_bytes: omitted };
}

export interface OutputPage {
  offset: number;
  next_offset: number;
  total_bytes: number;
  /** The page reaches the end of what is held now. */
  eof: boolean;
  output: string;
}

/** Bytes [offset, offset + limit) of `output`, moved to character boundaries; `next_offset` continues. */
export function pageOutput(output: Buffer, offset: number, limit: number): OutputPage {
  const start = boundaryAfter(output, Math.min(offset, output.length));
  let end = Math.min(output.length, start + limit);
  if (end < output.length) end = boundaryBefore(output, end);
  // A limit smaller than one character still moves forward by that character.
  if (end === start && start < output.length) end = boundaryAfter(output, start + 1);
  return { offset: start, next_offset: end, total_bytes: output.length, eof: end >= output.length, output: output.toString('utf8', start, end) };
}
