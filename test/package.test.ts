/**
 * The package as npm ships it: `npm pack`, installed into a throwaway prefix as `npm install -g` would, then run.
 * What it contains (the licence, the docs the README links to, no source maps without their sources), and whether
 * the engines it declares are true of everything that gets installed with it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { ROOT } from './helpers.js';

const run = promisify(execFile);
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string; engines: { node: string } };
// semver comes with npm's own dependency tree (node-gyp and others need it); it is what npm compares engines with.
const semver = createRequire(path.join(ROOT, 'package.json'))('semver') as {
  satisfies(v: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
const FLOOR = semver.minVersion(pkg.engines.node)!.version;

let work: string;
let files: string[];
before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work, '--ignore-scripts'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

test('the tarball has the MIT licence, every file the README links to, and no source map without its source', () => {
  assert.ok(files.includes('LICENSE'));
  const license = fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
  assert.equal(pkg.license, 'MIT');
  assert.match(license, /^MIT License\n\nCopyright \(c\) termhost contributors\n/);
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const linked = [...readme.matchAll(/\]\(((?:docs|examples)\/[^)#\s]+)/g)].map((m) => m[1]!);
  assert.ok(linked.length > 5);
  for (const f of new Set(linked)) assert.ok(files.includes(f), `the README links to ${f}; the package must ship it`);
  for (const map of files.filter((f) => f.endsWith('.map'))) {
    const sources = (JSON.parse(fs.readFileSync(path.join(ROOT, map), 'utf8')) as { sources: string[] }).sources;
    for (const s of sources) assert.ok(files.includes(path.normalize(path.join(path.dirname(map), s))), `${map} points at ${s}, which is not shipped`);
  }
  assert.ok(files.includes('dist/cli/main.js') && files.includes('dist/cli/package.json') && files.includes('dist/index.js') && files.includes('dist/client/index.js'));
  for (const f of ['shell/bash/termhost.bash', 'shell/zsh/.zshenv', 'shell/zsh/termhost.zsh', 'shell/fish/termhost.fish']) assert.ok(files.includes(f), `the package ships ${f}`);
});

test('installed from the tarball into a fresh prefix, termhost --version runs, and every installed package supports the declared Node', async () => {
  assert.ok(semver.satisfies(process.versions.node, pkg.engines.node), `this Node (${process.versions.node}) is one the package declares`);
  const prefix = path.join(work, 'prefix');
  const tarball = path.join(work, fs.readdirSync(work).find((f) => f.endsWith('.tgz'))!);
  // --ignore-scripts: no native build (node-pty, better-sqlite3), which --version must not need anyway.
  await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--engine-strict', tarball], {
    cwd: work,
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const { stdout } = await run(path.join(prefix, 'bin', 'termhost'), ['--version'], { env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` } });
  assert.equal(stdout, `termhost ${pkg.version}\n`);
  // A client command runs the installed bundle's client code (the bin is one CommonJS file beside dist's ES modules).
  const ls = await run(path.join(prefix, 'bin', 'termhost'), ['ls', '--addr', '127.0.0.1:1'], { env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` } }).then(
    () => assert.fail('ls against a closed port succeeded'),
    (err: { code: number; stderr: string }) => err,
  );
  assert.equal(ls.code, 1);
  assert.equal(ls.stderr, 'termhost ls: no daemon is listening at 127.0.0.1:1 (connection refused): start one with `termhost serve` [unreachable]\n');
  const root = path.join(prefix, 'lib', 'node_modules', 'termhost');
  const wrong: string[] = [];
  const walk = (dir: string) => {
    for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      if (name.startsWith('.')) continue;
      if (name.startsWith('@')) {
        walk(path.join(dir, name));
        continue;
      }
      const at = path.join(dir, name);
      const file = path.join(at, 'package.json');
      if (!fs.existsSync(file)) continue;
      const p = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; version: string; engines?: { node?: string } };
      if (p.engines?.node && !semver.satisfies(FLOOR, p.engines.node)) wrong.push(`${p.name}@${p.version} wants node ${p.engines.node}`);
      walk(path.join(at, 'node_modules'));
    }
  };
  walk(path.join(root, 'node_modules'));
  assert.deepEqual(wrong, [], `every package installed with termhost supports node ${FLOOR}, the floor its engines declare`);

  // The installed package starts each shell with its own shipped scripts, and they report a command with its status.
  const { planShell } = (await import(path.join(root, 'dist', 'core', 'shell', 'integration.js'))) as typeof import('../src/core/shell/integration.js');
  const nodePty = await import('node-pty');
  for (const shell of ['bash', 'zsh', 'fish']) {
    const plan = planShell([shell], { PATH: process.env.PATH!, HOME: work, TERM: 'xterm-256color' }, true);
    assert.ok(plan.argv.concat(Object.values(plan.env)).some((a) => a.includes(path.join(root, 'shell'))), `${shell} is started with the installed scripts`);
    const pty = nodePty.spawn(plan.argv[0]!, plan.argv.slice(1), { cols: 80, rows: 24, cwd: work, env: plan.env });
    let out = '';
    pty.onData((d) => (out += d));
    try {
      const mark = (s: string) => `\x1b]133;${s};th=${plan.nonce}`;
      const deadline = Date.now() + 30_000;
      const until = async (what: string, ok: () => boolean) => {
        while (!ok()) {
          if (Date.now() > deadline) throw new Error(`${shell}: no ${what} in ${JSON.stringify(out.slice(-400))}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await until('prompt mark', () => out.includes(mark('B')));
      pty.write(shell === 'fish' ? " fish -c 'exit 3'\r" : ' (exit 3)\r');
      await until('D mark with status 3', () => out.includes(mark('C')) && out.includes(`\x1b]133;D;3;th=${plan.nonce}`));
    } finally {
      pty.kill('SIGKILL');
    }
  }
});
