/**
 * Transcripts replay with the rhythm the output had: each chunk's time is kept (to 10 ms) beside the stored rows,
 * resizes are recorded, and the asciicast export (v3 by default, v2 for asciinema 2.x) carries output, resizes, the
 * exit and, on request, markers, with pauses capped by an idle limit. A secret-input window leaves no rhythm behind.
 * An old database still opens and reads.
 */
import { SYSTEM_ACTOR } from '../src/core/index.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { assertNoLeaks, attachTo, databaseBytes, endSecretWindow, nextMatching, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

type Event = [number, string, string];
async function cast(id: string, query = ''): Promise<{ header: Record<string, unknown>; events: Event[] }> {
  const { rawRequest } = await import('./helpers.js');
  const r = await rawRequest(d.address, { path: `/v1/sessions/${id}/transcript?format=asciicast${query}`, headers: { authorization: `Bearer ${d.token}` } });
  assert.equal(r.status, 200, r.text);
  const [header, ...events] = r.text.trim().split('\n').map((l) => JSON.parse(l) as unknown);
  return { header: header as Record<string, unknown>, events: events as Event[] };
}

/** Absolute times (s) of v3 events, from their intervals. */
function absolute(events: Event[]): Array<{ t: number; code: string; data: string }> {
  let t = 0;
  return events.map(([dt, code, data]) => ({ t: (t += dt), code, data }));
}

const STEP_S = 0.4;
const TOLERANCE_S = 0.02;
/**
 * A progress bar: a step every 0.4 s, at absolute deadlines so steps do not drift, each printed with the program's own
 * clock (so a check can tell the machine's lateness from the recording's). It starts after a line of its own and a
 * pause, as a build's progress bar does, so the first step is not the daemon's first read of a cold session.
 */
const PROGRESS = [
  'python3',
  '-c',
  "import sys, time\nprint('working', flush=True)\nt0 = time.monotonic() + 0.3\nfor i in range(6):\n    t = t0 + 0.4 * i\n    while time.monotonic() < t: time.sleep(max(0, t - time.monotonic()))\n    sys.stdout.write('\\r[%-5s] step %d @%.4f' % ('#' * i, i, time.monotonic() - t0)); sys.stdout.flush()\nprint()",
];

/** When each "step N @T" first shows in `events`, and the program's own T. */
function steps(events: Array<{ t: number; data: string }>): Array<{ at: number; own: number }> {
  const out: Array<{ at: number; own: number }> = [];
  let text = '';
  for (const e of events) {
    text += e.data;
    for (let m; (m = new RegExp(`step ${out.length} @(\\d+\\.\\d{4})`).exec(text)); ) out.push({ at: e.t, own: Number(m[1]) });
  }
  return out;
}

/**
 * Runs `fn` while a 5 ms timer watches this process's event loop (the daemon's: it runs in the test process), and
 * returns how late the timer came at worst. A late timer means the process was not given the CPU (other test runs
 * share the machine), and a PTY read that came then was timed late by as much: a delay the recording cannot avoid.
 */
async function watched<T>(fn: () => Promise<T>): Promise<{ value: T; lateMs: number }> {
  const TICK_MS = 5;
  let last = performance.now();
  let lateMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lateMs = Math.max(lateMs, now - last - TICK_MS);
    last = now;
  }, TICK_MS);
  try {
    return { value: await fn(), lateMs };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Seconds a process has spent runnable but waiting for a CPU (the second field of /proc/PID/schedstat, in ns);
 * undefined once it has exited.
 */
function runQueueWaitS(pid: number): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return undefined;
  }
}

/**
 * Up to four tries of `fn`, the first that passes `check` is taken. The first three are held to the plain tolerance;
 * the last is allowed (`allowS`, undefined before) what the machine measurably withheld from this process during it
 * (other test runs share the machine, and a PTY read that waits for the CPU is timed late by as much).
 */
async function onTime<T>(fn: () => Promise<T>, check: (value: T, allowS: number | undefined) => void | Promise<void>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const { value, lateMs } = await watched(fn);
    try {
      await check(value, attempt < 4 ? undefined : Math.max(0, lateMs) / 1000);
      return value;
    } catch (e) {
      if (attempt === 4) throw e;
    }
  }
}

