/**
 * Two agents share a daemon, each with an `own`-scoped token (issue 15 §1). The attack: agent B tries to learn about,
 * read or touch agent A's sessions (live and ended) through every registered route, by id, by name, and through the
 * request-target tricks that once skipped authentication (`#`, `;`, `%2F`, `//`, `/./`, detours). Every answer B gets
 * about A's session must be byte for byte the answer it gets about a session that never existed, and nothing B sends
 * may change A's session.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostClient } from '../../src/client/TermhostClient.js';
import { assertNoLeaks, startTestDaemon, type TestDaemon } from '../helpers.js';
import { rawHttp, type RawAnswer } from './rawHttp.js';
import { concrete, pool, variants } from './targets.js';

let d: TestDaemon;
let a: TermhostClient;
let bToken: string;
let live: string;
let ended: string;
/** Ids and a name that no session ever had, of the same length as A's (so lengths in answers match too). */
const NEVER_ID = 'w0000000';
const NEVER_NAME = 'zzzzz-build';
const A_NAME = 'alpha-build';
const LIVE_MARK = 'alivemark5521';
const ENDED_MARK = 'aendedmark6630';

before(async () => {
  d = await startTestDaemon();
  const ta = await d.client.createToken('agent-a', 'agent', { scope: 'own' });
  bToken = (await d.client.createToken('agent-b', 'agent', { scope: 'own' })).token;
  a = new TermhostClient({ address: d.address, token: ta.token });
  live = (await a.createSession({ command: ['sh', '-c', `sleep 120; echo ${LIVE_MARK}`], name: A_NAME })).id;
  const e = await a.createSession({ command: ['sh', '-c', `echo ${ENDED_MARK}`] });
  await a.wait(e.id, { exit: true, timeout_ms: 10_000 });
  await a.deleteSession(e.id);
  ended = e.id;
});
after(async () => {
  a.close();
  await d.stop();
  await assertNoLeaks();
});

/** What B is told, with the session reference it used replaced, and the headers that vary by time dropped. */
function shape(answer: RawAnswer, ref: string): string {
  const headers = Object.entries(answer.headers)
    .filter(([k]) => !['date', 'keep-alive', 'request-id', 'x-request-id'].includes(k))
    .sort()
    .map(([k, v]) => `${k}: ${v}`);
  // A stream still open at the deadline is compared by what it said first (heartbeats depend on timing).
  const body = answer.timedOut ? answer.body.split('\n\n')[0]! : answer.body;
  return `${answer.status}${answer.timedOut ? ' (open)' : ''}\n${headers.join('\n')}\n\n${body}`.split(ref).join('<REF>');
}

async function ask(method: string, target: string): Promise<RawAnswer> {
  const body = method === 'POST' || method === 'PUT' ? '{}' : '';
  const head = `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${bToken}${body ? '\r\nContent-Type: application/json' : ''}`;
  return rawHttp(d.address, head, body, 1500);
}

test("every route answers B about A's sessions exactly as about a session that never existed, whatever the target", async () => {
  const routes = d.app.registeredRoutes.filter((r) => r.url.includes(':id'));
  assert.ok(routes.length >= 18, `expected every session route, got ${routes.length}`);
  const tries: Array<{ method: string; route: string; mine: string; never: string; ref: string; neverRef: string }> = [];
  for (const r of routes) {
    const methods = r.method === 'GET' ? ['GET', 'HEAD'] : [r.method];
    for (const method of methods) {
      for (const [ref, neverRef] of [[live, NEVER_ID], [ended, NEVER_ID], [A_NAME, NEVER_NAME]] as const) {
        const mine = variants(concrete(r.url, ref), ref);
        const never = variants(concrete(r.url, neverRef), neverRef);
        // By name, the plain path only: the tricks are the same for any reference.
        const count = ref === A_NAME ? 1 : mine.length;
        for (let i = 0; i < count; i++) tries.push({ method, route: `${r.method} ${r.url}`, mine: mine[i]!, never: never[i]!, ref, neverRef });
      }
    }
  }
  // One more surface names sessions in its query: the event stream.
  for (const [ref, neverRef] of [[live, NEVER_ID], [A_NAME, NEVER_NAME]] as const) {
    tries.push({ method: 'GET', route: 'GET /v1/events', mine: `/v1/events?session=${ref}`, never: `/v1/events?session=${neverRef}`, ref, neverRef });
  }
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  await pool(tries, 8, async (t) => {
    const [got, baseline] = await Promise.all([ask(t.method, t.mine), ask(t.method, t.never)]);
    statuses.set(got.status, (statuses.get(got.status) ?? 0) + 1);
    const where = `${t.method} ${t.mine} (route ${t.route}) -> ${got.status}`;
    for (const mark of [LIVE_MARK, ENDED_MARK, '"pid"', '"command"']) if (got.body.includes(mark)) failures.push(`${where}: leaks ${mark}`);
    // The event stream answers 200 for any filter, and the UI's page is the same static page for any id.
    const alwaysOk = t.route === 'GET /v1/events' || t.route === 'GET /ui/sessions/:id';
    if (got.status >= 200 && got.status < 300 && !alwaysOk) failures.push(`${where}: a success about A's session`);
    const [x, y] = [shape(got, t.ref), shape(baseline, t.neverRef)];
    if (x !== y) failures.push(`${where}: differs from a never-used reference:\n${x}\n--- vs ---\n${y}`);
  });
  console.log(`# scope-isolation: ${tries.length} request pairs over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} answers told B something`);
  // Nothing B sent changed A's session: it runs, its size and record are as A left them.
  const info = await a.getSession(live);
  assert.deepEqual([info.exited, info.cols, info.rows], [false, 80, 24]);
  assert.ok((await a.listAllSessions()).some((s) => s.id === ended), "A's ended record is still there");
});

test("B guessing ids learns nothing: A's ids and random ones get the same 404, and B's lists stay empty", async () => {
  const b = new TermhostClient({ address: d.address, token: bToken });
  try {
    assert.deepEqual(await b.listAllSessions(), []);
    const answers = new Set<string>();
    for (const id of [live, ended, NEVER_ID, 'b1234567', live.toUpperCase(), `${live}x`, live.slice(0, 7)]) {
      const r = await ask('GET', `/v1/sessions/${id}`);
      answers.add(`${r.status} ${r.body.split(id).join('<REF>')}`);
    }
    assert.equal(answers.size, 1, [...answers].join('\n'));
    assert.match([...answers][0]!, /^404 .*"code":"session_not_found"/);
  } finally {
    b.close();
  }
});
