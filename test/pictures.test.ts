/**
 * Pictures of a screen, end to end: a real program prints known bytes into a real PTY, the daemon draws the screen as
 * PNG or SVG, and the test reads the pixels back. Each drawing case has a golden image (test/fixtures/pictures),
 * compared with a small tolerance, and the pixels that carry the meaning (a cell's colour, the inverse row, the two
 * cells of a wide character, the cursor) are also checked exactly against the theme.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TermhostClient, type TermhostError } from '../src/client/TermhostClient.js';
import { THEMES, paletteColor } from '../src/protocol/theme.js';
import { assertNoLeaks, rawRequest, ROOT, startTestDaemon, until, waitText, type TestDaemon } from './helpers.js';
import { assertGolden, cellColours, decodePng, pixel, printingSession, GOLDEN_DIR, SGR_SCREEN } from './picture-helpers.js';

const dark = THEMES.dark;
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

const printing = (format: string, size: { cols: number; rows: number }, last: string) => printingSession(d, format, size, last);

test('a cell under a known SGR is drawn in the theme colour, the 256-colour palette and true colour', async () => {
  const s = await printing(SGR_SCREEN, { cols: 20, rows: 4 }, 'Bold');
  const shot = await d.client.screenshot(s.id, { cursor: false });
  assert.deepEqual([shot.cellWidth, shot.cellHeight, shot.cols, shot.firstRow, shot.lastRow], [8, 16, 20, 0, 3]);
  const img = decodePng(shot.bytes);
  assert.deepEqual([img.width, img.height], [160, 64]);
  assert.deepEqual(cellColours(img, shot, 0, 0, 2), [dark.red], 'SGR 41: two blank cells on the theme red');
  assert.deepEqual(cellColours(img, shot, 2, 0), [paletteColor(196)], 'SGR 38;5;196: a full block in palette red');
  assert.equal(paletteColor(196), '#ff0000');
  assert.deepEqual(cellColours(img, shot, 3, 0, 3), ['#010203'], 'SGR 48;2;1;2;3: true-colour background');
  const bold = cellColours(img, shot, 6, 0, 4);
  assert.equal(bold[0], dark.background, 'text sits on the default background');
  assert.ok(bold.includes(dark.brightGreen), `bold green is drawn in the bright green (as xterm.js does); saw ${bold.slice(0, 5)}`);
  assert.deepEqual(cellColours(img, shot, 0, 1, 20), [dark.background], 'an empty row is the background');
  assertGolden('sgr-colours', shot.bytes);
  await d.client.deleteSession(s.id);
});

test('a highlighted menu row (inverse video) is drawn in the foreground colour with its text in the background colour', async () => {
  const s = await printing('  first item\\n\\033[7m> second item     \\033[0m\\n  third item', { cols: 20, rows: 4 }, 'third item');
  const shot = await d.client.screenshot(s.id, { cursor: false });
  const img = decodePng(shot.bytes);
  assert.deepEqual(cellColours(img, shot, 1, 1), [dark.foreground], 'a blank cell of the inverse run');
  assert.deepEqual(cellColours(img, shot, 15, 1, 3), [dark.foreground], 'the padded end of the run');
  const text = cellColours(img, shot, 2, 1, 6);
  assert.equal(text[0], dark.foreground);
  assert.ok(text.includes(dark.background), 'the inverse text is drawn in the background colour');
  assert.deepEqual(cellColours(img, shot, 18, 1, 2), [dark.background], 'past the run the row is plain again');
  assert.equal(cellColours(img, shot, 0, 0, 20)[0], dark.background, 'the row above is not highlighted');
  assertGolden('inverse-row', shot.bytes);
  await d.client.deleteSession(s.id);
});

test('a wide character spans two cells, and the character after it starts in the third', async () => {
  // 中 is two columns wide; DejaVu Sans Mono has no CJK glyphs, so it comes from the bundled fallback font.
  const s = await printing('A\u4e2dB\\033[42m\u4e2d\\033[0m|', { cols: 10, rows: 2 }, '|');
  const shot = await d.client.screenshot(s.id, { cursor: false });
  const img = decodePng(shot.bytes);
  const { cellWidth: w, cellHeight: h } = shot;
  const inkColumns = (x0: number, x1: number) => {
    const cols = new Set<number>();
    for (let x = x0; x < x1; x++) for (let y = 0; y < h; y++) if (pixel(img, x, y) !== dark.background) cols.add(Math.floor(x / w));
    return [...cols].sort();
  };
  assert.deepEqual(inkColumns(w, 3 * w), [1, 2], 'the wide character has ink in both of its cells');
  // 中's vertical stroke runs down the middle of its two cells (an empty missing-glyph box would have ink there only
  // at its top and bottom edges).
  const middle = Array.from({ length: h }, (_, y) => y).filter((y) => [2 * w - 1, 2 * w].some((x) => pixel(img, x, y) !== dark.background));
  assert.ok(middle.length >= h * 0.6, `a stroke down the middle, not an empty box: ${middle.length} of ${h} rows`);
  assert.ok(cellColours(img, shot, 3, 0).length > 1, 'B is drawn in the fourth cell');
  assert.deepEqual(cellColours(img, shot, 4, 0, 2)[0], dark.green, 'a wide character with a background colours both cells');
  assert.equal(cellColours(img, shot, 4, 0, 2).includes(dark.background), false);
  assert.ok(cellColours(img, shot, 6, 0).length > 1, 'the bar after it is in the seventh cell');
  assert.deepEqual(cellColours(img, shot, 7, 0, 3), [dark.background]);
  assertGolden('wide-char', shot.bytes);
  await d.client.deleteSession(s.id);
});

test('the cursor cell is a block in the theme cursor colour, with the character under it in the cursor text colour', async () => {
  // Print "ab", move the cursor back onto the "b" and leave it there.
  const s = await printing('ab\\033[D', { cols: 6, rows: 2 }, 'ab');
  await until('the cursor to move back', async () => (await d.client.screen(s.id)).cursor.x === 1);
  const shot = await d.client.screenshot(s.id);
  const img = decodePng(shot.bytes);
  const under = cellColours(img, shot, 1, 0);
  assert.equal(under[0], dark.cursor, 'the cursor cell is filled with the cursor colour');
  assert.ok(under.includes(dark.cursorAccent), 'the b under the cursor is drawn in the cursor text colour');
  assert.equal(cellColours(img, shot, 0, 0)[0], dark.background, 'the cell before it is not the cursor');
  assert.equal(cellColours(img, shot, 2, 0)[0], dark.background, 'nor the cell after it');
  assertGolden('cursor', shot.bytes);

  const without = decodePng((await d.client.screenshot(s.id, { cursor: false })).bytes);
  assert.equal(cellColours(without, shot, 1, 0)[0], dark.background, 'cursor=false draws no cursor');
  await d.client.deleteSession(s.id);

  const hidden = await printing('ab\\033[?25l', { cols: 6, rows: 2 }, 'ab');
  const h = await d.client.screenshot(hidden.id);
  assert.ok(!cellColours(decodePng(h.bytes), h, 2, 0).includes(dark.cursor), 'a cursor the program hid is never drawn');
  await d.client.deleteSession(hidden.id);
});

test('underline and strikethrough are lines across their cells, dim is halfway to the background, invisible draws nothing', async () => {
  const s = await printing('\\033[4munder\\033[0m\\n\\033[9mstrike\\033[0m\\n\\033[2;37mdim\\033[0m\\n\\033[8msecret\\033[0m', { cols: 10, rows: 5 }, 'dim');
  await until('the last row to be printed', async () => (await d.client.screen(s.id)).cursor.y === 3);
  const shot = await d.client.screenshot(s.id, { cursor: false });
  const img = decodePng(shot.bytes);
  const { cellWidth: w, cellHeight: h } = shot;
  /** Rows of pixels of cell row `row` that are the colour `c` all the way across the first `cells` cells. */
  const solidRows = (row: number, cells: number, c: string) =>
    Array.from({ length: h }, (_, y) => y).filter((y) => Array.from({ length: cells * w }, (_, x) => pixel(img, x, row * h + y)).every((p) => p === c));
  const under = solidRows(0, 5, dark.foreground);
  assert.ok(under.length >= 1 && under.every((y) => y > h * 0.75), `an underline near the bottom of the cells: rows ${under}`);
  const strike = solidRows(1, 6, dark.foreground);
  assert.ok(strike.length >= 1 && strike.every((y) => y > h * 0.3 && y < h * 0.75), `a strikethrough across the middle: rows ${strike}`);
  const dimmed = cellColours(img, shot, 0, 2, 3);
  const halfway = (a: string, b: string) => (k: number) => Math.round(parseInt(a.slice(1 + k * 2, 3 + k * 2), 16) / 2 + parseInt(b.slice(1 + k * 2, 3 + k * 2), 16) / 2);
  const mid = halfway(dark.white, dark.background);
  const want = `#${[0, 1, 2].map((k) => mid(k).toString(16).padStart(2, '0')).join('')}`;
  assert.ok(dimmed.includes(want), `dim white is drawn at ${want}, halfway to the background; saw ${dimmed.slice(0, 4)}`);
  assert.ok(!dimmed.includes(dark.white));
  assert.deepEqual(cellColours(img, shot, 0, 3, 6), [dark.background], 'invisible text leaves its cells blank');
  await d.client.deleteSession(s.id);
});

