/** Table tests for the key-name encoder: every alias, every row class of the key table, every error class. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeKey, isKeyName, suggestKey, type KeyModes } from './keys.js';

const NORMAL: KeyModes = { appCursorKeys: false };
const APP: KeyModes = { appCursorKeys: true };

const show = (m: KeyModes) => (m.appCursorKeys ? 'app' : 'normal');

// [name, modes, expected bytes as a string (UTF-8)]
const GOOD: ReadonlyArray<readonly [string, KeyModes, string]> = [
  // plain named keys and their aliases
  ['Enter', NORMAL, '\r'],
  ['Escape', NORMAL, '\x1b'],
  ['Esc', NORMAL, '\x1b'],
  ['Tab', NORMAL, '\t'],
  ['BTab', NORMAL, '\x1b[Z'],
  ['Space', NORMAL, ' '],
  ['Backspace', NORMAL, '\x7f'],
  ['BSpace', NORMAL, '\x7f'],
  // cursor keys follow DECCKM; Home/End too
  ['Up', NORMAL, '\x1b[A'],
  ['Down', NORMAL, '\x1b[B'],
  ['Right', NORMAL, '\x1b[C'],
  ['Left', NORMAL, '\x1b[D'],
  ['Home', NORMAL, '\x1b[H'],
  ['End', NORMAL, '\x1b[F'],
  ['Up', APP, '\x1bOA'],
  ['Down', APP, '\x1bOB'],
  ['Right', APP, '\x1bOC'],
  ['Left', APP, '\x1bOD'],
  ['Home', APP, '\x1bOH'],
  ['End', APP, '\x1bOF'],
  // editing keys and aliases; DECCKM does not touch them
  ['Insert', NORMAL, '\x1b[2~'],
  ['IC', APP, '\x1b[2~'],
  ['Delete', NORMAL, '\x1b[3~'],
  ['DC', APP, '\x1b[3~'],
  ['PgUp', NORMAL, '\x1b[5~'],
  ['PPage', NORMAL, '\x1b[5~'],
  ['PageUp', APP, '\x1b[5~'],
  ['PgDn', NORMAL, '\x1b[6~'],
  ['NPage', NORMAL, '\x1b[6~'],
  ['PageDown', APP, '\x1b[6~'],
  // function keys (F1-F4 are SS3 in both cursor modes)
  ['F1', NORMAL, '\x1bOP'],
  ['F2', NORMAL, '\x1bOQ'],
  ['F3', APP, '\x1bOR'],
  ['F4', NORMAL, '\x1bOS'],
  ['F5', NORMAL, '\x1b[15~'],
  ['F6', NORMAL, '\x1b[17~'],
  ['F7', NORMAL, '\x1b[18~'],
  ['F8', NORMAL, '\x1b[19~'],
  ['F9', NORMAL, '\x1b[20~'],
  ['F10', NORMAL, '\x1b[21~'],
  ['F11', NORMAL, '\x1b[23~'],
  ['F12', APP, '\x1b[24~'],
  // the spellings people type: Return, ^C, Ctrl-C, Alt-x, Shift-Tab
  ['Return', NORMAL, '\r'],
  ['M-Return', NORMAL, '\x1b\r'],
  ['^C', NORMAL, '\x03'],
  ['^c', NORMAL, '\x03'],
  ['^[', NORMAL, '\x1b'],
  ['^?', NORMAL, '\x7f'],
  ['^@', NORMAL, '\x00'],
  ['Ctrl-C', NORMAL, '\x03'],
  ['Ctrl-c', NORMAL, '\x03'],
  ['ctrl+d', NORMAL, '\x04'],
  ['Control-a', NORMAL, '\x01'],
  ['Alt-x', NORMAL, '\x1bx'],
  ['Meta-f', NORMAL, '\x1bf'],
  ['Shift-Tab', NORMAL, '\x1b[Z'],
  ['Ctrl-Alt-Delete', NORMAL, '\x1b[3;7~'],
  ['Ctrl-Left', NORMAL, '\x1b[1;5D'],
  // single characters, sent literally (UTF-8)
  ['a', NORMAL, 'a'],
  ['Z', NORMAL, 'Z'],
  ['-', NORMAL, '-'],
  ['%', NORMAL, '%'],
  [' ', NORMAL, ' '],
  ['C', NORMAL, 'C'],
  ['é', NORMAL, 'é'],
  ['日', NORMAL, '日'],
  ['😀', NORMAL, '😀'],
  // Ctrl table
  ['C-a', NORMAL, '\x01'],
  ['C-c', NORMAL, '\x03'],
  ['C-z', NORMAL, '\x1a'],
  ['C-A', NORMAL, '\x01'],
  ['C-Z', NORMAL, '\x1a'],
  ['C-Space', NORMAL, '\x00'],
  ['C- ', NORMAL, '\x00'],
  ['C-@', NORMAL, '\x00'],
  ['C-[', NORMAL, '\x1b'],
  ['C-\\', NORMAL, '\x1c'],
  ['C-]', NORMAL, '\x1d'],
  ['C-^', NORMAL, '\x1e'],
  ['C-_', NORMAL, '\x1f'],
  ['C-?', NORMAL, '\x7f'],
  ['C-S', NORMAL, '\x13'],
  ['C-C-a', NORMAL, '\x01'], // a repeated prefix means the same as once
  // Meta as ESC prefix
  ['M-x', NORMAL, '\x1bx'],
  ['M--', NORMAL, '\x1b-'],
  ['M-é', NORMAL, '\x1bé'],
  ['M-C', NORMAL, '\x1bC'],
  ['M-C-a', NORMAL, '\x1b\x01'],
  ['C-M-a', NORMAL, '\x1b\x01'],
  ['M-C-Space', NORMAL, '\x1b\x00'],
  ['M-Enter', NORMAL, '\x1b\r'],
  ['M-Escape', NORMAL, '\x1b\x1b'],
  ['M-Esc', NORMAL, '\x1b\x1b'],
  ['M-Tab', NORMAL, '\x1b\t'],
  ['M-BTab', NORMAL, '\x1b\x1b[Z'],
  ['M-Space', NORMAL, '\x1b '],
  ['M-Backspace', NORMAL, '\x1b\x7f'],
  ['M-BSpace', NORMAL, '\x1b\x7f'],
  // Shift
  ['S-a', NORMAL, 'A'],
  ['S-z', NORMAL, 'Z'],
  ['S-A', NORMAL, 'A'],
  ['S-é', NORMAL, 'É'],
  ['M-S-a', NORMAL, '\x1bA'],
  ['S-M-a', NORMAL, '\x1bA'],
  ['S-Tab', NORMAL, '\x1b[Z'],
  ['S-BTab', NORMAL, '\x1b[Z'],
  ['M-S-Tab', NORMAL, '\x1b\x1b[Z'],
  // modified specials: xterm parameter form, CSI even under DECCKM, Alt folded into m
  ['S-Up', NORMAL, '\x1b[1;2A'],
  ['M-Up', NORMAL, '\x1b[1;3A'],
  ['S-M-Up', NORMAL, '\x1b[1;4A'],
  ['C-Up', NORMAL, '\x1b[1;5A'],
  ['C-Up', APP, '\x1b[1;5A'],
  ['S-C-Up', NORMAL, '\x1b[1;6A'],
  ['C-M-Up', NORMAL, '\x1b[1;7A'],
  ['C-M-S-Up', NORMAL, '\x1b[1;8A'],
  ['C-Down', NORMAL, '\x1b[1;5B'],
  ['C-Right', APP, '\x1b[1;5C'],
  ['C-Left', NORMAL, '\x1b[1;5D'],
  ['S-Home', NORMAL, '\x1b[1;2H'],
  ['C-End', APP, '\x1b[1;5F'],
  ['S-F1', NORMAL, '\x1b[1;2P'],
  ['C-F2', NORMAL, '\x1b[1;5Q'],
  ['M-F3', NORMAL, '\x1b[1;3R'],
  ['C-S-F4', NORMAL, '\x1b[1;6S'],
  ['S-F5', NORMAL, '\x1b[15;2~'],
  ['C-F12', NORMAL, '\x1b[24;5~'],
  ['M-Insert', NORMAL, '\x1b[2;3~'],
  ['S-IC', NORMAL, '\x1b[2;2~'],
  ['C-M-Delete', NORMAL, '\x1b[3;7~'],
  ['M-C-DC', NORMAL, '\x1b[3;7~'],
  ['C-PgUp', NORMAL, '\x1b[5;5~'],
  ['S-PageDown', NORMAL, '\x1b[6;2~'],
];

for (const [name, modes, want] of GOOD) {
  test(`key ${JSON.stringify(name)} ${show(modes)} -> ${JSON.stringify(want)}`, () => {
    const r = encodeKey(name, modes);
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.deepEqual(r.bytes, Buffer.from(want, 'utf8'));
    assert.equal(isKeyName(name), true);
  });
}

// [name, a fragment the error must contain]; every error must also quote the key as given.
const BAD: ReadonlyArray<readonly [string, string]> = [
  // unknown names
  ['', 'empty'],
  ['Foo', 'Unknown key'],
  ['F13', 'F1 to F12'],
  ['F0', 'F1 to F12'],
  ['C-Foo', 'Unknown key'],
  ['ab', 'Unknown key'],
  ['Entr', 'did you mean "Enter"'],
  ['Escpe', 'did you mean "Escape"'],
  ['Dwon', 'did you mean "Down"'],
  ['C-Lfet', 'did you mean "Left"'],
  // invisible, separator, private-use and unassigned code points are not keys
  ['\u202e', 'invisible'],
  ['\u200b', 'invisible'],
  ['\u2028', 'invisible'],
  ['\u2029', 'invisible'],
  ['\u00a0', 'invisible'],
  ['\u3000', 'invisible'],
  ['\ue000', 'invisible'],
  ['\u0378', 'invisible'],
  ['M-\u202e', 'invisible'],
  ['enter', 'did you mean "Enter"'],
  ['UP', 'did you mean "Up"'],
  ['pgup', 'did you mean "PgUp"'],
  ['c-a', 'Unknown key'], // prefixes are upper-case only
  ['X-a', 'Unknown key'],
  ['🇫🇷', 'Unknown key'], // two code points (a flag) is not one character
  // a prefix with nothing after it
  ['C-', 'no key after'],
  ['M-', 'no key after'],
  ['S-', 'no key after'],
  ['C-M-', 'no key after'],
  // non-printable single characters
  ['\n', 'not a printable'],
  ['\x7f', 'not a printable'],
  ['\x85', 'not a printable'],
  ['\ud800', 'not a printable'],
  ['C-\t', 'not a printable'],
  // Ctrl on plain named keys
  ['C-Enter', 'plain Enter'],
  ['C-Tab', 'plain Tab'],
  ['C-Escape', 'plain Escape'],
  ['C-Esc', 'plain Escape'],
  ['C-BTab', 'Shift+Tab'],
  ['C-Backspace', 'terminals disagree'],
  ['C-BSpace', 'terminals disagree'],
  ['M-C-Enter', 'plain Enter'],
  // Ctrl on characters outside the control table
  ['C-1', 'Ctrl only combines'],
  ['C-0', 'Ctrl only combines'],
  ['C--', 'Ctrl only combines'],
  ['C-/', 'Ctrl only combines'],
  ['C-é', 'Ctrl only combines'],
  ['M-C-1', 'Ctrl only combines'],
  // Shift without a shifted form
  ['S-1', 'Shift only combines'],
  ['S-%', 'Shift only combines'],
  ['S--', 'Shift only combines'],
  ['S-ß', 'Shift only combines'],
  ['S-Space', 'Shift only combines'],
  ['S-Enter', 'same bytes for Shift+Enter'],
  ['S-Escape', 'same bytes for Shift+Escape'],
  ['S-Backspace', 'same bytes for Shift+Backspace'],
  // Ctrl+Shift on a character is indistinguishable from Ctrl alone
  ['C-S-a', 'Ctrl+Shift'],
  ['S-C-A', 'Ctrl+Shift'],
  ['C-S-Tab', 'plain Tab'],
];

for (const [name, fragment] of BAD) {
  test(`key ${JSON.stringify(name)} is refused (${fragment})`, () => {
    for (const modes of [NORMAL, APP]) {
      const r = encodeKey(name, modes);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.ok(r.error.includes(fragment), r.error);
      assert.ok(r.error.includes(JSON.stringify(name)), `error does not name the key: ${r.error}`);
    }
    assert.equal(isKeyName(name), false);
  });
}

// [mistyped name, the suggestion]; undefined when nothing is close enough to guess.
const SUGGEST: ReadonlyArray<readonly [string, string | undefined]> = [
  ['Entr', 'Enter'],
  ['enter', 'Enter'],
  ['Ener', 'Enter'],
  ['Tabb', 'Tab'],
  ['PgUP', 'PgUp'],
  ['C-Entr', 'C-Enter'],
  ['M-Escpae', 'M-Escape'],
  ['Ctrl-Lfet', 'C-Left'],
  ['Enter', undefined], // valid names need no suggestion
  ['hello world', undefined],
  ['Xyzzy', undefined],
  ['supercalifragilistic', undefined],
];
for (const [name, want] of SUGGEST) {
  test(`a mistyped ${JSON.stringify(name)} suggests ${JSON.stringify(want)}`, () => assert.equal(suggestKey(name), want));
}
