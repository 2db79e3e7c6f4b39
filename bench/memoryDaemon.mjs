/**
 * Child process of the memory benchmark: a termhost daemon alone in its process, so its RSS holds nothing of the
 * benchmark itself. Plain JavaScript on purpose: it runs under bare `node --expose-gc`, without the tsx loader (a
 * loader thread with its own V8 heap) that the benchmark's TypeScript needs, so the baseline is the daemon's own.
 *
 * The parent drives it over IPC:
 *   child -> parent  { kind: 'ready', address, token }
 *   parent -> child  'gc'     child -> parent { kind: 'memory', rssBytes, heapUsedBytes, externalBytes }
 *   parent -> child  'close'  the daemon closes every session and the process exits.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon } from '../dist/main.js';

const gc = globalThis.gc;
if (!gc || !process.send) throw new Error('memoryDaemon must run with --expose-gc and an IPC channel');

const stateDir = fs.mkdtempSync(path.join(process.env.TERMHOST_BENCH_DIR ?? os.tmpdir(), 'memstate-'));
const token = crypto.randomBytes(16).toString('hex');
// The default cap (64) is below the number of sessions the benchmark opens.
const daemon = await startDaemon({ listen: '127.0.0.1:0', stateDir, token, logger: false, maxSessions: 1000 });
process.send({ kind: 'ready', address: daemon.address, token });

process.on('message', (msg) => {
  if (msg === 'gc') {
    // Two passes: the first can only queue finalisers and weak callbacks that free more on the second.
    gc();
    gc();
    const m = process.memoryUsage();
    process.send({ kind: 'memory', rssBytes: m.rss, heapUsedBytes: m.heapUsed, externalBytes: m.external });
  } else if (msg === 'close') {
    void daemon.close().then(() => {
      fs.rmSync(stateDir, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
