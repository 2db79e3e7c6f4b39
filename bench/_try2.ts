import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBenchDaemon } from './termhost.js';
import { writeWorkload } from './workloads.js';
import * as F from './fanout.js';
const stat = () => fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'try-'));
const w = writeWorkload('plain', dir);
const th = await startBenchDaemon(dir);
try {
  for (const n of (process.env.NS ?? "0,1,10,100").split(",").map(Number)) {
    const a = stat();
    const t = Date.now();
    // @ts-ignore
    const x = await (F as any).__run(th, w, n);
    const b = stat();
    const d = b.map((v, i) => v - a[i]!);
    const total = d.reduce((p, q) => p + q, 0);
    const names = ['user','nice','system','idle','iowait','irq','softirq','steal'];
    console.log(n, x.ms.toFixed(0), names.map((nm, i) => `${nm} ${(100 * d[i]! / total).toFixed(0)}%`).join(' '), 'daemon', (x.daemonCpuMs / x.ms).toFixed(2), 'viewers', (x.viewerCpuMs / x.ms).toFixed(2));
  }
} finally {
  await th.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
