/**
 * The shipped CLI (issue 13, start-up): dist/cli/main.js is one CommonJS bundle of the client side (built by
 * scripts/build-cli.mjs), so `termhost ls` reads and compiles one file of ours and starts no ES module loader, while
 * the daemon's and the runtime's code is still the one copy in dist/, loaded only by the commands that need it.
 *
 * What the process loads is recorded by two fixtures: test/fixtures/trace-loads.mjs (ES modules, by a load hook) and
 * test/fixtures/trace-requires.cjs (CommonJS files, from require.cache at exit).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { BIN, ROOT, startTestDaemon, type TestDaemon } from './helpers.js';

const run = promisify(execFile);
const FIXTURES = path.join(ROOT, 'test', 'fixtures');

let d: TestDaemon;
let dir: string;
before(async () => {
  d = await startTestDaemon();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-bundle-'));
});
after(async () => {
  await d.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Run the CLI, recording what it loads: the files of this checkout (relative to it), and the packages apart. */
async function loadedBy(args: string[]): Promise<{ stdout: string; ours: string[]; packages: string[]; builtins: string[] }> {
  const esm = path.join(dir, 'esm.txt');
  const cjs = path.join(dir, 'cjs.txt');
  const native = path.join(dir, 'builtins.txt');
  for (const f of [esm, cjs, native]) fs.rmSync(f, { force: true });
  const { stdout } = await run(process.execPath, ['-r', path.join(FIXTURES, 'trace-requires.cjs'), '--import', path.join(FIXTURES, 'trace-loads.mjs'), BIN, ...args], {
    env: { ...process.env, TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token, TRACE_LOADS: esm, TRACE_REQUIRES: cjs, TRACE_BUILTINS: native },
  });
  const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean) : []);
  const files = [...read(cjs), ...read(esm).filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u))]
    .filter((f) => f.startsWith(ROOT) && !f.startsWith(FIXTURES))
    .map((f) => path.relative(ROOT, f));
  const unique = [...new Set(files)].sort();
  return { stdout, ours: unique.filter((f) => !f.startsWith('node_modules/')), packages: unique.filter((f) => f.startsWith('node_modules/')), builtins: read(native) };
}

test('termhost ls loads one file, the CLI bundle: nothing of the daemon, the runtime or the MCP server, and no package', async () => {
  const { id } = await d.client.createSession({ command: ['sleep', '30'] });
  const { stdout, ours, packages, builtins } = await loadedBy(['ls', '-q']);
  assert.equal(stdout, `${id}\n`);
  assert.deepEqual(ours, ['dist/cli/main.js']);
  // Not fastify, node-pty, xterm, undici (the pool transport), TypeBox (the schemas) or the MCP SDK.
  assert.deepEqual(packages, []);
  // TLS is loaded for an https:// daemon only: a plain one pays nothing for it.
  assert.ok(builtins.includes('node:http'), `Node modules loaded: ${builtins.join(' ')}`);
  assert.deepEqual(builtins.filter((m) => /^node:(tls|https|_tls_wrap)$/.test(m)), []);
});

test('termhost send loads the runtime\'s key table from dist/, the one copy of it, and nothing else of the runtime', async () => {
  const { id } = await d.client.createSession({ command: ['cat'] });
  const { ours, packages } = await loadedBy(['send', id, 'hi', 'Enter']);
  // The key table alone: loading the runtime around it (node-pty, the emulator) cost every `send` about 100 ms.
  assert.deepEqual(ours, ['dist/cli/main.js', 'dist/core/input/keys.js']);
  assert.deepEqual(packages, []);
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
