/**
 * termhost doctor: what stands between you and a working termhost. Is a daemon running for the state dir and where,
 * does it answer, does the token match, can a PTY be spawned here, can `termhost ui` open a browser, which versions.
 * Each check says what to do when it fails; the exit status is 1 when any check failed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { VERSION } from '../../version.js';
import { noMoreArgs } from '../args.js';
import { clientOptions, printJson, type Io } from '../context.js';
import type { Command } from './types.js';

type Status = 'ok' | 'warn' | 'fail';
interface Check {
  check: string;
  status: Status;
  detail: string;
}

/** How long the PTY spawn check may take. */
const SPAWN_CHECK_MS = 10_000;

function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir || '.', program);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      /* not in this directory */
    }
  }
  return undefined;
}

async function daemonChecks(flags: Record<string, unknown>, checks: Check[]): Promise<string | undefined> {
  const { TermhostClient } = await import('../../client/TermhostClient.js');
  const { formatAddress } = await import('../../client/address.js');
  const { daemonFilePath, readDaemonRecord, tokenPath } = await import('../../config.js');
  const client = new TermhostClient({ ...(await clientOptions(flags)), transport: 'once' });
  try {
    const { target } = client;
    const file = daemonFilePath(target.stateDir);
    const found = readDaemonRecord(target.stateDir);
    if (target.from === 'none') {
      const why = found?.state === 'stale' ? `${file} names pid ${found.record.pid}, which is gone (the daemon died); ` : '';
      checks.push({ check: 'daemon', status: 'fail', detail: `${why}no daemon running for state dir ${target.stateDir}: start one with \`termhost serve\`` });
      return undefined;
    }
    const where = formatAddress(client.address);
    const from = target.from === 'daemon.json' ? `pid ${found?.record.pid}, from ${file}` : target.from === 'env' ? 'from $TERMHOST_ADDR' : 'from --addr';
    let daemonVersion: string | undefined;
    try {
      daemonVersion = (await client.health()).version;
      checks.push({ check: 'daemon', status: 'ok', detail: `running at ${where} (${from})` });
    } catch (err) {
      checks.push({ check: 'daemon', status: 'fail', detail: (err as Error).message });
      return undefined;
    }
    const tokenFrom =
      flags.token !== undefined
        ? '--token'
        : process.env.TERMHOST_TOKEN
          ? '$TERMHOST_TOKEN'
          : target.from === 'daemon.json' && found?.record.token_file
            ? found.record.token_file
            : tokenPath(target.stateDir);
    if (!client.token) {
      checks.push({ check: 'token', status: 'fail', detail: `no token: none in ${tokenFrom}; pass --token or set TERMHOST_TOKEN` });
      return daemonVersion;
    }
    try {
      await client.listSessions();
      const admin = await client.listTokens().then(() => true, () => false);
      checks.push({ check: 'token', status: 'ok', detail: `accepted by the daemon${admin ? ' (the admin token)' : ''}; from ${tokenFrom}` });
    } catch (err) {
      const status = (err as { status?: number }).status;
      checks.push({
        check: 'token',
        status: 'fail',
        detail: status === 401 ? `the daemon refuses the token from ${tokenFrom}: it is another daemon's, or revoked` : (err as Error).message,
      });
    }
    return daemonVersion;
  } finally {
    client.close();
  }
}

async function spawnCheck(checks: Check[]): Promise<void> {
  const { Runtime, SYSTEM_ACTOR } = await import('../../core/index.js');
  const runtime = new Runtime();
  try {
    const created = runtime.sessions.create({ command: ['sh', '-c', 'exit 0'], cols: 20, rows: 2 }, SYSTEM_ACTOR);
    if (!created.ok) throw created.error;
    const done = await created.value.wait(SYSTEM_ACTOR, { exit: true, timeout_ms: SPAWN_CHECK_MS });
    if (!done.ok || !done.value.matched) throw new Error(`sh in a PTY did not exit within ${SPAWN_CHECK_MS / 1000} s`);
    checks.push({ check: 'node-pty', status: 'ok', detail: 'ran sh in a PTY' });
  } catch (err) {
    checks.push({ check: 'node-pty', status: 'fail', detail: `cannot run a program in a PTY: ${(err as Error).message}` });
  } finally {
    await runtime.close();
  }
}

function browserCheck(checks: Check[]): void {
  const mac = process.platform === 'darwin';
  const opener = mac ? 'open' : 'xdg-open';
  const found = onPath(opener);
  if (!found) return void checks.push({ check: 'browser', status: 'warn', detail: `no ${opener} on PATH: termhost ui prints its link instead of opening it` });
  if (!mac && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return void checks.push({ check: 'browser', status: 'warn', detail: `no display (DISPLAY, WAYLAND_DISPLAY unset): termhost ui prints its link for a browser elsewhere` });
  }
  checks.push({ check: 'browser', status: 'ok', detail: `${found} opens the UI` });
}

function nodePtyVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    return (JSON.parse(fs.readFileSync(require.resolve('node-pty/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function print(io: Io, checks: Check[]): void {
  const width = Math.max(...checks.map((c) => c.check.length));
  io.out(checks.map((c) => `${c.status.padEnd(4)}  ${c.check.padEnd(width)}  ${c.detail}\n`).join(''));
}

export const doctor: Command = {
  name: 'doctor',
  summary: 'check the set-up: daemon, address, token, PTYs, browser opener, versions',
  flags: [{ name: 'json', kind: 'boolean', help: 'print the checks as JSON: [{check, status, detail}]' }],
  examples: ['termhost doctor', 'termhost --state-dir /srv/termhost doctor'],
  async run(parsed, io) {
    noMoreArgs(parsed, 0);
    const checks: Check[] = [];
    const daemonVersion = await daemonChecks(parsed.flags, checks);
    await spawnCheck(checks);
    browserCheck(checks);
    checks.push({
      check: 'versions',
      status: daemonVersion === undefined || daemonVersion === VERSION ? 'ok' : 'warn',
      detail: `termhost ${VERSION}, daemon ${daemonVersion ?? '(not reached)'}, node ${process.versions.node}, node-pty ${nodePtyVersion()}`,
    });
    if (parsed.flags.json) printJson(io, checks);
    else print(io, checks);
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  },
};
