/**
 * Screens and results as short text an LLM reads easily: numbered rows with the cursor row marked, trailing blank
 * rows folded, and modes mentioned only when they change how input works (mouse on, alternate screen). The same
 * data goes out in structured form beside the text.
 */
import type { CommandResult, Screen, ScreenChanges, SessionInfo, WaitResult } from '../protocol/http.js';

type ProcessFields = Pick<Screen, 'exited' | 'exit_code' | 'exit_signal' | 'exit_reason' | 'alt_screen' | 'modes' | 'cursor' | 'cols' | 'rows' | 'title'>;

function processLine(s: Pick<ProcessFields, 'exited' | 'exit_code' | 'exit_signal' | 'exit_reason'>): string | undefined {
  if (!s.exited) return undefined;
  if (s.exit_signal) return `process ended by ${s.exit_signal} (${s.exit_reason})`;
  return `process exited with code ${s.exit_code}`;
}

function modeNotes(s: ProcessFields): string[] {
  const notes: string[] = [];
  if (s.alt_screen) notes.push('full-screen app');
  if (s.modes.mouse !== 'off') notes.push(`mouse on (${s.modes.mouse})`);
  return notes;
}

/**
 * Where the cursor is, said only when the rows do not already say it: a visible cursor just past the end of its
 * row's text, on a row that is shown, is said by the row's ">" marker alone (the cursor row is shown up to the cursor,
 * trailing spaces included). Otherwise its column, or row and column, and "hidden" when it is.
 */
function cursorNote(s: Pick<ProcessFields, 'cursor'>, shown: ReadonlyArray<{ row: number; text: string }>): string | undefined {
  const { x, y, visible } = s.cursor;
  const row = shown.find((r) => r.row === y);
  // A hidden cursor is mostly a program drawing; where it is matters little, and its row is marked when shown.
  if (!visible) return row ? 'cursor hidden' : `cursor hidden at ${y},${x}`;
  if (!row) return `cursor ${y},${x}`;
  return x >= row.text.trimEnd().length ? undefined : `cursor col ${x}`;
}

/** The first line: only what is not the default (a matched wait, a visible cursor ending its row, the main screen). */
function headLine(parts: Array<string | undefined>): string | undefined {
  const kept = parts.filter((p): p is string => Boolean(p));
  return kept.length ? kept.join('; ') : undefined;
}

/** Identical consecutive rows fold into one line from this many on (`rows 1-28: ~`); fewer read better as they are. */
export const FOLD_RUN_MIN = 3;