function assertSteps(found: Array<{ at: number; own: number }>, where: string, lateS = 0): void {
  assert.equal(found.length, 6, `${where}: six steps`);
  // A step is 0.4 s +- 20 ms, plus what the machine measurably withheld from the processes involved (see watched and
  // runQueueWaitS).
  const tolerance = TOLERANCE_S + lateS;
  for (let i = 1; i < found.length; i++) {
    const step = found[i]!.at - found[i - 1]!.at;
    const own = found[i]!.own - found[i - 1]!.own;
    // Against the program's own clock (what the recording controls) and against the nominal 0.4 s step.
    const why = `${where}: step ${i} took ${step.toFixed(3)} s, the program's ${own.toFixed(3)} s (the processes were kept from the CPU up to ${(lateS * 1000).toFixed(0)} ms)`;
    assert.ok(Math.abs(step - own) <= tolerance, why);
    assert.ok(Math.abs(step - STEP_S) <= tolerance + Math.abs(own - STEP_S), why);
  }
}

test('a progress bar at 0.4 s steps replays in 0.4 s steps: in the exported file and in asciinema', async () => {
  const id = await onTime(
    async () => {
      const s = await d.client.createSession({ command: PROGRESS, cols: 60, rows: 5 });
      await d.client.wait(s.id, { exit: true, timeout_ms: 15000 });
      return s.id;
    },
    async (id, allowS) => {
      const v3 = await cast(id);
      assert.equal(v3.header.version, 3);
      assertSteps(steps(absolute(v3.events).filter((e) => e.code === 'o')), 'v3 file', allowS);
      const v2 = await cast(id, '&version=2');
      assertSteps(steps(v2.events.map(([t, , data]) => ({ t, data }))), 'v2 file', allowS);
    },
  );
  // The JSON pages carry the same times.
  const page = await d.client.transcript(id);
  assert.ok(page.chunks.some((c) => c.times.length > 0), 'chunks carry their times');

  // Debian's asciinema (2.x) plays the v2 file in a session of its own; its output is timed as it arrives.
  const file = path.join(d.stateDir, 'progress.cast');
  const { rawRequest } = await import('./helpers.js');
  fs.writeFileSync(file, (await rawRequest(d.address, { path: `/v1/sessions/${id}/transcript?format=asciicast&version=2`, headers: { authorization: `Bearer ${d.token}` } })).text);
  await onTime(
    async () => {
      const player = await d.client.createSession({ command: ['sh', '-c', `read go; exec asciinema play ${file}`], cols: 60, rows: 5, transcript: 'off' });
      const conn = attachTo(d, player.id, { bearer: d.token, role: 'viewer' });
      await nextMatching(conn, 'hello');
      const waited = runQueueWaitS(player.pid) ?? 0;
      await d.client.input(player.id, [{ key: 'Enter' }]);
      const seen: Array<{ t: number; data: string }> = [];
      // How long the player (sh, then asciinema in its place) waited for a CPU while it played: read after each piece
      // of its output, since it exits right after its last one (and then has no schedstat to read).
      let waitedNow = waited;
      for (;;) {
        const ev = await nextMatching(conn, 'stdout', 15000).catch(() => undefined);
        if (!ev) break;
        seen.push({ t: performance.now() / 1000, data: ev.data.toString() });
        waitedNow = runQueueWaitS(player.pid) ?? waitedNow;
        if (steps(seen).length === 6) break;
      }
      const playerWaitS = waitedNow - waited;
      conn.close();
      await d.client.deleteSession(player.id);
      return { seen, playerWaitS };
    },
    ({ seen, playerWaitS }, allowS) => assertSteps(steps(seen), 'asciinema play', allowS === undefined ? 0 : allowS + playerWaitS),
  );
  await d.client.deleteSession(id);
});

test('resizes are recorded where they happened, as "r" events in both versions', async () => {
  const code = "import os, signal, sys\nsignal.signal(signal.SIGWINCH, lambda *a: print('size %dx%d' % os.get_terminal_size(), flush=True))\nprint('ready', flush=True)\nsys.stdin.readline()\nprint('bye')";
  const s = await d.client.createSession({ command: ['python3', '-c', code], cols: 80, rows: 24 });
  await waitText(d, s.id, 'ready');
  await d.client.resize(s.id, 100, 30);
  await waitText(d, s.id, 'size 100x30');
  await d.client.resize(s.id, 120, 40);
  await waitText(d, s.id, 'size 120x40');
  await d.client.input(s.id, [{ key: 'Enter' }]);
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  for (const query of ['', '&version=2']) {
    const { header, events } = await cast(s.id, query);
    const order = events.flatMap(([, code, data]) => (code === 'r' ? [`r ${data}`] : code === 'o' ? (data.match(/ready|size \d+x\d+|bye/g) ?? []) : []));
    assert.deepEqual(order, ['ready', 'r 100x30', 'size 100x30', 'r 120x40', 'size 120x40', 'bye'], `version ${String(header.version)}`);
  }
  await d.client.deleteSession(s.id);
});

