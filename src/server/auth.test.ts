/** Pure gatekeeping rules: Host names, Origins, bearer parsing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearerToken, hostAllowed, hostOnly, originAllowed } from './auth.js';

test('Host: loopback names and configured names pass, others do not', () => {
  const allowed = new Set(['box.lan']);
  for (const h of ['localhost', 'LOCALHOST:7070', '127.0.0.1:1', '127.9.9.9', '[::1]:7070', 'app.localhost', 'box.lan:80']) assert.ok(hostAllowed(h, allowed), h);
  for (const h of [undefined, '', 'evil.com', 'localhost.evil.com', '10.0.0.1', '0.0.0.0', '[::]:1']) assert.ok(!hostAllowed(h, allowed), String(h));
  assert.equal(hostOnly('[::1]:80'), '::1');
  assert.equal(hostOnly('Box.Lan:8080'), 'box.lan');
});

test("Origin: none (native clients), the daemon's own, or configured; null never", () => {
  const allowed = new Set(['https://ui.example']);
  assert.ok(originAllowed(undefined, 'localhost:7070', allowed));
  assert.ok(originAllowed('http://localhost:7070', 'localhost:7070', allowed));
  assert.ok(originAllowed('http://Build-Box.lan:7398/', 'build-box.lan:7398', allowed), 'case and trailing slash');
  assert.ok(originAllowed('HTTPS://UI.EXAMPLE', 'localhost:7070', allowed));
  assert.ok(!originAllowed('null', 'localhost:7070', allowed));
  assert.ok(!originAllowed('http://localhost:7071', 'localhost:7070', allowed), 'another port is another origin');
  assert.ok(!originAllowed('http://evil.example', 'localhost:7070', allowed));
});

test('bearer tokens are read only from a well-formed header', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer abc '), 'abc');
  for (const h of [undefined, '', 'Basic abc', 'Bearer', 'Bearer a b', 'Token abc']) assert.equal(bearerToken(h), undefined, String(h));
});
