/**
 * Secret input from the browser: the prompt detector's window and the person's own, the banner that says who opened
 * it and why, typing a password into the pane while the agent sharing the session reads nothing but 423, and "Done",
 * which waits for the session's output to settle.
 */
import { SYSTEM_ACTOR } from '../src/core/index.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Browser } from 'playwright-core';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { focusTerminal, signIn, terminalText, uiTestbed, waitPaneState, waitTerminal } from './browser.js';
import { until, waitText, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let browser: Browser;
let agent: TermhostClient;

uiTestbed((bed) => ({ d, browser, agent } = bed));

test('a sudo-style prompt opens a secret window: the person types in the pane, the agent reads 423 throughout, then the result and never the password', async () => {
  const PASSWORD = 'correct-horse-battery';
  const code = [
    'import getpass, time',
    "pw = getpass.getpass('[sudo] password for alice: ')",
    "print('sudo: authenticated' if pw == 'correct-horse-battery' else 'sudo: wrong password', '(%d characters)' % len(pw), flush=True)",
    'time.sleep(300)',
  ].join('\n');
  const s = await agent.createSession({ command: ['python3', '-c', code], cols: 80, rows: 12 });
  await until('the detector to open a window', async () => (await agent.secretInput(s.id)).active);

  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  const banner = page.locator('.secret-banner');
  await banner.waitFor();
  assert.match(await banner.innerText(), /Secret input is on/);
  assert.match(await banner.innerText(), /Started by system \(the password-prompt detector\): password prompt detected: "\[sudo\] password for alice:"/);
  assert.match(await banner.innerText(), /Agents cannot see what you type here/);

  // The agent keeps reading the screen while the person types.
  const reads: number[] = [];
  let reading = true;
  const poller = (async () => {
    while (reading) {
      try {
        await agent.screen(s.id);
        reads.push(200);
      } catch (e) {
        reads.push((e as TermhostError).status);
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  })();

  const live = () => d.manager.get(s.id, SYSTEM_ACTOR);
  const seqBefore = (live() as { value: { seq: number } }).value.seq;
  await focusTerminal(page);
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await until('the program to read the password', () => (live() as { value: { seq: number } }).value.seq > seqBefore);
  await until('the agent to have read a few times', () => reads.length >= 3);
  reading = false;
  await poller;
  assert.deepEqual([...new Set(reads)], [423], 'every read while the window was open was refused');
  // The person ends the window, unless the detector already has: once the prompt is gone, the line read and the
  // session settled, its window closes by itself (on a loaded machine, before the agent's reads above are done).
  const done = page.getByRole('button', { name: 'Done' });
  if (await done.isVisible()) await done.click({ timeout: 5000 }).catch(() => undefined);
  await banner.waitFor({ state: 'hidden' });

  const screen = await waitText({ ...d, client: agent } as TestDaemon, s.id, 'sudo: authenticated (21 characters)');
  assert.ok(!screen.lines.join('\n').includes(PASSWORD));
  await waitTerminal(page, 'sudo: authenticated');
  assert.ok(!(await terminalText(page)).includes(PASSWORD));
  const transcript = await agent.transcript(s.id);
  assert.ok(!transcript.chunks.map((c) => c.text).join('').includes(PASSWORD));
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('a person opens a secret window with the button and ends it with Done', async () => {
  const s = await agent.createSession({ command: ['bash', '--norc', '--noprofile', '-i'], env: { PS1: '$ ' } });
  await waitText(d, s.id, '$');
  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  await page.getByRole('button', { name: 'Secret input' }).click();
  const banner = page.locator('.secret-banner');
  await banner.locator('text=Started by admin (human)').waitFor();
  await assert.rejects(agent.screen(s.id), (e: TermhostError) => e.status === 423);
  await page.locator('.overlay-secret').waitFor();
  await page.getByRole('button', { name: 'Done' }).click();
  await banner.waitFor({ state: 'hidden' });
  await agent.screen(s.id);
  await person.close();
  await d.client.deleteSession(s.id, 'KILL');
});

test('"Done" retries while the session is still printing (secret_input_settling) and ends the window once it is quiet', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termhost-ui-settle-'));
  const stop = path.join(dir, 'stop');
  const code = [
    'import getpass, os, sys, time',
    "pw = getpass.getpass('Password: ')",
    'while not os.path.exists(sys.argv[1]):',
    "    print('working', flush=True)",
    '    time.sleep(0.05)',
    "print('finished with %d characters' % len(pw), flush=True)",
    'time.sleep(300)',
  ].join('\n');
  const s = await agent.createSession({ command: ['python3', '-c', code, stop], cols: 60, rows: 8 });
  try {
    await until('the detector to open a window', async () => (await agent.secretInput(s.id)).active);
    const person = await signIn(browser, d, ['--session', s.id]);
    const { page } = person;
    await waitPaneState(page, 'attached');
    await page.locator('.secret-banner').waitFor();
    // The server refuses to end the window while output is arriving, but whether it is arriving at the moment of the
    // click depends on scheduling; so the first answer is made a settling one here, and the rest are the server's.
    const ends: number[] = [];
    await page.route(`**/v1/sessions/${s.id}/secret-input/actions`, async (route) => {
      if ((route.request().postDataJSON() as { action?: string }).action !== 'end') return route.continue();
      ends.push(Date.now());
      if (ends.length > 1) return route.continue();
      return route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'the session printed output 10 ms ago', code: 'secret_input_settling', retryable: true, retry_after_ms: 240 }),
      });
    });
    await focusTerminal(page);
    await page.keyboard.type('s3cret');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Done' }).click();
    await until('Done to have been refused once and retried', () => ends.length >= 2);
    fs.writeFileSync(stop, '');
    await page.locator('.secret-banner').waitFor({ state: 'hidden', timeout: 10_000 });
    await waitTerminal(page, 'finished with 6 characters');
    assert.equal(await page.locator('.notice-error').count(), 0);
    await person.close();
  } finally {
    await d.client.deleteSession(s.id, 'KILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
