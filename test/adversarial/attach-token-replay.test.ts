/**
 * An attach token opens one socket (issue 12 §4). It used to open any number for its 60 s, so a token copied from a
 * page's memory, a proxy's log or a shoulder-surfed terminal gave its holder the minter's role. The replayed socket
 * is refused with close code 4003 (forbidden), the code for a credential that is wrong, expired, revoked or used.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CloseCode } from '../../src/protocol/attach.js';
import { assertNoLeaks, attachTo, nextMatching, startTestDaemon, waitText, type TestDaemon } from '../helpers.js';

let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

test('a second socket with the same attach token is refused with 4003, while the first one drives on', async () => {
  const s = await d.client.createSession({ command: ['cat'] });
  const { token } = await d.client.mintAttachToken(s.id, 'driver');
  const first = attachTo(d, s.id, { token, role: 'driver' });
  assert.equal((await nextMatching(first, 'hello')).role, 'driver');

  const replay = attachTo(d, s.id, { token, role: 'driver' });
  const closed = await nextMatching(replay, 'closed');
  assert.equal(closed.code, CloseCode.forbidden);
  assert.match(closed.reason, /already used/);

  first.sendStdin('still-mine\r');
  await waitText(d, s.id, 'still-mine');
  first.close();
  await nextMatching(first, 'closed');

  // Spent for good: not even once the first socket is gone, nor as a viewer.
  const later = attachTo(d, s.id, { token, role: 'viewer' });
  assert.equal((await nextMatching(later, 'closed')).code, CloseCode.forbidden);
  await d.client.deleteSession(s.id, 'KILL');
});

test('a token offered to the wrong session is not spent by the refusal', async () => {
  const a = await d.client.createSession({ command: ['sleep', '30'] });
  const b = await d.client.createSession({ command: ['sleep', '30'] });
  const { token } = await d.client.mintAttachToken(a.id, 'viewer');
  const wrong = attachTo(d, b.id, { token });
  assert.equal((await nextMatching(wrong, 'closed')).code, CloseCode.forbidden);
  const right = attachTo(d, a.id, { token });
  assert.equal((await nextMatching(right, 'hello')).role, 'viewer');
  right.close();
  for (const s of [a, b]) await d.client.deleteSession(s.id, 'KILL');
});
