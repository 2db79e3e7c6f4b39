/** What every client command needs: a client aimed at the daemon, from flags, the environment, or the state dir. */
import { TermhostClient } from '../client/TermhostClient.js';
import { DEFAULT_LISTEN, defaultStateDir, readToken } from '../config.js';
import type { Parsed } from './args.js';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

export function clientFrom(parsed: Parsed): TermhostClient {
  const f = parsed.flags;
  const address = (f.addr as string | undefined) ?? process.env.TERMHOST_ADDR ?? DEFAULT_LISTEN;
  const stateDir = (f['state-dir'] as string | undefined) ?? defaultStateDir();
  const token = (f.token as string | undefined) ?? process.env.TERMHOST_TOKEN ?? readToken(stateDir);
  return new TermhostClient({ address, token });
}

/** Run `fn` with a client for this command's flags, and release the client's sockets however it ends. */
export async function withClient<T>(parsed: Parsed, fn: (client: TermhostClient) => Promise<T>): Promise<T> {
  const client = clientFrom(parsed);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

export const stdio: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
};
