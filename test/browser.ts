/**
 * Real Chromium for the UI tests, driven by playwright-core: Debian's `chromium` package (installed by .ci/run), never
 * a browser that playwright would download. One browser per test file; a fresh context (cookies, storage) per person.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { after, before } from 'node:test';
import { runCli } from '../src/cli/main.js';
import { TermhostClient } from '../src/client/TermhostClient.js';
import { assertNoLeaks, startTestDaemon, type TestDaemon } from './helpers.js';

export const CHROMIUM = process.env.TERMHOST_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set TERMHOST_CHROMIUM`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
  });
}

/** `termhost ui --print ...args` against the daemon: the one-time link it prints. */
export async function uiLink(d: { address: string; token: string }, args: string[] = [], token = d.token): Promise<string> {
  let out = '';
  let err = '';
  const code = await runCli(['ui', '--print', '--addr', d.address, '--token', token, ...args], { out: (s) => (out += s), err: (s) => (err += s) });
  assert.equal(code, 0, err);
  return out.trim();
}

export interface Person {
  /** The one-time link the person opened. */
  link: string;
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested. */
  requests: string[];
  close(): Promise<void>;
}

/** A person opens the link `termhost ui` printed, in a browser of their own. */
export async function signIn(browser: Browser, d: { address: string; token: string }, args: string[] = [], opts: { blockXterm?: boolean } = {}): Promise<Person> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 720 }, acceptDownloads: true });
  if (opts.blockXterm) await context.route('**/ui/assets/xterm.js', (route) => route.abort());
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const link = await uiLink(d, args);
  await page.goto(link);
  return {
    link,
    context,
    page,
    requests,
    async close() {
      await context.close();
      assert.deepEqual(errors, [], 'uncaught errors in the page');
    },
  };
}

const TERMINAL = '.xterm-rows, .dom-term';

/** The terminal's visible text (either renderer), with the renderer's non-breaking spaces as spaces. */
export function terminalText(page: Page): Promise<string> {
  return page.evaluate((sel) => [...document.querySelectorAll(sel)].map((e) => (e as HTMLElement).innerText).join('\n').replace(/\u00a0/g, ' '), TERMINAL);
}

/** Wait (with a deadline, polling in the page) until the terminal shows this text. */
export async function waitTerminal(page: Page, text: string, timeout = 10_000): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, t]) => [...document.querySelectorAll(sel!)].some((e) => (e as HTMLElement).innerText.replace(/\u00a0/g, ' ').includes(t!)),
      [TERMINAL, text],
      { timeout, polling: 50 },
    );
  } catch {
    assert.fail(`the terminal never showed "${text}"; it shows:\n${await terminalText(page)}`);
  }
}

export async function waitPaneState(page: Page, state: string, timeout = 10_000): Promise<void> {
  try {
    await page.locator(`.pane[data-pane-state="${state}"]`).waitFor({ timeout });
  } catch {
    const now = await page.locator('.pane').getAttribute('data-pane-state').catch(() => 'no pane');
    const status = await page.locator('.pane .status').innerText().catch(() => '');
    assert.fail(`pane never reached "${state}"; it is "${now}" (${status})`);
  }
}

/** Click into the terminal so the keyboard goes to it. */
export async function focusTerminal(page: Page): Promise<void> {
  await page.locator('.term-host').click({ position: { x: 40, y: 20 } });
}

export interface UiTestbed {
  d: TestDaemon;
  browser: Browser;
  /** An agent ("claude") sharing the sessions with the person in the browser. */
  agent: TermhostClient;
}

/**
 * What every browser test file starts from: a daemon, Chromium and an agent client, started before the file's tests
 * and stopped (with the leak check) after them. `use` receives them once they are up.
 */
export function uiTestbed(use: (bed: UiTestbed) => void): void {
  let bed: UiTestbed | undefined;
  before(async () => {
    const [d, browser] = await Promise.all([startTestDaemon(), launchChromium()]);
    const agent = new TermhostClient({ address: d.address, token: (await d.client.createToken('claude', 'agent')).token });
    bed = { d, browser, agent };
    use(bed);
  });
  after(async () => {
    bed?.agent.close();
    await bed?.browser.close();
    await bed?.d.stop();
    await assertNoLeaks();
  });
}
