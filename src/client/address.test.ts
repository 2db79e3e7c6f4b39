import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { resolveTarget } from './address.js';

/**
 * An address named without a token gets this user's own daemon token only when it is this machine's, or the one the
 * live daemon.json names: `--addr https://elsewhere` must never hand the local admin token to whoever listens there.
 */
test('the local token goes unasked only to a unix socket, loopback, or the address daemon.json names', () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-target-'));
  try {
    fs.writeFileSync(path.join(stateDir, 'token'), 'local-admin-token-0123456789\n', { mode: 0o600 });
    const token = (addr: string, env: NodeJS.ProcessEnv = {}) => resolveTarget({ address: addr, stateDir }, env).token;
    for (const local of ['127.0.0.1:7681', 'http://localhost:7681', 'https://[::1]:7681', '127.9.8.7:1', 'unix:/tmp/th.sock']) {
      assert.equal(token(local), 'local-admin-token-0123456789', local);
    }
    for (const remote of ['192.0.2.55:7681', 'https://evil.example', 'http://127.0.0.1.evil.example:80', 'https://[fd00::2]:7681', '10.0.0.1:7681']) {
      assert.equal(token(remote), undefined, remote);
      assert.equal(resolveTarget({ address: remote, stateDir }, { TERMHOST_ADDR: 'x' }).token, undefined, `${remote} via the option`);
    }
    // Named through the environment, the same rule; a token given explicitly always goes.
    assert.equal(resolveTarget({ stateDir }, { TERMHOST_URL: 'https://evil.example' }).token, undefined);
    assert.equal(resolveTarget({ address: 'https://evil.example', stateDir, token: 'given' }, {}).token, 'given');
    assert.equal(resolveTarget({ stateDir }, { TERMHOST_URL: 'https://evil.example', TERMHOST_TOKEN: 'given' }).token, 'given');
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});