test('the exit event carries the exit status, 128 + the signal for a killed program', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo started; exec sleep 60'] });
  await waitText(d, s.id, 'started');
  await d.client.signal(s.id, 'KILL');
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  assert.deepEqual((await cast(s.id)).events.at(-1)!.slice(1), ['x', '137']);
  await d.client.deleteSession(s.id);
});

test('--idle-limit caps pauses, in the route and in termhost transcript', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo first; sleep 1.5; echo second'] });
  await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  const gap = (events: Event[]) => absolute(events).find((e) => e.data.includes('second'))!.t - absolute(events).find((e) => e.data.includes('first'))!.t;
  assert.ok(gap((await cast(s.id)).events) > 1, 'the pause as it was');
  const capped = await cast(s.id, '&idle_limit=0.3');
  assert.equal(capped.header.idle_time_limit, 0.3);
  assert.ok(Math.abs(gap(capped.events) - 0.3) < 0.001, `capped: ${gap(capped.events)}`);
  const { runCli } = await import('../src/cli/main.js');
  let out = '';
  const io = { out: (x: string) => (out += x), err: () => {} };
  assert.equal(await runCli(['transcript', '--addr', d.address, '--token', d.token, '--cast', '--idle-limit', '0.3', s.id], io), 0);
  const [, ...lines] = out.trim().split('\n').map((l) => JSON.parse(l) as Event);
  assert.ok(Math.abs(gap(lines) - 0.3) < 0.001);
  let err = '';
  assert.equal(await runCli(['transcript', '--addr', d.address, '--token', d.token, '--cast', '--idle-limit', '0', s.id], { out: () => {}, err: (x: string) => (err += x) }), 2);
  assert.match(err, /--idle-limit wants a number of seconds above 0/);
  err = '';
  assert.equal(await runCli(['transcript', '--addr', d.address, '--token', d.token, '--idle-limit', '0.3', s.id], { out: () => {}, err: (x: string) => (err += x) }), 2);
  assert.match(err, /--idle-limit goes with --cast or --gif/);
  const bad = await (await import('./helpers.js')).rawRequest(d.address, { path: `/v1/sessions/${s.id}/transcript?format=asciicast&idle_limit=-1`, headers: { authorization: `Bearer ${d.token}` } });
  assert.equal(bad.status, 400);
  await d.client.deleteSession(s.id);
});

test('a secret-input window leaves no rhythm behind: no stored time inside it, a resize there at its start, markers on request', async () => {
  const code = "import time\ns=input('Word: ')\nprint('got %d' % len(s), flush=True)\ntime.sleep(60)";
  const s = await d.client.createSession({ command: ['python3', '-c', code] });
  await waitText(d, s.id, 'Word:');
  await d.client.secretAction(s.id, 'start', 'test');
  const opened = Date.now();
  const conn = attachTo(d, s.id, { bearer: d.token, role: 'driver' });
  await nextMatching(conn, 'hello');
  const live = () => (d.manager.get(s.id, SYSTEM_ACTOR) as { value: { seq: number } }).value.seq;
  // Typed one key at a time, each echoed before the next: the rhythm a transcript must not keep.
  for (const key of 'rhythm') {
    const before = live();
    conn.sendStdin(key);
    await until('the echo', () => live() > before);
  }
  await d.client.resize(s.id, 90, 20);
  conn.sendStdin('\r');
  await endSecretWindow(d.client, s.id);
  const closed = Date.now();
  await waitText(d, s.id, 'got 6');
  conn.close();
  await d.client.deleteSession(s.id, 'KILL');
  await d.store.flush();
  const rows = d.store.db.prepare('SELECT seq, at, bytes, times FROM chunks WHERE session_id = ? ORDER BY seq').all(s.id) as Array<{ seq: number; at: number; bytes: number; times: string | null }>;
  const { decodeTimes } = await import('../src/store/timing.js');
  const stamps = rows.flatMap((r) => [r.at, ...decodeTimes(r.times).map(([, ms]) => r.at + ms)]);
  assert.ok(stamps.length > 0);
  for (const t of stamps) assert.ok(t <= opened || t >= closed, `a time inside the window: ${t - opened} ms after it opened`);
  const events = d.store.db.prepare('SELECT seq, kind, data FROM transcript_events WHERE session_id = ? ORDER BY seq, at').all(s.id) as Array<{ seq: number; kind: string; data: string }>;
  const start = events.find((e) => e.data === 'secret input: output hidden')!;
  assert.deepEqual(events.map((e) => [e.kind, e.data]), [['m', 'secret input: output hidden'], ['r', '90x20'], ['m', 'secret input ended']]);
  assert.equal(events[1]!.seq, start.seq, 'the resize is placed at the window start, not at its offset inside the window');
  assert.deepEqual((await cast(s.id)).events.filter((e) => e[1] === 'm'), [], 'no markers unless asked for');
  assert.deepEqual((await cast(s.id, '&markers=1')).events.filter((e) => e[1] === 'm').map((e) => e[2]), ['secret input: output hidden', 'secret input ended']);
});

