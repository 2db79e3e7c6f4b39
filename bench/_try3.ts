import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AttachClient } from '../dist/client/AttachClient.js';
import { startBenchDaemon, waitExit } from './termhost.js';
import { writeWorkload } from './workloads.js';
import { nowMs } from './stats.js';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'try-'));
const w = writeWorkload('plain', dir);
const th = await startBenchDaemon(dir);
try {
  for (const n of [0, 1, 0, 1, 0, 1]) {
    const info = await th.client.createSession({ command: ['sh', '-c', `stty -echo; printf ready; read _; exec cat '${w.file}'`], cols: 200, rows: 50 });
    await th.client.wait(info.id, { text: 'ready', timeout_ms: 5000 });
    const s = th.session(info.id);
    let first = 0, last = 0, exitAt = 0, lastView = 0;
    s.events.on('output', () => { const t = nowMs(); if (!first) first = t; last = t; });
    s.events.on('exit', () => { exitAt = nowMs(); });
    const viewers: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const c = new AttachClient({ address: th.client.address, session: info.id, bearer: th.client.token });
      let hello: () => void; const h = new Promise<void>((r) => (hello = r));
      viewers.push((async () => { for await (const f of c) { if (f.kind === 'hello') hello!(); if (f.kind === 'stdout') lastView = nowMs(); } })());
      await h;
    }
    const t0 = nowMs();
    await th.client.input(info.id, [{ text: '\r' }]);
    await waitExit(th.client, info.id, Date.now() + 60000);
    const t1 = nowMs();
    await Promise.all(viewers);
    const r = (x: number) => (x ? (x - t0).toFixed(0) : '-');
    console.log(`viewers ${n}: first ${r(first)} last ${r(last)} exitEvent ${r(exitAt)} waitReturned ${r(t1)} lastViewerByte ${r(lastView)}`);
    await th.client.deleteSession(info.id);
  }
} finally { await th.stop(); fs.rmSync(dir, { recursive: true, force: true }); }
