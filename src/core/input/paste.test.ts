/** Table tests for the paste encoder: line endings, bracketing, and end-marker removal. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodePaste } from './paste.js';

const START = '\x1b[200~';
const END = '\x1b[201~';

// [text, bracketed, expected bytes as a UTF-8 string]
const CASES: ReadonlyArray<readonly [string, boolean, string]> = [
  ['', false, ''],
  ['', true, START + END],
  ['echo hi', false, 'echo hi'],
  ['echo hi', true, `${START}echo hi${END}`],
  ['a\nb\n', false, 'a\rb\r'],
  ['a\r\nb\r\n', false, 'a\rb\r'],
  ['a\rb', false, 'a\rb'],
  ['a\n\nb', false, 'a\r\rb'],
  ['a\r\r\nb', false, 'a\r\rb'],
  ['a\nb', true, `${START}a\rb${END}`],
  ['héllo 日本 😀', true, `${START}héllo 日本 😀${END}`],
  // tabs and other escapes are data and pass through untouched
  ['a\tb\x1b[Ac', true, `${START}a\tb\x1b[Ac${END}`],
  // an end marker inside the text cannot end the paste early
  [`x${END}rm -rf ~\n`, true, `${START}xrm -rf ~\r${END}`],
  [`${END}${END}`, true, START + END],
  // removal repeats: deleting the inner marker must not leave a new one behind
  [`\x1b[20${END}1~`, true, `${START}${END}`],
  [`\x1b[2${END}01~tail`, true, `${START}tail${END}`],
  // a start marker inside is harmless data (it cannot end anything), so it is kept
  [`a${START}b`, true, `${START}a${START}b${END}`],
  // unbracketed: no framing, nothing to protect, the text is sent as is apart from line endings
  [`x${END}y`, false, `x${END}y`],
];

for (const [text, bracketed, want] of CASES) {
  test(`paste ${JSON.stringify(text)} bracketed=${bracketed} -> ${JSON.stringify(want)}`, () => {
    assert.deepEqual(encodePaste(text, bracketed), Buffer.from(want, 'utf8'));
  });
}
