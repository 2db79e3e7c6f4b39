/**
 * The curl quickstart as the README prints it (issue 13 item 1): `curl -d` sends a form content type, and with a
 * bearer token the body is read as JSON anyway; `curl --json` and a body with no Content-Type work too. The real
 * curl binary, through a shell, with `H` set as the README sets it. A browser's cookie still needs application/json.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { assertNoLeaks, BIN, rawRequest, ROOT, startTestDaemon, waitRegex, type TestDaemon } from './helpers.js';

const run = promisify(execFile);
let d: TestDaemon;
let port: string;
before(async () => {
  d = await startTestDaemon();
  port = d.address.split(':')[1]!;
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/** One README line, with the daemon's port for 7070, run by bash with TOKEN and H as the README sets them. */
async function sh(line: string): Promise<string> {
  const script = `H="Authorization: Bearer $TOKEN"\n${line.replaceAll('localhost:7070', `localhost:${port}`)}`;
  const { stdout } = await run('bash', ['-c', script], { env: { ...process.env, TOKEN: d.token }, timeout: 15_000 });
  return stdout;
}

test('the README curl quickstart works as printed: -d, no Content-Type, and --json', async () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
  const line = (prefix: string) => {
    const at = readme.findIndex((l) => l.startsWith(prefix));
    assert.ok(at >= 0, `the README has a line starting ${prefix}`);
    return readme[at]!.endsWith('\\') ? `${readme[at]}\n${readme[at + 1]}` : readme[at]!;
  };
  const created = JSON.parse(await sh(line('curl -s -H "$H" -XPOST localhost:7070/v1/sessions -d '))) as Record<string, unknown>;
  assert.equal(typeof created.id, 'string', JSON.stringify(created));
  assert.deepEqual([created.command, created.cols, created.rows], [['bash'], 100, 30]);
  const id = String(created.id);
  const input = line('curl -s -H "$H" -XPOST localhost:7070/v1/sessions/3f9c2a1b/input');
  assert.match(input, /-d '\{"input"/);
  const typed = JSON.parse(await sh(input.replace('3f9c2a1b', id).replace('ls -la', 'echo via-form'))) as Record<string, unknown>;
  assert.equal(typed.code, undefined, JSON.stringify(typed));
  await waitRegex(d, id, '^via-form$', 10_000); // the output line, not the echo of the typed command
  // The README's curl --json line (Content-Type and Accept application/json), with its command changed to be seen.
  await sh(line('curl -s -H "$H" --json ').replace('"pwd"', '"echo via-json"').replace('3f9c2a1b', id));
  await waitRegex(d, id, '^via-json$', 10_000);
  // `-H 'Content-Type:'` makes curl send none at all.
  await sh(`curl -s -H "$H" -H 'Content-Type:' -XPOST localhost:7070/v1/sessions/${id}/input -d '{"input":[{"text":"echo no-type"},{"key":"Enter"}]}'`);
  await waitRegex(d, id, '^no-type$', 10_000);
  const screen = JSON.parse(await sh(`curl -s -H "$H" localhost:7070/v1/sessions/${id}/screen`)) as { lines: string[] };
  assert.ok(screen.lines.some((l) => l.trimEnd() === 'via-json'), screen.lines.join('\n'));
  // Bad JSON in a form body is still a JSON error, not a confusing schema one.
  const bad = JSON.parse(await sh(`curl -s -H "$H" -XPOST localhost:7070/v1/sessions -d 'command=bash'`)) as Record<string, unknown>;
  assert.equal(bad.code, 'invalid_json');
  assert.equal(await sh(`curl -s -o /dev/null -w '%{http_code}' -H "$H" -XDELETE localhost:7070/v1/sessions/${id}`), '204');
});

test('other Content-Types are refused with a message that says how to send JSON', async () => {
  for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
    const r = await rawRequest(d.address, { method: 'POST', path: '/v1/sessions', headers: { authorization: `Bearer ${d.token}`, 'content-type': type }, body: '{"command":["true"]}' });
    assert.equal(r.status, 400, type);
    assert.equal(r.json.code, 'invalid_request');
    assert.match(r.json.error, /application\/json.*curl --json/);
  }
});

