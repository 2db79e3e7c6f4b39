/**
 * The one redaction chokepoint for stored output. Every transcript chunk passes through a StreamRedactor before it
 * reaches the database.
 *
 * - Well-known credential shapes come from secretlint's maintained recommended rule set (GitHub, Slack, npm, cloud
 *   keys, private keys, basic-auth URLs and more), run on the text.
 * - Shapes only a terminal shows are matched here: `NAME_TOKEN=…`/`PASSWORD=…` assignments, `scheme://user:pw@host`,
 *   `Authorization: Basic|Bearer …`, `--password …`/`--token …` flags, JWTs, PEM private keys, AWS key ids.
 * - Matching runs on a projection of the text as a terminal shows it (store/project.ts): escape sequences and controls
 *   removed, so a secret broken up by colour codes, a NUL or an 8-bit CSI is still one match; window titles, link
 *   targets and other string payloads scanned as texts of their own. A match is then replaced in the original text.
 * - Each match becomes `[redacted secret]`, keeping an identifying prefix (`ghp_[redacted secret]`,
 *   `DEPLOY_TOKEN=[redacted secret]`) so the record still reads as a transcript.
 * - Records (command line, labels, cwd) go through the same scan before they are written (`redactParts`).
 * - Secrets split across chunks are caught by scanning with a carried-over window: the tail of what was already
 *   stored is kept as context, and the trailing partial word of new text is held back until the next chunk (or the
 *   end of the stream), so a slowly typed or split token is never stored in pieces.
 */
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { origin, project, type Projection } from './project.js';

// secretlint records a performance mark per rule per call: in a long-lived writer that grows without bound (about
// 50 MB per 16 MiB of output), and termhost never reads the profile. 12.0.0, the last release that supports Node 20,
// has no switch for it (13 added setEnabled), so its one recording method is made a no-op: no mark, nothing kept.
secretLintProfiler.mark = () => {};

export const REDACTED = '[redacted secret]';
/** Original text kept as context for matches that straddle two chunks. */
const CONTEXT_CHARS = 512;
/** A partial word is held back at most this long; a longer run is treated as complete. */
const MAX_HELD_WORD = 512;
/** From a PEM BEGIN line, text is held until the END line or this many characters, then redacted whole. */
const MAX_PEM_CHARS = 16 * 1024;
/**
 * However it is made up (a word can hide any number of escape sequences between its letters), no more than this much
 * original text is held back.
 */
const MAX_HELD_CHARS = 16 * 1024;

interface Finding {
  /** Range of the secret in the scanned (escape-free) text. */
  start: number;
  end: number;
}

const URL_CREDENTIALS = /:\/\/[^\s:/@]+:(?<secret>[^\s@/]+)@/dgi;
/**
 * A URL scheme (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`) ending right before a `://`. Looser than the
 * `\b` the pattern once began with, never stricter: what it lets through more is only ever redacted more.
 */
const SCHEME_BEFORE = /[a-z][a-z0-9+.-]*$/i;
const SCHEME_MAX_CHARS = 64;

/** Terminal shapes: group `secret` is what gets replaced; everything before it in the match is kept. */
const TERMINAL_PATTERNS: RegExp[] = [
  // NAME_TOKEN=…, DB_PASSWORD: …, PASSWORD=…, export GITHUB_SECRET="…"
  // (Anchored on the keyword rather than the start of the name: scanning every word start is quadratic-ish.)
  /(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Za-z0-9_]*[ \t]*[=:][ \t]*(?<secret>"[^"\r\n]+"|'[^'\r\n]+'|[^\s'"]+)/dgi,
  // scheme://user:password@host (the scheme is checked by findSecrets: a leading `\b[a-z][a-z0-9+.-]*` was tried at
  // every word and backtracked through it, 9x the cost of searching for `://`)
  URL_CREDENTIALS,
  // Authorization: Basic … / Bearer … / Token …
  /\bAuthorization[ \t]*:[ \t]*(?:Basic|Bearer|Token)[ \t]+(?<secret>[A-Za-z0-9._~+/=-]+)/dgi,
  // --password …, --token=…, --api-key … (after whitespace or at the start; a lookbehind, so the search is for `-`)
  /(?<!\S)--?(?:password|passwd|pass|token|secret|api-key|apikey|access-token|auth-token)(?:=|[ \t]+)(?<secret>"[^"\r\n]+"|'[^'\r\n]+'|[^\s'"]+)/dgi,
  // JSON Web Tokens
  /\b(?<secret>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,})/dg,
  // PEM private keys: the header stays, the body goes
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?<secret>[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----)/dg,
  // AWS access key ids: the four-letter kind stays
  /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)(?<secret>[0-9A-Z]{16})\b/dg,
];

