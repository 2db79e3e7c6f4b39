/**
 * Every command of the README's CLI quickstart, run as printed (with `npx termhost` being this package's CLI) against
 * a real daemon, in order. The few that take over a terminal or never end are run by the tests named beside them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { assertNoLeaks, BIN, ROOT, startTestDaemon, testHome, waitText, type TestDaemon } from './helpers.js';

const run = promisify(execFile);
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(async () => {
  await d.stop();
  await assertNoLeaks();
});

/** Lines run elsewhere, because they hold a terminal or run until stopped. */
const ELSEWHERE: Array<[RegExp, string]> = [
  [/termhost attach /, 'test/attach-cli.test.ts drives attach in a real tmux'],
  [/termhost serve /, 'test/discovery.test.ts starts serve and follows daemon.json'],
];

function cliLines(): string[] {
  const md = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = md.indexOf('```sh\n', md.indexOf('## Quickstart with the CLI'));
  return md
    .slice(start + 6, md.indexOf('```', start + 6))
    .split('\n')
    .filter((l) => l.includes('npx termhost'));
}

test('every line of the README CLI quickstart works as printed', async () => {
  const lines = cliLines();
  assert.ok(lines.length >= 20, `only ${lines.length} lines`);
  const home = testHome();
  const env = { ...process.env, HOME: home, TERMHOST_ADDR: d.address, TERMHOST_TOKEN: d.token, DISPLAY: '', WAYLAND_DISPLAY: '' };
  // `npx termhost` in a project that depends on termhost is its CLI: here, the built one.
  const sh = (line: string) =>
    run('bash', ['-c', line.replace(/npx termhost/g, `node ${BIN}`)], { cwd: ROOT, env, timeout: 30_000 }).then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: e.stdout ?? '', err: e.stderr ?? '' }),
    );
  let id = '';
  try {
    for (const raw of lines) {
      if (ELSEWHERE.some(([re]) => re.test(raw))) continue;
      const line = id ? raw.replaceAll('3f9c2a1b', id) : raw;
      const r = await sh(line);
      const what = `${raw.trim()}\n  -> exit ${r.code}: ${r.err.trim().slice(0, 300)}`;
      if (/termhost mouse /.test(raw)) {
        // As its comment says: bash reads no mouse, so exit 1 with the modes.
        assert.equal(r.code, 1, what);
        assert.match(r.err, /mouse_not_enabled/, what);
        continue;
      }
      assert.equal(r.code, 0, what);
      if (/termhost new bash\b/.test(raw)) {
        id = r.out.trim();
        assert.match(id, /^[a-z][0-9a-f]{7}$/, what);
        await waitText(d, id, '$', 10_000).catch(() => waitText(d, id, '#', 10_000));
      }
      if (/termhost send 3f9c2a1b 'echo hi'/.test(raw)) await waitText(d, id, 'hi');
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
    for (const s of await d.client.listSessions()) if (!s.exited) await d.client.deleteSession(s.id, 'KILL').catch(() => {});
  }
  assert.ok(id, 'the README starts a bash session first');
  for (const [re, why] of ELSEWHERE) assert.ok(lines.some((l) => re.test(l)), `no README line for ${why}`);
});