test('a signed-in browser (cookie) still needs application/json: a form post is refused even from our own Origin', async () => {
  const minted = await d.client.mintUiLogin({});
  const login = await rawRequest(d.address, { path: minted.login_path, headers: { host: d.address } });
  const cookie = String(login.headers['set-cookie']).split(';')[0]!;
  const headers = { host: d.address, cookie, origin: `http://${d.address}`, ...uiKeyHeader(login.text) };
  for (const type of ['application/x-www-form-urlencoded', 'text/plain', undefined]) {
    const r = await rawRequest(d.address, { method: 'POST', path: '/v1/sessions', headers: type ? { ...headers, 'content-type': type } : headers, body: '{"command":["true"]}' });
    assert.equal(r.status, 400, `${type}: ${r.text}`);
    assert.match(r.json.error, /a signed-in browser must/);
  }
  const ok = await rawRequest(d.address, { method: 'POST', path: '/v1/sessions', headers: { ...headers, 'content-type': 'application/json' }, body: '{"command":["true"]}' });
  assert.equal(ok.status, 201, ok.text);
});

/** The UI key a sign-in page carries, as the header the page's script sends (none before the cookie was bound). */
function uiKeyHeader(page: string): Record<string, string> {
  const key = /name="termhost-ui-key" content="([^"]+)"/.exec(page)?.[1];
  return key ? { 'x-termhost-ui-key': key } : {};
}

/** The quickstart's shell block, with continued lines joined: what a reader copies. */
function quickstartLines(): string[] {
  const md = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = md.indexOf('```sh\n', md.indexOf('## Quickstart with curl'));
  const block = md.slice(start + 6, md.indexOf('```', start + 6));
  return block.replace(/\\\n\s*/g, ' ').split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
}

test('every line of the README curl quickstart runs in order, as printed, and does what its comment says', async () => {
  // A daemon whose state dir is where `npx termhost token` looks, so the first line finds its token by itself.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-readme-'));
  const own = await startTestDaemon({ stateDir: path.join(home, 'termhost') });
  const ownPort = own.address.split(':')[1]!;
  try {
    const lines = quickstartLines();
    assert.match(lines[0]!, /^TOKEN=\$\(npx termhost token\)/);
    const env = { ...process.env, XDG_STATE_HOME: home };
    // The test daemon was given its token; a daemon that generates one keeps it in the state dir, where the line reads it.
    fs.writeFileSync(path.join(home, 'termhost', 'token'), `${own.token}\n`, { mode: 0o600 });
    // `npx termhost` is this package's CLI, as in a project that depends on termhost. Not npx itself: in the package's
    // own directory, npx installs that directory as a package, which runs its prepare script (a rebuild that removes
    // dist/ while other test files are using it).
    const first = lines[0]!.replace(/npx termhost/g, `node ${BIN}`);
    const token = (
      await run('bash', ['-c', `${first}\necho "$TOKEN"`], { cwd: ROOT, env, timeout: 60_000 }).catch((err: { stderr?: string; message: string }) =>
        assert.fail(`${lines[0]}: ${err.stderr ?? err.message}`),
      )
    ).stdout.trim();
    assert.equal(token, own.token, 'npx termhost token printed the daemon\'s token');
    let id = '3f9c2a1b';
    const outputs: string[] = [];
    // Each line runs in its own shell, after the block's assignments (TOKEN, H) as a reader's shell would hold them.
    let prelude = `TOKEN=${token}`;
    for (const line of lines.slice(1)) {
      if (/^[A-Z_]+=/.test(line)) {
        prelude += `\n${line}`;
        outputs.push('');
        continue;
      }
      const script = `${prelude}\n${line.replaceAll('localhost:7070', `localhost:${ownPort}`).replaceAll('3f9c2a1b', id)}`;
      const out = (await run('bash', ['-c', script], { cwd: ROOT, env, timeout: 15_000 })).stdout;
      outputs.push(out);
      if (line.includes('-XPOST localhost:7070/v1/sessions -d')) id = String((JSON.parse(out) as { id: string }).id);
    }
    const byRoute = (part: string) => outputs[lines.slice(1).findIndex((l) => l.includes(part))]!;
    const typed = byRoute('/input');
    assert.equal((JSON.parse(typed) as { written: number }).written, 2, typed);
    assert.equal((JSON.parse(byRoute('/wait')) as { matched: boolean }).matched, true, 'the prompt regex matched (after the input, for root too)');
    assert.ok((JSON.parse(byRoute('/screen')) as { lines: string[] }).lines.length > 0);
    const ran = JSON.parse(byRoute('/commands')) as { status: string; exit_code: number; output: string };
    assert.deepEqual([ran.status, ran.exit_code], ['exited', 0], 'the command ran in one call');
    assert.match(ran.output, /^\d+\n$/);
    assert.equal((JSON.parse(byRoute('/mouse')) as { code: string }).code, 'mouse_not_enabled', 'bash has no mouse tracking: 409 with the modes');
    assert.equal(byRoute('-XDELETE'), '');
    assert.ok(!(await own.client.listSessions()).some((s) => s.id === id && !s.exited), 'the session ended');
  } finally {
    await own.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
});
