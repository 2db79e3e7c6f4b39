/**
 * Child process of the wall benchmark: the traffic of one browser tab open on /ui/wall with every tile on screen (the
 * worst case: a screen large enough for all of them), made by the page's own code. The event stream is the page's
 * EventStream (ui/src/events.ts, the same `?types=` filter), the pictures come through the page's TilePictures
 * (ui/src/TilePictures.ts: the same cap on fetches at once, the same If-None-Match, the same SVG scale), and a
 * screen_updated event marks a tile behind exactly as Wall.ts does. What it leaves out is what a browser spends on
 * its own (layout, decoding the SVGs), which runs on the viewer's machine, not the daemon's.
 *
 * wall.ts bundles this file with esbuild and runs it under bare `node`, as fanoutViewers.mjs runs: the client side
 * gets an event loop of its own, and no tsx loader thread competes for the CPU. The page's fetch("/v1/...") calls
 * reach the daemon through a fetch that adds the origin and the bearer token (the page would send its cookie and key).
 *
 * argv[2] is JSON {address, token, label}. Replies are JSON lines on stdout:
 *   {kind: 'ready', tiles}    once every tile has its first picture
 *   {kind: 'counts', ...}     after each "counts" line on stdin: events received, pictures fetched, answered 304,
 *                             failed, SVG bytes, and the process's CPU so far (ms)
 */
import readline from 'node:readline';
import { EventStream } from '../ui/src/events.js';
import { TilePictures, type TileAnswer } from '../ui/src/TilePictures.js';

const { address, token, label } = JSON.parse(process.argv[2] ?? '{}') as { address: string; token: string; label: string };
if (!address || !token || !label) throw new Error('wallViewer: expected JSON {address, token, label}');
const origin = `http://${address}`;
const reply = (msg: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(msg)}\n`);

const realFetch = globalThis.fetch;
globalThis.fetch = ((input: string, init: RequestInit = {}) =>
  realFetch(new URL(input, origin), { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } })) as typeof fetch;

const counts = { events: 0, failed: 0, bytes: 0 };
const pictures = new TilePictures();
const shown = new Map<string, number>();
let waitingFirst = 0;
let ready = false;

const res = await fetch(`/v1/sessions?label=${encodeURIComponent(label)}`);
const { sessions } = (await res.json()) as { sessions: Array<{ id: string }> };
waitingFirst = sessions.length;
for (const s of sessions) {
  shown.set(s.id, -1);
  pictures.add({
    id: s.id,
    visible: true,
    answer(a: TileAnswer) {
      if (a.kind === 'failed') counts.failed++;
      if (a.kind !== 'picture') return;
      counts.bytes += a.url.length;
      if (shown.get(s.id) === -1 && --waitingFirst === 0 && !ready) {
        ready = true;
        reply({ kind: 'ready', tiles: sessions.length });
      }
      shown.set(s.id, a.seq);
    },
  });
}

const events = new EventStream();
events.on((e) => {
  counts.events++;
  const at = e.session_id ? shown.get(e.session_id) : undefined;
  if (e.type === 'screen_updated' && at !== undefined && e.seq !== at) pictures.changed(e.session_id!);
});
events.start();

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'counts') return;
  const cpu = process.cpuUsage();
  reply({ kind: 'counts', ...counts, ...pictures.counts, cpuMs: (cpu.user + cpu.system) / 1000 });
});
process.stdin.on('end', () => {
  events.stop();
  pictures.dispose();
  process.exit(0);
});
