import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandKeystrokes } from './commands.js';

for (const [name, command, shell, bracketed, want] of [
  ['one line, kept out of the history by a leading space', 'make test', 'bash', true, ' make test\r'],
  ['a trailing newline is not an extra empty command', 'ls\n', 'zsh', true, ' ls\r'],
  ['several lines as one bracketed paste', 'cat <<EOF\nx\nEOF', 'bash', true, ' \x1b[200~cat <<EOF\nx\nEOF\x1b[201~\r'],
  ['CRLF line ends become newlines', 'a\r\nb', 'zsh', true, ' \x1b[200~a\nb\x1b[201~\r'],
  ['without bracketed paste, a group the shell reads as one command', 'echo a\necho b', 'bash', false, ' {\recho a\recho b\r}\r'],
  ['fish groups with begin/end', 'echo a\necho b', 'fish', false, ' begin\recho a\recho b\rend\r'],
] as const) {
  test(`keystrokes: ${name}`, () => assert.equal(commandKeystrokes(command, shell, bracketed).toString('utf8'), want));
}