/** A secretlint match covers the whole credential; keep its kind marker (`ghp_`, `xoxb-`, a PEM header line). */
function keepPrefix(secret: string): number {
  const m = /^-----BEGIN [A-Z0-9 ]*-----/.exec(secret) ?? /^[A-Za-z]{2,10}[_-]/.exec(secret);
  return m ? m[0].length : 0;
}

/**
 * Findings in `plain`. A finding that starts at a marker is dropped, so redacting redacted text changes nothing
 * (`TOKEN=[redacted secret]` would otherwise lose `[redacted` again): records are redacted again when an old
 * database is migrated.
 */
async function findSecrets(plain: string): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const re of TERMINAL_PATTERNS) {
    re.lastIndex = 0;
    for (const m of plain.matchAll(re)) {
      const at = m.indices?.groups?.secret;
      if (!at || at[1] <= at[0] || plain.startsWith(REDACTED, at[0])) continue;
      if (re === URL_CREDENTIALS && !SCHEME_BEFORE.test(plain.slice(Math.max(0, m.index - SCHEME_MAX_CHARS), m.index))) continue;
      out.push({ start: at[0], end: at[1] });
    }
  }
  const linted = await lintSource({
    source: { content: plain, filePath: '/transcript.txt', contentType: 'text', ext: '.txt' },
    options: { config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] } },
  });
  for (const msg of linted.messages) {
    const [start, end] = msg.range;
    const whole = plain.slice(start, end);
    // A basic-auth URL: only its password is secret (the terminal pattern above already found it).
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(whole)) continue;
    if (plain.startsWith(REDACTED, start + keepPrefix(whole))) continue;
    out.push({ start: start + keepPrefix(whole), end });
  }
  return out;
}

/** Findings (ranges in the projection) as ranges of the original text. */
function toOriginal(p: Projection, findings: Finding[]): Finding[] {
  const out: Finding[] = [];
  const add = (start: number, end: number) => end > start && out.push({ start: origin(p, start), end: origin(p, end - 1) + 1 });
  for (const f of findings) {
    // The visible text and the string payloads are separate texts: a match that runs from one into the other (only
    // a multi-line pattern can) is two ranges, never one spanning whatever lies between them in the original.
    if (f.start < p.visibleEnd && f.end > p.visibleEnd) {
      add(f.start, p.visibleEnd);
      add(p.visibleEnd + 1, f.end);
    } else add(f.start, f.end);
  }
  return out;
}

/**
 * One replaced stretch of a released text: original characters [from, to) became the marker at output index `at`.
 * The writer uses these to carry output times from the original text to the stored one.
 */
export interface Edit {
  from: number;
  to: number;
  at: number;
}

/** `text.slice(from, to)` with the ranges (original indices) replaced by the marker; overlapping ranges share one. */
function apply(text: string, ranges: Finding[], from: number, to: number): { text: string; edits: Edit[] } {
  const sorted = ranges
    .filter((r) => r.end > from && r.start < to)
    .map((r) => ({ start: Math.max(r.start, from), end: Math.min(r.end, to) }))
    .sort((a, b) => a.start - b.start);
  let out = '';
  const edits: Edit[] = [];
  let pos = from;
  for (const r of sorted) {
    if (r.end <= pos) continue;
    const open = edits[edits.length - 1];
    if (open && r.start <= pos && open.to === pos - from) {
      // Overlaps the marker just written: that marker now stands for this range too.
      open.to = r.end - from;
    } else {
      out += text.slice(pos, Math.max(pos, r.start));
      edits.push({ from: Math.max(pos, r.start) - from, to: r.end - from, at: out.length });
      out += REDACTED;
    }
    pos = r.end;
  }
  return { text: out + text.slice(pos, to), edits };
}

