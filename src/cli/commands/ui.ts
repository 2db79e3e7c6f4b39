/**
 * termhost ui: open the browser UI, signed in. The daemon mints a single-use login code (60 s) for this command's
 * token; the browser opens a link carrying only that code and gets a cookie in exchange, so the token itself never
 * reaches the browser, a URL or a log.
 *
 * The link is always printed, and whether a browser was opened is always said: on a server without a display
 * nothing is opened at all (xdg-open would fall back to a text browser that spends the code unseen), and an opener
 * that fails is reported with its reason, the code still unspent.
 */
import { spawn } from 'node:child_process';
import { noMoreArgs, UsageError } from '../args.js';
import { printJson, tokenFromFile, withClient } from '../context.js';
import type { Command } from './types.js';

/** How long an opener may take before it is taken to have started a browser (xdg-open can wait for the browser). */
const OPENER_WAIT_MS = 5000;
/** Opener stderr kept for the failure message. */
const OPENER_STDERR_CHARS = 2000;

/** "http://host:port/..." -> the daemon's address and the base that browser links start with. */
export function parseApiUrl(raw: string): { addr: string; base: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--api-url wants a URL such as http://127.0.0.1:7070, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--api-url must be an http:// or https:// URL, got "${raw}"`);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return { addr: `${url.protocol}//${url.hostname}:${port}`, base: `${url.protocol}//${url.host}` };
}

export type Opened = { ok: true; opener: string } | { ok: false; why: string };

/** Hand the link to the desktop's browser, and say how that went. */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<Opened> {
  const mac = process.platform === 'darwin';
  if (!mac && !env.DISPLAY && !env.WAYLAND_DISPLAY) return Promise.resolve({ ok: false, why: 'no display here (DISPLAY and WAYLAND_DISPLAY are unset), so no browser was opened' });
  const opener = mac ? 'open' : 'xdg-open';
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(opener, [url], { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env });
    const timer = setTimeout(() => done({ ok: true, opener }), OPENER_WAIT_MS);
    const done = (r: Opened) => {
      clearTimeout(timer);
      child.stderr?.destroy();
      child.unref();
      resolve(r);
    };
    child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-OPENER_STDERR_CHARS)));
    child.once('error', (err: NodeJS.ErrnoException) =>
      done({ ok: false, why: err.code === 'ENOENT' ? `no browser opener: ${opener} is not installed` : `${opener} failed: ${err.message}` }),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) return done({ ok: true, opener });
      const last = stderr.trim().split('\n').at(-1);
      done({ ok: false, why: `${opener} failed (${signal ?? `exit status ${code}`})${last ? `: ${last}` : ''}` });
    });
  });
}

export const ui: Command = {
  name: 'ui',
  summary: 'open the browser UI signed in, and print its one-time link',
  details: ['The link works once, within 60 s. It signs the browser in as a person (human), or read-only with --viewer.'],
  flags: [
    { name: 'session', kind: 'string', value: 'ID', help: 'open this session', complete: 'session', field: '/session' },
    { name: 'viewer', kind: 'boolean', help: 'sign in read-only' },
    { name: 'print', kind: 'boolean', help: 'only print the link; open nothing' },
    { name: 'api-url', kind: 'string', value: 'URL', help: "the daemon's URL as the browser reaches it", default: 'http:// or https://ADDR of the daemon' },
    { name: 'token-file', kind: 'string', value: 'FILE', help: 'read the token from this file', complete: 'file' },
    { name: 'json', kind: 'boolean', help: 'print {url, expires_in_s, opened} as JSON' },
  ],
  examples: [
    'termhost ui',
    'termhost ui --session 3f9c2a1b',
    'termhost ui --viewer --print',
    'termhost ui --api-url http://build-box:7070 --token-file ~/.config/termhost/build-box.token',
  ],
  async run(parsed, io) {
    noMoreArgs(parsed, 0);
    const f = parsed.flags;
    const api = f['api-url'] !== undefined ? parseApiUrl(f['api-url'] as string) : undefined;
    if (api) f.addr = api.addr;
    if (f['token-file'] !== undefined) f.token = tokenFromFile(f['token-file'] as string, 'token-file', (w) => io.err(`termhost ui: ${w}`));
    return withClient(parsed, async (client) => {
      let base = api?.base;
      if (!base) {
        if (client.address.kind === 'unix') throw new UsageError('a browser cannot reach a unix socket; serve on TCP too, or give --api-url');
        const { httpBase } = await import('../../client/address.js');
        base = httpBase(client.address);
      }
      const minted = await client.mintUiLogin({
        as: f.viewer ? 'viewer' : 'human',
        ...(f.session !== undefined ? { session: f.session as string } : {}),
      });
      const url = `${base}${minted.login_path}`;
      // The link first: whatever the opener does next, the person has it.
      if (!f.json) io.out(`${url}\n`);
      const opened: Opened = f.print ? { ok: false, why: '' } : await openInBrowser(url);
      if (f.json) printJson(io, { url, expires_in_s: minted.expires_in_s, opened: opened.ok });
      if (opened.ok) io.err(`opened it in your browser with ${opened.opener}${f.viewer ? ' (read-only)' : ''}; the link above works once\n`);
      else io.err(`${opened.why ? `${opened.why}. ` : ''}Open the link within ${minted.expires_in_s} s; it works once\n`);
      return 0;
    });
  },
};
