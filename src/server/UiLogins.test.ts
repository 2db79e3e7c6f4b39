/** Browser sign-ins: codes are single-use and short-lived, cookie sessions expire, are revoked, bounded and kept. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readCookie, uiCookieName } from './cookies.js';
import { scrub } from './logRedaction.js';
import { TokenStore } from './TokenStore.js';
import { LOGIN_CODE_TTL_MS, MAX_LOGIN_CODES, MAX_UI_SESSIONS, UI_SESSION_TTL_MS, UiLogins } from './UiLogins.js';

/** The name and kind of a UI actor (it also carries its token's scope and owner, for core's rules). */
const who = (a: { name: string; kind: string } | undefined) => a && { name: a.name, kind: a.kind };

function setup(stateDir?: string, daemonToken = 'daemon-token') {
  let now = 1_700_000_000_000;
  const tokens = new TokenStore(daemonToken, stateDir);
  const logins = new UiLogins(tokens, { stateDir, daemonToken, now: () => now });
  const admin = tokens.resolve(daemonToken)!;
  return { tokens, logins, admin, advance: (ms: number) => (now += ms) };
}

test('a login code works once, and becomes a cookie session for the UI actor, named after the minter', () => {
  const { logins, admin } = setup();
  const { code } = logins.mintCode(admin, 'human', '/ui/sessions/abc');
  const spent = logins.exchange(code)!;
  assert.equal(spent.next, '/ui/sessions/abc');
  assert.equal(logins.exchange(code), undefined, 'single use');
  assert.deepEqual(who(logins.resolve(spent.secret, spent.key)?.actor), { name: 'admin', kind: 'human' });
  assert.equal(logins.resolve(spent.secret, undefined), undefined, 'the cookie alone is not enough');
  assert.equal(logins.resolve(undefined, spent.key), undefined, 'nor the key alone');
  assert.equal(logins.resolve(spent.secret, spent.secret), undefined);
  assert.equal(logins.resolve('forged', spent.key), undefined);
  const viewer = logins.exchange(logins.mintCode(admin, 'viewer', '/ui/').code)!;
  assert.deepEqual(who(logins.resolve(viewer.secret, viewer.key)?.actor), { name: 'admin', kind: 'viewer' });
  assert.equal(logins.resolve(viewer.secret, spent.key), undefined, "another sign-in's key does not fit");
});

test('a code expires after 60 s; a cookie session after 12 h', () => {
  const { logins, admin, advance } = setup();
  const late = logins.mintCode(admin, 'human', '/ui/').code;
  advance(LOGIN_CODE_TTL_MS);
  assert.equal(logins.exchange(late), undefined);
  const { secret, key } = logins.exchange(logins.mintCode(admin, 'human', '/ui/').code)!;
  advance(UI_SESSION_TTL_MS - 1);
  assert.ok(logins.resolve(secret, key));
  advance(1);
  assert.equal(logins.resolve(secret, key), undefined);
});

test('revoking the minting token signs its browsers out and voids its pending codes', () => {
  const { tokens, logins } = setup();
  const created = tokens.create('alice', 'human');
  assert.ok(created.ok);
  const alice = tokens.resolve(created.value.token)!;
  const { secret, key } = logins.exchange(logins.mintCode(alice, 'human', '/ui/').code)!;
  const pending = logins.mintCode(alice, 'human', '/ui/').code;
  assert.deepEqual(who(logins.resolve(secret, key)?.actor), { name: 'alice', kind: 'human' });
  tokens.revoke('alice');
  assert.equal(logins.resolve(secret, key), undefined);
  assert.equal(logins.exchange(pending), undefined);
});

test('outstanding codes and signed-in browsers are bounded; the oldest goes first', () => {
  const { logins, admin } = setup();
  const first = logins.mintCode(admin, 'human', '/ui/').code;
  for (let i = 0; i < MAX_LOGIN_CODES; i++) logins.mintCode(admin, 'human', '/ui/');
  assert.equal(logins.counts.codes, MAX_LOGIN_CODES);
  assert.equal(logins.exchange(first), undefined);
  const signIns = [];
  for (let i = 0; i < MAX_UI_SESSIONS + 1; i++) signIns.push(logins.exchange(logins.mintCode(admin, 'human', '/ui/').code)!);
  assert.equal(logins.counts.sessions, MAX_UI_SESSIONS);
  assert.equal(logins.resolve(signIns[0]!.secret, signIns[0]!.key), undefined);
  assert.ok(logins.resolve(signIns.at(-1)!.secret, signIns.at(-1)!.key));
});

test('sign-ins survive a restart (stored as hashes, 0600) unless the daemon token changed; sign out ends them', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-ui-'));
  try {
    const a = setup(dir);
    const { secret, key } = a.logins.exchange(a.logins.mintCode(a.admin, 'human', '/ui/').code)!;
    const other = a.logins.exchange(a.logins.mintCode(a.admin, 'viewer', '/ui/').code)!;
    const file = path.join(dir, 'ui-logins.json');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const stored = fs.readFileSync(file, 'utf8');
    assert.ok(!stored.includes(secret) && !stored.includes(key), 'only hashes are stored');
    a.logins.dispose();

    const b = setup(dir);
    assert.deepEqual(who(b.logins.resolve(secret, key)?.actor), { name: 'admin', kind: 'human' });
    assert.ok(b.logins.signOut(other.secret));
    assert.equal(b.logins.resolve(other.secret, other.key), undefined);
    b.logins.dispose();

    const c = setup(dir, 'a-new-daemon-token');
    assert.equal(c.logins.resolve(secret, key), undefined);
    c.logins.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the cookie is named per port, read from a Cookie header, and login codes are cut out of logged URLs', () => {
  assert.equal(uiCookieName('127.0.0.1:7070'), 'termhost_ui_7070');
  assert.equal(uiCookieName('localhost'), 'termhost_ui');
  assert.equal(readCookie('a=1; termhost_ui_7070=s3cret; b=2', 'termhost_ui_7070'), 's3cret');
  assert.equal(readCookie('termhost_ui_7071=x', 'termhost_ui_7070'), undefined);
  assert.equal(readCookie(undefined, 'x'), undefined);
  assert.equal(scrub('/ui/login?code=abc-123_x'), '/ui/login?code=[redacted]');
  assert.equal(scrub('/v1/sessions?label=a=b'), '/v1/sessions?label=a=b');
});
