/**
 * Child process of the fan-out benchmark: N attach viewers in a process of their own, so the client side gets its own
 * event loop (and, on a 2-core machine, roughly its own core) instead of sharing the daemon's. Plain JavaScript under
 * bare `node`, like memoryDaemon.mjs: no tsx loader thread competing for the CPU.
 *
 * Each viewer is the product's own client (dist/client/AttachClient.js), authenticated with the daemon's bearer token
 * in the upgrade request, in the stream view. It only counts: stdout bytes and frames, whether every frame starts
 * where the previous one ended, when the first and last stdout bytes arrived, and how the socket closed.
 *
 * argv[2] is JSON {address, token, session, viewers}. Replies are JSON lines on stdout:
 *   {kind: 'ready'}                                once every viewer has its hello (the parent then starts output)
 *   {kind: 'done', cpuMs, viewers: [{helloSeq, bytes, frames, contiguous, firstAtMs, lastAtMs, exit, closeCode}]}
 * Times are process.hrtime in ms: CLOCK_MONOTONIC, the same clock as the parent's nowMs().
 */
import { AttachClient } from '../dist/client/AttachClient.js';
import { parseAddress } from '../dist/client/TermhostClient.js';

const { address, token, session, viewers } = JSON.parse(process.argv[2] ?? '{}');
if (!address || !token || !session || !(viewers > 0)) throw new Error('fanoutViewers: expected JSON {address, token, session, viewers}');

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const reply = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');

let helloes = 0;
let readySent = false;
/** CPU is counted from "ready" on: connecting the viewers is not part of the run. */
let cpu0 = process.cpuUsage();

async function view() {
  const c = new AttachClient({ address: parseAddress(address), session, bearer: token, role: 'viewer', view: 'stream' });
  const r = { helloSeq: -1, bytes: 0, frames: 0, contiguous: true, firstAtMs: 0, lastAtMs: 0, exit: false, closeCode: 0 };
  let next = -1;
  for await (const f of c) {
    if (f.kind === 'stdout') {
      const at = nowMs();
      if (r.frames === 0) r.firstAtMs = at;
      r.lastAtMs = at;
      r.frames++;
      r.bytes += f.data.length;
      if (f.seq !== next) r.contiguous = false;
      next = f.seq + f.data.length;
    } else if (f.kind === 'hello') {
      r.helloSeq = f.seq;
      next = f.seq;
      if (++helloes === viewers && !readySent) {
        readySent = true;
        cpu0 = process.cpuUsage();
        reply({ kind: 'ready' });
      }
    } else if (f.kind === 'exit') r.exit = true;
    else if (f.kind === 'closed') r.closeCode = f.code;
  }
  return r;
}

const results = await Promise.all(Array.from({ length: viewers }, view));
if (!readySent) reply({ kind: 'ready' }); // some viewer never got a hello; the parent sees it in the results
const cpu = process.cpuUsage(cpu0);
reply({ kind: 'done', cpuMs: (cpu.user + cpu.system) / 1000, viewers: results });
