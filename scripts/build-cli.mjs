/**
 * Bundles the CLI into one CommonJS file, dist/cli/main.js (the bin). Runs as part of `npm run build`, after tsc,
 * and replaces tsc's per-file output of src/cli.
 *
 * Why (docs/performance.md, start-up): `termhost ls` is a new Node process per call. As ES modules it paid Node 20's
 * ES module loader (started for the first module, ~7 ms here) and then a resolve, stat, realpath, async read and
 * compile for each of the 14 files it loaded. One CommonJS file pays neither; each module in it is wrapped so that its
 * top level runs only when something imports it, so a command still runs only its own code.
 *
 * What is in the bundle: src/cli, src/client, src/config.ts and the src/protocol modules they import statically, the
 * code client commands run.
 * Everything else of ours (the daemon, the runtime, the store, the MCP server: what `serve`, `mcp --embedded`,
 * `doctor` and `send`'s key names load) stays its tsc output in dist/, loaded by a dynamic import() of that file,
 * never copied in:
 * - those files find what they need relative to their own location (the UI bundle, fonts, workers, shell scripts,
 *   the native addon, package.json), which only holds where tsc put them;
 * - one copy of each class, so an error the runtime throws is the class its callers test for;
 * - they are ES modules, which Node 20 cannot require(): a static import of one from the bundle fails the build.
 * Packages stay imports too, resolved from node_modules as before. Nothing outside the bundle imports the CLI or the
 * client at run time, so the bundle's copies of them never meet dist's; test/cli-bundle.test.ts checks that, and
 * what `ls` loads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'cli');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** Sources (relative to src/) that go into the bundle. */
const BUNDLED = [/^cli\//, /^client\//, /^protocol\//, /^config\.ts$/];

const ourFiles = {
  name: 'our-files',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const file = path.resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      const rel = path.relative(src, file).split(path.sep).join('/');
      // A protocol module the CLI only imports dynamically (audit's schemas, for one helper) stays out: it would be
      // compiled on every start for the one command that needs it. Protocol modules are pure, so a second copy of one
      // (dist's, beside a bundled one) holds nothing that could disagree.
      const lazyProtocol = rel.startsWith('protocol/') && args.kind === 'dynamic-import';
      if (rel.startsWith('../') || (BUNDLED.some((re) => re.test(rel)) && !lazyProtocol)) return undefined;
      // src/version.ts reads ../package.json next to itself; in the bundle the version is the one it was built from.
      if (rel === 'version.ts') return { path: 'version', namespace: 'termhost-version' };
      if (!fs.existsSync(file)) return { errors: [{ text: `${args.path}: no such source file ${rel}` }] };
      if (args.kind !== 'dynamic-import') {
        return { errors: [{ text: `${args.importer} imports src/${rel} statically; the CLI bundle loads it only with a dynamic import()` }] };
      }
      const target = path.join(dist, rel.replace(/\.ts$/, '.js'));
      return { path: `./${path.relative(out, target).split(path.sep).join('/')}`, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: 'termhost-version' }, () => ({
      contents: `export const VERSION = ${JSON.stringify(pkg.version)};`,
      loader: 'js',
    }));
  },
};

fs.rmSync(out, { recursive: true, force: true });
await esbuild.build({
  entryPoints: [path.join(src, 'cli', 'main.ts')],
  outfile: path.join(out, 'main.js'),
  // Module comments in the bundle name sources from the checkout's root (test/cli-bundle.test.ts reads them).
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  plugins: [ourFiles],
  // import.meta.url is the bundle's own URL: main.ts compares it with argv[1], doctor resolves packages from it.
  define: { 'import.meta.url': '__termhost_bundle_url' },
  // The banner goes before esbuild's own "use strict", which would then not count: the sources are strict ES modules.
  banner: { js: '"use strict";\nconst __termhost_bundle_url = require("node:url").pathToFileURL(__filename).href;' },
  // Readable stack traces in bug reports: names and lines as written.
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
// The package is "type": "module"; this one file is CommonJS, and keeps the bin's path.
fs.writeFileSync(path.join(out, 'package.json'), '{ "type": "commonjs" }\n');
fs.chmodSync(path.join(out, 'main.js'), 0o755);
