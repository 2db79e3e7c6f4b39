import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closedState, describeExit, failureState, statusOf, type PaneState } from './paneState.js';

test('each of the five pane states reads differently, with Reconnect only where reconnecting can help', () => {
  const rows: Array<[PaneState, string, string, boolean]> = [
    [{ kind: 'starting' }, 'spinner', 'Connecting…', false],
    [{ kind: 'attached', role: 'driver' }, 'green', 'Live', false],
    [{ kind: 'ended', reason: 'completed', code: 3, signal: null }, 'grey', 'Session ended (completed, code 3)', true],
    [{ kind: 'cannot-connect', detail: 'x' }, 'amber', 'Cannot connect to the daemon', true],
    [{ kind: 'refused', status: 403, detail: 'x' }, 'red', 'You do not have access', false],
  ];
  for (const [state, tone, text, reconnect] of rows) {
    const v = statusOf(state);
    assert.deepEqual([v.tone, v.text, v.reconnect], [tone, text, reconnect], state.kind);
  }
  assert.equal(new Set(rows.map(([s]) => statusOf(s).tone)).size, 5);
});

test('only a viewer gets the read-only badge', () => {
  assert.equal(statusOf({ kind: 'attached', role: 'viewer' }).readOnly, true);
  assert.equal(statusOf({ kind: 'attached', role: 'driver' }).readOnly, false);
});

test('permission answers refuse; unreachable daemons and server failures cannot connect', () => {
  for (const [status, kind] of [
    [401, 'refused'],
    [403, 'refused'],
    [404, 'refused'],
    [0, 'cannot-connect'],
    [500, 'cannot-connect'],
    [503, 'cannot-connect'],
  ] as const) {
    assert.equal(failureState(status, 'm').kind, kind, String(status));
  }
  assert.equal(closedState(4003, '').kind, 'refused');
  assert.equal(closedState(4004, '').kind, 'refused');
  assert.equal(closedState(1006, '').kind, 'cannot-connect');
  assert.equal(closedState(4008, 'fell behind').kind, 'cannot-connect');
});

test('an exit reads as reason and signal, or reason and code', () => {
  assert.equal(describeExit('closed', null, 'SIGKILL'), 'closed, SIGKILL');
  assert.equal(describeExit('completed', 0, null), 'completed, code 0');
  assert.equal(describeExit('crashed', null, null), 'crashed');
});