test('box drawing joins cell to cell, with no gap at the cell edges', async () => {
  const s = await printing('\u250c\u2500\u2500\u2510\\n\u2502  \u2502\\n\u2514\u2500\u2500\u2518', { cols: 6, rows: 4 }, '\u2514');
  const shot = await d.client.screenshot(s.id, { cursor: false, scale: 20 });
  const img = decodePng(shot.bytes);
  const { cellWidth: w, cellHeight: h } = shot;
  // The top edge: one row of pixels drawn from the middle of the first cell to the middle of the fourth, unbroken.
  const lineY = Array.from({ length: h }, (_, y) => y).find((y) => pixel(img, 2 * w, y) !== dark.background)!;
  assert.ok(lineY !== undefined, 'the horizontal line is drawn');
  for (let x = Math.ceil(w / 2) + 1; x < 3 * w + Math.floor(w / 2); x++) assert.equal(pixel(img, x, lineY), dark.foreground, `the top edge at x=${x}`);
  // The left edge: unbroken from the top-left corner down through the cell below to the bottom-left corner.
  const lineX = Array.from({ length: w }, (_, x) => x).find((x) => pixel(img, x, h + 2) !== dark.background)!;
  for (let y = lineY + 1; y < 2 * h + lineY; y++) assert.equal(pixel(img, lineX, y), dark.foreground, `the left edge at y=${y}`);
  await d.client.deleteSession(s.id);
});

