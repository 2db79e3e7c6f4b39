/**
 * Random attach frames from a viewer: whatever arrives on the socket (valid-looking stdin and resize frames, random
 * JSON, random binary, frames before and after auth), the daemon never crashes, a viewer never gets a byte to the
 * PTY, and the session's size does not change. The probe program shows exactly what the PTY received.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import WebSocket from 'ws';
import { assertNoLeaks, hex, startProbe, startTestDaemon, until, type TestDaemon } from '../helpers.js';

let d: TestDaemon;
let viewerToken: string;
before(async () => {
  d = await startTestDaemon();
  viewerToken = (await d.client.createToken('eyes', 'viewer')).token;
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const STDIN_TAG = 0x02;
const frame = fc.oneof(
  // What a driver would send: a viewer must get none of it through.
  fc.string({ minLength: 1, maxLength: 16 }).map((s) => ({ binary: true, data: Buffer.concat([Buffer.from([STDIN_TAG]), Buffer.from(s)]) })),
  fc.string({ minLength: 1, maxLength: 16 }).map((s) => ({ binary: false, data: Buffer.from(JSON.stringify({ kind: 'stdin', data: Buffer.from(s).toString('base64') })) })),
  fc.record({ cols: fc.integer({ min: -5, max: 2000 }), rows: fc.integer({ min: -5, max: 2000 }) }).map((r) => ({ binary: false, data: Buffer.from(JSON.stringify({ kind: 'resize', ...r })) })),
  fc.constantFrom('viewer', 'driver').map((role) => ({ binary: false, data: Buffer.from(JSON.stringify({ kind: 'auth', token: viewerToken, role })) })),
  // Anything at all.
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ binary: false, data: Buffer.from(JSON.stringify(v)) })),
  fc.uint8Array({ maxLength: 64 }).map((b) => ({ binary: true, data: Buffer.from(b) })),
  fc.uint8Array({ maxLength: 64 }).map((b) => ({ binary: false, data: Buffer.from(b) })),
);

function open(id: string): Promise<WebSocket> {
  const ws = new WebSocket(`ws://${d.address}/v1/sessions/${id}/attach`);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

test('random frames from a viewer never crash the daemon and never reach the PTY', async () => {
  const probe = await startProbe(d, [], [], { cols: 100, rows: 30 });
  await fc.assert(
    fc.asyncProperty(fc.boolean(), fc.array(frame, { minLength: 1, maxLength: 12 }), async (authFirst, frames) => {
      const ws = await open(probe.id);
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      if (authFirst) ws.send(JSON.stringify({ kind: 'auth', token: viewerToken, role: 'driver' }));
      for (const f of frames) if (ws.readyState === ws.OPEN) ws.send(f.data, { binary: f.binary });
      ws.close();
      await closed;
    }),
    { numRuns: 80 },
  );
  // Nothing reached the PTY: the next bytes the probe reads are exactly the marker an agent sends now.
  assert.equal(await probe.send([{ text: 'marker' }]), hex('marker'));
  const info = await d.client.getSession(probe.id);
  assert.deepEqual([info.cols, info.rows], [100, 30], 'a viewer resized the session');
  await until('every socket to be counted out', async () => (await d.client.getSession(probe.id)).clients.viewers === 0);
  assert.equal((await fetch(`${d.url}/health`)).status, 200);
  await d.client.deleteSession(probe.id, 'KILL');
});
