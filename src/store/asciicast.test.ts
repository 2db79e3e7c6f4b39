/**
 * The asciicast export as a table of small transcripts: how rows split at their times, where resizes and markers
 * land against the output, the exit status, the idle limit, and the two versions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asciicast, type CastOptions } from './asciicast.js';
import type { SessionRecord, StoredEvent, StoredRow } from './Store.js';

const T0 = Date.UTC(2026, 0, 1);
const record = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  id: 'abc1',
  live: false,
  command: ['sh', '-c', 'demo'],
  cwd: '/',
  labels: {},
  cols: 80,
  rows: 24,
  created_at: new Date(T0).toISOString(),
  ended_at: new Date(T0 + 3000).toISOString(),
  exit_code: 0,
  exit_signal: null,
  exit_reason: 'completed',
  last_seq: 0,
  created_by: null,
  transcript: 'redacted',
  transcript_complete: true,
  ...over,
});
const row = (seq: number, atMs: number, text: string, times: string | null = null): StoredRow => ({ seq, at: T0 + atMs, text, bytes: Buffer.byteLength(text), times });
const ev = (seq: number, atMs: number, kind: string, data: string): StoredEvent => ({ seq, at: T0 + atMs, kind, data });

function events(cast: string): unknown[][] {
  return cast.trim().split('\n').slice(1).map((l) => JSON.parse(l) as unknown[]);
}
const v3: CastOptions = { version: 3 };

test('v3: header with the term size; a row splits at its times into events with intervals; the exit ends it', () => {
  const cast = asciicast(record(), [row(0, 100, 'step0 step1 step2', '6,400,6,400')], [], v3);
  assert.deepEqual(JSON.parse(cast.split('\n')[0]!), { version: 3, term: { cols: 80, rows: 24, type: 'xterm-256color' }, timestamp: T0 / 1000, command: 'sh -c demo', title: 'sh -c demo' });
  assert.deepEqual(events(cast), [
    [0.1, 'o', 'step0 '],
    [0.4, 'o', 'step1 '],
    [0.4, 'o', 'step2'],
    [2.1, 'x', '0'],
  ]);
});

test('v2: absolute times, no exit event', () => {
  const cast = asciicast(record(), [row(0, 100, 'ab', '1,400'), row(2, 1000, 'c')], [], { version: 2 });
  assert.deepEqual(JSON.parse(cast.split('\n')[0]!).width, 80);
  assert.deepEqual(events(cast), [
    [0.1, 'o', 'a'],
    [0.5, 'o', 'b'],
    [1, 'o', 'c'],
  ]);
});

test('a resize lands between the rows around its offset, and inside a row by time', () => {
  const rows = [row(0, 0, 'before'), row(6, 1000, 'oldnew', '3,500')];
  const cast = asciicast(record(), rows, [ev(6, 900, 'r', '100x30'), ev(9, 1400, 'r', '120x40')], v3);
  assert.deepEqual(events(cast).slice(0, 5), [
    [0, 'o', 'before'],
    [0.9, 'r', '100x30'],
    [0.1, 'o', 'old'],
    [0.4, 'r', '120x40'],
    [0.1, 'o', 'new'],
  ]);
});

test('markers only when asked for; kinds the export does not know are skipped', () => {
  const evs = [ev(3, 500, 'm', 'secret input: output hidden'), ev(3, 800, 'c', 'a later kind')];
  assert.deepEqual(events(asciicast(record(), [row(0, 0, 'abc')], evs, v3)).map((e) => e[1]), ['o', 'x']);
  assert.deepEqual(events(asciicast(record(), [row(0, 0, 'abc')], evs, { version: 3, markers: true })).map((e) => e[1]), ['o', 'm', 'x']);
});

test('the exit status: the code, or 128 + the signal number; none for a session the daemon lost', () => {
  const last = (r: SessionRecord) => events(asciicast(r, [], [], v3)).at(-1);
  assert.deepEqual(last(record({ exit_code: 3 })), [3, 'x', '3']);
  assert.deepEqual(last(record({ exit_code: null, exit_signal: 'SIGKILL' })), [3, 'x', '137']);
  assert.equal(last(record({ exit_code: null, exit_signal: null, exit_reason: 'crashed' })), undefined);
  assert.equal(last(record({ ended_at: null, exit_code: null })), undefined, 'still running');
});

test('the idle limit caps every pause, and the header says so', () => {
  const rows = [row(0, 0, 'a'), row(1, 5000, 'b', '0,0'), row(2, 5200, 'c')];
  const capped = asciicast(record({ ended_at: new Date(T0 + 9000).toISOString() }), rows, [], { version: 3, idleLimitS: 0.5 });
  assert.equal(JSON.parse(capped.split('\n')[0]!).idle_time_limit, 0.5);
  assert.deepEqual(events(capped).map((e) => e[0]), [0, 0.5, 0.2, 0.5]);
  const v2 = asciicast(record(), rows, [], { version: 2, idleLimitS: 0.5 });
  assert.deepEqual(events(v2).map((e) => e[0]), [0, 0.5, 0.7]);
});

test('times count code points, so a row with emoji splits where it should', () => {
  assert.deepEqual(events(asciicast(record(), [row(0, 0, '😀x😀y', '2,100,1,100')], [], v3)).slice(0, 3).map((e) => e[2]), ['😀x', '😀', 'y']);
});

test('a marker inside a piece of output cuts it at its byte offset: a command end read with its last line comes after it', () => {
  // One PTY read held "first-output\r\n" and then the D mark; its "exited" marker was stamped at the same moment.
  const text = 'first-output\r\n$ ';
  const cut = Buffer.byteLength('first-output\r\n');
  const rows = [row(100, 50, text)];
  const markers = [ev(100, 50, 'm', 'command c1 started'), ev(100 + cut, 50, 'm', 'command c1 exited 0')];
  assert.deepEqual(
    events(asciicast(record(), rows, markers, { version: 3, markers: true })).slice(0, 4).map(([, code, data]) => [code, data]),
    [['m', 'command c1 started'], ['o', 'first-output\r\n'], ['m', 'command c1 exited 0'], ['o', '$ ']],
  );
  // A cut never splits a character: the marker after "é" (two bytes) lands after it, one byte early lands before it.
  const wide = [row(0, 0, 'aéb')];
  assert.deepEqual(
    events(asciicast(record(), wide, [ev(2, 0, 'm', 'x')], { version: 3, markers: true })).slice(0, 3).map(([, code, data]) => [code, data]),
    [['o', 'a'], ['m', 'x'], ['o', 'éb']],
  );
});
