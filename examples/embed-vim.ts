// Drive vim through the embedded runtime: no daemon, no HTTP. Run: npx tsx examples/embed-vim.ts [dir]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Runtime, type Actor } from 'termhost';

const dir = process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-example-'));
const runtime = new Runtime();
const me: Actor = { name: 'example', kind: 'agent' };
runtime.events.subscribe((e) => e.type === 'process_exited' && console.log(`vim exited with code ${e.code}`));

const created = runtime.sessions.create({ command: ['vim', '-u', 'NONE', '-N', '-n', 'hello.txt'], cwd: dir, cols: 60, rows: 10 }, me);
if (!created.ok) throw created.error;
const vim = created.value;

await vim.wait(me, { text: 'hello.txt', timeout_ms: 10_000 }); // vim is up: its status line names the file
vim.send(me, [{ text: 'i' }, { text: 'Hello from an embedded runtime' }, { key: 'Escape' }]);
await vim.wait(me, { text: 'Hello from', timeout_ms: 10_000 });
const screen = await vim.screen(me); // a Result: hidden while a person types a secret
if (screen.ok) console.log(screen.value.lines[0]);

vim.send(me, [{ text: ':wq' }, { key: 'Enter' }]);
const done = await vim.wait(me, { exit: true, timeout_ms: 10_000 });
if (!done.ok || done.value.exit_code !== 0) throw new Error('vim did not exit cleanly');
console.log(`saved: ${fs.readFileSync(path.join(dir, 'hello.txt'), 'utf8').trim()}`);
await runtime.close();
