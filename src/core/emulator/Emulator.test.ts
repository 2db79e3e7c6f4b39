/**
 * Pins what termhost relies on inside @xterm/headless (exact version pinned in package.json): the private fields read
 * for cursor visibility and mouse encoding, mode tracking, parsing on arrival and query replies. An
 * upgrade that moves any of these fails here first, loudly, instead of as a wrong screen.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Emulator } from './Emulator.js';

function make() {
  const replies: Buffer[] = [];
  const emu = new Emulator({ cols: 20, rows: 5, scrollback: 10, onReply: (b) => replies.push(b) });
  return { emu, replies };
}

async function feed(emu: Emulator, s: string) {
  emu.feed(Buffer.from(s, 'latin1'));
  await emu.whenParsed();
}

test('DEC modes are read from the emulator: mouse tracking, SGR encoding, DECCKM, bracketed paste, cursor visibility', async () => {
  const { emu } = make();
  assert.deepEqual(emu.modes, { mouse: 'off', mouse_encoding: 'default', app_cursor_keys: false, bracketed_paste: false });
  assert.equal(emu.cursorVisible, true);
  for (const [set, mouse] of [['?9', 'x10'], ['?1000', 'normal'], ['?1002', 'button_event'], ['?1003', 'any_event']] as const) {
    await feed(emu, `\x1b[${set}h`);
    assert.equal(emu.modes.mouse, mouse);
  }
  await feed(emu, '\x1b[?1006h\x1b[?1h\x1b[?2004h\x1b[?25l');
  assert.deepEqual(emu.modes, { mouse: 'any_event', mouse_encoding: 'sgr', app_cursor_keys: true, bracketed_paste: true });
  assert.equal(emu.cursorVisible, false);
  await feed(emu, '\x1b[?1003l\x1b[?1006l\x1b[?1l\x1b[?2004l\x1b[?25h');
  assert.deepEqual(emu.modes, { mouse: 'off', mouse_encoding: 'default', app_cursor_keys: false, bracketed_paste: false });
  assert.equal(emu.cursorVisible, true);
  emu.dispose();
});

test('alternate screen and title are tracked', async () => {
  const { emu } = make();
  await feed(emu, '\x1b]0;my title\x07\x1b[?1049h');
  assert.equal(emu.title, 'my title');
  assert.equal(emu.altScreen, true);
  await feed(emu, '\x1b[?1049l');
  assert.equal(emu.altScreen, false);
  emu.dispose();
});

test('queries are answered through onReply', async () => {
  const { emu, replies } = make();
  await feed(emu, 'ab\x1b[6n\x1b[c');
  const all = Buffer.concat(replies).toString('latin1');
  assert.match(all, /\x1b\[1;3R/);
  assert.match(all, /\x1b\[\?[\d;]+c/);
  emu.dispose();
});

test('output is parsed on arrival, never left for xterm\'s timer (the keystroke echo path)', () => {
  const { emu } = make();
  emu.feed(Buffer.from('echo'));
  assert.equal(emu.pendingBytes, 0, 'parsed during feed');
  emu.feed(Buffer.alloc(64 * 1024, 0x61)); // the largest single PTY read
  emu.feed(Buffer.from('later'));
  assert.equal(emu.pendingBytes, 0);
  emu.dispose();
});

test('the private xterm storage the screen text is read from is where it was: cells, combined strings, changed rows', () => {
  const { emu } = make();
  emu.feed(Buffer.from('a字e\u0301\ud83d\ude00', 'utf8'));
  const line = emu.screenLine(0)!;
  assert.ok(line._data instanceof Uint32Array);
  assert.equal(line._data.length, 20 * 3, 'three words per cell');
  assert.equal(line.length, 20);
  assert.equal(line._data[0], 0x61 | (1 << 22), "'a', width 1");
  assert.equal(line._data[3], 0x5b57 | (2 << 22), "'字', width 2");
  assert.equal(line._data[6], 0, 'the right half of a wide character is empty, width 0');
  assert.equal(line._data[9]! & 0x200000, 0x200000, 'combined flag');
  assert.equal(line._combined[3], 'e\u0301');
  assert.equal(line._data[12]! & 0x1fffff, 0x1f600, 'astral code points are stored whole');
  assert.equal(emu.textLeftOfCursor(), 'a字e\u0301\ud83d\ude00');
  assert.equal(emu.normalBufferLine(0), line);
  const before = Array.from(emu.rowVersions);
  const layout = emu.layoutVersion;
  emu.feed(Buffer.from('\x1b[3;1Hx'));
  assert.deepEqual(Array.from(emu.rowVersions).map((v, y) => v - before[y]!), [1, 1, 1, 0, 0], 'from the cursor row to the written row');
  emu.feed(Buffer.from('\x1b[?1049h'));
  assert.ok(emu.layoutVersion > layout, 'a screen switch reports every row');
  emu.dispose();
});

test('erase above (ED 1 and DECSED 1) at the bottom-right of a screen that never scrolled erases it, without throwing', async () => {
  for (const seq of ['\x1b[1J', '\x1b[?1J']) {
    const { emu } = make();
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      await feed(emu, 'top\r\n\x1b[5;1Hbottom-row');
      await feed(emu, `\x1b[5;20H${seq}`);
      await feed(emu, '\x1b[3;1Hstill parsing');
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    assert.deepEqual(uncaught, []);
    const rows = [0, 1, 2, 3, 4].map((y) => emu.term.buffer.active.getLine(y)!.translateToString(true));
    assert.deepEqual(rows, ['', '', 'still parsing', '', ''], seq);
    emu.dispose();
  }
});

test('erase above elsewhere is still xterm\'s own: rows above cleared, the cursor row up to and including the cursor', async () => {
  const { emu } = make();
  await feed(emu, 'aaaa\r\nbbbb\r\ncccc\x1b[2;3H\x1b[1J');
  const rows = [0, 1, 2].map((y) => emu.term.buffer.active.getLine(y)!.translateToString(true));
  assert.deepEqual(rows, ['', '   b', 'cccc']);
  emu.dispose();
});
