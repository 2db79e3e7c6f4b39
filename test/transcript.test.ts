/**
 * Session records and transcripts: redacted before storage, surviving the daemon, retention-capped, paged exactly,
 * exported as asciicast, and purged on request.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { Runtime, SYSTEM_ACTOR } from '../src/core/index.js';
import { Store } from '../src/store/Store.js';
import { assertNoLeaks, attachTo, databaseBytes, endSecretWindow, nextMatching, ROOT, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ transcriptBatchMs: 100 });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

type Page = { session_id: string; chunks: Array<{ seq: number; text: string; at: string }>; last_seq: number | null; next_seq: number; has_more: boolean; total: number };
const page = (c: TermhostClient, id: string, q = '') => c.request<Page>('GET', `/v1/sessions/${id}/transcript${q}`);

async function fullText(c: TermhostClient, id: string, limit = 500): Promise<{ text: string; pages: number; next: number }> {
  let from = 0;
  let text = '';
  let pages = 0;
  for (;;) {
    const p = await page(c, id, `?from_seq=${from}&limit=${limit}`);
    pages++;
    for (const ch of p.chunks) text += ch.text;
    if (p.last_seq !== null) assert.equal(p.next_seq, p.last_seq + 1);
    if (!p.has_more) return { text, pages, next: p.next_seq };
    from = p.last_seq! + 1;
  }
}

test('paging reconstructs a redaction-free session byte for byte, ANSI included', async () => {
  const code = "import sys\nfor i in range(3000):\n    sys.stdout.write('\\x1b[3%dmline %05d \\x1b[1mbold\\x1b[0m é€ tail\\n' % (i % 8, i))\nsys.stdout.flush()";
  const s = await d.client.createSession({ command: ['python3', '-c', code], cols: 120, rows: 30 });
  const done = await d.client.wait(s.id, { exit: true, timeout_ms: 20000 });
  assert.ok(done.matched);
  const want = Array.from({ length: 3000 }, (_, i) => `\x1b[3${i % 8}mline ${String(i).padStart(5, '0')} \x1b[1mbold\x1b[0m é€ tail\r\n`).join('');
  const got = await fullText(d.client, s.id, 2);
  assert.ok(got.pages > 1, 'several pages');
  assert.equal(got.text, want);
  assert.equal(got.next, Buffer.byteLength(want), 'positions are byte offsets of the output stream');
  const first = await page(d.client, s.id, '?limit=5');
  assert.equal(first.chunks.length <= 5, true);
  assert.ok(first.total >= first.chunks.length);
  await d.client.deleteSession(s.id);
});

test('secrets are redacted before they reach the database, split and colour-wrapped ones too', async () => {
  const gh = 'ghp_' + 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx';
  // The secret comes from the environment, so the echo of the command line does not contain it.
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ', REST: gh.slice(4) } });
  await d.client.input(s.id, [{ text: `printf 'token ghp_\\033[31m%s\\033[0m\\n' "$REST"; export DEPLOY_TOKEN=hunter2deploy; echo marker-$((40+2))` }, { key: 'Enter' }]);
  await waitText(d, s.id, 'marker-42');
  await d.client.input(s.id, [{ text: 'echo https://bob:pa55w0rd@host.example/x; exit' }, { key: 'Enter' }]);
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  const { text } = await fullText(d.client, s.id);
  assert.ok(text.includes('ghp_'), 'the identifying prefix stays');
  assert.ok(text.includes('DEPLOY_TOKEN=[redacted secret]'));
  assert.ok(text.includes('https://bob:[redacted secret]@host.example'));
  for (const secret of [gh.slice(4, 24), 'hunter2deploy', 'pa55w0rd']) assert.ok(!text.includes(secret), `${secret} stored`);
  await d.store.flush();
  const bytes = databaseBytes(d.stateDir);
  for (const secret of [gh.slice(4, 24), 'hunter2deploy', 'pa55w0rd']) assert.ok(!bytes.includes(secret), `${secret} in termhost.db`);
  await d.client.deleteSession(s.id);
});

test("a secret-input window's bytes never reach the database file", async () => {
  const code = "import time\ns=input('Secret word: ')\nprint('\\x1b[2J\\x1b[Hdone %d' % len(s), flush=True)\ntime.sleep(60)";
  const s = await d.client.createSession({ command: ['python3', '-c', code] });
  await waitText(d, s.id, 'Secret word:');
  await d.client.secretAction(s.id, 'start', 'test');
  const conn = attachTo(d, s.id, { bearer: d.token, role: 'driver' });
  await nextMatching(conn, 'hello');
  const before = (d.manager.get(s.id, SYSTEM_ACTOR) as { value: { seq: number } }).value.seq;
  conn.sendStdin('zebra-crossing-42\r');
  await until('the echo', () => (d.manager.get(s.id, SYSTEM_ACTOR) as { value: { seq: number } }).value.seq > before);
  await endSecretWindow(d.client, s.id);
  await waitText(d, s.id, 'done 17');
  conn.close();
  await d.client.deleteSession(s.id, 'KILL');
  await d.store.flush();
  const { text } = await fullText(d.client, s.id);
  assert.ok(text.includes('Secret word:'));
  assert.ok(!text.includes('zebra'));
  assert.ok(!databaseBytes(d.stateDir).includes('zebra-crossing'), 'in termhost.db');
});

test('records outlive the session: live:false, listed with include=ended, purge removes everything', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo recorded; exit 4'], labels: { job: 'rec' } });
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  await d.client.deleteSession(s.id);
  const rec = (await d.client.getSession(s.id)) as unknown as Record<string, unknown>;
  assert.equal(rec.live, false);
  assert.deepEqual([rec.exit_code, rec.exit_reason, rec.created_by], [4, 'completed', { name: 'admin', kind: 'admin' }]);
  assert.ok((rec.last_seq as number) > 0);
  assert.ok(!(await d.client.listSessions()).some((x) => x.id === s.id), 'not listed without include=ended');
  const all = await d.client.request<{ sessions: Array<{ id: string; live: boolean }> }>('GET', '/v1/sessions?include=ended&label=job%3Drec');
  assert.deepEqual(all.sessions.map((x) => [x.id, x.live]), [[s.id, false]]);
  assert.ok((await fullText(d.client, s.id)).text.includes('recorded'));
  await d.client.request('DELETE', `/v1/sessions/${s.id}?purge=1`);
  await assert.rejects(d.client.getSession(s.id), (e: TermhostError) => e.status === 404);
  await assert.rejects(page(d.client, s.id), (e: TermhostError) => e.status === 404);
  assert.equal((d.store.db.prepare('SELECT COUNT(*) AS n FROM chunks WHERE session_id = ?').get(s.id) as { n: number }).n, 0);
});

test('the raw policy needs an admin; off stores nothing', async () => {
  const agent = new TermhostClient({ address: d.address, token: (await d.client.createToken('rec-agent', 'agent')).token });
  await assert.rejects(agent.createSession({ command: ['true'], transcript: 'raw' }), (e: TermhostError) => e.status === 403 && e.code === 'forbidden');
  agent.close();
  const raw = await d.client.createSession({ command: ['sh', '-c', 'echo PASSWORD=visible-in-raw'], transcript: 'raw' });
  await d.client.wait(raw.id, { exit: true, timeout_ms: 5000 });
  assert.ok((await fullText(d.client, raw.id)).text.includes('PASSWORD=visible-in-raw'));
  const off = await d.client.createSession({ command: ['sh', '-c', 'echo not-stored'], transcript: 'off' });
  await d.client.wait(off.id, { exit: true, timeout_ms: 5000 });
  assert.equal((await page(d.client, off.id)).total, 0);
  await d.client.deleteSession(raw.id);
  await d.client.deleteSession(off.id);
});

test('retention 0 writes nothing at all; --no-transcripts likewise', async () => {
  for (const opts of [{ transcriptRetentionDays: 0 }, { transcripts: false }]) {
    const other = await startTestDaemon(opts);
    try {
      const s = await other.client.createSession({ command: ['sh', '-c', 'echo nothing-kept'] });
      await other.client.wait(s.id, { exit: true, timeout_ms: 5000 });
      await other.store.flush();
      assert.equal((other.store.db.prepare('SELECT COUNT(*) AS n FROM chunks').get() as { n: number }).n, 0);
      assert.equal((await page(other.client, s.id)).total, 0);
    } finally {
      await other.stop();
    }
  }
});

test('the sweep deletes chunks older than the retention (injectable clock)', async () => {
  const dir = fs.mkdtempSync(path.join(d.stateDir, 'sweep-'));
  let now = Date.UTC(2026, 0, 1);
  const store = new Store({ stateDir: dir, retentionDays: 30, batchMs: 50, now: () => now });
  const runtime = new Runtime();
  store.follow(runtime);
  try {
    const s = runtime.sessions.create({ command: ['sh', '-c', 'echo old-output'] });
    assert.ok(s.ok);
    await new Promise((r) => s.value.events.on('exit', r));
    await store.flush();
    const count = () => (store.db.prepare('SELECT COUNT(*) AS n FROM chunks').get() as { n: number }).n;
    assert.ok(count() > 0);
    now += 29 * 24 * 3600 * 1000;
    assert.equal(store.sweep(), 0, 'younger than 30 days stays');
    now += 2 * 24 * 3600 * 1000;
    assert.ok(store.sweep() > 0);
    assert.equal(count(), 0);
    assert.ok(store.record(s.value.id, SYSTEM_ACTOR), 'the record itself stays');
  } finally {
    await runtime.close();
    await store.close();
  }
});

test('replay the transcript, then attach from its next_seq: no duplicates', async () => {
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } });
  await d.client.input(s.id, [{ text: 'echo first-part' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'first-part');
  await d.client.wait(s.id, { quiet_ms: 150, timeout_ms: 5000 });
  const replay = await fullText(d.client, s.id);
  const conn = attachTo(d, s.id, { bearer: d.token, since_seq: replay.next });
  assert.equal((await nextMatching(conn, 'hello')).seq, replay.next);
  await d.client.input(s.id, [{ text: 'echo second-part' }, { key: 'Enter' }]);
  let live = '';
  while (!live.includes('second-part\r\n')) live += (await nextMatching(conn, 'stdout')).data.toString();
  assert.ok(!live.includes('first-part'), 'nothing replayed twice');
  conn.close();
  await d.client.deleteSession(s.id);
});

test('asciicast export: v3 by default, with the exit status; v2 on request parses and plays in asciinema', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo cast-one; sleep 0.2; echo cast-two; exit 3'], cols: 70, rows: 12 });
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  const [v3, ...v3events] = (await rawCast(s.id)).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual([v3.version, v3.term], [3, { cols: 70, rows: 12, type: 'xterm-256color' }]);
  assert.ok(v3events.every((e: unknown[]) => e.length === 3 && typeof e[0] === 'number' && (e[0] as number) >= 0));
  assert.deepEqual(v3events.at(-1).slice(1), ['x', '3'], 'the last event is the exit, with its status');
  const cast = await rawCast(s.id, '&version=2');
  const [header, ...events] = cast.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual([header.version, header.width, header.height], [2, 70, 12]);
  assert.ok(events.every((e: unknown[]) => e.length === 3 && e[1] === 'o' && typeof e[0] === 'number'));
  assert.ok(events.map((e: unknown[]) => e[2]).join('').includes('cast-two'));
  const file = path.join(d.stateDir, 'out.cast');
  fs.writeFileSync(file, cast);
  // asciinema wants a terminal: run it in a termhost session. Debian's asciinema is 2.x, which reads v1 and v2 only.
  for (const args of [['cat', file], ['play', '-i', '0.05', file]]) {
    const player = await d.client.createSession({ command: ['asciinema', ...args], cols: 70, rows: 12, transcript: 'off' });
    const played = await d.client.wait(player.id, { exit: true, timeout_ms: 15000 });
    assert.equal(played.screen.exit_code, 0, `asciinema ${args[0]}: ${played.screen.lines.join('\n')}`);
    const shown = played.screen.lines.join('\n');
    assert.ok(shown.includes('cast-one') && shown.includes('cast-two'), shown);
    await d.client.deleteSession(player.id);
  }
  await d.client.deleteSession(s.id);
});

async function rawCast(id: string, query = ''): Promise<string> {
  const { rawRequest } = await import('./helpers.js');
  const r = await rawRequest(d.address, { path: `/v1/sessions/${id}/transcript?format=asciicast${query}`, headers: { authorization: `Bearer ${d.token}` } });
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /asciicast/);
  return r.text;
}

test('records survive kill -9 of the daemon: marked crashed, transcript readable', async () => {
  const state = fs.mkdtempSync(path.join(d.stateDir, 'crash-'));
  const sockDir = path.join(state, 'run');
  const sock = path.join(sockDir, 'd.sock');
  const bin = path.join(ROOT, 'dist', 'cli', 'main.js');
  const serve = () => spawn(process.execPath, [bin, 'serve', '--unix', sock, '--state-dir', state, '--token', 'crash-token', '--log-level', 'warn'], { stdio: 'ignore' });
  const client = new TermhostClient({ address: `unix:${sock}`, token: 'crash-token' });
  let daemon = serve();
  try {
    await until('the daemon', () => client.health().then(() => true, () => false), 30000);
    const s = await client.createSession({ command: ['sh', '-c', 'echo before-the-crash; exec sleep 300'] });
    await until('the output to be stored', async () => (await page(client, s.id)).chunks.some((c) => c.text.includes('before-the-crash')));
    daemon.kill('SIGKILL');
    await new Promise((r) => daemon.once('exit', r));
    try {
      process.kill(-s.pid, 'SIGKILL'); // the orphaned session's process group
    } catch {
      /* already gone */
    }
    daemon = serve();
    await until('the daemon again', () => client.health().then(() => true, () => false), 30000);
    const rec = (await client.getSession(s.id)) as unknown as Record<string, unknown>;
    assert.deepEqual([rec.live, rec.exit_reason], [false, 'crashed']);
    assert.ok((await page(client, s.id)).chunks.map((c) => c.text).join('').includes('before-the-crash'));
  } finally {
    // Also when a step above failed: a daemon left running would keep the test file from ending.
    client.close();
    if (daemon.exitCode === null && daemon.signalCode === null) {
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon.once('exit', r));
    }
  }
});

