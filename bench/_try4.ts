import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBenchDaemon } from './termhost.js';
import { WORKLOADS, writeWorkload } from './workloads.js';
import { measureThroughput } from './throughput.js';
import { TmuxServer } from './tmux.js';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'try-'));
const ws = WORKLOADS.map((n) => writeWorkload(n, dir));
const th = await startBenchDaemon(dir);
const tmux = new TmuxServer(dir);
await tmux.start(200, 50);
try {
  const r = await measureThroughput(th, tmux, ws, (m) => console.error(m));
  for (const x of r) console.log(x.workload, x.termhostMBps.toFixed(1), x.tmuxMBps.toFixed(1), 'loop', x.termhostLoopBusy.toFixed(2), 'cpu', x.termhostCpuShare.toFixed(2), 'read', x.termhostMeanReadBytes.toFixed(0), 'tmuxcpu', x.tmuxCpuShare.toFixed(2), 'machine', x.termhostMachineBusy.toFixed(2), x.tmuxMachineBusy.toFixed(2));
} finally { await th.stop(); await tmux.kill(); fs.rmSync(dir, { recursive: true, force: true }); }
