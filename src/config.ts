/** Where termhost keeps its state, and the generated token: shared by the daemon and the CLI. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const DEFAULT_LISTEN = '127.0.0.1:7070';

/** $XDG_STATE_HOME/termhost, else ~/.local/state/termhost. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), '.local', 'state');
  return path.join(base, 'termhost');
}

export function tokenPath(stateDir: string): string {
  return path.join(stateDir, 'token');
}

/** Create the state directory 0700 (tightening it if it already exists). */
export function ensureStateDir(stateDir: string): void {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(stateDir, 0o700);
}

/** Read the stored token, or generate a 256-bit one and store it 0600. */
export function loadOrCreateToken(stateDir: string): string {
  ensureStateDir(stateDir);
  const file = tokenPath(stateDir);
  const existing = readToken(stateDir);
  if (existing) return existing;
  const token = crypto.randomBytes(32).toString('base64url');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return token;
}

export function readToken(stateDir: string): string | undefined {
  try {
    const t = fs.readFileSync(tokenPath(stateDir), 'utf8').trim();
    return t || undefined;
  } catch {
    return undefined;
  }
}
