/** Starting a worker thread from a module beside the caller, compiled (.js) or run from TypeScript sources (tsx). */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker running `name` (without extension) from the directory of the module at `callerUrl`. */
export function moduleWorker(callerUrl: string, name: string, opts: WorkerOptions = {}): Worker {
  const here = fileURLToPath(callerUrl);
  const entry = path.join(path.dirname(here), `${name}${path.extname(here)}`);
  // Running from TypeScript sources (the test suite, under tsx), the worker registers the same loader first.
  return entry.endsWith('.ts')
    ? new Worker(`import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); })`, { ...opts, eval: true })
    : new Worker(entry, opts);
}
