/**
 * The termhost side of the comparison: a daemon started in this process from the built output (dist/, which
 * `npm run bench` compiles first), on a loopback port with a throwaway state dir and a random token, driven through
 * the typed client with its keep-alive agent, exactly as a user's program would drive it. The daemon runs with its
 * defaults, transcripts included: each session's output is also redacted and written to SQLite by a worker thread.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, type Daemon } from '../dist/main.js';
import { TermhostClient } from '../dist/client/TermhostClient.js';
import { SYSTEM_ACTOR, type Session } from '../dist/core/index.js';
import { nowMs } from './stats.js';

export interface BenchDaemon {
  daemon: Daemon;
  client: TermhostClient;
  /** The live Session object behind an id, for in-process measurements and for sampling parser backlog. */
  session(id: string): Session;
  /**
   * Wait until the transcript writer has everything on disk, so work left over from one run does not land in the
   * next one (or in the other host's run); returns how long that took, in ms.
   */
  settle(): Promise<number>;
  stop(): Promise<void>;
}

export async function startBenchDaemon(dir: string, opts: { transcripts?: boolean } = {}): Promise<BenchDaemon> {
  const stateDir = fs.mkdtempSync(path.join(dir, 'state-'));
  const token = crypto.randomBytes(16).toString('hex');
  const daemon = await startDaemon({ listen: '127.0.0.1:0', stateDir, token, logger: false, transcripts: opts.transcripts });
  const client = new TermhostClient({ address: daemon.address, token });
  return {
    daemon,
    client,
    session(id) {
      const found = daemon.manager.get(id, SYSTEM_ACTOR);
      if (!found.ok) throw new Error(`bench: no session ${id}`);
      return found.value;
    },
    async settle() {
      const t0 = nowMs();
      await daemon.store.flush();
      return nowMs() - t0;
    },
    async stop() {
      client.close();
      await daemon.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Wait for a session's process to exit with all output parsed; loops because one wait request is capped at 60 s. */
export async function waitExit(client: TermhostClient, id: string, deadlineMs: number) {
  for (;;) {
    const r = await client.wait(id, { exit: true, timeout_ms: 60_000 });
    if (r.screen.exited) return r.screen;
    if (Date.now() > deadlineMs) throw new Error(`session ${id} did not exit in time`);
  }
}