test('termhost transcript prints the stored text, --cast the asciicast (v3; --cast-version 2 for asciinema 2.x)', async () => {
  const { runCli } = await import('../src/cli/main.js');
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo via-cli; echo PASSWORD=cli-secret'] });
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  let out = '';
  const io = { out: (x: string) => (out += x), err: () => {} };
  assert.equal(await runCli(['transcript', '--addr', d.address, '--token', d.token, s.id], io), 0);
  assert.equal(out, 'via-cli\r\nPASSWORD=[redacted secret]\r\n');
  out = '';
  assert.equal(await runCli(['transcript', '--addr', d.address, '--token', d.token, '--cast', s.id], io), 0);
  assert.equal(JSON.parse(out.split('\n')[0]!).version, 3);
  out = '';
  assert.equal(await runCli(['transcript', '--addr', d.address, '--token', d.token, '--cast', '--cast-version', '2', s.id], io), 0);
  assert.equal(JSON.parse(out.split('\n')[0]!).version, 2);
  await d.client.deleteSession(s.id);
});

test('the output that shows a password prompt is itself kept and streamed; only what follows is hidden', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo before-prompt; printf "Password: "; read x; echo after'] });
  await until('the detector', async () => (await d.client.secretInput(s.id)).active);
  const live = d.manager.get(s.id, SYSTEM_ACTOR) as { value: { ring: { since(n: number): Buffer | undefined } } };
  assert.ok(live.value.ring.since(0)?.toString().includes('Password:'), 'the prompt chunk is in the replay ring');
  await d.client.deleteSession(s.id, 'KILL');
  const { text } = await fullText(d.client, s.id);
  assert.ok(text.includes('before-prompt') && text.includes('Password:'), text);
});

