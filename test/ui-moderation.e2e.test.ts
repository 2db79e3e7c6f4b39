/**
 * Moderation in the browser: a person opening a moderated session as driver is the presence its agent waits for;
 * the pane shows the state, who is required and who is present, Pause / Resume agents work, each change arrives as a
 * notice, and the session's audit trail is shown beside it. The new-session form offers the daemon's profiles, and
 * only them when the daemon is restricted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Browser } from 'playwright-core';
import { TermhostClient, TermhostError } from '../src/client/TermhostClient.js';
import { signIn, uiTestbed, waitPaneState, waitTerminal } from './browser.js';
import { startTestDaemon, until, type TestDaemon } from './helpers.js';

let d: TestDaemon;
let browser: Browser;
let agent: TermhostClient;

uiTestbed((bed) => ({ d, browser, agent } = bed));

const agentInput = (id: string, text: string) =>
  agent.input(id, [{ text }]).then(
    () => 'accepted',
    (e: TermhostError) => e.code,
  );

test('the pane shows a moderated session, counts the person in it, and its Pause and Resume govern the agent', async () => {
  const s = await agent.createSession({ command: ['cat'], cols: 80, rows: 10, require_moderator: true, moderator_grace_ms: 120_000 });
  assert.equal(await agentInput(s.id, 'x'), 'moderator_required');

  const person = await signIn(browser, d, ['--session', s.id]);
  const { page } = person;
  await waitPaneState(page, 'attached');
  const bar = page.locator('.moderation-bar');
  await page.locator('.moderation-bar[data-agent-input="allowed"]').waitFor();
  assert.match(await bar.innerText(), /Moderated session/);
  assert.match(await bar.innerText(), /Requires a person \(a human or admin token\) attached as driver/);
  assert.match(await bar.innerText(), /Present: admin/);
  await until('the agent may type once the person is in', async () => (await agentInput(s.id, 'agent-typed\r')) === 'accepted');
  await waitTerminal(page, 'agent-typed');

  await page.getByRole('button', { name: 'Pause agents' }).click();
  await page.locator('.moderation-bar[data-agent-input="refused"]').waitFor();
  assert.match(await bar.innerText(), /Agent input paused by admin \(human\)/);
  await page.locator('.notices', { hasText: 'agent input paused by admin (human)' }).waitFor();
  assert.equal(await agentInput(s.id, 'x'), 'input_paused');

  await page.getByRole('button', { name: 'Resume agents' }).click();
  await page.locator('.moderation-bar[data-agent-input="allowed"]').waitFor();
  await page.locator('.notices', { hasText: 'agent input resumed by admin (human)' }).waitFor();
  assert.equal(await agentInput(s.id, 'again\r'), 'accepted');

  // Watching is not presence: as a viewer the person leaves the agent waiting, and the pane says so.
  await page.getByRole('button', { name: 'Viewer' }).click();
  await page.locator('.moderation-bar[data-presence="absent"]').waitFor();
  assert.match(await bar.innerText(), /The last person attached as driver left\. The session ends at/);
  assert.equal(await agentInput(s.id, 'x'), 'moderator_required');

  // The audit trail beside the terminal: who attached, who typed (counts only), who paused and resumed.
  await page.locator('.audit-panel summary').click();
  await page.locator('table.audit tr[data-action="moderation_changed"]').first().waitFor();
  const audit = await page.locator('table.audit').innerText();
  assert.match(audit, /claude \(agent\)\s+session_created/);
  assert.match(audit, /admin \(human\)\s+client_attached\s+role=driver/);
  assert.match(audit, /admin \(human\)\s+moderation_changed\s+change=paused/);
  assert.match(audit, /admin \(human\)\s+moderation_changed\s+change=resumed/);
  assert.match(audit, /claude \(agent\)\s+input\s+source=api bytes=\d+/);
  assert.ok(!audit.includes('agent-typed'), 'the trail never holds what was typed');
  await person.close();
  await d.client.deleteSession(s.id);
});

test("a restricted daemon's new-session form offers only its profiles, and starts one", async () => {
  const r = await startTestDaemon({ restrictCommands: true, profiles: { watched: { command: ['cat'], require_moderator: true }, plain: { command: ['cat'] } } });
  try {
    const person = await signIn(browser, r);
    const { page } = person;
    await page.getByRole('button', { name: 'New session' }).click();
    const select = page.locator('form.new-session select[name="profile"]');
    await select.waitFor();
    assert.deepEqual(await select.locator('option').allInnerTexts(), ['watched (cat) · moderated', 'plain (cat)']);
    assert.equal(await page.locator('form.new-session input[name="command"]').isVisible(), false, 'no command field: the daemon would refuse one');
    await select.selectOption('watched');
    await page.locator('form.new-session').getByRole('button', { name: 'Start' }).click();
    await waitPaneState(page, 'attached');
    const [info] = await r.client.listSessions();
    assert.deepEqual(info?.command, ['cat']);
    assert.equal(info?.live && info.moderation.required, true);
    await page.locator('.moderation-bar', { hasText: 'Moderated session' }).waitFor();
    await person.close();
  } finally {
    await r.stop();
  }
});