/** The first schema, as termhost wrote it before times, events and redacted records. */
const OLD_SCHEMA = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, command TEXT NOT NULL, cwd TEXT NOT NULL, labels TEXT NOT NULL, cols INTEGER NOT NULL,
  rows INTEGER NOT NULL, created_at INTEGER NOT NULL, ended_at INTEGER, exit_code INTEGER, exit_signal TEXT,
  exit_reason TEXT, last_seq INTEGER NOT NULL DEFAULT 0, created_by TEXT, transcript TEXT NOT NULL,
  transcript_complete INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE chunks (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL, text TEXT NOT NULL, bytes INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE INDEX chunks_at ON chunks (at);
`;

test('an old termhost.db opens and reads; its records are redacted in the background', async () => {
  const state = fs.mkdtempSync(path.join(d.stateDir, 'old-db-'));
  const token = 'ghp_' + 'Zx8Kq2Lm4Np6Rs8Tv0Wy2Ab4Cd6Ef8Gh0Ij2';
  const old = new Database(path.join(state, 'termhost.db'));
  old.pragma('journal_mode = WAL');
  old.exec(OLD_SCHEMA);
  const t0 = Date.UTC(2026, 5, 1);
  old
    .prepare("INSERT INTO sessions VALUES ('old1', ?, '/tmp', ?, 40, 10, ?, ?, 0, NULL, 'completed', 11, NULL, 'redacted', 1)")
    .run(JSON.stringify(['sh', '-c', `curl -H 'Authorization: Bearer ${token}' x`]), JSON.stringify({ pw: `k ${token}` }), t0, t0 + 2000);
  old.prepare("INSERT INTO chunks VALUES ('old1', 0, ?, ?, 12)").run(t0 + 100, 'old output\r\n');
  old.close();
  const other = await startTestDaemon({ stateDir: state });
  try {
    const page = await other.client.transcript('old1');
    assert.deepEqual(page.chunks.map((c) => [c.text, c.times]), [['old output\r\n', []]]);
    const { rawRequest } = await import('./helpers.js');
    const r = await rawRequest(other.address, { path: '/v1/sessions/old1/transcript?format=asciicast', headers: { authorization: `Bearer ${other.token}` } });
    const events = r.text.trim().split('\n').slice(1).map((l) => JSON.parse(l) as Event);
    assert.deepEqual(events, [[0.1, 'o', 'old output\r\n'], [1.9, 'x', '0']]);
    await until('old records redacted', () => (other.store.db.pragma('user_version', { simple: true }) as number) === 2, 10000);
    const rec = (await other.client.getSession('old1')) as unknown as { command: string[]; labels: Record<string, string> };
    assert.deepEqual(rec.command, ['sh', '-c', "curl -H 'Authorization: Bearer [redacted secret]' x"]);
    assert.deepEqual(rec.labels, { pw: 'k ghp_[redacted secret]' });
    assert.ok(!databaseBytes(state).includes(token.slice(4)), 'the old text is gone from the file');
  } finally {
    await other.stop();
  }
});
