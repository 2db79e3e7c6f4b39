import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathOf, scrub } from './logRedaction.js';
import { formatLine } from './logText.js';

for (const [line, want] of [
  ['/v1/sessions?token=abc', '/v1/sessions?token=[redacted]'],
  ['/x?access_token=abc&session=a1b2', '/x?access_token=[redacted]&session=a1b2'],
  ['/x?api_key=k;sig=s&X-Amz-Signature=z', '/x?api_key=[redacted];sig=[redacted]&X-Amz-Signature=[redacted]'],
  ['{"url":"/ui/login?code=c0de"}', '{"url":"/ui/login?code=[redacted]"}'],
  ['/v1/sessions?label=job%3Dbuild&include=ended', '/v1/sessions?label=job%3Dbuild&include=ended'],
  ['/x?password=', '/x?password='],
  ['Authorization: Bearer abc.def-123 sent', 'Authorization: Bearer [redacted] sent'],
  ['plain text without any', 'plain text without any'],
] as const) test(`scrub ${line}`, () => assert.equal(scrub(line), want));

test('scrubbing a long line is linear: 1 MiB of parameter-like text in well under a second', () => {
  const line = `?${'a'.repeat(63)}`.repeat(16 * 1024) + '=' + '&token='.repeat(16 * 1024);
  const t0 = performance.now();
  scrub(line);
  assert.ok(performance.now() - t0 < 1000);
});

for (const [url, want] of [
  ['/v1/sessions?token=x', '/v1/sessions'],
  ['/a#b?c', '/a'],
  ['/plain', '/plain'],
] as const) test(`pathOf ${url}`, () => assert.equal(pathOf(url), want));

test('a text line: time, the level when not info, the message, other fields as key=value', () => {
  const at = new Date(2024, 0, 2, 3, 4, 5).getTime();
  assert.equal(formatLine(JSON.stringify({ level: 30, time: at, pid: 1, hostname: 'h', reqId: 'r', msg: 'session a1 started: bash', session: 'a1', program: 'bash', child_pid: 7, signal: null })), '03:04:05 session a1 started: bash child_pid=7\n');
  assert.equal(formatLine(JSON.stringify({ level: 40, time: at, msg: 'auth failed: no token', path: '/v1/x y' })), '03:04:05 WARN auth failed: no token path="/v1/x y"\n');
  assert.equal(formatLine('not json'), 'not json\n');
});
