/**
 * The exit drain: whatever the child wrote reaches `onData` before the exit is reported, even when the socket has not
 * read it by the time the settle period runs out (a busy machine, a slow tty layer).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PtyProcess } from './PtyProcess.js';

test('bytes the socket never read before the child exited are read at exit and delivered before it is reported', async () => {
  const proc = new PtyProcess({ file: 'sh', args: ['-c', 'printf last-words'], cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cols: 80, rows: 24, term: 'xterm' });
  // Stand in for an event loop that never got round to reading: node-pty's socket stops reading from the fd at all.
  const handle = (proc as unknown as { pty: { _socket: { _handle: { readStart(): number; readStop(): number } } } }).pty._socket._handle;
  handle.readStop();
  handle.readStart = () => 0;
  const chunks: Buffer[] = [];
  proc.onData((c) => chunks.push(c));
  const exit = await new Promise<unknown>((resolve) => proc.onExit(resolve));
  assert.deepEqual(exit, { exitCode: 0, signal: null });
  assert.equal(Buffer.concat(chunks).toString('latin1'), 'last-words');
  proc.dispose();
});

test('a process that outlives the child and keeps writing delays the exit report by a bounded time, never the event loop', { timeout: 20_000 }, async () => {
  const proc = new PtyProcess({ file: 'sh', args: ['-c', 'yes > /dev/tty & sleep 0.05'], cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cols: 80, rows: 24, term: 'xterm' });
  let bytes = 0;
  proc.onData((c) => (bytes += c.length));
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  try {
    const started = Date.now();
    await new Promise((resolve) => proc.onExit(resolve));
    const took = Date.now() - started;
    assert.ok(took < 5000, `exit reported after ${took} ms`);
    assert.ok(bytes > 0);
    assert.ok(ticks >= took / 10 / 4, `the event loop kept running: ${ticks} ticks in ${took} ms`);
  } finally {
    clearInterval(ticker);
    // `yes` is still in the session's process group.
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    proc.dispose();
  }
});
