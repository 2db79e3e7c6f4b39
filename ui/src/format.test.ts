import assert from 'node:assert/strict';
import { test } from 'node:test';
import { age, inputHolder, joinCommand, splitCommand } from './format.js';

test('a typed command line splits into argv like a shell, without expansions', () => {
  for (const [line, argv] of [
    ['bash', ['bash']],
    ['  python3   -q  ', ['python3', '-q']],
    [`sh -c 'echo "hi there"; exit 3'`, ['sh', '-c', 'echo "hi there"; exit 3']],
    [`echo "a \\"b\\" $HOME"`, ['echo', 'a "b" $HOME']],
    ['echo a\\ b', ['echo', 'a b']],
    [`x ''`, ['x', '']],
    ['', []],
  ] as const) {
    assert.deepEqual(splitCommand(line), { ok: true, argv }, line);
  }
  assert.equal(splitCommand(`echo 'oops`).ok, false);
  assert.equal(splitCommand(`echo "oops`).ok, false);
});

test('argv is shown quoted where a word needs it, and reads back the same', () => {
  const argv = ['sh', '-c', "echo it's here; ls"];
  assert.equal(joinCommand(argv), `sh -c 'echo it'\\''s here; ls'`);
  assert.deepEqual(splitCommand(joinCommand(argv)), { ok: true, argv });
});

test('ages are short', () => {
  const now = Date.parse('2025-01-02T00:00:00Z');
  assert.equal(age('2025-01-01T23:59:18Z', now), '42s');
  assert.equal(age('2025-01-01T23:55:00Z', now), '5m');
  assert.equal(age('2025-01-01T20:56:00Z', now), '3h 4m');
  assert.equal(age('2024-12-30T23:00:00Z', now), '2d 1h');
});

test('the input holder is the exclusive lease, else the shared holders, else free; expired leases do not count', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  const later = '2025-01-01T00:01:00Z';
  const a = { actor: { name: 'claude', kind: 'agent' }, mode: 'exclusive' as const, expires_at: later };
  const b = { actor: { name: 'bot', kind: 'agent' }, mode: 'shared' as const, expires_at: later };
  assert.equal(inputHolder([b, a], now), 'claude (agent, exclusive)');
  assert.equal(inputHolder([b, b], now), 'bot (shared)');
  assert.equal(inputHolder([{ ...a, expires_at: '2024-12-31T00:00:00Z' }], now), 'free');
});
