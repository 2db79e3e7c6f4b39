/**
 * The redaction corpus: what must never reach disk, what must survive untouched, and secrets split across chunks or
 * broken up by colour codes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REDACTED, StreamRedactor, editedIndex, redactRecordFields, redactText } from './redact.js';

const R = REDACTED;
// Fake credentials with the right shapes (none of them valid anywhere).
const GHP = 'ghp_' + 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx';
const SLACK = 'xoxb-' + '123456789012-1234567890123-abcdefghijklmnopqrstuvwx';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const NPM = 'npm_' + 'abcdefghijklmnopqrstuvwxyzABCDEF0123';
const PEM = ['-----BEGIN OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', 'QyNTUxOQAAACDx0OiLhP8kYI0aQ5vX0s1d2x3c4v5b6n7m8q9w0e1r2t3y4u5i6o7p8a9s', '-----END OPENSSH PRIVATE KEY-----'].join('\r\n');

const POSITIVES: Array<[string, string, string]> = [
  [`token is ${GHP} ok`, `token is ghp_${R} ok`, 'GitHub token keeps its prefix'],
  [`export DEPLOY_TOKEN=abc123xyz`, `export DEPLOY_TOKEN=${R}`, 'NAME_TOKEN= assignment'],
  [`DB_PASSWORD: "hunter2 with spaces"`, `DB_PASSWORD: ${R}`, 'quoted value'],
  [`PASSWORD=s3cr3t!`, `PASSWORD=${R}`, 'bare PASSWORD='],
  [`aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, `aws_secret_access_key = ${R}`, 'lower-case assignment'],
  [`git clone https://alice:pa55word@git.example.com/repo`, `git clone https://alice:${R}@git.example.com/repo`, 'URL credentials'],
  [`postgres://app:topsecret@db:5432/x`, `postgres://app:${R}@db:5432/x`, 'any scheme'],
  [`pip install git+ssh://bob:s3cret@git.example.com/x`, `pip install git+ssh://bob:${R}@git.example.com/x`, 'a scheme with + in it'],
  [`(svn.ssh://bob:s3cret@h)`, `(svn.ssh://bob:${R}@h)`, 'a scheme with a dot, after punctuation'],
  [`curl -H "Authorization: Bearer abc.def.ghi123"`, `curl -H "Authorization: Bearer ${R}"`, 'bearer header'],
  [`Authorization: Basic dXNlcjpwYXNz`, `Authorization: Basic ${R}`, 'basic header'],
  [`mysql --password hunter2 -u root`, `mysql --password ${R} -u root`, 'flag with a space'],
  [`tool --token=abc123 run`, `tool --token=${R} run`, 'flag with ='],
  [`--password=hunter2`, `--password=${R}`, 'flag at the very start'],
  [`cmd\t-pass hunter2`, `cmd\t-pass ${R}`, 'single-dash flag after a tab'],
  [`jwt: ${JWT}`, `jwt: ${R}`, 'JWT'],
  [`slack ${SLACK}`, `slack xoxb-${R}`, 'Slack token keeps its prefix'],
  [`key AKIAIOSFODNN7EXAMPLE here`, `key AKIA${R} here`, 'AWS key id keeps its kind'],
  [`npm ${NPM}`, `npm npm_${R}`, 'npm token'],
  [`${PEM}\r\n$ `, `-----BEGIN OPENSSH PRIVATE KEY-----${R}\r\n$ `, 'PEM private key'],
  [`\x1b[32mghp_\x1b[0m${GHP.slice(4)}`, `\x1b[32mghp_\x1b[0m${R}`, 'a secret broken up by colour codes'],
  [`export API_KEY=\x1b[1m${'k'.repeat(10)}\x1b[0m done`, `export API_KEY=\x1b[1m${R}\x1b[0m done`, 'colour around an assignment value'],
  [`gh\x1b[1mp_${GHP.slice(4, 20)}\x1b[22m${GHP.slice(20)}`, `gh\x1b[1mp_${R}`, 'colour changes inside the token itself'],
  [`\x1b]0;mysql --password=hunter2 db\x07$ `, `\x1b]0;mysql --password=${R} db\x07$ `, 'a window title (BEL)'],
  [`\x1b]2;export API_TOKEN=abc123\x1b\\$ `, `\x1b]2;export API_TOKEN=${R}\x1b\\$ `, 'a window title (ST)'],
  [`\x1b]8;;https://bob:pw1234@host/x\x1b\\click\x1b]8;;\x1b\\`, `\x1b]8;;https://bob:${R}@host/x\x1b\\click\x1b]8;;\x1b\\`, 'an OSC 8 link target'],
  [`\u009d0;${GHP}\u009c`, `\u009d0;ghp_${R}\u009c`, 'an 8-bit OSC title'],
  [`${GHP.slice(0, 12)}\u009b0m${GHP.slice(12)} x`, `ghp_${R} x`, 'a token broken by an 8-bit CSI'],
  [`${GHP.slice(0, 12)}\x00${GHP.slice(12)} x`, `ghp_${R} x`, 'a token broken by NUL'],
  [`${GHP.slice(0, 12)}\x07${GHP.slice(12)} x`, `ghp_${R} x`, 'a token broken by BEL'],
  [`AKIAIOSF\x7fODNN7EXAMPLE`, `AKIA${R}`, 'an AWS key broken by DEL'],
  [`${GHP.slice(0, 12)}\x1b]0;a b\x07${GHP.slice(12)} x`, `ghp_${R} x`, 'a token broken by a title with a space in it'],
  [`DEPLOY_TOKEN=${R} and PASSWORD=${R}`, `DEPLOY_TOKEN=${R} and PASSWORD=${R}`, 'redacted text stays as it is (redaction is idempotent)'],
];

const NEGATIVES = [
  '$ ls -la\r\ntotal 48\r\ndrwxr-xr-x  2 root root 4096 Nov 29 19:00 .',
  'Password reset link sent to your email',
  'the token bucket refills at 10/s',
  'see https://example.com/docs/auth for details',
  'git commit -m "fix password prompt"',
  '\x1b[31mred\x1b[0m and \x1b[1mbold\x1b[0m',
  'PASSWORD_MIN_LENGTH is documented in README',
  'Authorization failed',
  'ghp_short',
  'a bare ://user:pw@host has no scheme',
  'please re-pass it on (a dash inside a word is no flag)',
  '\x1b]0;user@host: ~/src\x07$ ',
  '\x1b]8;;https://example.com/docs\x1b\\docs\x1b]8;;\x1b\\',
];

for (const [input, want, why] of POSITIVES) test(`redacts: ${why}`, async () => assert.equal(await redactText(input), want));
for (const text of NEGATIVES) test(`leaves alone: ${JSON.stringify(text).slice(0, 50)}`, async () => assert.equal(await redactText(text), text));

async function streamed(parts: string[]): Promise<string> {
  const r = new StreamRedactor();
  let out = '';
  for (const p of parts) out += (await r.push(p)).text;
  return out + (await r.end()).text;
}

test('a secret split across chunks at every position is still caught', async () => {
  const line = `export GH=${GHP} done\r\n`;
  for (let i = 1; i < line.length; i++) {
    const out = await streamed([line.slice(0, i), line.slice(i)]);
    assert.ok(!out.includes(GHP.slice(4, 20)), `split at ${i}: ${out}`);
  }
});

test('a slowly typed assignment is never stored in pieces', async () => {
  const parts = [...'export DEPLOY_TOKEN=abc123secret\r\n'];
  const out = await streamed(parts);
  assert.ok(!/abc|123|secret/.test(out.replaceAll(REDACTED, '').replace('DEPLOY_TOKEN', '')), out);
});

test('a private key arriving in many chunks is held until its end line, then redacted whole', async () => {
  const chunks = PEM.match(/[\s\S]{1,17}/g)!;
  const out = await streamed([...chunks, '\r\n$ ']);
  assert.equal(out, `-----BEGIN OPENSSH PRIVATE KEY-----${R}\r\n$ `);
});

test('without secrets the stream comes out byte for byte, and byte counts add up', async () => {
  const text = 'héllo \x1b[31mwörld\x1b[0m\r\n'.repeat(50);
  const r = new StreamRedactor();
  let out = '';
  let bytes = 0;
  for (const part of text.match(/[\s\S]{1,37}/g)!) {
    const got = await r.push(part);
    out += got.text;
    bytes += got.bytes;
  }
  const last = await r.end();
  assert.equal(out + last.text, text);
  assert.equal(bytes + last.bytes, Buffer.byteLength(text));
});

test('the trailing partial word is held back, up to 512 characters', async () => {
  const r = new StreamRedactor();
  const push = async (t: string) => {
    const { text, bytes } = await r.push(t);
    return { text, bytes };
  };
  assert.deepEqual(await push('echo abc'), { text: 'echo ', bytes: 5 });
  assert.equal(r.heldChars, 3);
  assert.deepEqual(await push('def\r\n'), { text: 'abcdef\r\n', bytes: 8 });
  assert.equal(r.heldChars, 0);
  // A run of 512 is still a word that may continue; one longer is released whole.
  assert.deepEqual(await push('x'.repeat(512)), { text: '', bytes: 0 });
  const long = await r.push('x');
  assert.equal(long.text, 'x'.repeat(513));
  assert.equal(r.heldChars, 0);
});

test('a title split across chunks at every position is still caught, with BEL and with ST', async () => {
  for (const end of ['\x07', '\x1b\\']) {
    const line = `$ \x1b]0;mysql --password=hunter2xyzzy db${end}$ ls\r\n`;
    for (let i = 1; i < line.length; i++) {
      const out = await streamed([line.slice(0, i), line.slice(i)]);
      assert.ok(!/hun|ter2|xyzzy/.test(out), `split at ${i}: ${JSON.stringify(out)}`);
    }
  }
});

test('a link target split across chunks at every position is still caught', async () => {
  const line = `see \x1b]8;id=1;https://bob:pw1234xyz@host/x\x1b\\here\x1b]8;;\x1b\\ ok\r\n`;
  for (let i = 1; i < line.length; i++) {
    const out = await streamed([line.slice(0, i), line.slice(i)]);
    assert.ok(!/pw1|234|xyz/.test(out), `split at ${i}: ${JSON.stringify(out)}`);
  }
});

test('a token broken by a control and split across chunks at every position is still caught', async () => {
  for (const control of ['\u009b0m', '\x00', '\x07', '\x1b]0;t t\x07']) {
    const line = `token ${GHP.slice(0, 20)}${control}${GHP.slice(20)} done\r\n`;
    for (let i = 1; i < line.length; i++) {
      const out = await streamed([line.slice(0, i), line.slice(i)]);
      assert.ok(!out.includes(GHP.slice(6, 14)) && !out.includes(GHP.slice(24, 32)), `${JSON.stringify(control)} split at ${i}: ${JSON.stringify(out)}`);
    }
  }
});

test('edits say where the stored text changed, so times can follow the text', async () => {
  const r = new StreamRedactor();
  const text = `a PASSWORD=hunter2 b TOKEN=xyz c\r\n`;
  const out = await r.push(text, true);
  assert.equal(out.text, `a PASSWORD=${R} b TOKEN=${R} c\r\n`);
  assert.equal(out.chars, text.length);
  const at = (s: string) => editedIndex(out.edits, text.indexOf(s));
  assert.equal(out.text.slice(at(' b')), ` b TOKEN=${R} c\r\n`, 'after a redaction');
  assert.equal(at('ter2'), out.text.indexOf(R), 'inside a redaction: at its marker');
  assert.equal(out.text.slice(at(' c')), ' c\r\n');
});

test('record fields: the command line is judged as the line it forms, labels as key=value, each value keeps its bounds', async () => {
  const got = await redactRecordFields({
    command: ['sh', '-c', `curl -H 'Authorization: Bearer ${GHP}' https://x`, 'mysql', '--password', 'hunter2'],
    labels: { db_password: 'hunter2', team: 'red', note: `uses ${GHP}` },
    cwd: `/tmp/${GHP}`,
  });
  assert.deepEqual(got, {
    command: ['sh', '-c', `curl -H 'Authorization: Bearer ${R}' https://x`, 'mysql', '--password', R],
    labels: { db_password: R, team: 'red', note: `uses ghp_${R}` },
    cwd: `/tmp/ghp_${R}`,
  });
  const plain = { command: ['bash', '-l'], labels: { job: 'build' }, cwd: '/home/me' };
  assert.deepEqual(await redactRecordFields(plain), plain);
});

test('redacting leaves no performance marks behind (secretlint profiling is off: it would grow without bound)', async () => {
  const { performance } = await import('node:perf_hooks');
  performance.clearMarks();
  const r = new StreamRedactor();
  for (let i = 0; i < 20; i++) await r.push(`line ${i} ${GHP}\n`);
  await r.end();
  assert.equal(performance.getEntriesByType('mark').length, 0);
});
