/**
 * Bundles the browser UI with esbuild into dist/ui, where the daemon serves it from (/ui/). Runs as part of
 * `npm run build`. Everything the page loads is in the bundle: nothing comes from the network at run time.
 *
 * xterm.js is its own entry (assets/xterm.js), imported dynamically by the app, so that when it fails to load the
 * page can fall back to its DOM renderer instead of failing whole. alis-driver.js is an entry of its own too: pages
 * that embed asciinema-player copy it (or load it from here) to play a session's live stream.
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
    // Not loaded by the app: the adaptor that plays a live stream in asciinema-player (docs/protocol.md).
    'alis-driver': path.join(root, 'src', 'alisDriver.ts'),
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
