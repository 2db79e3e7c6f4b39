/** The password-prompt detector: the lines it must catch and the ones it must leave alone. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { looksLikeSecretPrompt } from './SecretWindow.js';

test('prompts for secrets are recognised, trailing whitespace and all; other lines are not', () => {
  for (const line of ['[sudo] password for alice: ', 'Password:', 'Enter passphrase for key \'/home/a/.ssh/id\': ', 'PIN:  ', 'Retype new password:\u00a0', 'OTP:\t']) {
    assert.equal(looksLikeSecretPrompt(line), true, line);
  }
  for (const line of ['', 'password: hunter2', 'passwords:', 'compass: ', 'INFO 12:00:01 request done', 'Username: ', 'password']) {
    assert.equal(looksLikeSecretPrompt(line), false, line);
  }
});
