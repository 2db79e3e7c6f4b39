/**
 * Authentication is decided on the route the router matched, never on the raw request target (issue 12 §2).
 * The attack: `GET /v1/sessions/ID#/attach` looked like the self-authenticating attach path to the auth hook, while
 * the router ended the path at `#` and served the session's info to a caller with no token. Every registered route is
 * tried with that trick and its cousins, over a bare socket so the exact bytes reach the daemon.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertNoLeaks, startTestDaemon, type TestDaemon } from '../helpers.js';
import { rawHttp, type RawAnswer } from './rawHttp.js';
import { concrete, pool, variants } from './targets.js';

let d: TestDaemon;
let live: string;
let ended: string;
/** Text that appears only in the sessions' command lines: any answer carrying it leaks session info. */
const LIVE_MARK = 'livemark7431';
const ENDED_MARK = 'endedmark9052';

before(async () => {
  d = await startTestDaemon();
  live = (await d.client.createSession({ command: ['sh', '-c', `sleep 60; echo ${LIVE_MARK}`] })).id;
  const e = await d.client.createSession({ command: ['sh', '-c', `echo ${ENDED_MARK}`] });
  await d.client.wait(e.id, { exit: true, timeout_ms: 10_000 });
  await d.client.deleteSession(e.id);
  ended = e.id;
  await d.client.createToken('victim', 'agent');
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/** Routes that answer without a credential by design: liveness, the UI's page and assets, and its sign-in. */
const PUBLIC = new Set(['GET /', 'GET /health', 'GET /ui', 'GET /ui/', 'GET /ui/sessions/:id', 'GET /ui/wall', 'GET /ui/assets/:file', 'GET /ui/login', 'GET /ui/me', 'POST /ui/logout']);

test('no route answers anything but 400, 401 or 404 to a caller without a token, whatever the request target', async () => {
  const routes = d.app.registeredRoutes;
  assert.ok(routes.length >= 35, `expected every route, got ${routes.length}`);
  const tries: Array<{ method: string; route: string; target: string }> = [];
  for (const r of routes) {
    for (const id of r.url.includes(':id') ? [live, ended] : [live]) {
      const methods = r.method === 'GET' ? ['GET', 'HEAD'] : [r.method];
      for (const method of methods) for (const t of variants(concrete(r.url, id), id)) tries.push({ method, route: `${r.method} ${r.url}`, target: t });
    }
  }
  const failures: string[] = [];
  const seen = new Map<number, number>();
  await pool(tries, 16, async ({ method, route, target }) => {
    const body = method === 'POST' ? '{}' : '';
    const head = `${method} ${target} HTTP/1.1\r\nHost: localhost${body ? '\r\nContent-Type: application/json' : ''}`;
    const a: RawAnswer = await rawHttp(d.address, head, body);
    seen.set(a.status, (seen.get(a.status) ?? 0) + 1);
    const where = `${method} ${target} (route ${route}) -> ${a.status}${a.timedOut ? ' (still open)' : ''}`;
    // The UI's script names these fields too; a JSON answer carrying them is a session's info.
    const json = (a.headers['content-type'] ?? '').includes('json');
    for (const mark of [LIVE_MARK, ENDED_MARK, ...(json ? ['"pid"', '"command"'] : [])]) if (a.body.includes(mark)) failures.push(`${where}: leaks ${mark}`);
    if (target.includes('#')) {
      if (a.status !== 400 || (method !== 'HEAD' && !a.body.includes('"invalid_request"'))) failures.push(`${where}: a target with # must be a 400 invalid_request`);
      return;
    }
    if (PUBLIC.has(route) && target === concrete(route.split(' ')[1]!, target.includes(ended) ? ended : live)) return;
    if (a.timedOut || ![400, 401, 404].includes(a.status)) {
      // A public route reached through a variant may answer as itself (the page, /health); nothing else may.
      const publicAnswer = a.status === 200 && (a.body.includes('"ok":true') || a.body.includes('<!doctype html') || a.body.includes('<!DOCTYPE html'));
      if (!publicAnswer) failures.push(where);
    }
  });
  console.log(`# route-auth: ${tries.length} requests over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries(seen))}`);
  assert.deepEqual(failures, [], `answers without a token (statuses seen: ${JSON.stringify(Object.fromEntries(seen))})`);
  // Nothing was changed either: the session runs, the token lives.
  assert.equal((await d.client.getSession(live)).exited, false);
  assert.ok((await d.client.listTokens()).some((t) => t.name === 'victim'));
});

test('a request target with # is refused with 400 invalid_request, even with a valid token', async () => {
  const a = await rawHttp(d.address, `GET /v1/sessions/${live}#/attach HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${d.token}`);
  assert.equal(a.status, 400);
  const body = JSON.parse(a.body) as { code: string; error: string; retryable: boolean };
  assert.deepEqual([body.code, body.retryable], ['invalid_request', false]);
  assert.match(body.error, /#/);
  assert.match(body.error, /%23/);
});