test('output is stored once it pauses, within three batch intervals when it never pauses, and whole when it ends', async () => {
  const dir = fs.mkdtempSync(path.join(d.stateDir, 'defer-'));
  const store = new Store({ stateDir: dir, batchMs: 200 });
  const runtime = new Runtime();
  store.follow(runtime);
  const stored = (id: string) => (store.db.prepare('SELECT COUNT(*) AS n FROM chunks WHERE session_id = ?').get(id) as { n: number }).n;
  try {
    // A line every 20 ms for 40 s: never quiet for the writer's 100 ms, so only the age bound can write it. No flush
    // is asked for anywhere in this test.
    const busy = runtime.sessions.create({ command: ['python3', '-c', 'import time\nfor i in range(2000):\n    print("tick", i, flush=True); time.sleep(0.02)'] });
    assert.ok(busy.ok);
    await until('rows of the never-pausing session', () => stored(busy.value.id) > 0, 20_000);
    assert.equal(busy.value.exited, false, 'stored while the program still prints');
    const quiet = runtime.sessions.create({ command: ['sh', '-c', 'echo one-line; sleep 30'] });
    assert.ok(quiet.ok);
    await until('rows of the session that went quiet', () => stored(quiet.value.id) > 0, 20_000);
    // The last word of a stream that ends is held back by the redactor until the end, which follows the last batch.
    const ends = runtime.sessions.create({ command: ['printf', 'first words then-the-last-word'] });
    assert.ok(ends.ok);
    const text = () => (store.db.prepare('SELECT text FROM chunks WHERE session_id = ? ORDER BY seq').all(ends.value.id) as Array<{ text: string }>).map((r) => r.text).join('');
    await until('the whole of an ended stream', () => text() === 'first words then-the-last-word', 20_000);
    // Batches join up exactly: a secret split across two batches is judged whole, a character split across two
    // batches or two pages of one batch is decoded whole, and the stored rows are contiguous.
    const storedText = (id: string) => (store.db.prepare('SELECT text FROM chunks WHERE session_id = ? ORDER BY seq').all(id) as Array<{ text: string }>).map((r) => r.text).join('');
    const split = runtime.sessions.create({ command: ['sh', '-c', "printf 'export API_TOKEN='; sleep 0.6; printf 'hunter2hunter2 caf\\303'; sleep 0.6; printf '\\251 done'"] });
    assert.ok(split.ok);
    await new Promise((r) => split.value.events.on('exit', r));
    await store.flush();
    assert.equal(storedText(split.value.id), 'export API_TOKEN=[redacted secret] café done');
    const paged = runtime.sessions.create({ command: ['python3', '-c', "import sys; sys.stdout.buffer.write(b'a' * 262143 + 'é'.encode() + b' end')"] });
    assert.ok(paged.ok);
    await new Promise((r) => paged.value.events.on('exit', r));
    await store.flush();
    assert.equal(storedText(paged.value.id), 'a'.repeat(262143) + 'é end');
    // A batch of several pages arrives as rows that join up exactly: contiguous, no holes.
    const big = runtime.sessions.create({ command: ['sh', '-c', 'yes abcdefghi | head -c 2500000'] });
    assert.ok(big.ok);
    await new Promise((r) => big.value.events.on('exit', r));
    await store.flush();
    const rows = store.db.prepare('SELECT seq, bytes FROM chunks WHERE session_id = ? ORDER BY seq').all(big.value.id) as Array<{ seq: number; bytes: number }>;
    let next = 0;
    for (const r of rows) {
      assert.equal(r.seq, next, 'rows are contiguous');
      next += r.bytes;
    }
    assert.equal(next, big.value.seq, 'every output byte is stored');
    assert.equal(big.value.seq, 2_500_000 + 250_000, 'onlcr added a CR per line');
  } finally {
    await runtime.close();
    await store.close();
  }
});
