/**
 * termhost ui: open the browser UI, signed in. The daemon mints a single-use login code (60 s) for this command's
 * token; the browser opens a link carrying only that code and gets a cookie in exchange, so the token itself never
 * reaches the browser, a URL or a log.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { parseArgs, UsageError } from '../args.js';
import { withClient } from '../context.js';
import type { Command } from './types.js';

/** "http://host:port/..." -> the daemon's address and the base that browser links start with. */
export function parseApiUrl(raw: string): { addr: string; base: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--api-url wants a URL such as http://127.0.0.1:7070, got "${raw}"`);
  }
  if (url.protocol !== 'http:') throw new UsageError('--api-url must be an http:// URL (for a daemon behind TLS, tunnel to it with ssh -L)');
  const port = url.port || '80';
  return { addr: `${url.hostname}:${port}`, base: `${url.protocol}//${url.host}` };
}

/** Hand the link to the desktop's browser; false when there is no opener or it failed. */
function openInBrowser(url: string): Promise<boolean> {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    } catch {
      return resolve(false);
    }
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
    child.unref();
  });
}

export const ui: Command = {
  name: 'ui',
  usage: 'ui [--session ID] [--viewer] [--print] [--api-url URL] [--token-file F]',
  summary: 'open the browser UI signed in (as a person, or read-only with --viewer); --print prints the one-time link',
  async run(argv, io) {
    const parsed = parseArgs(argv, { session: 'string', viewer: 'boolean', print: 'boolean', 'api-url': 'string', 'token-file': 'string' });
    if (parsed.positional.length > 0) throw new UsageError(`unexpected argument "${parsed.positional[0]}"`);
    const f = parsed.flags;
    const api = f['api-url'] !== undefined ? parseApiUrl(f['api-url'] as string) : undefined;
    if (api) f.addr = api.addr;
    if (f['token-file'] !== undefined) {
      let token: string;
      try {
        token = fs.readFileSync(f['token-file'] as string, 'utf8').trim();
      } catch (err) {
        throw new UsageError(`cannot read --token-file: ${(err as Error).message}`);
      }
      if (!token) throw new UsageError('--token-file is empty');
      f.token = token;
    }
    return withClient(parsed, async (client) => {
      let base = api?.base;
      if (!base) {
        if (client.address.kind === 'unix') throw new UsageError('a browser cannot reach a unix socket; serve on TCP too, or give --api-url');
        const { host, port } = client.address;
        base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      }
      const minted = await client.mintUiLogin({
        as: f.viewer ? 'viewer' : 'human',
        ...(f.session !== undefined ? { session: f.session as string } : {}),
      });
      const link = `${base}${minted.login_path}`;
      if (!f.print && (await openInBrowser(link))) {
        io.err(`opened the termhost UI in your browser${f.viewer ? ' (read-only)' : ''}\n`);
        return 0;
      }
      io.out(`${link}\n`);
      io.err(`open this link within ${minted.expires_in_s} s; it works once\n`);
      return 0;
    });
  },
};
