/**
 * Random JSON for every route: whatever a client sends, the daemon answers with a stable code from the catalogue and
 * the status that code has, never a 500. Bodies go to every POST route, query strings to every GET and DELETE route,
 * with the path's ids filled in with a live session (and sometimes with nonsense).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { ERROR_CATALOGUE, INPUT_STATUS, isErrorCode } from '../../src/protocol/errors.js';
import { assertNoLeaks, startTestDaemon, type TestDaemon } from '../helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/** Routes with their own protocols (MCP JSON-RPC, the attach WebSocket, HTML pages) answer in their own shapes; the event stream never ends (its bad queries are covered by test/events.test.ts). */
const OWN_PROTOCOL = /^\/(mcp|ui)\b|\/attach$|^\/$|^\/v1\/events$/;

async function liveSession(): Promise<string> {
  const live = (await d.client.listSessions()).find((s) => !s.exited);
  return live ? live.id : (await d.client.createSession({ command: ['sleep', '600'] })).id;
}

function checkAnswer(what: string, status: number, text: string): void {
  assert.notEqual(status, 500, `${what} answered 500: ${text.slice(0, 300)}`);
  if (status < 400) return;
  let body: { code?: unknown; error?: unknown; retryable?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    return assert.fail(`${what} answered ${status} without a JSON error: ${text.slice(0, 200)}`);
  }
  assert.ok(typeof body.code === 'string' && isErrorCode(body.code), `${what}: unknown code ${String(body.code)}`);
  const code = body.code as keyof typeof ERROR_CATALOGUE;
  const statuses = [ERROR_CATALOGUE[code].status, INPUT_STATUS[code]].filter((x) => x !== undefined);
  // 408 comes from Node's own request timeout, never here; 413 and 404 have their codes.
  assert.ok(statuses.includes(status), `${what}: ${code} came with ${status}, the catalogue says ${statuses.join(' or ')}`);
  assert.equal(typeof body.error, 'string', `${what}: the error has no message`);
  assert.equal(typeof body.retryable, 'boolean', `${what}: the error says nothing of retrying`);
}

const segment = fc.oneof(fc.constant('ID'), fc.constant('nosuch1'), fc.string({ maxLength: 12 }).map(encodeURIComponent));

test('random JSON bodies to every POST route and random queries to every GET and DELETE route: never a 500, always a stable code', async () => {
  const routes = d.app.registeredRoutes.filter((r) => !OWN_PROTOCOL.test(r.url) && ['GET', 'POST', 'DELETE'].includes(r.method));
  assert.ok(routes.length > 20, `only ${routes.length} routes`);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...routes),
      fc.array(segment, { minLength: 2, maxLength: 2 }),
      fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.object({ maxDepth: 2 }), fc.constant(undefined)),
      fc.dictionary(fc.constantFrom('since_seq', 'wait_ms', 'lines', 'format', 'label', 'signal', 'purge', 'session', 'include', 'limit', 'from_seq', 'x'), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
      async (route, [first, second], body, query) => {
        const id = await liveSession();
        const fill = (s: string) => (s === 'ID' ? id : s);
        const path = route.url.replace(/:id\b/, fill(first!)).replace(/:[a-z_]+/g, fill(second!));
        const qs = new URLSearchParams(query).toString();
        const url = `${d.url}${path}${route.method !== 'POST' && qs ? `?${qs}` : ''}`;
        const headers: Record<string, string> = { authorization: `Bearer ${d.token}` };
        let payload: string | undefined;
        if (route.method === 'POST' && body !== undefined) {
          payload = JSON.stringify(body);
          headers['content-type'] = 'application/json';
        }
        // Waits and long polls would hold each run for their timeout: keep them short.
        if (route.url.endsWith('/wait') && payload && typeof body === 'object' && body && !Array.isArray(body)) {
          payload = JSON.stringify({ ...(body as object), timeout_ms: 50 });
        }
        const res = await fetch(url, { method: route.method, headers, body: payload, signal: AbortSignal.timeout(70_000) });
        checkAnswer(`${route.method} ${path} ${payload ?? ''}`.slice(0, 200), res.status, await res.text());
      },
    ),
    { numRuns: 200 },
  );
  // The daemon is still whole.
  assert.equal((await fetch(`${d.url}/health`)).status, 200);
  for (const s of await d.client.listSessions()) await d.client.deleteSession(s.id, 'KILL').catch(() => {});
});
