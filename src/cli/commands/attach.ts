/**
 * termhost attach: mirror a session into this terminal, read-only unless --write. C-] (or --detach-key) detaches.
 *
 * - On connect one line says whether you are read-only or driving and how to detach; a session larger than your
 *   terminal is said once, with the way out (--resize). These go to the main screen before the mirror takes the
 *   alternate screen, and in the render view they also sit in the spare row under the session.
 * - The local terminal is always restored: raw mode off, cursor shown, modes the session turned on turned off again.
 * - When the program exits, its last screen is printed on the main screen with the exit line, and attach exits with
 *   the program's own status (128 + the signal number when a signal ended it), as ssh does.
 */
import os from 'node:os';
import type { AttachEvent } from '../../client/AttachClient.js';
import type { TermhostClient } from '../../client/TermhostClient.js';
import { needArg, noMoreArgs, UsageError } from '../args.js';
import { clientFrom, type Io } from '../context.js';
import type { Command } from './types.js';

/** Leaves the mirror's alternate screen and undoes every mode a mirrored application may have set. */
export const RESTORE_TERMINAL =
  '\x1b[0m\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?9l\x1b[?2004l\x1b[?1l\x1b[?2026l\x1b[?1049l';

type Exit = Extract<AttachEvent, { kind: 'exit' }>;

/** The status a shell would report for the program: its exit code, or 128 + the number of the signal that ended it. */
/** Notices printed after the attach ends: the last ones, so a session posting banners in a loop costs bounded memory. */
const MAX_NOTICES_KEPT = 100;

