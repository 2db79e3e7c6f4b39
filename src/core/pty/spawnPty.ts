/**
 * Turn a session's launch request into a running PTY, or into a clear error value. node-pty reports a missing
 * program only as an exit code from the forked child, so the program and cwd are checked here first, against the
 * same PATH the child will search.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TermError, fail, ok, type Result } from '../errors.js';
import { PtyProcess, type PtySpawnSpec } from './PtyProcess.js';

export function resolveProgram(file: string, envPath: string | undefined, cwd: string): string | undefined {
  const candidates = file.includes('/')
    ? [path.resolve(cwd, file)]
    : (envPath ?? '/usr/local/bin:/usr/bin:/bin').split(':').filter(Boolean).map((dir) => path.join(dir, file));
  for (const candidate of candidates) {
    try {
      const st = fs.statSync(candidate);
      if (!st.isFile()) continue;
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* not here; try the next PATH entry */
    }
  }
  return undefined;
}

export function spawnPty(spec: PtySpawnSpec, maxQueuedInputBytes?: number): Result<PtyProcess> {
  let st: fs.Stats;
  try {
    st = fs.statSync(spec.cwd);
  } catch {
    return fail(new TermError('cwd_not_found', `working directory "${spec.cwd}" does not exist`));
  }
  if (!st.isDirectory()) return fail(new TermError('cwd_not_found', `working directory "${spec.cwd}" is not a directory`));
  if (!spec.file) return fail(new TermError('command_not_found', 'the command is empty'));
  if (!resolveProgram(spec.file, spec.env.PATH, spec.cwd)) {
    return fail(
      new TermError('command_not_found', `program "${spec.file}" was not found or is not executable (searched PATH)`),
    );
  }
  try {
    return ok(new PtyProcess(spec, maxQueuedInputBytes));
  } catch (err) {
    return fail(new TermError('spawn_failed', `could not start "${spec.file}": ${(err as Error).message}`));
  }
}