test('options: the light theme, a row range, a scale and a maximum width', async () => {
  const s = await printing('one\\ntwo\\nthree\\nfour', { cols: 40, rows: 6 }, 'four');
  const light = await d.client.screenshot(s.id, { theme: 'light', cursor: false });
  assert.equal(pixel(decodePng(light.bytes), 300, 80), THEMES.light.background);

  const rows = await d.client.screenshot(s.id, { rows: { first: 1, last: 2 }, cursor: false });
  const img = decodePng(rows.bytes);
  assert.deepEqual([rows.firstRow, rows.lastRow, img.height], [1, 2, 2 * rows.cellHeight], 'rows 1-2 only');

  const big = await d.client.screenshot(s.id, { scale: 32 });
  assert.deepEqual([big.cellHeight, decodePng(big.bytes).height], [32, 6 * 32]);

  const narrow = await d.client.screenshot(s.id, { maxWidth: 200 });
  const n = decodePng(narrow.bytes);
  assert.ok(n.width <= 200 && n.width > 150, `the largest scale that fits 200 px: ${n.width} px wide`);
  assert.equal(n.width, narrow.cellWidth * 40);
  await d.client.deleteSession(s.id);
});

test('SVG: the same cells as text and rects, the text selectable and each character placed at its cell', async () => {
  const s = await printing('\\033[31mred\\033[0m <&>\\n\\033[7minverse\\033[0m', { cols: 20, rows: 3 }, 'inverse');
  const shot = await d.client.screenshot(s.id, { format: 'svg', cursor: false });
  const svg = shot.bytes.toString('utf8');
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="160" height="48"/);
  assert.match(svg, new RegExp(`<tspan x="0 8 16" fill="${dark.red}">red</tspan>`), 'red text, one x per cell');
  assert.match(svg, /<tspan x="32 40 48"[^>]*>&lt;&amp;&gt;<\/tspan>/, 'markup characters are escaped');
  assert.match(svg, new RegExp(`<rect x="0" y="16" width="56" height="16" fill="${dark.foreground}"/>`), 'the inverse run is one rect');
  assert.match(svg, new RegExp(`<tspan x="0 8 16 24 32 40 48" fill="${dark.background}">inverse</tspan>`));
  assert.match(svg, /DejaVu Sans Mono/);
  await d.client.deleteSession(s.id);
});

