/**
 * `npm run screenshots`: the README's pictures of the UI, taken in real Chromium against a real daemon running real
 * programs: the session list, a live pane, the secret-input banner, the wall and an ended session; and a picture of a terminal
 * drawn by termhost itself (GET .../screen?format=png), terminal.png. Writes docs/images/*.png.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AttachClient } from '../src/client/AttachClient.js';
import { TermhostClient } from '../src/client/TermhostClient.js';
import { launchChromium, signIn, waitPaneState, waitTerminal } from './browser.js';
import { ROOT, startTestDaemon, until, waitText } from './helpers.js';

const OUT = path.join(ROOT, 'docs', 'images');
const VIEWPORT = { width: 1280, height: 720 };

const d = await startTestDaemon();
// A small made-up project for the shells to work in, so the pictures show ordinary work.
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-shots-'));
for (const dir of ['src', 'tests', 'docs']) fs.mkdirSync(path.join(project, dir));
for (const f of ['src/models.py', 'tests/test_api.py', 'README.md', 'pyproject.toml']) fs.writeFileSync(path.join(project, f), '');
fs.writeFileSync(path.join(project, 'src/server.py'), 'import json\n\n\ndef resize(session, cols, rows):\n    session.resize(cols, rows)\n');
fs.writeFileSync(
  path.join(project, 'nightly.sh'),
  "#!/bin/sh\nprintf '\\033[1mnightly report\\033[0m\\n'\nfor t in api web worker; do printf '  %-8s \\033[32mok\\033[0m\\n' $t; done\nprintf 'done in 42s\\n'\n",
  { mode: 0o755 },
);
fs.writeFileSync(path.join(project, 'deploy.sh'), '#!/bin/sh\necho "deploy: $1 is up to date"\n', { mode: 0o755 });
fs.writeFileSync(path.join(project, 'migrate.sh'), '#!/bin/sh\necho "migration 0042 failed: column exists" >&2\nexit 1\n', { mode: 0o755 });
fs.writeFileSync(
  path.join(project, 'run_tests.sh'),
  [
    '#!/bin/sh',
    "printf '\\033[1mtests/test_api.py\\033[0m\\n'",
    "printf '  \\033[32m✔\\033[0m create session returns 201\\n'",
    "printf '  \\033[32m✔\\033[0m an unknown key is a 400 naming the element\\n'",
    "printf '  \\033[31m✘\\033[0m resize after exit \\033[2m(expected 409, got 500)\\033[0m\\n\\n'",
    "printf '\\033[1;31m1 failed\\033[0m, \\033[1;32m41 passed\\033[0m \\033[2min 3.2s\\033[0m\\n'",
    '',
  ].join('\n'),
  { mode: 0o755 },
);
fs.writeFileSync(
  path.join(project, 'install.sh'),
  [
    '#!/bin/sh',
    "printf 'Reading package lists... Done\\nBuilding dependency tree... Done\\nThe following NEW packages will be installed:\\n  postgresql-16 postgresql-client-16\\n'",
    `exec python3 -c "import getpass; getpass.getpass('[sudo] password for dev: ')"`,
    '',
  ].join('\n'),
  { mode: 0o755 },
);
const browser = await launchChromium();
fs.mkdirSync(OUT, { recursive: true });
const agent = new TermhostClient({ address: d.address, token: (await d.client.createToken('claude', 'agent')).token });
const env = { PS1: '\\[\\e[32m\\]dev@box\\[\\e[0m\\]:\\[\\e[34m\\]~/api\\[\\e[0m\\]$ ', TERM: 'xterm-256color' };
const bash = (labels: Record<string, string>, cols = 100, rows = 26) =>
  agent.createSession({ command: ['bash', '--norc', '--noprofile', '-i'], cwd: project, env, cols, rows, labels });

try {
  // A working shell an agent is using, with some colourful history.
  const build = await bash({ agent: 'claude', task: 'fix-tests' });
  await agent.input(build.id, [{ text: `printf '\\033]0;api: test run\\007'; ls -l --color=always` }, { key: 'Enter' }]);
  await waitText(d, build.id, 'tests');
  await agent.input(build.id, [{ text: './run_tests.sh' }, { key: 'Enter' }]);
  await waitText(d, build.id, '41 passed');
  fs.writeFileSync(path.join(OUT, 'terminal.png'), (await agent.screenshot(build.id, { scale: 18 })).bytes);
  await agent.acquireLease(build.id, 'exclusive', 600_000);

  const repl = await agent.createSession({ command: ['python3', '-q'], labels: { agent: 'claude', task: 'data' }, cols: 90, rows: 20 });
  await agent.input(repl.id, [{ text: 'sum(range(10**6))' }, { key: 'Enter' }]);
  await waitText(d, repl.id, '499999500000');

  const deploy = await d.client.createSession({ command: ['./deploy.sh', 'staging'], cwd: project, labels: { env: 'staging' } });
  const failed = await d.client.createSession({ command: ['./migrate.sh', '--apply'], cwd: project, labels: { env: 'staging' } });
  await until('the short jobs to end', async () => (await d.client.getSession(deploy.id)).exited && (await d.client.getSession(failed.id)).exited);

  // A session that is gone: its record and its transcript, from the store.
  const report = await agent.createSession({
    command: ['./nightly.sh'],
    cwd: project,
    labels: { job: 'nightly' },
    cols: 90,
    rows: 16,
  });
  await until('the report to finish', async () => (await d.client.getSession(report.id)).exited);
  await d.client.deleteSession(report.id);
  // Someone watching the data session.
  const watcher = new AttachClient({ address: d.client.address, session: repl.id, bearer: d.token, role: 'viewer' });
  await until('the watcher to be counted', async () => (await d.client.getSession(repl.id)).clients.viewers === 1);

  const person = await signIn(browser, d);
  const { page } = person;
  await page.setViewportSize(VIEWPORT);
  await page.locator(`tr[data-session="${failed.id}"] .pill-exited`).waitFor();
  await page.locator(`tr[data-session="${build.id}"] .holder`, { hasText: 'exclusive' }).waitFor();
  await page.getByLabel('Show ended').check();
  await page.locator(`tr[data-session="${report.id}"] .pill-ended`).waitFor();
  await page.locator(`tr[data-session="${repl.id}"] .clients`, { hasText: '1 watching' }).waitFor();
  await page.screenshot({ path: path.join(OUT, 'ui-list.png') });

  // The live pane, driving the agent's shell.
  await page.goto(`http://${d.address}/ui/sessions/${build.id}`);
  await waitPaneState(page, 'attached');
  await waitTerminal(page, '41 passed');
  await page.locator('.pane-info', { hasText: '1 driving' }).waitFor();
  await page.locator('.term-host').click({ position: { x: 40, y: 20 } });
  await page.keyboard.type('grep -n "def resize" src/*.py');
  await page.keyboard.press('Enter');
  await page.locator('.notice', { hasText: 'You took over input' }).waitFor();
  await waitTerminal(page, 'def resize(session, cols, rows)');
  await page.screenshot({ path: path.join(OUT, 'ui-pane.png') });

  // An agent runs an install that asks for a password: the detector opens a secret-input window.
  const sudo = await bash({ agent: 'claude', task: 'install' }, 100, 20);
  await waitText(d, sudo.id, '$');
  await page.goto(`http://${d.address}/ui/sessions/${sudo.id}`);
  await waitPaneState(page, 'attached');
  await agent.input(sudo.id, [{ text: './install.sh' }, { key: 'Enter' }]);
  await page.locator('.secret-banner').waitFor();
  await waitTerminal(page, 'password for dev');
  await page.screenshot({ path: path.join(OUT, 'ui-secret.png') });

  // The wall: every live session at once, the secret window's tile showing its lock instead of the screen.
  await page.goto(`http://${d.address}/ui/wall`);
  await page.locator(`.tile[data-session="${sudo.id}"] [data-mark="secret"]`).waitFor();
  await until('every other tile to show its picture', async () => {
    const tiles = await page.locator('.tile').count();
    return tiles > 1 && (await page.locator('.tile img').count()) === tiles - 1;
  });
  await page.screenshot({ path: path.join(OUT, 'ui-wall.png') });

  await page.goto(`http://${d.address}/ui/sessions/${report.id}`);
  await waitPaneState(page, 'ended');
  await waitTerminal(page, 'done in 42s');
  await page.screenshot({ path: path.join(OUT, 'ui-ended.png') });
  await person.close();
  watcher.close();
  process.stdout.write(`wrote ${fs.readdirSync(OUT).filter((f) => f.startsWith('ui-')).join(', ')} to ${OUT}\n`);
} finally {
  fs.rmSync(project, { recursive: true, force: true });
  agent.close();
  await browser.close();
  await d.stop();
}
