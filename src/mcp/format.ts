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

/** Rows as "<n> text", the cursor row marked with ">", and a run of blank rows at the bottom folded into one line. */
export function numberedRows(rows: Array<{ row: number; text: string }>, cursorRow: number, foldTail = true): string {
  const width = String(Math.max(0, ...rows.map((r) => r.row))).length;
  let end = rows.length;
  if (foldTail) while (end > 0 && rows[end - 1].text === '' && rows[end - 1].row !== cursorRow) end--;
  const out = rows.slice(0, end).map(({ row, text }) => `${row === cursorRow ? '>' : ' '}${String(row).padStart(width)} ${text}`.trimEnd());
  if (end < rows.length) {
    const first = rows[end].row;
    const last = rows[rows.length - 1].row;
    out.push(first === last ? `(row ${first} blank)` : `(rows ${first}-${last} blank)`);
  }
  return out.join('\n');
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

export function formatWait(id: string, r: WaitResult): string {
  const verdict = r.matched ? `matched (${r.reason})` : r.reason === 'exit' ? 'not matched: the process exited first' : `not matched (${r.reason})`;
  const needed = r.input_needed ? `input needed (${r.input_needed.kind}): ${JSON.stringify(r.input_needed.prompt)}` : undefined;
  return [`wait ${verdict}`, needed, formatScreen(id, r.screen)].filter(Boolean).join('\n');
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
  return bits.join(' | ');
}
