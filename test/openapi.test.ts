/**
 * /openapi.json documents every registered route, and real answers validate against the schemas it declares.
 * /schemas/index.json lists the wire types, and real screens, frames and events validate against them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import { assertNoLeaks, rawRequest, startTestDaemon, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let doc: any;
before(async () => {
  d = await startTestDaemon();
  doc = await d.client.openapi();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
const openapiPath = (url: string) => url.replace(/:([a-z_]+)/g, '{$1}');

test('every registered route is in /openapi.json, with responses and error codes', () => {
  assert.equal(doc.openapi, '3.1.0');
  const routes = d.app.registeredRoutes;
  assert.ok(routes.length >= 25, `found ${routes.length} routes`);
  for (const { method, url } of routes) {
    const op = doc.paths[openapiPath(url)]?.[method.toLowerCase()];
    assert.ok(op, `${method} ${url} is missing from /openapi.json`);
    assert.ok(op.summary, `${method} ${url} has a summary`);
    const statuses = Object.keys(op.responses ?? {});
    assert.ok(statuses.some((s) => /^[123]/.test(s)), `${method} ${url} declares its success response`);
    // Routes that need no credential say so with `security: []`; every other one declares its 401.
    const isPublic = Array.isArray(op.security) && op.security.length === 0;
    if (!isPublic) {
      assert.ok(statuses.includes('401'), `${method} ${url} declares 401`);
      assert.match(op.responses['401'].description, /unauthorized/);
    }
  }
  const publicRoutes = routes.filter(({ method, url }) => doc.paths[openapiPath(url)][method.toLowerCase()].security?.length === 0).map((r) => r.url);
  assert.deepEqual(publicRoutes.sort(), ['/', '/health', '/ui', '/ui/', '/ui/assets/:file', '/ui/login', '/ui/logout', '/ui/me', '/ui/sessions/:id', '/ui/wall'], 'the public routes are exactly these');
  // Bodies are documented where routes take one.
  assert.ok(doc.paths['/v1/sessions'].post.requestBody);
  assert.ok(doc.paths['/v1/sessions/{id}/input'].post.requestBody.content['application/json'].schema.properties.input);
  assert.match(doc.paths['/v1/sessions/{id}/input'].post.responses['409'].description, /input_queue_full/);
  assert.match(doc.paths['/v1/sessions/{id}/screen'].get.responses['423'].description, /secret_input_active/);
});

function schemaFor(method: string, template: string, status: number): object {
  const op = doc.paths[template]?.[method.toLowerCase()];
  assert.ok(op, `${method} ${template} documented`);
  const res = op.responses[String(status)];
  assert.ok(res, `${method} ${template} declares status ${status} (declared: ${Object.keys(op.responses)})`);
  const schema = res.content?.['application/json']?.schema;
  assert.ok(schema, `${method} ${template} ${status} has a JSON schema`);
  return schema;
}

async function check(method: string, template: string, path: string, expectStatus: number, body?: unknown, headers: Record<string, string> = {}) {
  const r = await rawRequest(d.address, {
    method,
    path,
    headers: { authorization: `Bearer ${d.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.equal(r.status, expectStatus, `${method} ${path}: ${r.text}`);
  if (r.status === 204) return r;
  const validate = ajv.compile(schemaFor(method, template, r.status));
  assert.ok(validate(r.json), `${method} ${path} ${r.status} does not match its schema: ${ajv.errorsText(validate.errors)}\n${r.text.slice(0, 500)}`);
  return r;
}

test('real answers of every JSON route validate against their declared schemas', async () => {
  const S = '/v1/sessions/{id}';
  await check('GET', '/health', '/health', 200);
  const created = await check('POST', '/v1/sessions', '/v1/sessions', 201, { command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, labels: { t: 'openapi' } });
  const id = created.json.id as string;
  await waitText(d, id, '$');
  const p = `/v1/sessions/${id}`;
  await check('GET', '/v1/sessions', '/v1/sessions?label=t=openapi', 200);
  await check('GET', S, p, 200);
  await check('POST', `${S}/input`, `${p}/input`, 200, { input: [{ text: 'echo hi' }, { key: 'Enter' }] });
  const w = await check('POST', `${S}/wait`, `${p}/wait`, 200, { regex: '^hi$', timeout_ms: 5000 });
  await check('GET', `${S}/screen`, `${p}/screen`, 200);
  await check('GET', `${S}/screen`, `${p}/screen?format=raw&highlights=true`, 200);
  const changes = await check('GET', `${S}/screen`, `${p}/screen?since_seq=${w.json.screen.seq}`, 200);
  assert.equal(changes.json.changed, false, 'the union answer keeps its ScreenChanges fields');
  await check('GET', `${S}/scrollback`, `${p}/scrollback?lines=5`, 200);
  await check('POST', `${S}/mouse`, `${p}/mouse`, 409, { type: 'click', button: 'left', x: 1, y: 1 });
  await check('POST', `${S}/resize`, `${p}/resize`, 200, { cols: 90, rows: 30 });
  await check('POST', `${S}/signal`, `${p}/signal`, 200, { signal: 'USR1' });
  const lease = await check('POST', `${S}/leases`, `${p}/leases`, 200, { mode: 'exclusive', ttl_ms: 5000 });
  await check('GET', `${S}/leases`, `${p}/leases`, 200);
  await check('DELETE', `${S}/leases/{lease_id}`, `${p}/leases/${lease.json.lease_id}`, 204);
  await check('GET', `${S}/secret-input`, `${p}/secret-input`, 200);
  await check('POST', `${S}/attach-tokens`, `${p}/attach-tokens`, 201, { role: 'viewer' });
  await check('POST', `${S}/banner`, `${p}/banner`, 200, { message: 'hello' });
  await check('POST', `${S}/secret-input/actions`, `${p}/secret-input/actions`, 200, { action: 'start', reason: 'openapi' });
  await check('GET', `${S}/screen`, `${p}/screen`, 423);
  await check('GET', `${S}/transcript`, `${p}/transcript`, 200);
  await check('POST', '/v1/tokens', '/v1/tokens', 201, { name: 'openapi-viewer', role: 'viewer' });
  await check('GET', '/v1/tokens', '/v1/tokens', 200);
  await check('DELETE', '/v1/tokens/{name}', '/v1/tokens/openapi-viewer', 204);
  await check('GET', '/schemas/index.json', '/schemas/index.json', 200);
  await check('GET', '/schemas/{name}.json', '/schemas/screen.json', 200);
  await check('GET', '/schemas/{name}.json', '/schemas/nope.json', 404);
  // Errors validate too: bad input, unknown session, no token.
  await check('POST', `${S}/input`, `${p}/input`, 400, { input: [{ key: 'Hyper-Q' }] });
  await check('GET', S, '/v1/sessions/nosuch', 404);
  await check('GET', '/v1/sessions', '/v1/sessions', 401, undefined, { authorization: 'Bearer wrong' });
  await check('DELETE', S, p, 204);
});

test('/schemas/index.json lists screen, frames and events, and real ones validate', async () => {
  const index = await d.client.schemaIndex();
  const names = index.schemas.map((s) => s.name);
  for (const n of ['screen', 'screen-changes', 'client-frame', 'server-frame', 'event', 'error']) assert.ok(names.includes(n), `${n} listed`);
  const v2020 = new Ajv2020({ strict: false, validateFormats: false });
  const load = async (name: string) => v2020.compile(await d.client.schema(name));
  const [screenV, eventV, serverFrameV, clientFrameV] = await Promise.all(['screen', 'event', 'server-frame', 'client-frame'].map(load));

  const events = d.client.events({ lastEventId: 0 });
  const info = await d.client.createSession({ command: ['sh', '-c', 'echo framed; exit 4'] });
  const attach = await d.client.attach(info.id);
  const frames: unknown[] = [];
  for await (const f of attach) {
    if (f.kind === 'closed') break;
    if (!('data' in f)) frames.push(f);
    if (f.kind === 'exit') attach.close();
  }
  assert.ok(frames.length >= 2, 'hello and exit at least');
  for (const f of frames) assert.ok(serverFrameV(f), `server frame ${JSON.stringify(f)}: ${JSON.stringify(serverFrameV.errors)}`);
  assert.ok(clientFrameV({ kind: 'auth', token: 'x', role: 'viewer' }));
  assert.ok(!clientFrameV({ kind: 'auth', role: 'owner' }), 'an unknown role is refused');

  const screen = await d.client.screen(info.id);
  assert.ok(screenV(screen), JSON.stringify(screenV.errors));
  const seen: string[] = [];
  for await (const e of events) {
    assert.ok(eventV(e), `event ${JSON.stringify(e)}: ${JSON.stringify(eventV.errors)}`);
    if (e.session_id !== info.id) continue;
    seen.push(e.type);
    if (e.type === 'process_exited') break;
  }
  assert.ok(seen.includes('session_opened') && seen.includes('process_exited'), seen.join(','));
  assert.ok(!eventV({ type: 'process_exited', id: 1, session_id: null, at: 'x' }), 'missing fields are refused');
  await d.client.deleteSession(info.id);
});
