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

/** Every TypeScript example in docs/runtime.md that imports termhost runs to completion against the built package. */
test('the examples in docs/runtime.md run as printed', async () => {
  const md = fs.readFileSync(path.join(ROOT, 'docs/runtime.md'), 'utf8');
  const blocks = [...md.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => /from 'termhost'/.test(code) && /new Runtime\(/.test(code));
  assert.ok(blocks.length >= 5, `only ${blocks.length} runnable examples found`);
  // Inside the package directory, so `import ... from 'termhost'` resolves to the package itself, as for a user.
  const files = blocks.map((code, i) => {
    const file = path.join(ROOT, `.docs-check-${process.pid}-${i}.mts`);
    fs.writeFileSync(file, code);
    return file;
  });
  try {
    // They type-check against the published types (a call with the wrong arguments is caught here)...
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', ...files], { cwd: ROOT }).catch(
      (err: { stdout?: string }) => assert.fail(`docs/runtime.md examples do not type-check:\n${err.stdout}`),
    );
    // ...and run to completion.
    for (const [i, file] of files.entries()) {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, timeout: 60_000 }).catch((err: Error) =>
        assert.fail(`example ${i + 1} of docs/runtime.md failed: ${err.message}\n${blocks[i]}`),
      );
      assert.ok(stdout.trim().length > 0, `example ${i + 1} printed nothing:\n${blocks[i]}`);
    }
  } finally {
    for (const f of files) fs.rmSync(f, { force: true });
  }
  await assertNoLeaks();
});
