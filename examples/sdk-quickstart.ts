// Run: npx tsx examples/sdk-quickstart.ts   (with a daemon running: termhost serve)
import { TermhostClient } from 'termhost/client';

const client = new TermhostClient(); // finds the daemon and its token as the CLI does; or TERMHOST_ADDR, TERMHOST_TOKEN
const s = await client.createSession({ command: ['python3', '-q'] });
await client.input(s.id, [{ text: '6 * 7' }, { key: 'Enter' }]);
const r = await client.wait(s.id, { regex: '^42$', timeout_ms: 5000 });
console.log(r.screen.lines.filter(Boolean).join('\n')); // >>> 6 * 7, then 42

await client.input(s.id, [{ key: 'C-d' }]); // end python3, and wait for it to exit
const done = await client.wait(s.id, { exit: true, timeout_ms: 5000 });
console.log(`python3 exited with code ${done.exit_code}`);
await client.deleteSession(s.id);
client.close();
