/** Attach tokens: scoped to one session and role, single-use, expiring after 60 s, unforgeable. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AttachTokens, MAX_UNSPENT_ATTACH_TOKENS, lesserRole } from './attachTokens.js';

const ALICE = { name: 'alice', kind: 'human' as const };

test('a token opens one socket, for its session and role, until it expires', () => {
  let now = 1_000_000_000_000;
  const tokens = new AttachTokens(() => now);
  const t = tokens.mint('abc', 'driver', ALICE, 'alice-token');
  assert.equal(tokens.redeem(t, 'other'), undefined, 'scoped to one session');
  assert.deepEqual(tokens.redeem(t, 'abc'), { session: 'abc', role: 'driver', exp: 1_000_000_060, actor: ALICE, tokenName: 'alice-token', tokenId: 'alice-token' }, 'a refusal for another session does not spend it');
  assert.equal(tokens.redeem(t, 'abc'), undefined, 'single use');
  const late = tokens.mint('abc', 'viewer', ALICE, 'alice-token');
  now += 59_000;
  const lateToo = tokens.mint('abc', 'viewer', ALICE, 'alice-token');
  now += 1_000;
  assert.equal(tokens.redeem(late, 'abc'), undefined, 'expired at 60 s');
  assert.ok(tokens.redeem(lateToo, 'abc'));
});

test('past the bound on unspent tokens the oldest is forgotten, and only it stops working', () => {
  const tokens = new AttachTokens();
  const first = tokens.mint('abc', 'viewer', ALICE, 'alice-token');
  const second = tokens.mint('abc', 'viewer', ALICE, 'alice-token');
  for (let i = 2; i < MAX_UNSPENT_ATTACH_TOKENS; i++) tokens.mint('abc', 'viewer', ALICE, 'alice-token');
  const newest = tokens.mint('abc', 'viewer', ALICE, 'alice-token');
  assert.equal(tokens.redeem(first, 'abc'), undefined);
  assert.ok(tokens.redeem(second, 'abc'));
  assert.ok(tokens.redeem(newest, 'abc'));
});

test('forged, tampered, truncated and foreign tokens are refused', () => {
  const tokens = new AttachTokens();
  const t = tokens.mint('abc', 'viewer', ALICE, 'alice-token');
  assert.deepEqual(tokens.redeem(t, 'abc')?.actor, { name: 'alice', kind: 'viewer' }, 'a viewer token carries a viewer');
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
    assert.equal(tokens.redeem(bad, 'abc'), undefined, bad);
  }
});

test('a role is only ever downgraded', () => {
  assert.equal(lesserRole('driver', 'viewer'), 'viewer');
  assert.equal(lesserRole('viewer', 'driver'), 'viewer');
  assert.equal(lesserRole('driver', 'driver'), 'driver');
});