test('an unchanged screen is answered from the cache; a changed one is drawn again; If-None-Match gets 304', async () => {
  const s = await d.client.createSession({ command: ['sh', '-c', 'echo before; read x; echo after; exec sleep 60'], cols: 30, rows: 4 });
  await waitText(d, s.id, 'before');
  const path1 = `/v1/sessions/${s.id}/screen?format=png`;
  const auth = { authorization: `Bearer ${d.token}` };
  const first = await rawRequest(d.address, { path: path1, headers: auth });
  assert.equal(first.status, 200);
  assert.equal(first.headers['content-type'], 'image/png');
  const etag = String(first.headers.etag);
  const again = await d.client.screenshot(s.id);
  assert.equal(again.seq, Number(first.headers['x-termhost-seq']));
  const notModified = await rawRequest(d.address, { path: path1, headers: { ...auth, 'if-none-match': etag } });
  assert.equal(notModified.status, 304);
  await d.client.input(s.id, [{ text: 'x' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'after');
  const changed = await rawRequest(d.address, { path: path1, headers: { ...auth, 'if-none-match': etag } });
  assert.equal(changed.status, 200, 'a changed screen is drawn again');
  assert.notEqual(changed.headers.etag, etag);
  await d.client.deleteSession(s.id);
});

test('PNGs are drawn in a worker thread: the daemon thread never loads the canvas', async () => {
  const s = await printing('hello', { cols: 10, rows: 2 }, 'hello');
  await d.client.screenshot(s.id, { scale: 24 });
  const loaded = Object.keys(createRequire(import.meta.url).cache);
  assert.equal(loaded.filter((f) => f.includes(`${path.sep}@napi-rs${path.sep}canvas`)).length, 0, 'no canvas module in the daemon thread');
  await d.client.deleteSession(s.id);
});

test('during a secret-input window a picture is refused exactly as the text screen is (423), even one drawn before', async () => {
  const agent = new TermhostClient({ address: d.address, token: (await d.client.createToken('pictures-agent', 'agent')).token });
  const s = await printing('Secret word: ', { cols: 30, rows: 3 }, 'Secret word:');
  await agent.screenshot(s.id); // now cached for this screen
  await agent.secretAction(s.id, 'start', 'a person types the secret word');
  const is423 = (e: TermhostError) => e.status === 423 && e.code === 'secret_input_active';
  await assert.rejects(agent.screen(s.id), is423);
  for (const format of ['png', 'svg'] as const) {
    await assert.rejects(agent.screenshot(s.id, { format }), is423, `${format} during the window`);
    await assert.rejects(d.client.screenshot(s.id, { format }), is423, `${format} for an admin too`);
  }
  agent.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('every picture option has a bound, and a bad one is refused with a message naming it', async () => {
  const s = await printing('x', { cols: 80, rows: 24 }, 'x');
  const get = (q: string) => rawRequest(d.address, { path: `/v1/sessions/${s.id}/screen?${q}`, headers: { authorization: `Bearer ${d.token}` } });
  for (const [q, words] of [
    ['format=png&scale=3', /scale.*>= 4/],
    ['format=png&scale=65', /scale.*<= 64/],
    ['format=png&scale=1.5', /scale.*integer/],
    ['format=png&max_width=8', /max_width.*>= 16/],
    ['format=png&max_width=99999', /max_width.*<= 16384/],
    ['format=png&theme=neon', /theme/],
    ['format=png&rows=a-b', /rows/],
    ['format=png&rows=12345', /rows/],
    ['format=png&rows=5-2', /rows 5-2 is outside the screen \(rows 0-23\)/],
    ['format=png&rows=30', /rows 30-30 is outside the screen/],
    ['format=png&cursor=maybe', /cursor/],
    ['format=png&since_seq=1', /go with the text formats/],
    ['format=svg&highlights=true', /go with the text formats/],
    ['scale=16', /scale goes with format=png or format=svg/],
    ['format=text&theme=light', /theme goes with format=png or format=svg/],
  ] as const) {
    const r = await get(q);
    assert.equal(r.status, 400, `${q}: ${r.text}`);
    assert.equal(r.json.code, 'invalid_request', q);
    assert.match(r.json.error, words, q);
  }
  await d.client.resize(s.id, 1000, 200);
  const huge = await get('format=png&scale=64');
  assert.equal(huge.status, 400, 'a picture past the pixel bound is refused, not drawn');
  assert.match(huge.json.error, /more than 16777216 pixels; ask for a smaller scale, a max_width or a max_height/);
  const fitted = await get('format=png&max_width=4000');
  assert.equal(fitted.status, 200);
  await d.client.deleteSession(s.id);
});

test('on a machine with no fonts at all, the picture is the same: only the bundled font is ever read', async () => {
  // A mount namespace in which the system's font directories are empty: what a fresh server or container has.
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-nofonts-')), 'sgr.png');
  const dirs = ['/usr/share/fonts', '/usr/local/share/fonts'].filter((p) => fs.existsSync(p));
  const script = `${dirs.map((p) => `mount -t tmpfs none ${p} && `).join('')}exec "$0" --import tsx "$1" "$2"`;
  const report = execFileSync('unshare', ['--mount', 'sh', '-c', script, process.execPath, path.join(ROOT, 'test/fixtures/picture-no-fonts.ts'), out], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-home-')), XDG_DATA_HOME: '/nonexistent', FONTCONFIG_FILE: '/dev/null' },
    timeout: 60_000,
  });
  const seen = JSON.parse(report) as { before: string[]; after: string[] };
  assert.deepEqual(seen.before, [], 'the canvas sees no system font in there');
  // The bundled files (DejaVu Sans Mono and the UnifontEX fallback) register under termhost's aliases and under the
  // names written in them.
  assert.deepEqual(seen.after, ['DejaVu Sans Mono', 'UnifontExMono', 'termhost-dejavu-mono', 'termhost-unifont'], 'after drawing, only the bundled fonts are known');
  assertGolden('sgr-colours', fs.readFileSync(out));
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  assert.ok(fs.existsSync(path.join(GOLDEN_DIR, 'sgr-colours.png')));
});
