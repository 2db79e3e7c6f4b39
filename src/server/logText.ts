/**
 * `--log-format text`, the default of `termhost serve`: each pino JSON line becomes one short line for a person,
 *
 *   14:03:07 session 3f9a2c1b started: bash (pid 41712)
 *   14:03:09 WARN auth failed: no token GET /v1/sessions from 127.0.0.1
 *
 * time, the level when it is not info, the message, then the fields it does not already state, as key=value. Ten lines of formatting do
 * not justify pino-pretty and its dependencies.
 */
import type { LogDestination } from './logRedaction.js';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: '', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's own fields, and the request id (one per request, noise for a person). */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'v']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]*$/.test(v) && v !== '' ? v : JSON.stringify(v);
  if (v && typeof v === 'object' && 'message' in v && typeof (v as { message: unknown }).message === 'string') return JSON.stringify((v as { message: string }).message);
  return JSON.stringify(v);
}

function clock(ms: number): string {
  const t = new Date(ms);
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

export function formatLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`; // not pino's: pass it on as it is
  }
  const parts = [clock(typeof o.time === 'number' ? o.time : Date.now())];
  const level = LEVELS[o.level as number] ?? String(o.level);
  if (level) parts.push(level);
  const msg = typeof o.msg === 'string' ? o.msg : '';
  if (msg) parts.push(msg);
  // A field the message already states ("session 3f9a started", "exit 0") is said once.
  const said = new Set(msg.split(/[\s:()=,]+/));
  for (const [k, v] of Object.entries(o)) {
    if (HIDDEN.has(k) || v === undefined || v === null || said.has(String(v))) continue;
    parts.push(`${k}=${value(v)}`);
  }
  return `${parts.join(' ')}\n`;
}

/** A destination that writes each JSON line as text to `dest`. */
export function textLines(dest: LogDestination): LogDestination {
  return { write: (line: string) => dest.write(formatLine(line)) };
}
