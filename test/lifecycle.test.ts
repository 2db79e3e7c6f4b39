/**
 * Process lifecycle through the API: size and SIGWINCH, signals to the process group, kill escalation, exit with no
 * lost output, terminal queries, a child that never reads, spawn errors, and the screen after death.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TermhostError } from '../src/client/TermhostClient.js';
import { assertNoLeaks, hex, startProbe, startTestDaemon, until, waitRegex, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ maxSessions: 20 });
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const py = (code: string) => ['python3', '-c', code];
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('resize reaches the application: SIGWINCH and tput cols', async () => {
  const probe = await startProbe(d, [], ['--winch'], { cols: 80, rows: 24 });
  const info = await d.client.resize(probe.id, 120, 40);
  assert.equal(info.cols, 120);
  assert.equal(info.rows, 40);
  await waitText(d, probe.id, 'WINCH 120x40');
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' }, cols: 80, rows: 24 });
  await d.client.resize(s.id, 133, 17);
  await d.client.input(s.id, [{ text: 'echo "size=$(tput cols)x$(tput lines)"' }, { key: 'Enter' }]);
  const screen = await waitText(d, s.id, 'size=133x17');
  assert.equal(screen.cols, 133);
  assert.equal(screen.lines.length, 17);
  await d.client.deleteSession(s.id);
  await d.client.deleteSession(probe.id);
});

test('a signal reaches the process and the session stays', async () => {
  const s = await d.client.createSession({
    command: py("import signal,time\nsignal.signal(signal.SIGINT, lambda *a: print('got INT', flush=True))\nsignal.signal(signal.SIGUSR1, lambda *a: print('got USR1', flush=True))\nprint('ready', flush=True)\nwhile True: time.sleep(1)"),
  });
  await waitText(d, s.id, 'ready');
  await d.client.signal(s.id, 'INT');
  await waitText(d, s.id, 'got INT');
  await d.client.signal(s.id, 'USR1');
  await waitText(d, s.id, 'got USR1');
  assert.equal((await d.client.getSession(s.id)).exited, false);
  await d.client.deleteSession(s.id, 'KILL');
});

test('kill signals the whole process group: background children die too', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'sleep 300 & echo "bg=$!"; wait'] });
  const screen = await waitRegex(d, s.id, '^bg=\\d+$');
  const bg = Number(screen.lines.find((l) => l.startsWith('bg='))!.slice(3));
  assert.ok(alive(bg));
  await d.client.deleteSession(s.id, 'TERM');
  await until('the background sleep to die', () => !alive(bg));
});

test('a child that ignores HUP is killed with SIGKILL after 3 s, reaped, and its PTY freed', async () => {
  const s = await d.client.createSession({
    command: py("import signal,time\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\nprint('ignoring HUP', flush=True)\ntime.sleep(120)"),
  });
  await waitText(d, s.id, 'ignoring HUP');
  const started = Date.now();
  await d.client.deleteSession(s.id); // default HUP
  const took = Date.now() - started;
  assert.ok(took >= 2900, `escalation came after ${took} ms`);
  assert.ok(took < 6000, `delete took ${took} ms`);
  assert.equal(alive(s.pid), false);
  await assert.rejects(d.client.screen(s.id), (e: TermhostError) => e.status === 404 && e.code === 'session_not_found');
  const record = await d.client.getSession(s.id);
  assert.deepEqual([record.live, record.exit_signal, record.exit_reason], [false, 'SIGKILL', 'closed'], 'only the stored record is left');
});

test('no output is lost at exit: 1 MiB written then exit, 50 runs, exact bytes and final screen', async () => {
  const lines = 131072; // 8 bytes per line = 1 MiB
  const code = `import sys\nsys.stdout.buffer.write(b''.join(b'%07d\\n' % i for i in range(${lines})))\nsys.stdout.flush()`;
  const expectedBytes = lines * 9; // the tty's onlcr turns each \n into \r\n
  const expectedTail = Array.from({ length: 23 }, (_, i) => String(lines - 23 + i).padStart(7, '0')).concat(['']);
  const one = async () => {
    const s = await d.client.createSession({ command: py(code), cols: 80, rows: 24 });
    const r = await d.client.wait(s.id, { exit: true, timeout_ms: 30000 });
    assert.equal(r.matched, true);
    assert.equal(r.screen.seq, expectedBytes, 'every byte reached the emulator before the exit was reported');
    assert.deepEqual(r.screen.lines, expectedTail);
    assert.equal(r.screen.exit_code, 0);
    await d.client.deleteSession(s.id);
  };
  for (let round = 0; round < 10; round++) await Promise.all([one(), one(), one(), one(), one()]);
});

test('terminal queries are answered: cursor position and device attributes reach the app', async () => {
  const probe = await startProbe(d, [], ['--query'], { cols: 80, rows: 24 });
  const answers = Buffer.from(await probe.next(), 'hex').toString('latin1');
  assert.match(answers, /\x1b\[2;1R/, 'CPR: the cursor is on row 2 after READY');
  assert.match(answers, /\x1b\[\?[\d;]+c/, 'primary device attributes');
  await d.client.deleteSession(probe.id);
});

test('a child that never reads stdin: input is refused with 409 once the queue is full, nothing else stalls', async () => {
  const stuck = await d.client.createSession({ command: py("import tty,time\ntty.setraw(0)\nprint('not reading', flush=True)\ntime.sleep(120)") });
  await waitText(d, stuck.id, 'not reading');
  const chunk = 'x'.repeat(256 * 1024);
  let refusal: TermhostError | undefined;
  for (let i = 0; i < 12 && !refusal; i++) {
    try {
      await d.client.input(stuck.id, [{ text: chunk }]);
    } catch (err) {
      refusal = err as TermhostError;
    }
  }
  assert.ok(refusal, 'the bounded queue eventually refuses');
  assert.equal(refusal.status, 409);
  assert.equal(refusal.code, 'input_queue_full');
  assert.equal(refusal.retryable, true);
  // Other sessions and the daemon go on.
  const other = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: '$ ' } });
  await d.client.input(other.id, [{ text: 'echo still-alive' }, { key: 'Enter' }]);
  await waitText(d, other.id, 'still-alive');
  const t0 = Date.now();
  await d.client.health();
  assert.ok(Date.now() - t0 < 1000);
  await d.client.deleteSession(stuck.id, 'KILL');
  await d.client.deleteSession(other.id);
});

test('concurrent input batches are each written contiguously, never interleaved', async () => {
  // The reader prints the runs of identical bytes it received: contiguous batches give exactly one run per batch.
  const size = 60_000;
  const writers = ['A', 'B', 'C', 'D'];
  const total = size * writers.length;
  const reader = `import sys,tty,itertools\ntty.setraw(0)\nprint('reading', flush=True)\nbuf=b''\nwhile len(buf) < ${total}:\n    buf += sys.stdin.buffer.read1(65536)\nprint('runs ' + ' '.join('%s%d' % (chr(k), len(list(g))) for k, g in itertools.groupby(buf)), flush=True)`;
  const s = await d.client.createSession({ command: py(reader), cols: 200 });
  await waitText(d, s.id, 'reading');
  await Promise.all(writers.map((ch) => d.client.input(s.id, [{ text: ch.repeat(size / 2) }, { raw: ch.repeat(size / 2) }])));
  const screen = await waitRegex(d, s.id, 'runs [A-D]\\d+ ');
  const runs = screen.lines.find((l) => l.includes('runs '))!.trim().slice(5).split(' ');
  assert.equal(runs.length, writers.length, `one run per batch, got ${runs.join(' ')}`);
  assert.deepEqual(runs.map((r) => r.slice(1)).sort(), writers.map(() => String(size)));
  await d.client.deleteSession(s.id);
});

test('a dead process keeps its final screen readable until the session is deleted', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo "final words"; exit 7'] });
  const r = await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  assert.equal(r.reason, 'exit');
  assert.equal(r.screen.exit_code, 7);
  const info = await d.client.getSession(s.id);
  assert.equal(info.exited, true);
  assert.equal(info.exit_code, 7);
  assert.equal((await d.client.screen(s.id)).lines[0], 'final words');
  await assert.rejects(d.client.input(s.id, [{ text: 'x' }]), (e: TermhostError) => e.status === 409 && e.code === 'session_exited');
  await assert.rejects(d.client.signal(s.id, 'INT'), (e: TermhostError) => e.status === 409 && e.code === 'session_exited');
  await d.client.deleteSession(s.id);
  await assert.rejects(d.client.screen(s.id), (e: TermhostError) => e.status === 404);
});

test('a process killed by a signal reports the signal name', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo up; kill -TERM $$; sleep 5'] });
  const r = await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  assert.equal(r.screen.exit_signal, 'SIGTERM');
  assert.equal(r.screen.exit_code, null);
  await d.client.deleteSession(s.id);
});

test('a missing program or working directory is a clear 400, not a crash', async () => {
  await assert.rejects(d.client.createSession({ command: ['definitely-not-a-program-xyz'] }), (e: TermhostError) => {
    assert.equal(e.status, 400);
    assert.equal(e.code, 'command_not_found');
    assert.match(e.message, /definitely-not-a-program-xyz/);
    return true;
  });
  await assert.rejects(d.client.createSession({ command: ['sh'], cwd: '/no/such/dir' }), (e: TermhostError) => {
    assert.equal(e.code, 'cwd_not_found');
    assert.match(e.message, /\/no\/such\/dir/);
    return true;
  });
  assert.equal((await d.client.health()).ok, true);
});

test("the daemon's own token never reaches a session's environment", async () => {
  process.env.TERMHOST_TOKEN = 'must-not-leak';
  try {
    const s = await d.client.createSession({ command: ['sh', '-c', 'echo "tok=[${TERMHOST_TOKEN:-none}]"; sleep 30'] });
    await waitText(d, s.id, 'tok=[none]');
    await d.client.deleteSession(s.id, 'KILL');
  } finally {
    delete process.env.TERMHOST_TOKEN;
  }
});

test('the session spec: env merged over the daemon, TERM exported, labels filter the list', async () => {
  const s = await d.client.createSession({
    command: ['sh', '-c', 'echo "term=$TERM foo=$FOO path=${PATH:+set}"; sleep 30'],
    env: { FOO: 'bar' },
    term: 'screen-256color',
    labels: { team: 'red', job: 'x' },
  });
  await waitText(d, s.id, 'term=screen-256color foo=bar path=set');
  const other = await d.client.createSession({ command: ['sleep', '30'], labels: { team: 'blue' } });
  assert.deepEqual((await d.client.listSessions({ team: 'red' })).map((x) => x.id), [s.id]);
  assert.deepEqual((await d.client.listSessions({ team: 'red', job: 'y' })).map((x) => x.id), []);
  assert.equal((await d.client.listSessions()).length >= 2, true);
  await d.client.deleteSession(s.id);
  await d.client.deleteSession(other.id);
});

test('wait: quiet, timeout with the current screen, multiline regex, invalid regex', async () => {
  const s = await d.client.createSession({ command: ['bash', '--norc', '--noprofile'], env: { PS1: 'prompt> ' } });
  const quiet = await d.client.wait(s.id, { quiet_ms: 200, timeout_ms: 5000 });
  assert.deepEqual([quiet.matched, quiet.reason], [true, 'quiet']);
  const miss = await d.client.wait(s.id, { text: 'never printed', timeout_ms: 150 });
  assert.deepEqual([miss.matched, miss.reason], [false, 'timeout']);
  assert.equal(miss.screen.lines[0], 'prompt>');
  await d.client.input(s.id, [{ text: 'printf "alpha\\nbeta\\n"' }, { key: 'Enter' }]);
  const re = await d.client.wait(s.id, { regex: '^alpha\\nbeta$', timeout_ms: 5000 });
  assert.deepEqual([re.matched, re.reason], [true, 'regex']);
  await assert.rejects(d.client.wait(s.id, { regex: '(unclosed', timeout_ms: 10 }), (e: TermhostError) => e.status === 400 && e.code === 'invalid_regex');
  await assert.rejects(d.client.wait(s.id, { text: 'x', timeout_ms: 60001 }), (e: TermhostError) => e.status === 400);
  await d.client.deleteSession(s.id);
});

test('the scrollback holds what scrolled off the top', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'for i in $(seq 1 60); do echo "n$i"; done; sleep 30'], rows: 10 });
  await waitText(d, s.id, 'n60');
  const sb = await d.client.scrollback(s.id, 5);
  assert.equal(sb.total, 51);
  assert.deepEqual(sb.lines, ['n47', 'n48', 'n49', 'n50', 'n51']);
  assert.equal((await d.client.scrollback(s.id)).lines[0], 'n1');
  await d.client.deleteSession(s.id);
});

test('bytes written through the API are unchanged (raw escape hatch)', async () => {
  const probe = await startProbe(d, [], [], { cols: 200, rows: 10 });
  assert.equal(await probe.send([{ raw: '\x1b[200~\u00e9\x01' }]), hex(Buffer.from('\x1b[200~\u00e9\x01', 'utf8')));
  await d.client.deleteSession(probe.id);
});

test('program output that trips an xterm bug (erase above at the bottom-right of a fresh screen) does not take the daemon down', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', "printf 'x\\033[24;80H\\033[1J'; echo survived"], cols: 80, rows: 24 });
  const r = await d.client.wait(s.id, { exit: true, timeout_ms: 5000 });
  assert.equal(r.matched, true);
  assert.equal(r.exit_code, 0);
  // The cursor was left in the last column, so the word wraps: "s" ends one row, "urvived" starts the next.
  assert.ok(r.screen.lines.join('').includes('survived'), r.screen.lines.join('\n'));
  assert.equal((await d.client.health()).ok, true);
  await d.client.deleteSession(s.id);
});