/** A row as prefix, its last decimal number, and suffix; undefined when it holds none. */
function lastNumber(text: string): { prefix: string; n: number; digits: string; suffix: string } | undefined {
  let end = text.length;
  while (end > 0 && !isDigit(text.charCodeAt(end - 1))) end--;
  if (end === 0) return undefined;
  let start = end;
  while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
  const digits = text.slice(start, end);
  if (digits.length > 15) return undefined;
  return { prefix: text.slice(0, start), n: Number(digits), digits, suffix: text.slice(end) };
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Does row `b` say what row `a` says with its last number one more (`filler line 7`, `filler line 8`)? */
function countsOn(a: string, b: string): boolean {
  const [x, y] = [lastNumber(a), lastNumber(b)];
  return Boolean(x && y && x.prefix === y.prefix && x.suffix === y.suffix && y.n === x.n + 1 && String(y.n) === y.digits && String(x.n) === x.digits);
}

/**
 * Rows as "<n> text", the cursor row marked with ">" (and shown up to the cursor, trailing spaces included). Runs of
 * FOLD_RUN_MIN or more consecutive rows fold into one line naming the rows: identical rows (the `~` column of an empty
 * vim buffer, a box's sides, blank space) as `rows 1-28: ~`, and rows that read the same but for a last number
 * counting up by one (a numbered listing) as `rows 1-28: line 7 … line 34`, both ends shown. Every row can be read
 * back from the fold. The cursor row is never folded, and `foldTail` folds a blank tail of any length. Row numbers
 * stay those of the screen.
 */
export function numberedRows(rows: Array<{ row: number; text: string }>, cursorRow: number, foldTail = true, cursorCol = -1): string {
  const line = ({ row, text }: { row: number; text: string }) => {
    const mark = `${row === cursorRow ? '>' : ''}${row}`;
    const trimmed = text.trimEnd();
    const shown = row === cursorRow && cursorCol > trimmed.length ? text.padEnd(cursorCol).slice(0, cursorCol) : trimmed;
    return shown ? `${mark} ${shown}` : mark;
  };
  const out: string[] = [];
  const adjacent = (j: number) => rows[j + 1]!.row === rows[j]!.row + 1 && rows[j + 1]!.row !== cursorRow;
  for (let i = 0; i < rows.length; ) {
    let j = i;
    let counting = false;
    if (rows[i]!.row !== cursorRow) {
      // A run: consecutive row numbers, not the cursor row, the same text or the same counting up.
      while (j + 1 < rows.length && adjacent(j) && rows[j + 1]!.text === rows[i]!.text) j++;
      if (j === i) {
        while (j + 1 < rows.length && adjacent(j) && countsOn(rows[j]!.text, rows[j + 1]!.text)) j++;
        counting = j > i;
      }
    }
    const n = j - i + 1;
    const tail = j === rows.length - 1 && rows[i]!.text === '' && foldTail;
    if (rows[i]!.row !== cursorRow && (n >= FOLD_RUN_MIN || (tail && n >= 1))) {
      const [first, last] = [rows[i]!.row, rows[j]!.row];
      const span = first === last ? `row ${first}` : `rows ${first}-${last}`;
      if (counting) out.push(`${span}: ${rows[i]!.text.trimEnd()} … ${rows[j]!.text.trimEnd()}`);
      else out.push(rows[i]!.text === '' ? `(${span} blank)` : `${span}: ${rows[i]!.text}`.trimEnd());
      i = j + 1;
    } else if (counting) {
      // Too short to fold: the first row as it is, and the rest looked at afresh.
      out.push(line(rows[i]!));
      i++;
    } else {
      for (let k = i; k <= j; k++) out.push(line(rows[k]!));
      i = j + 1;
    }
  }
  return out.join('\n');
}

/** The rows whose text differs between two screens of the same size, or undefined when they cannot be compared. */
export function changedRows(before: readonly string[] | undefined, after: readonly string[]): Array<{ row: number; text: string }> | undefined {
  return scrolledChanges(before, after)?.rows;
}

/**
 * What changed between two screens of the same size, allowing for scrolling: a shell printing three lines at the
 * bottom of a full screen moves every row up three, and a row-by-row comparison would call the whole screen changed.
 * The answer is the scroll that explains the most rows (`scrolled` rows up, 0 for none) and the rows that differ from
 * the scrolled picture. Undefined when the screens cannot be compared.
 */
export function scrolledChanges(before: readonly string[] | undefined, after: readonly string[]): { scrolled: number; rows: Array<{ row: number; text: string }> } | undefined {
  if (!before || before.length !== after.length) return undefined;
  const n = after.length;
  const differing = (k: number) => {
    let d = 0;
    for (let row = 0; row < n; row++) if ((row + k < n ? before[row + k] : undefined) !== after[row]) d++;
    return d;
  };
  let best = 0;
  let bestD = differing(0);
  // Only shifts where the new top row was somewhere below in the old screen can explain it.
  for (let k = 1; k < n && bestD > 0; k++) {
    if (before[k] !== after[0] || after[0] === '') continue;
    const d = differing(k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  const rows: Array<{ row: number; text: string }> = [];
  for (let row = 0; row < n; row++) if ((row + best < n ? before[row + best] : undefined) !== after[row]) rows.push({ row, text: after[row]! });
  return { scrolled: best, rows };
}

function highlightLines(h: Screen['highlights']): string[] {
  return (h ?? []).map((x) => `highlighted (inverse video): row ${x.row} col ${x.col}: "${x.text.trim()}"`);
}

/**
 * The rows of a screen, after one line of what they cannot say themselves (nothing, for a plain shell whose cursor
 * ends its row: the rows alone, every one accounted for, are then the answer). `size`: say the size too.
 */
function screenBody(s: Screen, lead: Array<string | undefined>, size = false): string {
  const rows = s.lines.map((text, row) => ({ row, text }));
  const title = s.title ? `title "${s.title}"` : undefined;
  const head = headLine([...lead, size ? `${s.cols}x${s.rows}` : undefined, cursorNote(s, rows), title, ...modeNotes(s), processLine(s)]);
  return [head, numberedRows(rows, s.cursor.y, true, s.cursor.visible ? s.cursor.x : -1), ...highlightLines(s.highlights)].filter((x) => x !== undefined).join('\n');
}

/**
 * A whole screen: one line with its size and whatever the rows cannot say (the cursor's column when it is not at the
 * end of its row, a full-screen app, mouse mode, the title, an exit), then the numbered rows. The session and the
 * stream offset are in the structured result; the agent named the session itself.
 */
export function formatScreen(_id: string, s: Screen): string {
  return screenBody(s, [], true);
}

/**
 * Changes since a read: only the rows that changed, after a line of notes when there are any. It needs no word of its
 * own: a whole screen always opens with its size and accounts for every row, so an answer without a size line is
 * changes, and rows not in it are as the agent last read them. On a small screen a "changed:" line was a fifth of
 * every answer. The cursor row comes too when it is blank (">5" says in two bytes what "cursor 5,0" says in ten).
 */
function changesBody(s: ProcessFields & Pick<Screen, 'highlights'> & { lines?: readonly string[] }, rows: Array<{ row: number; text: string }>, lead: Array<string | undefined>): string {
  const title = s.title ? `title "${s.title}"` : undefined;
  if (rows.length === 0) {
    const cursor = `cursor ${s.cursor.y},${s.cursor.x}${s.cursor.visible ? '' : ' hidden'}`;
    return [headLine([...lead, 'no change', cursor, title, ...modeNotes(s), processLine(s)]), ...highlightLines(s.highlights)].join('\n');
  }
  const { y } = s.cursor;
  const shown = !rows.some((r) => r.row === y) && s.lines?.[y] === '' ? [...rows, { row: y, text: '' }].sort((a, b) => a.row - b.row) : rows;
  const head = headLine([...lead, cursorNote(s, shown), title, ...modeNotes(s), processLine(s)]);
  return [head, numberedRows(shown, y, false, s.cursor.visible ? s.cursor.x : -1), ...highlightLines(s.highlights)].filter((x) => x !== undefined).join('\n');
}

/** What stands in a row for text the agent typed itself, echoed exactly where it typed it. */
export const YOUR_INPUT = '<your input>';

/**
 * A changed row that reads what it read before plus exactly one text item of this input (the echo of what the agent
 * typed, at the prompt it typed at) shows YOUR_INPUT in place of that text: the agent has it already. Anything
 * else the echo shows (a completion, a redraw, other text) leaves the row as it is.
 */
function markEcho(rows: Array<{ row: number; text: string }>, before: readonly string[], scrolled: number, typed: readonly string[]): Array<{ row: number; text: string }> {
  const worth = typed.filter((t) => t.trim().length > YOUR_INPUT.length && !t.includes('\n'));
  if (worth.length === 0) return rows;
  return rows.map((r) => {
    const old = before[r.row + scrolled];
    if (old === undefined) return r;
    const text = r.text.trimEnd();
    const t = worth.find((w) => text.endsWith(w.trimEnd()) && text.slice(0, text.length - w.trimEnd().length).trimEnd() === old.trimEnd());
    return t === undefined ? r : { row: r.row, text: `${text.slice(0, text.length - t.trimEnd().length)}${YOUR_INPUT}` };
  });
}

export function formatChanges(id: string, c: ScreenChanges): string {
  if (c.full) return formatScreen(id, { ...c, lines: c.lines ?? [] });
  if (!c.changed) return headLine(['no change', processLine(c)])!;
  return changesBody(c, c.changes ?? [], []);
}

/**
 * A wait's answer. Given the rows this client last read of the session, only the rows that changed since then are
 * shown (with their screen row numbers and the cursor), which is what an agent needs after "wait, then look";
 * without them, or with `full`, the whole screen. A wait that matched says nothing of it (that is what was asked for);
 * one that did not says so first. The text items this client typed since its read have their echo marked (markEcho).
 */
export function formatWait(id: string, r: WaitResult, lastRead?: { seq: number; lines: readonly string[]; typed?: readonly string[] }, full = false): string {
  const verdict = r.matched ? undefined : r.reason === 'exit' ? 'not matched: the process exited first' : `not matched (${r.reason})`;
  const needed = r.input_needed ? `input needed (${r.input_needed.kind}): ${JSON.stringify(r.input_needed.prompt)}` : undefined;
  const whole = screenBody(r.screen, [verdict, needed], true);
  const diff0 = full ? undefined : scrolledChanges(lastRead?.lines, r.screen.lines);
  if (!diff0 || !lastRead) return whole;
  const scrolled = diff0.scrolled > 0 ? `scrolled up ${diff0.scrolled}` : undefined;
  const diff = changesBody(r.screen, markEcho(diff0.rows, lastRead.lines, diff0.scrolled, lastRead.typed ?? []), [verdict, needed, scrolled]);
  // The changes are for saving bytes: when the whole (folded) screen is as short, it says more for the same.
  return diff.length < whole.length ? diff : whole;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * A command's answer as an agent reads it: one line with the verdict (`exit 0 in 1.2 s`, `input needed: "..."`,
 * `still running after 30 s`), then its bounded output.
 */
export function formatCommand(sessionId: string, r: CommandResult): string {
  const where = `(session ${sessionId}, command ${r.id})`;
  let verdict: string;
  if (r.status === 'exited') {
    const how = r.rejected ? 'not run: the shell refused it' : r.exit_code === null ? 'ended' : `exit ${r.exit_code}`;
    verdict = `${how} in ${seconds(r.duration_ms ?? 0)} ${where}`;
  } else if (r.status === 'input_needed' && r.input_needed) {
    const kind = r.input_needed.kind === 'line' ? '' : ` (${r.input_needed.kind})`;
    const advice =
      r.input_needed.kind === 'password'
        ? 'a person must type the secret, or abort with send {"key":"C-c"}'
        : 'answer with send, then call await_command';
    verdict = `input needed${kind}: ${JSON.stringify(r.input_needed.prompt)} ${where}: ${advice}`;
  } else verdict = `still running after ${seconds(Date.now() - Date.parse(r.started_at))} ${where}: call await_command to wait again`;
  const notes = [r.output_truncated ? `output truncated: ${r.output_bytes} bytes in all` : '', r.secret_input ? 'secret-input window open: output shown up to it' : '']
    .filter(Boolean)
    .join('; ');
  // The HTTP route that pages the whole output is not a tool; over MCP, a larger budget is the way to more of it.
  const body = r.output.replace(/\n$/, '').replace(/: page with GET \S+ \.\.\.\]/, ': run it again with a larger max_output_bytes (at most 1 MiB), or narrow it with head, tail or grep ...]');
  return [verdict, notes, body].filter(Boolean).join('\n');
}

export function formatSession(s: SessionInfo): string {
  const state = s.exited ? (s.exit_signal ? `ended by ${s.exit_signal}` : `exited ${s.exit_code}`) : `running pid ${s.pid}`;
  const labels = Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(',');
  const bits = [s.id, state, `${s.cols}x${s.rows}`, JSON.stringify(s.command.join(' '))];
  if (s.title) bits.push(`title "${s.title}"`);
  if (labels) bits.push(`labels ${labels}`);
  if (s.secret_input) bits.push('secret input window open (screen hidden until a person ends it)');
  const m = s.moderation;
  if (m.paused_by) bits.push(`agent input paused by ${m.paused_by.name}`);
  else if (m.required && m.agent_input === 'refused') bits.push(`moderated: agent input refused until a person attaches as driver (termhost attach -write ${s.id})`);
  else if (m.required) bits.push(`moderated: ${m.present.map((p) => p.name).join(', ')} present`);
  return bits.join(' | ');
}
