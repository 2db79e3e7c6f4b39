/**
 * termhost attach: mirror a session into this terminal, read-only unless -write. C-] (or --detach-key) detaches.
 * The local terminal is always restored: raw mode off, cursor shown, modes the session turned on turned off again.
 */
import { AttachClient } from '../../client/AttachClient.js';
import { encodeKey } from '../../core/index.js';
import { parseArgs, UsageError } from '../args.js';
import { clientFrom } from '../context.js';
import type { Command } from './types.js';

/** Leaves the mirror's alternate screen and undoes every mode a mirrored application may have set. */
export const RESTORE_TERMINAL =
  '\x1b[0m\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?9l\x1b[?2004l\x1b[?1l\x1b[?2026l\x1b[?1049l';

export function detachByte(key: string): number {
  const enc = encodeKey(key, { appCursorKeys: false });
  if (!enc.ok || enc.bytes.length !== 1) throw new UsageError(`--detach-key must be a single-byte key such as C-] or C-a, not "${key}"`);
  return enc.bytes[0]!;
}

export const attach: Command = {
  name: 'attach',
  usage: 'attach ID [-write] [-resize] [-stream] [--detach-key C-]]',
  summary: 'mirror a session live (read-only unless -write); detach with C-]',
  async run(argv, io) {
    const parsed = parseArgs(argv, { write: 'boolean', resize: 'boolean', stream: 'boolean', 'detach-key': 'string' });
    const [id] = parsed.positional;
    if (!id) throw new UsageError('attach needs a session id');
    const f = parsed.flags;
    const detach = detachByte((f['detach-key'] as string | undefined) ?? 'C-]');
    const api = clientFrom(parsed);
    const info = await api.getSession(id).finally(() => api.close());
    const out = process.stdout;
    const local = { cols: out.columns || info.cols, rows: out.rows || info.rows };
    const authority = f.resize === true;
    const larger = local.cols > info.cols || local.rows > info.rows;
    const view = !authority && !f.stream && larger ? 'render' : 'stream';
    const conn = new AttachClient({
      address: api.address,
      session: id,
      bearer: api.token,
      role: f.write || authority ? 'driver' : 'viewer',
      view,
      cols: local.cols,
      rows: local.rows,
    });

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
    const onWinch = () => authority && conn.sendResize(out.columns, out.rows);
    process.on('SIGWINCH', onWinch);

    let detached = false;
    const onInput = (data: Buffer) => {
      const at = data.indexOf(detach);
      const payload = at >= 0 ? data.subarray(0, at) : data;
      if (f.write && payload.length > 0) conn.sendStdin(payload);
      if (at >= 0) {
        detached = true;
        conn.close();
      }
    };

    try {
      out.write('\x1b[?1049h\x1b[H\x1b[2J');
      if (stdin.isTTY) stdin.setRawMode(true);
      stdin.on('data', onInput);
      stdin.resume();
      let exit: { code: number | null; signal: string | null; reason: string } | undefined;
      let closed: { code: number; reason: string } | undefined;
      const notices: string[] = [];
      for await (const ev of conn) {
        if (ev.kind === 'hello' && authority) conn.sendResize(local.cols, local.rows);
        else if (ev.kind === 'stdout' || ev.kind === 'repaint') out.write(ev.data);
        else if (ev.kind === 'exit') exit = ev;
        else if (ev.kind === 'closed') closed = ev;
        // Banners would garble the mirrored screen; they are printed once the terminal is restored.
        else if (ev.kind === 'error') notices.push(ev.message);
      }
      restore();
      for (const n of notices) io.err(`[${id}] ${n}\n`);
      if (exit) {
        const status = exit.signal ?? `code ${exit.code}`;
        io.err(`[session ${id} ended: ${exit.reason}, ${status}]\n`);
        return exit.reason === 'crashed' ? 1 : 0;
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
  },
};
