/**
 * The native addon on its own: each call against the real kernel object it wraps (inherited fds across exec, a real
 * PTY and the job running in it, /proc, a process tree that leaves its session and its parent).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as nodePty from 'node-pty';
import { native } from './native.js';

const ADDON = fileURLToPath(new URL('../../../build/Release/termhost_native.node', import.meta.url));

/** Poll a condition with a deadline (never a bare sleep). */
async function until<T>(what: string, fn: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A node process that was handed fds 30 and 40 (inheritable, as a parent passes them), applies `mark`, then execs
 * `sleep`; the fds sleep holds are read from outside, once it sleeps (in its startup it briefly opens locale files). (Node itself marks the first few fds it
 * inherits close-on-exec at startup, 3 to about 15, but not those past a gap: hence 30 and 40.)
 */
function fdsAfterExec(mark: string): string[] {
  const child = `
    const n = require(${JSON.stringify(ADDON)});
    const fs = require('fs');
    const mark = ${JSON.stringify(mark)};
    if (mark === 'one') n.setCloexec(30);
    else if (mark !== 'none') n.cloexecFrom(3, mark === 'auto' ? undefined : mark);
    const c = require('child_process').spawn('sleep', ['30'], { stdio: 'ignore' });
    const deadline = Date.now() + 30000;
    const look = () => {
      let wchan = '';
      try { wchan = fs.readFileSync('/proc/' + c.pid + '/wchan', 'utf8'); } catch {}
      if (!wchan.includes('nanosleep') && Date.now() < deadline) return setTimeout(look, 10);
      console.log(JSON.stringify(fs.readdirSync('/proc/' + c.pid + '/fd').sort((a, b) => a - b)));
      c.kill('SIGKILL');
    };
    look();`;
  const file = fs.openSync('/dev/null', 'r');
  try {
    const stdio = ['ignore', 'pipe', 'pipe', ...new Array(38).fill('ignore')];
    stdio[30] = stdio[40] = file;
    const r = spawnSync(process.execPath, ['-e', child], { stdio, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as string[];
  } finally {
    fs.closeSync(file);
  }
}

test('without marking, a program the daemon execs gets the fds the daemon inherited (the leak this addon closes)', () => {
  const fds = fdsAfterExec('none');
  assert.ok(fds.includes('30') && fds.includes('40'), fds.join(' '));
});

test('setCloexec keeps that one fd out of exec', () => {
  const fds = fdsAfterExec('one');
  assert.ok(!fds.includes('30') && fds.includes('40'), fds.join(' '));
});

for (const method of ['auto', 'close_range', 'proc', 'rlimit']) {
  test(`cloexecFrom(3) by ${method} keeps every fd >= 3 out of exec`, () => {
    assert.deepEqual(fdsAfterExec(method), ['0', '1', '2']);
  });
}

test('cloexecFrom says which method it used; close_range where the kernel has it (Linux 5.11+)', () => {
  assert.equal(native().cloexecFrom(3), 'close_range');
  assert.throws(() => native().cloexecFrom(-1), /non-negative/);
  assert.throws(() => native().setCloexec(1_000_000), (e: NodeJS.ErrnoException) => e.code === 'EBADF');
});

test('tcgetpgrp on a PTY master names the job in the foreground: the shell at its prompt, then the command it runs', async () => {
  const pty = nodePty.spawn('bash', ['--norc', '--noprofile', '-i'], { cols: 80, rows: 24, env: { PATH: process.env.PATH!, PS1: '$ ' } });
  const fd = (pty as unknown as { fd: number }).fd;
  try {
    await until('the shell to own the terminal', () => native().tcgetpgrp(fd) === pty.pid);
    pty.write('sleep 88\r');
    const fg = await until('sleep in the foreground', () => {
      const pg = native().tcgetpgrp(fd);
      return pg !== pty.pid && fs.readFileSync(`/proc/${pg}/cmdline`, 'utf8').startsWith('sleep\0') && pg;
    });
    assert.equal(native().procStat(fg)!.pgrp, fg, 'sleep leads its own group');
    assert.equal(native().procStat(pty.pid)!.tpgid, fg, 'the kernel says the same through /proc');
    assert.throws(() => native().tcgetpgrp(fs.openSync('/dev/null', 'r')), (e: NodeJS.ErrnoException) => e.code === 'ENOTTY');
  } finally {
    pty.kill('SIGKILL');
  }
});

test("termiosLocalFlags on a master reports the slave's modes: cooked, no echo, raw", async () => {
  const modes: Record<string, { icanon: boolean; echo: boolean }> = {};
  for (const [name, stty] of [['cooked', 'sane'], ['noecho', '-echo'], ['raw', 'raw -echo']] as const) {
    const pty = nodePty.spawn('sh', ['-c', `stty ${stty}; echo ready; exec sleep 30`], { cols: 80, rows: 24, env: { PATH: process.env.PATH! } });
    let out = '';
    pty.onData((d) => (out += d));
    const fd = (pty as unknown as { fd: number }).fd;
    try {
      await until(`${name} to be set`, () => out.includes('ready'));
      const f = native().termiosLocalFlags(fd);
      assert.equal(f.icanon, (f.lflag & native().LFLAG.ICANON) !== 0);
      assert.equal(f.echo, (f.lflag & native().LFLAG.ECHO) !== 0);
      modes[name] = { icanon: f.icanon, echo: f.echo };
    } finally {
      pty.kill('SIGKILL');
    }
  }
  assert.deepEqual(modes, { cooked: { icanon: true, echo: true }, noecho: { icanon: true, echo: false }, raw: { icanon: false, echo: false } });
  assert.throws(() => native().termiosLocalFlags(fs.openSync('/dev/null', 'r')), (e: NodeJS.ErrnoException) => e.code === 'ENOTTY');
});

test('ttyInputBytes on a PTY slave counts the lines a program has not read yet, and zero once it has', async () => {
  // `read` waits for a go-ahead line first, so the line typed before it is still queued when it is measured.
  const pty = nodePty.spawn('sh', ['-c', 'echo ready; read go; read line; echo "got $line"; exec sleep 30'], { cols: 80, rows: 24, env: { PATH: process.env.PATH! } });
  let out = '';
  pty.onData((d) => (out += d));
  const slave = fs.openSync((pty as unknown as { ptsName: string }).ptsName, fs.constants.O_RDWR | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK);
  try {
    await until('the script to start', () => out.includes('ready'));
    pty.write('half');
    await until('the echo of a partial line', () => out.includes('half'));
    assert.equal(native().ttyInputBytes(slave), 0, 'a line not yet ended is not readable input in canonical mode');
    pty.write('\r');
    // `read go` takes that line; the next one waits for `read line`, which then takes it.
    pty.write('queued\r');
    await until('the script to read both lines', () => out.includes('got queued'));
    assert.equal(native().ttyInputBytes(slave), 0);
    assert.throws(() => native().ttyInputBytes(fs.openSync('/dev/null', 'r')), (e: NodeJS.ErrnoException) => e.code === 'ENOTTY' || e.code === 'EINVAL');
  } finally {
    fs.closeSync(slave);
    pty.kill('SIGKILL');
  }
});

test('ttyInputBytes sees a line queued for a program that is not reading', async () => {
  const pty = nodePty.spawn('sh', ['-c', 'echo ready; exec sleep 30'], { cols: 80, rows: 24, env: { PATH: process.env.PATH! } });
  let out = '';
  pty.onData((d) => (out += d));
  const slave = fs.openSync((pty as unknown as { ptsName: string }).ptsName, fs.constants.O_RDWR | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK);
  try {
    await until('the script to start', () => out.includes('ready'));
    pty.write('abc\r');
    await until('the line to be queued', () => native().ttyInputBytes(slave) === 4);
  } finally {
    fs.closeSync(slave);
    pty.kill('SIGKILL');
  }
});

test('procStat reads a process that has spaces and parentheses in its name; null for none', () => {
  const self = native().procStat(process.pid)!;
  assert.equal(self.pid, process.pid);
  assert.equal(self.ppid, process.ppid);
  const odd = spawn('sh', ['-c', 'exec -a "a) b (c" sleep 30'], { stdio: 'ignore' });
  try {
    const st = native().procStat(odd.pid!);
    assert.ok(st && st.ppid === process.pid && st.start >= self.start, JSON.stringify(st));
  } finally {
    odd.kill('SIGKILL');
  }
  assert.equal(native().procStat(0), null);
});

/** Start `sh -c script` as a session leader with a tag in its environment; its script prints pids, one per line. */
async function taggedSession(script: string, tag: string) {
  const leader = spawn('sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env.PATH!, TERMHOST_SESSION_TAG: tag } });
  let out = '';
  leader.stdout!.on('data', (d) => (out += d));
  const pids = await until('the script to print its pids', () => {
    const lines = out.split('\n').filter(Boolean);
    return lines.length >= 2 && lines.map(Number);
  });
  return { leader, pids, start: native().procStat(leader.pid!)!.start };
}

test('sessionPids finds a setsid child by its parent, and a double-forked daemon by its tag alone', async () => {
  const tag = 'a'.repeat(32);
  // One child leaves the session (setsid, still our child); one leaves the session and its parent (setsid -f).
  const { leader, pids, start } = await taggedSession('setsid sleep 31 & echo $!; setsid -f sh -c \'echo $$; exec sleep 32\'; exec sleep 30', tag);
  const [setsidChild, daemon] = pids as [number, number];
  try {
    await until('the daemon to be reparented', () => native().procStat(daemon)?.ppid !== leader.pid && native().procStat(leader.pid!)!.state !== 'R');
    const all = native().sessionPids({ leader: leader.pid, start, tag }).sort();
    assert.deepEqual(all, [leader.pid!, setsidChild, daemon].sort());
    assert.deepEqual(native().sessionPids({ leader: leader.pid, start }).sort(), [leader.pid!, setsidChild].sort(), 'without the tag: the leader and its descendants');
    assert.deepEqual(native().sessionPids({ leader: leader.pid, start: start + 1 }), [], 'a leader whose start time differs is a reused pid: nothing');
    assert.deepEqual(native().sessionPids({ tag }).sort(), [leader.pid!, setsidChild, daemon].sort(), 'the tag alone');
    assert.equal(native().signalSession({ leader: leader.pid, start, tag }, 9), 3);
    await until('all three to be gone', () => native().sessionPids({ leader: leader.pid, start, tag }).length === 0);
  } finally {
    for (const pid of [leader.pid!, setsidChild, daemon]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
});

test('sessionPids never names the caller, even when it carries the tag', () => {
  const tag = 'b'.repeat(32);
  const out = execFileSync(process.execPath, ['-e', `console.log(JSON.stringify(require(${JSON.stringify(ADDON)}).sessionPids({ tag: ${JSON.stringify(tag)} })))`], {
    env: { ...process.env, TERMHOST_SESSION_TAG: tag },
    encoding: 'utf8',
  });
  assert.deepEqual(JSON.parse(out), []);
});
