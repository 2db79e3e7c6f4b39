/**
 * The browser UI end to end: real Chromium, the real daemon, real programs. A person signs in with the link
 * `termhost ui` prints, watches the list change, drives and watches sessions, takes over from an agent, and finds
 * each pane state where it belongs. Secret input has its own file (ui-secret.e2e.test.ts).
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Browser } from 'playwright-core';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { startDaemon } from '../src/main.js';
import { focusTerminal, signIn, terminalText, uiTestbed, waitPaneStable, waitPaneState, waitTerminal } from './browser.js';
import { until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let browser: Browser;
let agent: TermhostClient;

uiTestbed((bed) => ({ d, browser, agent } = bed));

/** A quiet interactive shell with a fixed prompt. */
function shell(labels: Record<string, string> = {}) {
  return agent.createSession({ command: ['bash', '--norc', '--noprofile', '-i'], env: { PS1: '$ ' }, cols: 80, rows: 20, labels });
}

test('a person signs in through `termhost ui --print`: the cookie replaces the code, and nothing loads from elsewhere', async () => {
  const person = await signIn(browser, d);
  const { page, context, link } = person;
  assert.match(link, new RegExp(`^http://${d.address}/ui/login\\?code=[A-Za-z0-9_-]{43}$`));
  assert.equal(page.url(), `http://${d.address}/ui/`, 'the address bar holds no secret');
  await page.locator('.who-name', { hasText: 'admin' }).waitFor();
  await page.locator('.badge', { hasText: 'person' }).waitFor();
  const [cookie] = await context.cookies();
  assert.deepEqual([cookie?.httpOnly, cookie?.sameSite], [true, 'Strict']);
  assert.equal(await page.evaluate(() => document.cookie), '', 'scripts cannot read the cookie');
  const html = await page.content();
  assert.ok(!html.includes(d.token) && !html.includes(cookie!.value));
  await page.locator('.stream[data-status="live"]').waitFor();
  const origin = `http://${d.address}/`;
  const foreign = person.requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
  assert.deepEqual(foreign, [], 'every request goes to the daemon');
  // The link was spent: opened again (say, from the shell's history) it signs nobody in.
  const again = await browser.newContext();
  const p2 = await again.newPage();
  const res = await p2.goto(link);
  assert.equal(res?.status(), 401);
  assert.deepEqual(await again.cookies(), []);
  await again.close();
  await person.close();
});

test('the session list follows the event stream: new sessions, leases, attached clients, exits', async () => {
  const person = await signIn(browser, d);
  const { page } = person;
  await page.locator('table.sessions').waitFor();
  const s = await agent.createSession({ command: ['sh', '-c', 'read line; exit 3'], labels: { job: 'build' } });
  const row = page.locator(`tr[data-session="${s.id}"]`);
  await row.waitFor();
  assert.match(await row.locator('.cmd').innerText(), /^sh -c 'read line; exit 3'$/);
  await row.locator('.chip', { hasText: 'job=build' }).waitFor();
  await row.locator('.pill-running').waitFor();
  const lease = await agent.acquireLease(s.id, 'exclusive', 60_000);
  await row.locator('.holder', { hasText: 'claude (agent, exclusive)' }).waitFor();
  await agent.input(s.id, [{ key: 'Enter' }], { leaseId: lease.lease_id });
  await row.locator('.pill-exited', { hasText: 'exited · code 3' }).waitFor();
  await agent.deleteSession(s.id);
  await row.waitFor({ state: 'detached' });
  // "Show ended" brings back what is gone, from the store.
  await page.getByLabel('Show ended').check();
  await row.locator('.pill-ended', { hasText: 'code 3' }).waitFor();
  assert.match(page.url(), /\/ui\/\?ended=1$/);
  await person.close();
});

test('"New session" starts a command at a size and opens it', async () => {
  const person = await signIn(browser, d);
  const { page } = person;
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByLabel('Command').fill(`sh -c 'echo "started from the page"; sleep 30'`);
  await page.getByLabel('Columns').fill('72');
  await page.getByLabel('Rows').fill('12');
  await page.getByRole('button', { name: 'Start' }).click();
  await page.waitForURL(/\/ui\/sessions\/[a-z0-9]+$/);
  await waitPaneState(page, 'attached');
  await waitTerminal(page, 'started from the page');
  const id = page.url().split('/').pop()!;
  const info = await d.client.getSession(id);
  assert.deepEqual(info.command, ['sh', '-c', 'echo "started from the page"; sleep 30']);
  assert.deepEqual(info.created_by, { name: 'admin', kind: 'human' });
  await d.client.deleteSession(id, 'KILL');
  await person.close();
});

