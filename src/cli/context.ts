/**
 * What client commands share: the output streams, and a client aimed at the daemon from the flags, the environment
 * or the state dir (client/address.ts has the order). The client module is imported on first use, so a command that
 * talks to no daemon never loads it.
 */
// Named imports of Node's modules on the `termhost ls` path: in the CommonJS bundle (scripts/build-cli.mjs) a default
// import costs a copy of every export of the module, on each start.
import { readFileSync, statSync } from 'node:fs';
import type { ClientOptions, TermhostClient } from '../client/TermhostClient.js';
import { UsageError, type Parsed } from './args.js';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Is standard output a terminal? Tables get a header only there. Default false (tests, pipes). */
  outIsTTY?: boolean;
  /** Standard input, for `send ID -`. */
  stdin?: NodeJS.ReadableStream;
}

/** The client options the global flags give (--addr, --token, --state-dir, --ca); every client command uses these. */
export async function clientOptions(flags: Record<string, unknown>): Promise<ClientOptions> {
  const ca = flags.ca === undefined ? undefined : (await import('../client/tls.js')).readCaFile(flags.ca as string, '--ca');
  return {
    address: flags.addr as string | undefined,
    token: flags.token as string | undefined,
    stateDir: flags['state-dir'] as string | undefined,
    ...(ca ? { ca } : {}),
  };
}

export async function clientFrom(parsed: Parsed): Promise<TermhostClient> {
  const { TermhostClient } = await import('../client/TermhostClient.js');
  // One process, a request or two: a connection per request beats loading a pool (see client/transport.ts).
  return new TermhostClient({ ...(await clientOptions(parsed.flags)), transport: 'once' });
}

/** Run `fn` with a client for this command's flags, and release the client's sockets however it ends. */
export async function withClient<T>(parsed: Parsed, fn: (client: TermhostClient) => Promise<T>): Promise<T> {
  const client = await clientFrom(parsed);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** A token from a file named by a flag: its first line. A file others can read is worth a warning, not a refusal. */
export function tokenFromFile(file: string, flag: string, warn: (s: string) => void): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --${flag}: ${(err as Error).message}`);
  }
  const token = text.split('\n')[0]!.trim();
  if (!token) throw new UsageError(`--${flag} ${file} is empty`);
  if ((statSync(file).mode & 0o077) !== 0) warn(`warning: ${file} can be read by others; chmod 600 it\n`);
  return token;
}

/** Print `value` as JSON, the `--json` form of every command. */
export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Rows as tab-separated lines; on a terminal the header comes first. Fields never contain a tab or a newline (they
 * are replaced by spaces), so `cut -f` and `while read` see one row per line, nor any other control character: cells
 * hold what other callers wrote (an agent's command line, a session's argv, a reported directory), whose controls
 * would be escape sequences for the terminal of whoever lists them (OSC 52 writes the clipboard), so they print as
 * `\xHH`.
 */
export function printTable(io: Io, header: string[], rows: string[][]): void {
  const clean = (s: string) =>
    s.replace(/[\t\r\n]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const lines = rows.map((r) => r.map(clean).join('\t'));
  if (io.outIsTTY) lines.unshift(header.join('\t'));
  io.out(lines.map((l) => `${l}\n`).join(''));
}

export const stdio: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  outIsTTY: process.stdout.isTTY === true,
  // A getter: touching process.stdin opens it, which a command that never reads it should not pay for.
  get stdin() {
    return process.stdin;
  },
};