/** Where original index `i` of a released text is in its redacted form: inside a replaced stretch, at its marker. */
export function editedIndex(edits: readonly Edit[], i: number): number {
  let delta = 0;
  for (const e of edits) {
    if (i < e.from) break;
    if (i < e.to) return e.at;
    delta = e.at + REDACTED.length - e.to;
  }
  return i + delta;
}

async function scan(p: Projection): Promise<Finding[]> {
  return toOriginal(p, await findSecrets(p.scan));
}

/** Redact a complete text in one go. */
export async function redactText(text: string): Promise<string> {
  const p = project(text);
  return apply(text, await scan(p), 0, text.length).text;
}

/** A short value to redact, judged together with its neighbours (see redactParts). */
export interface Part {
  text: string;
  /** Put before this part in the joined text: a space between argv elements, a line break between unrelated values. */
  sep?: string;
  /** Leading characters that are context only: a label's `key=`, so `password=hunter2` reads as an assignment. */
  keep?: number;
}

/**
 * Redact several short values at once, each keeping its own bounds: the values are joined (with each part's `sep`)
 * into one text, scanned once, and each comes back with the findings inside it replaced. Joining matters: argv
 * `["mysql", "--password", "hunter2"]` is only recognisable as the command line it forms. A record's command line,
 * labels and cwd go through here before they reach the database.
 */
export async function redactParts(parts: readonly Part[]): Promise<string[]> {
  let joined = '';
  const bounds: Array<[number, number]> = [];
  for (const part of parts) {
    if (bounds.length > 0) joined += part.sep ?? '\n';
    bounds.push([joined.length + Math.min(part.keep ?? 0, part.text.length), joined.length + part.text.length]);
    joined += part.text;
  }
  const ranges = await scan(project(joined));
  return bounds.map(([from, to]) => apply(joined, ranges, from, to).text);
}

/** What a push releases for storage. */
export interface Released {
  /** The text to store: the released original text, redacted. */
  text: string;
  /** UTF-8 length of the released original text: how far the stream's position moves. */
  bytes: number;
  /** Characters (UTF-16 units) of original text released. */
  chars: number;
  /** Where the released text was changed, in order. */
  edits: Edit[];
}

/**
 * Redacts one stream (one session's output). `push` takes new text and returns what may be stored now, with the
 * original byte length it stands for; `end` releases everything held back.
 */
export class StreamRedactor {
  /** Original text already released, kept only as context (never re-emitted). */
  private context = '';
  /** Original text not yet released. */
  private held = '';

  async push(text: string, final = false): Promise<Released> {
    this.held += text;
    const window = this.context + this.held;
    const p = project(window);
    let cut = final ? this.held.length : this.safeCut(p, window.length);
    if (cut > 0 && cut < this.held.length && /[\uD800-\uDBFF]/.test(this.held[cut - 1]!)) cut--; // keep surrogate pairs whole
    if (cut <= 0) return { text: '', bytes: 0, chars: 0, edits: [] };
    const from = this.context.length;
    const releasedEnd = from + cut;
    const found = (await scan(p)).filter((f) => f.start < releasedEnd);
    const { text: redacted, edits } = apply(window, found, from, releasedEnd);
    const released = this.held.slice(0, cut);
    this.held = this.held.slice(cut);
    this.context = (this.context + released).slice(-CONTEXT_CHARS);
    return { text: redacted, bytes: Buffer.byteLength(released, 'utf8'), chars: cut, edits };
  }

  end(): Promise<Released> {
    return this.push('', true);
  }

  get heldChars(): number {
    return this.held.length;
  }