test("an agent's typing shows up live; the person types as the driver, taking over the agent's lease", async () => {
  const s = await shell();
  await waitText(d, s.id, '$');
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  assert.equal(page.url(), `http://${d.address}/ui/sessions/${s.id}`);
  await waitPaneState(page, 'attached');
  await page.locator('.status', { hasText: 'Live' }).waitFor();
  assert.equal(await page.locator('.badge-readonly').count(), 0);

  await agent.input(s.id, [{ text: 'echo from-agent-$((2+3))' }, { key: 'Enter' }]);
  await waitTerminal(page, 'from-agent-5');

  await agent.acquireLease(s.id, 'exclusive', 60_000);
  await page.locator('.input-holder', { hasText: 'claude (agent, exclusive)' }).waitFor();
  await focusTerminal(page);
  await page.keyboard.type('echo person-$((6*7))');
  await page.keyboard.press('Enter');
  await waitTerminal(page, 'person-42');
  await waitText(d, s.id, 'person-42');
  await page.locator('.notice', { hasText: "You took over input: typing as a person ended claude's exclusive lease." }).waitFor();
  await page.locator('.input-holder', { hasText: 'free' }).waitFor();
  await assert.rejects(agent.input(s.id, [{ text: 'x' }]), (e: TermhostError) => e.code === 'lease_preempted');
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('switched to viewer, the pane is read-only and typing reaches nothing; neither role resizes the session', async () => {
  const s = await shell();
  await waitText(d, s.id, '$');
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  // The driver leaves the session its own size (ui-size.e2e.test.ts has the rest): the API owns it.
  await page.setViewportSize({ width: 700, height: 500 });
  await waitPaneStable(page, 500);

  await page.getByRole('button', { name: 'Viewer' }).click();
  await page.waitForURL(/\?role=viewer$/);
  await waitPaneState(page, 'attached');
  await page.locator('.status .badge-readonly', { hasText: 'Read-only' }).waitFor();
  await focusTerminal(page);
  await page.keyboard.type('echo viewer-typed');
  await page.keyboard.press('Enter');
  await page.locator('.notice', { hasText: 'You are watching read-only' }).waitFor();
  // Anything the viewer's keys did would be in the shell before this marker.
  await agent.input(s.id, [{ text: 'echo marker-$((1+1))' }, { key: 'Enter' }]);
  const screen = await waitText(d, s.id, 'marker-2');
  assert.ok(!screen.lines.join('\n').includes('viewer-typed'), screen.lines.join('\n'));
  await waitTerminal(page, 'marker-2');
  assert.ok(!(await terminalText(page)).includes('viewer-typed'));
  // Nor does a viewer resize it.
  await page.setViewportSize({ width: 1100, height: 700 });
  await waitPaneStable(page, 500);
  await agent.input(s.id, [{ text: 'echo marker-$((2+2))' }, { key: 'Enter' }]);
  await waitTerminal(page, 'marker-4');
  const info = await d.client.getSession(s.id);
  assert.deepEqual([info.cols, info.rows], [80, 20]);
  assert.deepEqual(info.clients, { viewers: 1, drivers: 0 });
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a reload lands on the same view, repainted by the server', async () => {
  const s = await shell();
  await agent.input(s.id, [{ text: 'echo before-$((10+1))' }, { key: 'Enter' }]);
  await waitText(d, s.id, 'before-11');
  const person = await signIn(browser, d, ['--session', s.id, '--viewer']);
  const { page } = person;
  await waitPaneState(page, 'attached');
  await waitTerminal(page, 'before-11');
  const url = page.url();
  assert.ok(url.endsWith(`/ui/sessions/${s.id}?role=viewer`));
  await page.reload();
  assert.equal(page.url(), url);
  await waitPaneState(page, 'attached');
  await page.locator('.status .badge-readonly').waitFor();
  await waitTerminal(page, 'before-11');
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('INT interrupts the command a shell runs, not the shell, and the notice names it', async () => {
  const s = await shell();
  await waitText(d, s.id, '$');
  await agent.input(s.id, [{ text: 'sleep 88' }, { key: 'Enter' }]);
  await until('sleep 88 to run', () => fs.readFileSync(`/proc/${s.pid}/task/${s.pid}/children`, 'utf8').trim() !== '');
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  await page.getByRole('button', { name: 'INT', exact: true }).click();
  await page.locator('.notice', { hasText: 'Sent SIGINT to sleep 88.' }).waitFor();
  await focusTerminal(page);
  await page.keyboard.type('echo "status=$?"');
  await page.keyboard.press('Enter');
  await waitTerminal(page, 'status=130');
  assert.equal((await agent.getSession(s.id)).exited, false, 'the shell is still there');
  await person.close();
  await agent.deleteSession(s.id, 'KILL');
});

test('KILL ends the session: grey "Session ended" with the signal; a program that exits shows its code', async () => {
  const s = await agent.createSession({ command: ['sleep', '300'] });
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  await page.locator('.overlay-waiting', { hasText: 'Waiting for output…' }).waitFor();
  await page.getByRole('button', { name: 'KILL', exact: true }).click();
  await waitPaneState(page, 'ended');
  await page.locator('.status[data-tone="grey"]', { hasText: 'Session ended (closed, SIGKILL)' }).waitFor();
  await page.locator('.status').getByRole('button', { name: 'Reconnect' }).waitFor();

  const t = await agent.createSession({ command: ['sh', '-c', 'read line; echo "bye $line"; exit 3'] });
  await page.goto(`http://${d.address}/ui/sessions/${t.id}`);
  await waitPaneState(page, 'attached');
  await focusTerminal(page);
  await page.keyboard.type('now');
  await page.keyboard.press('Enter');
  await waitPaneState(page, 'ended');
  await page.locator('.status', { hasText: 'Session ended (completed, code 3)' }).waitFor();
  await waitTerminal(page, 'bye now');
  // Close frees it; the pane then shows the stored record, replayed from the transcript.
  await page.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Really close?' }).click();
  await until('the session to be freed', async () => !(await d.client.listSessions()).some((x) => x.id === t.id));
  await waitPaneState(page, 'ended');
  await waitTerminal(page, 'bye now');
  await person.close();
  await d.client.deleteSession(s.id);
});

test('an ended session replays its stored transcript in the pane and downloads as asciicast', async () => {
  const s = await agent.createSession({ command: ['sh', '-c', 'printf "line-one\\n\\033[32mline-two\\033[0m\\n"'], cols: 60, rows: 8 });
  await until('the program to exit', async () => (await d.client.getSession(s.id)).exited);
  await d.client.deleteSession(s.id);
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'ended');
  await page.locator('.status', { hasText: 'Session ended (completed, code 0)' }).waitFor();
  await waitTerminal(page, 'line-one');
  await waitTerminal(page, 'line-two');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download .cast' }).click()]);
  assert.equal(download.suggestedFilename(), `termhost-${s.id}.cast`);
  const stream = await download.createReadStream();
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  const [header, ...events] = text.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual([header.version, header.term.cols, header.term.rows], [3, 60, 8]);
  assert.ok(events.map((e: [number, string, string]) => e[2]).join('').includes('line-two'));
  await person.close();
});

test('--viewer signs in read-only: no driving, no controls', async () => {
  const s = await shell();
  const person = await signIn(browser, d, ['--viewer', '--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  await page.locator('.badge', { hasText: 'viewer (read-only)' }).waitFor();
  await page.locator('.status .badge-readonly', { hasText: 'Read-only' }).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Driver' }).isDisabled());
  for (const name of ['INT', 'TERM', 'KILL', 'Close']) assert.ok(await page.getByRole('button', { name, exact: true }).isDisabled(), name);
  await page.goto(`http://${d.address}/ui/sessions/${s.id}`);
  await waitPaneState(page, 'attached');
  await page.locator('.status .badge-readonly').waitFor();
  assert.deepEqual((await d.client.getSession(s.id)).clients, { viewers: 1, drivers: 0 });
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('when xterm.js cannot load, the DOM renderer draws the server styled snapshot, and typing still works', async () => {
  const s = await shell();
  await agent.input(s.id, [{ text: `printf '\\033[31mred-text\\033[0m\\n'` }, { key: 'Enter' }]);
  await waitText(d, s.id, 'red-text');
  const person = await signIn(browser, d, ['--session', s.id], { blockXterm: true });
  const { page } = person;
  await waitPaneState(page, 'attached');
  await page.locator('.notice-warn', { hasText: 'did not load' }).waitFor();
  // Wait for the colour itself: the span can exist a moment before its style is applied.
  await page.waitForFunction(
    () => [...document.querySelectorAll('.dom-term span')].some((e) => e.textContent === 'red-text' && getComputedStyle(e).color === 'rgb(224, 108, 117)'),
    undefined,
    { timeout: 10_000 },
  );
  assert.equal(await page.locator('.xterm').count(), 0);
  await focusTerminal(page);
  await page.keyboard.type('echo dom-$((3*3))');
  await page.keyboard.press('Enter');
  await waitText(d, s.id, 'dom-9');
  await waitTerminal(page, 'dom-9');
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a wrong credential is refused (red), never "cannot connect"', async () => {
  const s = await shell();
  const context = await browser.newContext();
  await context.addCookies([{ name: `termhost_ui_${d.address.split(':')[1]}`, value: 'not-a-real-sign-in', url: `http://${d.address}` }]);
  const page = await context.newPage();
  await page.goto(`http://${d.address}/ui/sessions/${s.id}`);
  await waitPaneState(page, 'refused');
  await page.locator('.status[data-tone="red"]', { hasText: 'You do not have access' }).waitFor();
  await page.locator('.overlay-refused', { hasText: 'termhost ui' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Reconnect' }).count(), 0);
  await context.close();
  // Signed in, a session that does not exist is refused too (404).
  const person = await signIn(browser, d, []);
  await person.page.goto(`http://${d.address}/ui/sessions/nosuch0`);
  await waitPaneState(person.page, 'refused');
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a stopped daemon is "cannot connect" (amber); restarted, the same URL shows what the session left', async () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-ui-restart-'));
  const token = crypto.randomBytes(16).toString('hex');
  let d2 = await startDaemon({ listen: '127.0.0.1:0', stateDir, token, transcriptBatchMs: 20 });
  const c2 = new TermhostClient({ address: d2.address, token });
  try {
    const s = await c2.createSession({ command: ['bash', '--norc', '--noprofile', '-i'], env: { PS1: '$ ' } });
    await c2.input(s.id, [{ text: 'echo still-$((40+2))' }, { key: 'Enter' }]);
    assert.ok((await c2.wait(s.id, { text: 'still-42', timeout_ms: 5000 })).matched);
    const person = await signIn(browser, { address: d2.address, token }, ['--session', s.id]);
    const { page } = person;
    await waitPaneState(page, 'attached');
    await waitTerminal(page, 'still-42');
    await d2.close();
    // The session ends with its daemon: the pane hears the exit, or loses the socket.
    await page.waitForFunction(() => ['ended', 'cannot-connect'].includes((document.querySelector('.pane') as HTMLElement).dataset.paneState!));
    await page.getByRole('button', { name: 'Reconnect' }).first().click();
    await waitPaneState(page, 'cannot-connect');
    await page.locator('.status[data-tone="amber"]', { hasText: 'Cannot connect to the daemon' }).waitFor();
    await page.locator('.overlay-cannot-connect').getByRole('button', { name: 'Reconnect' }).waitFor();

    d2 = await startDaemon({ listen: d2.address, stateDir, token });
    await page.getByRole('button', { name: 'Reconnect' }).first().click();
    await waitPaneState(page, 'ended');
    await page.locator('.status', { hasText: 'Session ended (' }).waitFor();
    await waitTerminal(page, 'still-42');
    // Still signed in: the sign-in outlived the restart, and a reload lands on the same view.
    await page.reload();
    await waitPaneState(page, 'ended');
    await waitTerminal(page, 'still-42');
    await person.close();
  } finally {
    c2.close();
    await d2.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});
