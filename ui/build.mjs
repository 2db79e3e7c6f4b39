/**
 * Bundles the browser UI with esbuild into dist/ui, where the daemon serves it from (/ui/). Runs as part of
 * `npm run build`. Everything the page loads is in the bundle: nothing comes from the network at run time.
 *
 * xterm.js is its own entry (assets/xterm.js), imported dynamically by the app, so that when it fails to load the
 * page can fall back to its DOM renderer instead of failing whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(root, '..', 'dist', 'ui');

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'assets'), { recursive: true });

await esbuild.build({
  entryPoints: {
    app: path.join(root, 'src', 'main.ts'),
    xterm: path.join(root, 'src', 'xtermView.ts'),
    style: path.join(root, 'src', 'styles.css'),
  },
  outdir: path.join(out, 'assets'),
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: false,
  entryNames: '[name]',
  assetNames: '[name]',
  loader: { '.woff2': 'file' },
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
});
fs.copyFileSync(path.join(root, 'index.html'), path.join(out, 'index.html'));
