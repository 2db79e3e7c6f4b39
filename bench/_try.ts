import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBenchDaemon } from './termhost.js';
import { writeWorkload } from './workloads.js';
import { measureFanout } from './fanout.js';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'try-'));
const w = writeWorkload('plain', dir);
console.error('newlines', w.newlines, w.newlines / w.bytes);
const th = await startBenchDaemon(dir);
const t0 = Date.now();
try {
  const r = await measureFanout(th, w, (m) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1)}] ${m}`));
  console.log(JSON.stringify(r, null, 1));
} finally {
  await th.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
