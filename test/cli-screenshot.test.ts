/** `termhost screenshot`, run as a user runs the built CLI against a real daemon (issue 16 section 2). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { THEMES } from '../src/protocol/theme.js';
import { assertNoLeaks, runBin, startTestDaemon, type TestDaemon } from './helpers.js';
import { cellColours, decodePng, printingSession } from './picture-helpers.js';

let d: TestDaemon;
let env: Record<string, string>;
let dir: string;
before(async () => {
  d = await startTestDaemon();
  env = { TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token };
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-shots-'));
});
after(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await d.stop();
  await assertNoLeaks();
});
const th = (args: string[]) => runBin(args, { env });

test('screenshot -o writes a PNG (or an SVG, by the file name) of what the session shows', async () => {
  const s = await printingSession(d, '\\033[44mblue\\033[0m', { cols: 30, rows: 5 }, 'blue');
  const png = path.join(dir, 'shot.png');
  const r = await th(['screenshot', s.id, '-o', png, '--scale', '20']);
  assert.equal(r.code, 0, r.stderr);
  const img = decodePng(fs.readFileSync(png));
  assert.deepEqual([img.width, img.height], [30 * 10, 5 * 20]);
  assert.equal(cellColours(img, { cellWidth: 10, cellHeight: 20 }, 0, 0, 4)[0], THEMES.dark.blue);
  assert.match(r.stderr, new RegExp(`shot\\.png: 300x100 PNG of ${s.id}`));

  const svg = path.join(dir, 'shot.svg');
  const v = await th(['screenshot', s.id, '-o', svg, '--theme', 'light', '--rows', '0', '--no-cursor']);
  assert.equal(v.code, 0, v.stderr);
  const text = fs.readFileSync(svg, 'utf8');
  assert.match(text, /^<svg [^>]*height="16"/);
  assert.match(text, new RegExp(`fill="${THEMES.light.blue}"`));
  await d.client.deleteSession(s.id);
});

test('screenshot without -o, or with a bad option, is a usage error that says what to do', async () => {
  const s = await printingSession(d, 'x', { cols: 10, rows: 2 }, 'x');
  for (const [args, words] of [
    [['screenshot', s.id], /needs -o FILE/],
    [['screenshot', s.id, '-o', path.join(dir, 'a.png'), '--scale', '99'], /--scale must be at most 64/],
    [['screenshot', s.id, '-o', path.join(dir, 'a.png'), '--rows', 'top'], /--rows wants a row or a range/],
    [['screenshot', s.id, '-o', path.join(dir, 'a.png'), '--theme', 'neon'], /--theme/],
  ] as const) {
    const r = await th([...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, words);
  }
  const outside = await th(['screenshot', s.id, '-o', path.join(dir, 'b.png'), '--rows', '5']);
  assert.notEqual(outside.code, 0);
  assert.match(outside.stderr, /rows 5-5 is outside the screen \(rows 0-1\)/);
  assert.ok(!fs.existsSync(path.join(dir, 'b.png')), 'no file is written for a refused picture');
  await d.client.deleteSession(s.id);
});
