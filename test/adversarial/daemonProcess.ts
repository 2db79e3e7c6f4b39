/**
 * The real daemon as its own process (`node dist/cli/main.js serve`), for attacks that need what an in-process test
 * daemon cannot give: fds it inherited from its parent, a different environment, or a SIGKILL.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TermhostClient } from '../../src/client/TermhostClient.js';
import { ROOT, testHome } from '../helpers.js';

export interface DaemonProcess {
  child: ChildProcess;
  pid: number;
  client: TermhostClient;
  stateDir: string;
  /** Stop it gracefully (SIGTERM) if still running, and remove its state dir. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

export async function startDaemonProcess(opts: { env?: Record<string, string>; stdio?: StdioOptions } = {}): Promise<DaemonProcess> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-proc-'));
  const token = crypto.randomBytes(16).toString('hex');
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'dist/cli/main.js'), 'serve', '--listen', '127.0.0.1:0', '--state-dir', stateDir, '--log-level', 'warn'],
    { env: { ...process.env, HOME: testHome(), TERMHOST_TOKEN: token, ...opts.env }, stdio: opts.stdio ?? ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = await new Promise<string>((resolve, reject) => {
    let err = '';
    // Generous: a loaded machine (two cores, several test runs) can take many seconds to start Node and its imports.
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`the daemon did not start within ${START_TIMEOUT_MS} ms: ${err}`));
    }, START_TIMEOUT_MS);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => (err = (err + d).slice(-4096)));
    // It says where it listens in <state dir>/daemon.json, as it does for every client on the machine.
    const poll = setInterval(() => {
      try {
        const record = JSON.parse(fs.readFileSync(path.join(stateDir, 'daemon.json'), 'utf8')) as { pid: number; address: string };
        if (record.pid !== child.pid || !record.address) return;
        clearTimeout(timer);
        clearInterval(poll);
        resolve(record.address);
      } catch {
        /* not written yet */
      }
    }, 20);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`the daemon exited (${code}) before listening: ${err}`));
    });
  }).catch(async (err: unknown) => {
    child.kill('SIGKILL');
    await exited;
    fs.rmSync(stateDir, { recursive: true, force: true });
    throw err;
  });
  const client = new TermhostClient({ address, token });
  return {
    child,
    pid: child.pid!,
    client,
    stateDir,
    async stop() {
      client.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** True while a process with this pid exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z'; // the state follows the command name, which may hold anything
  } catch {
    return false;
  }
}

/** True once pid is asleep in `sleep` (not still starting: its startup briefly opens locale files). */
export function sleeping(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/wchan`, 'utf8').includes('nanosleep');
  } catch {
    return false;
  }
}

/** The fds a process holds, read from outside, numerically sorted. */
export function fdsOf(pid: number): number[] {
  return fs
    .readdirSync(`/proc/${pid}/fd`)
    .map(Number)
    .sort((a, b) => a - b);
}
