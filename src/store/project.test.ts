/**
 * The projection as a table: what a terminal shows of a text (the visible part), and the string payloads scanned
 * beside it. Each row was checked against @xterm/headless, which draws the visible column.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { origin, project } from './project.js';

const visible = (text: string) => {
  const p = project(text);
  return p.scan.slice(0, p.visibleEnd);
};
const payloads = (text: string) => {
  const p = project(text);
  return p.scan.slice(p.visibleEnd).split('\n').slice(1);
};

for (const [input, shown, why] of [
  ['plain text\r\n\tend', 'plain text\r\n\tend', 'text without escapes is its own projection'],
  ['a\x1b[1;31mb\x1b[0mc', 'abc', 'CSI (SGR) is left out'],
  ['a\u009b0mb', 'ab', 'an 8-bit CSI is left out, with its parameters and final byte'],
  ['ab\u009bcd', 'abd', 'a lone 8-bit CSI takes the next letter as its final byte, as the emulator does'],
  ['a\x00b\x07c\x7fd\x0e\x0fe', 'abcde', 'NUL, BEL, DEL, SO and SI draw nothing'],
  ['a\u0080b\u009cc\u0090', 'abc', 'C1 controls draw nothing'],
  ['a\x0bb\x0cc\u0085d', 'a\nb\nc\nd', 'VT, FF and NEL move to the next line'],
  ['a\x1b[3\x07mb', 'ab', 'a control inside a CSI is executed, not drawn, and the CSI goes on'],
  ['a\x1b[3\x18b', 'ab', 'CAN ends a CSI'],
  ['a\x1b]0;title\x07b', 'ab', 'an OSC (BEL) is not drawn'],
  ['a\x1b]0;title\x1b\\b', 'ab', 'an OSC (ST) is not drawn'],
  ['a\u009d0;title\u009cb', 'ab', 'an 8-bit OSC is not drawn'],
  ['a\x1bPq#0;1\x1b\\b', 'ab', 'a DCS is not drawn'],
  ['a\x1b_apc\x1b\\b', 'ab', 'an APC is not drawn'],
  ['a\x1b(Bb\x1b7c\x1b=d', 'abcd', 'charset selection and other ESC sequences are left out'],
  ['a\x1b]0;unterminated', 'a', 'an unterminated OSC runs to the end'],
  ['a\x1b', 'a', 'a lone ESC at the end'],
] as const) {
  test(`projection: ${why}`, () => assert.equal(visible(input), shown));
}

for (const [input, want, why] of [
  ['\x1b]0;mysql --password=x\x07$ ', ['mysql --password=x'], 'a window title, without its number'],
  ['\x1b]8;;https://bob:pw@host/\x1b\\link\x1b]8;;\x1b\\', [';https://bob:pw@host/', ';'], 'OSC 8 link targets'],
  ['\x1b]2;a\x00b\x07', ['ab'], 'controls inside a payload are dropped'],
  ['\x1b]52;c;Z2hw\x07', ['c;Z2hw'], 'a clipboard write'],
  ['x\x1bPtmux;y\x1b\\', ['tmux;y'], 'a DCS payload'],
] as const) {
  test(`payloads scanned on their own: ${why}`, () => assert.deepEqual(payloads(input), want));
}

test('every projected character maps back to the character it came from', () => {
  const text = 'p\x1b[1mq\x00r\x1b]0;ti\x07tle\x07s';
  const p = project(text);
  for (let i = 0; i < p.scan.length; i++) {
    const c = p.scan[i]!;
    if (c !== '\n') assert.equal(text[origin(p, i)], c, `scan[${i}]`);
  }
  assert.equal(origin(p, p.scan.length), text.length);
});

test('an open string sequence at the end is reported, so its trailing word can be held back', () => {
  const p = project('$ \x1b]0;mysql --pass');
  assert.equal(p.scan.slice(p.openPayload), 'mysql --pass');
  assert.equal(project('$ \x1b]0;done\x07').openPayload, -1);
});
