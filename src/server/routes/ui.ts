/**
 * The browser UI's page and assets, served from the bundle that `npm run build` writes to dist/ui (ui/ holds the
 * source). Every page path gets the same HTML: the page rebuilds its view from its URL. Nothing here needs a
 * credential, and nothing here carries one: the page signs in with its cookie when it calls the API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { TermError } from '../../core/index.js';
import { sendError } from '../errors.js';
import { SessionIdParams } from '../../protocol/http.js';
import { errors } from './common.js';
import { VERSION } from '../../version.js';

/** From src/server/routes (tests) and dist/server/routes (the package) alike, the bundle is the package's dist/ui. */
export const UI_BUNDLE_DIR = fileURLToPath(new URL('../../../dist/ui/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * The page may load and connect to its own origin only; no framing (clickjacking), no plugins. Inline styles are
 * allowed because xterm.js writes its own <style> element.
 */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Read the whole bundle once: it is small, and a missing file is then known at start, not on a request. */
function loadBundle(dir: string): Map<string, Asset> {
  const out = new Map<string, Asset>();
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const name = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) walk(name);
      else if (TYPES[path.extname(entry.name)]) out.set(name, { body: fs.readFileSync(path.join(dir, name)), type: TYPES[path.extname(entry.name)]! });
    }
  };
  try {
    walk('');
  } catch {
    /* no bundle (a build without the UI): every UI path answers that it is missing */
  }
  return out;
}

/** The page itself (index.html), or undefined when the bundle was not built. */
export function readUiPage(dir: string = UI_BUNDLE_DIR): string | undefined {
  try {
    return fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  } catch {
    return undefined;
  }
}

export async function uiRoutes(app: FastifyInstance, opts: { dir?: string } = {}): Promise<void> {
  const bundle = loadBundle(opts.dir ?? UI_BUNDLE_DIR);
  const send = (reply: FastifyReply, name: string) => {
    const asset = bundle.get(name);
    if (!asset) {
      const missing = name === 'index.html' ? 'the UI bundle is missing; run `npm run build`' : `no UI asset "${name}"`;
      return sendError(reply, new TermError('not_found', missing));
    }
    return reply.headers(SECURITY_HEADERS).type(asset.type).send(asset.body);
  };
  // The page and its assets hold no data and need no credential (`security: []`); the API calls they make do.
  const html = { 200: { description: 'text/html: the UI page' }, ...errors(404) };
  // The daemon's root: a person who types the address into a browser wants the UI; a program gets JSON as ever.
  app.get(
    '/',
    {
      schema: {
        summary: 'A browser (Accept: text/html) is sent to /ui/; an API client gets where things are, or the usual 401',
        security: [],
        response: {
          200: Type.Object({ service: Type.Literal('termhost'), version: Type.String(), ui: Type.String(), openapi: Type.String(), health: Type.String() }),
          303: { description: 'to /ui/' },
          ...errors(),
        },
      },
    },
    async (req, reply) => {
      if (String(req.headers.accept ?? '').toLowerCase().includes('text/html')) return reply.code(303).header('location', '/ui/').send();
      if (!req.principal) {
        reply.header('www-authenticate', 'Bearer');
        throw new TermError('unauthorized', 'missing, wrong or revoked bearer token; send "Authorization: Bearer <token>" (see `termhost token`), or open /ui/ in a browser');
      }
      return { service: 'termhost' as const, version: VERSION, ui: '/ui/', openapi: '/openapi.json', health: '/health' };
    },
  );
  app.get('/ui', { schema: { summary: 'Redirect to /ui/', security: [], response: { 308: { description: 'to /ui/' }, ...errors() } } }, async (_req, reply) =>
    reply.code(308).header('location', '/ui/').send(),
  );
  app.get('/ui/', { schema: { summary: 'The browser UI: the session list', security: [], response: html } }, async (_req, reply) => send(reply, 'index.html'));
  app.get(
    '/ui/wall',
    {
      schema: {
        summary: 'The browser UI: a live picture of every session (?label=k=v, repeatable, as GET /v1/sessions)',
        security: [],
        response: html,
      },
    },
    async (_req, reply) => send(reply, 'index.html'),
  );
  app.get(
    '/ui/sessions/:id',
    { schema: { summary: 'The browser UI on one session (?role=viewer)', security: [], params: SessionIdParams, response: html } },
    async (_req, reply) => send(reply, 'index.html'),
  );
  app.get(
    '/ui/assets/:file',
    {
      schema: {
        summary: 'A bundled UI asset (script, style sheet)',
        security: [],
        params: Type.Object({ file: Type.String({ pattern: '^[A-Za-z0-9._-]{1,128}$' }) }),
        response: { 200: { description: 'the asset' }, ...errors(400, 404) },
      },
    },
    async (req, reply) => send(reply, `assets/${(req.params as { file: string }).file}`),
  );
}
