/** Attach tokens: scoped to one session and role, expiring after 60 s, unforgeable. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AttachTokens, lesserRole } from './attachTokens.js';

const ALICE = { name: 'alice', kind: 'human' as const };

test('a token verifies for its session and role until it expires', () => {
  let now = 1_000_000_000_000;
  const tokens = new AttachTokens(() => now);
  const t = tokens.mint('abc', 'driver', ALICE, 'alice-token');
  assert.deepEqual(tokens.verify(t, 'abc'), { session: 'abc', role: 'driver', exp: 1_000_000_060, actor: ALICE, tokenName: 'alice-token', tokenId: 'alice-token' });
  assert.equal(tokens.verify(t, 'other'), undefined, 'scoped to one session');
  now += 59_000;
  assert.ok(tokens.verify(t, 'abc'));
  now += 1_000;
  assert.equal(tokens.verify(t, 'abc'), undefined, 'expired at 60 s');
});

test('forged, tampered, truncated and foreign tokens are refused', () => {
  const tokens = new AttachTokens();
  const t = tokens.mint('abc', 'viewer', ALICE, 'alice-token');
  assert.deepEqual(tokens.verify(t, 'abc')?.actor, { name: 'alice', kind: 'viewer' }, 'a viewer token carries a viewer');
  const [v, payload, mac] = t.split('.') as [string, string, string];
  const upgraded = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('viewer', 'driver')).toString('base64url');
  for (const bad of [
    `${v}.${upgraded}.${mac}`,
    `${v}.${payload}.${mac.slice(0, -2)}`,
    `${v}.${payload}`,
    `v2.${payload}.${mac}`,
    '',
    'not-a-token',
    new AttachTokens().mint('abc', 'viewer', ALICE, 'alice-token'),
  ]) {
    assert.equal(tokens.verify(bad, 'abc'), undefined, bad);
  }
});

test('a role is only ever downgraded', () => {
  assert.equal(lesserRole('driver', 'viewer'), 'viewer');
  assert.equal(lesserRole('viewer', 'driver'), 'viewer');
  assert.equal(lesserRole('driver', 'driver'), 'driver');
});