  /**
   * How much of `held` can be released: all but what may still become part of a secret. That is judged on the
   * projection, as a person would read it: the trailing partial word of the visible text (a token may continue after
   * a colour change, a title update or a NUL), the trailing partial word of a string sequence still open, and an
   * unterminated private key. The window is `context + held`; the answer counts characters of `held`.
   */
  private safeCut(p: Projection, windowLength: number): number {
    const ctx = windowLength - this.held.length;
    const vis = p.scan;
    // An unterminated private key is held from its BEGIN line, up to MAX_PEM_CHARS. (Searched forwards: on a 32 K
    // row of log lines V8's lastIndexOf took 50 µs, indexOf 28.)
    let pem = -1;
    for (let i = vis.indexOf(PEM_BEGIN); i >= 0 && i + PEM_BEGIN.length <= p.visibleEnd; i = vis.indexOf(PEM_BEGIN, i + 1)) pem = i;
    if (pem >= 0 && origin(p, pem) >= ctx && !PEM_END.test(vis.slice(pem, p.visibleEnd)) && windowLength - origin(p, pem) < MAX_PEM_CHARS) {
      return origin(p, pem) - ctx;
    }
    let cut = this.wordCut(p, p.visibleEnd, ctx);
    if (p.openPayload >= 0) cut = Math.min(cut, this.wordCut(p, p.scan.length, ctx, p.openPayload));
    // Never split a finished key's END line: it would be redacted twice, once on each side.
    let endOfKey = 0;
    if (vis.includes('-----END ')) {
      for (const m of vis.slice(0, p.visibleEnd).matchAll(PEM_END_ALL)) endOfKey = Math.max(endOfKey, origin(p, m.index + m[0].length - 1) + 1 - ctx);
    }
    if (this.held.length - cut > MAX_HELD_CHARS) cut = this.held.length;
    return Math.max(cut, endOfKey);
  }

  /**
   * Where the trailing partial word of `scan[start, end)` begins, as a cut in `held`: after the last whitespace, or
   * all of `held` when the text ends in whitespace (or shows nothing of `held`). A word longer than MAX_HELD_WORD is
   * treated as complete. A loop, not `/\S*$/`: V8 tries that pattern at every position and backtracks through every
   * word, which once made it a quarter of the writer's time at full output speed.
   */
  private wordCut(p: Projection, end: number, ctx: number, start = 0): number {
    let n = 0;
    for (let i = end - 1; i >= start; i--) {
      const at = origin(p, i);
      if (at < ctx) return n === 0 ? this.held.length : 0; // held shows nothing, or only the end of a word begun before
      if (WHITESPACE.test(p.scan[i]!)) return n === 0 ? this.held.length : at + 1 - ctx;
      if (++n > MAX_HELD_WORD) return this.held.length;
    }
    return n === 0 ? this.held.length : Math.max(0, origin(p, start) - ctx);
  }
}
const WHITESPACE = /\s/;
const PEM_BEGIN = '-----BEGIN ';
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;
const PEM_END_ALL = /-----END [A-Z0-9 ]*PRIVATE KEY-----/g;

/** The fields of a session record that can carry a credential. The environment is never stored, so it is not here. */
export interface RecordFields {
  command: string[];
  labels: Record<string, string>;
  cwd: string;
}

/**
 * A record's fields as they may be stored: the command line judged as the shell line it forms (its elements joined
 * with spaces), each label as `key=value` (so `{"db_password": "hunter2"}` reads as the assignment it is; only the
 * value is ever changed), and the working directory on its own line.
 */
export async function redactRecordFields(r: RecordFields): Promise<RecordFields> {
  const labels = Object.entries(r.labels);
  const parts: Part[] = [
    ...r.command.map((text, i): Part => ({ text, sep: i === 0 ? '' : ' ' })),
    ...labels.map(([k, v]): Part => ({ text: `${k}=${v}`, keep: k.length + 1 })),
    { text: r.cwd },
  ];
  const out = await redactParts(parts);
  const n = r.command.length;
  return {
    command: out.slice(0, n),
    labels: Object.fromEntries(labels.map(([k], i) => [k, out[n + i]!])),
    cwd: out[n + labels.length]!,
  };
}