/** A notice as text for a terminal: control characters but the line feed shown as \xNN, never obeyed. */
function plainText(s: string): string {
  return s.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export function exitStatus(exit: Pick<Exit, 'code' | 'signal'>): number {
  if (exit.code !== null) return exit.code;
  const name = exit.signal?.startsWith('SIG') ? exit.signal : `SIG${exit.signal}`;
  const n = exit.signal ? os.constants.signals[name as keyof typeof os.constants.signals] : undefined;
  return n ? 128 + n : 1;
}

/** The session's last screen, in colour, without its trailing blank rows; nothing when it cannot be read. */
async function lastScreen(api: TermhostClient, id: string): Promise<string> {
  const { spansToAnsi } = await import('../../core/snapshot/styled.js');
  const s = await api.screen(id, { styled: true }).catch(() => undefined);
  const rows = s?.styled ?? [];
  while (rows.length > 0 && rows[rows.length - 1]!.every((span) => span.text.trim() === '' && span.bg === undefined && !span.inverse)) rows.pop();
  return rows.map((r) => `${spansToAnsi(r)}\n`).join('');
}

export const attach: Command = {
  name: 'attach',
  summary: 'mirror a session live in this terminal (read-only unless --write); C-] detaches',
  args: 'ID',
  details: [
    'A terminal larger than the session gets the render view: the session drawn as a box with its edge, instead of',
    'output your terminal would re-wrap. When the program exits, its last screen stays and attach exits with its status.',
  ],
  positionals: ['session'],
  flags: [
    { name: 'write', short: 'w', kind: 'boolean', help: 'forward your keystrokes: drive the session' },
    { name: 'resize', kind: 'boolean', help: "make your terminal's size the session's, and follow it (keys are still forwarded only with --write)" },
    { name: 'stream', kind: 'boolean', help: 'always the raw stream, never the render view' },
    { name: 'detach-key', kind: 'string', value: 'KEY', help: 'the key that detaches, a single-byte key such as C-a', default: 'C-]' },
  ],
  examples: ['termhost attach 3f9c2a1b', 'termhost attach --write --resize 3f9c2a1b', 'termhost attach --write --detach-key C-a 3f9c2a1b'],
  async run(parsed, io) {
    const id = needArg(parsed, 0, 'a session id');
    noMoreArgs(parsed, 1);
    const f = parsed.flags;
    const keyName = (f['detach-key'] as string | undefined) ?? 'C-]';
    const [{ AttachClient }, { encodeKey }] = await Promise.all([import('../../client/AttachClient.js'), import('../../core/input/keys.js')]);
    const enc = encodeKey(keyName, { appCursorKeys: false });
    if (!enc.ok || enc.bytes.length !== 1) throw new UsageError(`--detach-key must be a single-byte key such as C-] or C-a, not "${keyName}"`);
    const detach = enc.bytes[0]!;
    const api = await clientFrom(parsed);
    try {
      return await mirror(api, id, { AttachClient, detach, keyName, write: f.write === true, authority: f.resize === true, stream: f.stream === true }, io);
    } finally {
      api.close();
    }
  },
};

interface MirrorOptions {
  AttachClient: typeof import('../../client/AttachClient.js').AttachClient;
  detach: number;
  keyName: string;
  write: boolean;
  authority: boolean;
  stream: boolean;
}

async function mirror(api: TermhostClient, id: string, o: MirrorOptions, io: Io): Promise<number> {
  const info = await api.getSession(id);
  const out = process.stdout;
  const local = { cols: out.columns || info.cols, rows: out.rows || info.rows };
  const view = !o.authority && !o.stream && (local.cols > info.cols || local.rows > info.rows) ? 'render' : 'stream';
  const conn = new o.AttachClient({
    address: api.address,
    trust: api.target.trust,
    session: id,
    bearer: api.token,
    // Resizing needs the driver role; keystrokes are forwarded only with --write.
    role: o.write || o.authority ? 'driver' : 'viewer',
    view,
    cols: local.cols,
    rows: local.rows,
  });
  const mode = o.write ? 'driving, your keys go to it' : o.authority ? 'read-only, sized to your terminal (--write to type)' : 'read-only (--write to type)';
  const connectLine = `[attached to ${id}: ${mode}; ${o.keyName} detaches]`;
  let size = { cols: info.cols, rows: info.rows };
  let warnedSize = false;
  /** Said once: a session larger than this terminal will wrap or be cut. */
  const sizeNotice = () => {
    if (warnedSize || o.authority || (size.cols <= local.cols && size.rows <= local.rows)) return undefined;
    warnedSize = true;
    return `[${id} is ${size.cols}x${size.rows}, larger than your terminal (${local.cols}x${local.rows}): lines will wrap or be cut; attach --resize makes it your size]`;
  };
  io.err(`${connectLine}\n`);
  const early = sizeNotice();
  if (early) io.err(`${early}\n`);

  const stdin = process.stdin;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    if (stdin.isTTY) stdin.setRawMode(false);
    stdin.pause();
    out.write(RESTORE_TERMINAL);
  };
  const onSignal = () => conn.close();
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  const onWinch = () => {
    local.cols = out.columns || local.cols;
    local.rows = out.rows || local.rows;
    if (o.authority) conn.sendResize(local.cols, local.rows);
  };
  process.on('SIGWINCH', onWinch);

  let detached = false;
  const onInput = (data: Buffer) => {
    const at = data.indexOf(o.detach);
    const payload = at >= 0 ? data.subarray(0, at) : data;
    if (o.write && payload.length > 0) conn.sendStdin(payload);
    if (at >= 0) {
      detached = true;
      conn.close();
    }
  };
  /** The connect line in the spare bottom row of a render view, redrawn after each frame (frames blank that row). */
  const statusRow = () => {
    if (view !== 'render' || local.rows < size.rows + 2) return;
    out.write(`\x1b7\x1b[${local.rows};1H\x1b[0;2m${connectLine.slice(0, local.cols)}\x1b[0m\x1b8`);
  };

  try {
    out.write('\x1b[?1049h\x1b[H\x1b[2J');
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on('data', onInput);
    stdin.resume();
    let exit: Exit | undefined;
    let closed: { code: number; reason: string } | undefined;
    const notices: string[] = [];
    for await (const ev of conn) {
      if (ev.kind === 'hello') {
        size = { cols: ev.session.cols, rows: ev.session.rows };
        if (o.authority) conn.sendResize(local.cols, local.rows);
      } else if (ev.kind === 'stdout') out.write(ev.data);
      else if (ev.kind === 'repaint') {
        out.write(ev.data);
        statusRow();
      } else if (ev.kind === 'resized') {
        size = { cols: ev.cols, rows: ev.rows };
        const n = sizeNotice();
        if (n) notices.push(n);
      } else if (ev.kind === 'exit') exit = ev;
      else if (ev.kind === 'closed') closed = ev;
      // Banners would garble the mirrored screen; they are printed once the terminal is restored (the last ones).
      else if (ev.kind === 'error') {
        notices.push(ev.message);
        if (notices.length > MAX_NOTICES_KEPT) notices.shift();
      }
    }
    restore();
    // Printed to a person's own terminal: any control character is shown, never obeyed.
    for (const n of notices.map(plainText)) io.err(n.startsWith('[') ? `${n}\n` : `[${id}] ${n}\n`);
    if (exit) {
      out.write(await lastScreen(api, id));
      io.err(`[session ${id} ended: ${exit.reason}, ${exit.signal ?? `code ${exit.code}`}]\n`);
      return exitStatus(exit);
    }
    if (detached) {
      io.err(`[detached from ${id}]\n`);
      return 0;
    }
    io.err(`[connection to ${id} closed: ${closed?.reason || `code ${closed?.code}`}]\n`);
    return 1;
  } finally {
    restore();
    stdin.off('data', onInput);
    process.off('SIGWINCH', onWinch);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}
