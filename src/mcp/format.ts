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
  const needed = r.input_needed ? `input needed (${r.input_needed.kind}): ${JSON.stringify(r.input_needed.prompt)}` : undefined;
  if (!diff0 || !lastRead) return [`wait ${verdict}`, needed, formatScreen(id, r.screen)].filter(Boolean).join('\n');
  const changes = diff0.rows;
  const scrolled = diff0.scrolled > 0 ? `the screen scrolled up ${diff0.scrolled} row${diff0.scrolled === 1 ? '' : 's'}; ` : '';
  const s = r.screen;
  // Terse on purpose: the agent knows the session and its size (a resize answers with the whole screen).
  const cursor = `cursor ${s.cursor.y},${s.cursor.x}${s.cursor.visible ? '' : ' hidden'}`;
  const head =
    changes.length === 0
      ? `${verdict}; ${scrolled}nothing else changed; ${cursor}`
      : `${verdict}; ${scrolled}changed rows; ${cursor}:`;
  const notes = [needed, ...modeNotes(s), processLine(s)].filter((x): x is string => Boolean(x));
  const body = changes.length === 0 ? [] : [numberedRows(changes, s.cursor.y, false)];
  const diff = [head, ...notes, ...body, ...highlightLines(s.highlights)].join('\n');
  // The changes are for saving bytes: when the whole (folded) screen is as short, it says more for the same.
  const whole = [`wait ${verdict}`, needed, formatScreen(id, s)].filter(Boolean).join('\n');
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
