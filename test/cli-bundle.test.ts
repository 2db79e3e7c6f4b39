/**
 * The shipped CLI (issue 13, start-up): dist/cli/main.js is one CommonJS bundle of the client side (built by
 * scripts/build-cli.mjs), so `termhost ls` reads and compiles one file of ours and starts no ES module loader, while
 * the daemon's and the runtime's code is still the one copy in dist/, loaded only by the commands that need it.
 *
 * What the process loads is recorded by a preload: CommonJS files from require.cache, ES modules by a resolve hook
 * (module.register) that appends every file URL it sees.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { ROOT, startTestDaemon, type TestDaemon } from './helpers.js';

const run = promisify(execFile);
const BIN = path.join(ROOT, 'dist/cli/main.js');

let d: TestDaemon;
let dir: string;
let preload: string;
before(async () => {
  d = await startTestDaemon();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-bundle-'));
  const hooks = path.join(dir, 'hooks.mjs');
  fs.writeFileSync(
    hooks,
    `import fs from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.startsWith('file:')) fs.appendFileSync(${JSON.stringify(path.join(dir, 'esm.txt'))}, r.url + '\\n');
  return r;
}
`,
  );
  preload = path.join(dir, 'preload.cjs');
  fs.writeFileSync(
    preload,
    `require('node:module').register(${JSON.stringify(pathToFileURL(hooks).href)});
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(path.join(dir, 'cjs.txt'))}, Object.keys(require.cache).join('\\n') + '\\n'));
`,
  );
});
after(async () => {
  await d.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Run the CLI with the recording preload; the files of this checkout it loaded, relative to it. */
async function loadedBy(args: string[]): Promise<{ stdout: string; files: string[] }> {
  for (const f of ['esm.txt', 'cjs.txt']) fs.rmSync(path.join(dir, f), { force: true });
  const { stdout } = await run(process.execPath, ['-r', preload, BIN, ...args], {
    env: { ...process.env, TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token },
  });
  const read = (f: string) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean) : []);
  const files = [...read('cjs.txt'), ...read('esm.txt').map((u) => new URL(u).pathname)]
    .filter((f) => f.startsWith(ROOT) && !f.startsWith(path.join(ROOT, 'node_modules')))
    .map((f) => path.relative(ROOT, f));
  return { stdout, files: [...new Set(files)].sort() };
}

test('termhost ls loads one file of ours, the CLI bundle: no ES module of the daemon, the runtime or the client', async () => {
  const { id } = await d.client.createSession({ command: ['sleep', '30'] });
  const { stdout, files } = await loadedBy(['ls', '-q']);
  assert.equal(stdout, `${id}\n`);
  assert.deepEqual(files, ['dist/cli/main.js']);
});

test('termhost send loads the runtime\'s key table from dist/, the one copy of it, not from the bundle', async () => {
  const { id } = await d.client.createSession({ command: ['cat'] });
  const { files } = await loadedBy(['send', id, 'hi', 'Enter']);
  assert.ok(files.includes('dist/cli/main.js'));
  assert.ok(files.includes('dist/core/index.js'), `loaded: ${files.join(', ')}`);
  assert.ok(!files.some((f) => f.startsWith('dist/cli/') && f !== 'dist/cli/main.js'), `loaded: ${files.join(', ')}`);
});

test('the bundle holds no code of the daemon, the runtime, the store or the MCP server, and is CommonJS', () => {
  const text = fs.readFileSync(BIN, 'utf8');
  // esbuild names each bundled module by its source path in a comment; ours outside the client side must be absent.
  const bundled = [...text.matchAll(/^\/\/ src\/(\S+\.ts)$/gm)].map((m) => m[1]!);
  assert.ok(bundled.includes('cli/commands/ls.ts') && bundled.includes('client/TermhostClient.ts'), `bundled: ${bundled.join(', ')}`);
  const outside = bundled.filter((f) => !/^(cli|client|protocol)\/|^config\.ts$/.test(f));
  assert.deepEqual(outside, []);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/cli/package.json'), 'utf8')), { type: 'commonjs' });
});

test('nothing the bundle loads from dist/ imports the CLI or the client at run time, so their two copies never meet', () => {
  const src = path.join(ROOT, 'src');
  // The bundle's own sources, and the package's entry (src/index.ts re-exports the client; the CLI never loads it).
  const skip = (rel: string) => /^(cli|client|protocol)\//.test(rel) || rel === 'config.ts' || rel === 'index.ts' || rel.endsWith('.test.ts');
  const wrong: string[] = [];
  for (const rel of fs.readdirSync(src, { recursive: true }) as string[]) {
    if (!rel.endsWith('.ts') || skip(rel.split(path.sep).join('/'))) continue;
    const text = fs.readFileSync(path.join(src, rel), 'utf8');
    // import type is erased; a value import (static or dynamic) would load dist's copy beside the bundle's.
    for (const m of text.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^;]*?from\s+'([^']+)'|import\('([^']+)'\)/gm)) {
      const spec = m[1] ?? m[2]!;
      if (/(^|\/)(cli|client)\//.test(spec)) wrong.push(`src/${rel} imports ${spec}`);
    }
  }
  assert.deepEqual(wrong, []);
});
