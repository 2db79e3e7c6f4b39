/**
 * The one redaction chokepoint for stored output. Every transcript chunk passes through a StreamRedactor before it
 * reaches the database.
 *
 * - Well-known credential shapes come from secretlint's maintained recommended rule set (GitHub, Slack, npm, cloud
 *   keys, private keys, basic-auth URLs and more), run on the text.
 * - Shapes only a terminal shows are matched here: `NAME_TOKEN=…`/`PASSWORD=…` assignments, `scheme://user:pw@host`,
 *   `Authorization: Basic|Bearer …`, `--password …`/`--token …` flags, JWTs, PEM private keys, AWS key ids.
 * - Matching runs on a projection of the text with terminal escape sequences removed, so a secret broken up by colour
 *   codes is still one match; the match is then replaced in the original text.
 * - Each match becomes `[redacted secret]`, keeping an identifying prefix (`ghp_[redacted secret]`,
 *   `DEPLOY_TOKEN=[redacted secret]`) so the record still reads as a transcript.
 * - Secrets split across chunks are caught by scanning with a carried-over window: the tail of what was already
 *   stored is kept as context, and the trailing partial word of new text is held back until the next chunk (or the
 *   end of the stream), so a slowly typed or split token is never stored in pieces.
 */
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';

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

/**
 * The length of the trailing run of non-whitespace in `text`, counted up to `limit + 1`. A loop, not `/\S*$/`: V8
 * tries that pattern at every position and backtracks through every word, which made it a quarter of the writer's
 * time at full output speed.
 */
function trailingWordLength(text: string, limit: number): number {
  let n = 0;
  while (n <= limit && n < text.length && !WHITESPACE.test(text[text.length - 1 - n]!)) n++;
  return n;
}
const WHITESPACE = /\s/;

/** The escape-free projection of `text`, and for each projected index the index in `text`. */
function project(text: string): { plain: string; map: number[] | null } {
  // Most output has no escapes at all: the projection is the text itself (map null: the identity).
  if (!text.includes('\x1b')) return { plain: text, map: null };
  // CSI, OSC (BEL or ST terminated), charset selection, and two-byte escapes.
  const ESC = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[()*+][0-9A-Za-z]|[@-Z\\-_])/g;
  let plain = '';
  const map: number[] = [];
  let last = 0;
  for (const m of text.matchAll(ESC)) {
    for (let i = last; i < m.index; i++) map.push(i);
    plain += text.slice(last, m.index);
    last = m.index + m[0].length;
  }
  for (let i = last; i < text.length; i++) map.push(i);
  plain += text.slice(last);
  map.push(text.length);
  return { plain, map };
}

/** Projected index -> original index; an identity projection stores no array. */
function mapIndex(map: number[] | null, i: number): number {
  return map ? map[i]! : i;
}

/** A secretlint match covers the whole credential; keep its kind marker (`ghp_`, `xoxb-`, a PEM header line). */
function keepPrefix(secret: string): number {
  const m = /^-----BEGIN [A-Z0-9 ]*-----/.exec(secret) ?? /^[A-Za-z]{2,10}[_-]/.exec(secret);
  return m ? m[0].length : 0;
}

async function findSecrets(plain: string): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const re of TERMINAL_PATTERNS) {
    re.lastIndex = 0;
    for (const m of plain.matchAll(re)) {
      const at = m.indices?.groups?.secret;
      if (!at || at[1] <= at[0]) continue;
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
    out.push({ start: start + keepPrefix(whole), end });
  }
  return out;
}

/** Replace the findings (ranges in the projection) in the original text. */
function apply(text: string, map: number[] | null, findings: Finding[], from: number): string {
  const at = (i: number) => mapIndex(map, i);
  const ranges = findings
    .map((f) => ({ start: at(f.start), end: f.end > 0 ? at(f.end - 1) + 1 : 0 }))
    .filter((r) => r.end > from)
    .map((r) => ({ start: Math.max(r.start, from), end: r.end }))
    .sort((a, b) => a.start - b.start);
  let out = '';
  let pos = from;
  let open = false; // the last marker written ends at `pos`: an overlapping finding extends it
  for (const r of ranges) {
    if (r.end <= pos) continue;
    if (r.start > pos || !open) {
      out += text.slice(pos, Math.max(pos, r.start)) + REDACTED;
      open = true;
    }
    pos = r.end;
  }
  return out + text.slice(pos);
}

/** Redact a complete text in one go. */
export async function redactText(text: string): Promise<string> {
  const { plain, map } = project(text);
  return apply(text, map, await findSecrets(plain), 0);
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

  async push(text: string, final = false): Promise<{ text: string; bytes: number }> {
    this.held += text;
    let cut = final ? this.held.length : this.safeCut(this.held);
    if (cut > 0 && cut < this.held.length && /[\uD800-\uDBFF]/.test(this.held[cut - 1]!)) cut--; // keep surrogate pairs whole
    if (cut <= 0) return { text: '', bytes: 0 };
    const window = this.context + this.held;
    const { plain, map } = project(window);
    const findings = await findSecrets(plain);
    const releasedEnd = this.context.length + cut;
    const redacted = apply(window.slice(0, releasedEnd), map, findings.filter((f) => mapIndex(map, f.start) < releasedEnd), this.context.length);
    const released = this.held.slice(0, cut);
    this.held = this.held.slice(cut);
    this.context = (this.context + released).slice(-CONTEXT_CHARS);
    return { text: redacted, bytes: Buffer.byteLength(released, 'utf8') };
  }

  end(): Promise<{ text: string; bytes: number }> {
    return this.push('', true);
  }

  get heldChars(): number {
    return this.held.length;
  }

  /** How much of `held` can be released: all but a trailing partial word, or an unterminated private key. */
  private safeCut(held: string): number {
    const pem = held.lastIndexOf('-----BEGIN ');
    if (pem >= 0 && !/-----END [A-Z0-9 ]*PRIVATE KEY-----/.test(held.slice(pem)) && held.length - pem < MAX_PEM_CHARS) return pem;
    const word = trailingWordLength(held, MAX_HELD_WORD);
    const cut = word > MAX_HELD_WORD ? held.length : held.length - word;
    // Never split a finished key's END line: it would be redacted twice, once on each side.
    let endOfKey = 0;
    for (const m of held.matchAll(/-----END [A-Z0-9 ]*PRIVATE KEY-----/g)) endOfKey = m.index + m[0].length;
    return Math.max(cut, endOfKey);
  }
}
