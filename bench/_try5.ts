import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AttachClient } from '../dist/client/AttachClient.js';
import { startBenchDaemon, waitExit } from './termhost.js';
import { writeWorkload } from './workloads.js';
import { median, nowMs } from './stats.js';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'try-'));
const w = writeWorkload('plain', dir);
const th = await startBenchDaemon(dir);
try {
  for (const n of (process.env.NS ?? '100,100,100').split(',').map(Number)) {
    const info = await th.client.createSession({ command: ['sh', '-c', `stty -echo; printf ready; read _; exec cat '${w.file}'`], cols: 200, rows: 50 });
    const ready = await th.client.wait(info.id, { text: 'ready', timeout_ms: 5000 });
    const s = th.session(info.id);
    let last = 0;
    s.events.on('parsed', () => { last = nowMs(); });
    const viewers: Promise<{ bytes: number; lastAt: number; code: number; hello: number }>[] = [];
    const hellos: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const c = new AttachClient({ address: th.client.address, session: info.id, bearer: th.client.token });
      let hello: () => void; hellos.push(new Promise<void>((r) => (hello = r)));
      viewers.push((async () => { const r = { bytes: 0, lastAt: 0, code: 0, hello: 0 }; for await (const f of c) { if (f.kind === 'hello') { r.hello = f.seq; hello!(); } if (f.kind === 'stdout') { r.lastAt = nowMs(); r.bytes += f.data.length; } if (f.kind === 'closed') r.code = f.code; } return r; })());
    }
    await Promise.all(hellos);
    const elu0 = performance.eventLoopUtilization();
    const t0 = nowMs();
    await th.client.input(info.id, [{ text: '\r' }]);
    const scr = await waitExit(th.client, info.id, Date.now() + 120000);
    const t1 = nowMs();
    const elu = performance.eventLoopUtilization(elu0).utilization;
    const rs = await Promise.all(viewers);
    const complete = rs.filter((r) => r.bytes === scr.seq - r.hello).length;
    const mbps = rs.map((r) => r.bytes / 1e6 / ((r.lastAt - t0) / 1000));
    console.log(`in-process viewers ${n}: producer ${(w.bytes / 1e6 / ((t1 - t0) / 1000)).toFixed(2)} MB/s, to last byte ${(w.bytes / 1e6 / ((last - t0) / 1000)).toFixed(2)}, loop ${elu.toFixed(2)}, complete ${complete}/${n}, dropped ${rs.filter((r) => r.code === 4008).length}, viewer MB/s min ${n ? Math.min(...mbps).toFixed(2) : '-'} med ${n ? median(mbps).toFixed(2) : '-'} max ${n ? Math.max(...mbps).toFixed(2) : '-'}`);
    await th.client.deleteSession(info.id);
  }
} finally { await th.stop(); fs.rmSync(dir, { recursive: true, force: true }); }
