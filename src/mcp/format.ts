/**
 * Screens and results as short text an LLM reads easily: numbered rows with the cursor row marked, trailing blank
 * rows folded, and modes mentioned only when they change how input works (mouse on, alternate screen). The same
 * data goes out in structured form beside the text.
 */
import type { Screen, ScreenChanges, SessionInfo, WaitResult } from '../protocol/http.js';

type ProcessFields = Pick<Screen, 'exited' | 'exit_code' | 'exit_signal' | 'exit_reason' | 'alt_screen' | 'modes' | 'cursor' | 'cols' | 'rows' | 'title'>;

function processLine(s: Pick<ProcessFields, 'exited' | 'exit_code' | 'exit_signal' | 'exit_reason'>): string | undefined {
  if (!s.exited) return undefined;
  if (s.exit_signal) return `process ended by ${s.exit_signal} (${s.exit_reason})`;
  return `process exited with code ${s.exit_code}`;
}

function modeNotes(s: ProcessFields): string[] {
  const notes: string[] = [];
  if (s.alt_screen) notes.push('full-screen app (alternate screen)');
  if (s.modes.mouse !== 'off') notes.push(`mouse on (${s.modes.mouse})`);
  return notes;
}

function header(id: string, s: ProcessFields, what: string): string {
  const cursor = s.cursor.visible ? `cursor row ${s.cursor.y} col ${s.cursor.x}` : `cursor hidden at row ${s.cursor.y} col ${s.cursor.x}`;
  const parts = [`session ${id}`, what, `${s.cols}x${s.rows}`, cursor];
  if (s.title) parts.push(`title "${s.title}"`);
  return [parts.join(' | '), ...modeNotes(s), processLine(s)].filter(Boolean).join('\n');
}

/** Identical consecutive rows fold into one line from this many on (`rows 1-28: ~`); fewer read better as they are. */
export const FOLD_RUN_MIN = 3;

/**
 * Rows as "<n> text", the cursor row marked with ">". A run of FOLD_RUN_MIN or more identical consecutive rows (the
 * `~` column of an empty vim buffer, a box's sides, blank space) becomes one line naming the rows; the cursor row is
 * never folded, and `foldTail` folds a blank tail of any length. Row numbers stay those of the screen.
 */
export function numberedRows(rows: Array<{ row: number; text: string }>, cursorRow: number, foldTail = true): string {
  const width = String(Math.max(0, ...rows.map((r) => r.row))).length;
  const line = ({ row, text }: { row: number; text: string }) => `${row === cursorRow ? '>' : ' '}${String(row).padStart(width)} ${text}`.trimEnd();
  const out: string[] = [];
  for (let i = 0; i < rows.length; ) {
    // A run: consecutive row numbers, the same text, not the cursor row.
    let j = i;
    while (j + 1 < rows.length && rows[j + 1]!.text === rows[i]!.text && rows[j + 1]!.row === rows[j]!.row + 1 && rows[j + 1]!.row !== cursorRow && rows[i]!.row !== cursorRow) j++;
    const n = j - i + 1;
    const tail = j === rows.length - 1 && rows[i]!.text === '' && foldTail;
    if (rows[i]!.row !== cursorRow && (n >= FOLD_RUN_MIN || (tail && n >= 1))) {
      const [first, last] = [rows[i]!.row, rows[j]!.row];
      const span = first === last ? `row ${first}` : `rows ${first}-${last}`;
      out.push(rows[i]!.text === '' ? `(${span} blank)` : ` ${span}: ${rows[i]!.text}`.trimEnd());
    } else for (let k = i; k <= j; k++) out.push(line(rows[k]!));
    i = j + 1;
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

export function formatScreen(id: string, s: Screen): string {
  const rows = s.lines.map((text, row) => ({ row, text }));
  return [header(id, s, `seq ${s.seq}`), numberedRows(rows, s.cursor.y), ...highlightLines(s.highlights)].join('\n');
}

export function formatChanges(id: string, c: ScreenChanges): string {
  if (c.full) return formatScreen(id, { ...c, lines: c.lines ?? [] });
  if (!c.changed) return `session ${id} | no change since seq ${c.since_seq}${processLine(c) ? ` | ${processLine(c)}` : ''}`;
  const rows = c.changes ?? [];
  const body = rows.length === 0 ? '(no row changed; see cursor and state above)' : numberedRows(rows, c.cursor.y, false);
  return [header(id, c, `changes since seq ${c.since_seq}, now seq ${c.seq}`), body, ...highlightLines(c.highlights)].join('\n');
}

/**
 * A wait's answer. Given the rows this client last read of the session, only the rows that changed since then are
 * shown (with their screen row numbers and the cursor), which is what an agent needs after "wait, then look";
 * without them, or with `full`, the whole screen.
 */
export function formatWait(id: string, r: WaitResult, lastRead?: { seq: number; lines: readonly string[] }, full = false): string {
  const verdict = r.matched ? `matched (${r.reason})` : r.reason === 'exit' ? 'not matched: the process exited first' : `not matched (${r.reason})`;
  const diff0 = full ? undefined : scrolledChanges(lastRead?.lines, r.screen.lines);
  if (!diff0 || !lastRead) return [`wait ${verdict}`, formatScreen(id, r.screen)].join('\n');
  const changes = diff0.rows;
  const scrolled = diff0.scrolled > 0 ? `the screen scrolled up ${diff0.scrolled} row${diff0.scrolled === 1 ? '' : 's'}; ` : '';
  const s = r.screen;
  // Terse on purpose: the agent knows the session and its size (a resize answers with the whole screen).
  const cursor = `cursor ${s.cursor.y},${s.cursor.x}${s.cursor.visible ? '' : ' hidden'}`;
  const head =
    changes.length === 0
      ? `${verdict}; ${scrolled}nothing else changed; ${cursor}`
      : `${verdict}; ${scrolled}changed rows; ${cursor}:`;
  const notes = [...modeNotes(s), processLine(s)].filter((x): x is string => Boolean(x));
  const body = changes.length === 0 ? [] : [numberedRows(changes, s.cursor.y, false)];
  const diff = [head, ...notes, ...body, ...highlightLines(s.highlights)].join('\n');
  // The changes are for saving bytes: when the whole (folded) screen is as short, it says more for the same.
  const whole = [`wait ${verdict}`, formatScreen(id, s)].join('\n');
  return diff.length < whole.length ? diff : whole;
}

export function formatSession(s: SessionInfo): string {
  const state = s.exited ? (s.exit_signal ? `ended by ${s.exit_signal}` : `exited ${s.exit_code}`) : `running pid ${s.pid}`;
  const labels = Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(',');
  const bits = [s.id, state, `${s.cols}x${s.rows}`, JSON.stringify(s.command.join(' '))];
  if (s.title) bits.push(`title "${s.title}"`);
  if (labels) bits.push(`labels ${labels}`);
  if (s.secret_input) bits.push('secret input window open (screen hidden until a person ends it)');
  return bits.join(' | ');
}
