/** The examples in examples/ run as users would run them, against the built package. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { ROOT, assertNoLeaks } from './helpers.js';

const run = promisify(execFile);

test('examples/embed-vim.ts drives vim through the embedded runtime and saves the file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-example-test-'));
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'examples/embed-vim.ts'), dir], { cwd: ROOT, timeout: 60_000 });
    assert.equal(fs.readFileSync(path.join(dir, 'hello.txt'), 'utf8'), 'Hello from an embedded runtime\n');
    assert.match(stdout, /^Hello from an embedded runtime$/m, 'the screen read shows the typed line');
    assert.match(stdout, /vim exited with code 0/, 'the event subscription saw the exit');
    assert.match(stdout, /saved: Hello from an embedded runtime/);
    assert.ok(fs.readFileSync(path.join(ROOT, 'examples/embed-vim.ts'), 'utf8').trimEnd().split('\n').length < 30, 'under 30 lines');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await assertNoLeaks();
});
