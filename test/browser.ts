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
export interface SignInOptions {
  blockXterm?: boolean;
  viewport?: { width: number; height: number };
  /** The display's device pixel ratio (1 unless given). */
  deviceScaleFactor?: number;
}

export async function signIn(browser: Browser, d: { address: string; token: string }, args: string[] = [], opts: SignInOptions = {}): Promise<Person> {
  const context = await browser.newContext({
    viewport: opts.viewport ?? { width: 1200, height: 720 },
    deviceScaleFactor: opts.deviceScaleFactor ?? 1,
    acceptDownloads: true,
  });
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

export interface Pixels {
  /** In device pixels. */
  width: number;
  height: number;
  /** Device pixels per CSS pixel. */
  dpr: number;
  /** RGBA, row by row. */
  data: number[];
  /** The pixel at device coordinates, as [r, g, b]. */
  at(x: number, y: number): [number, number, number];
}

/**
 * What the display shows in a region of the page (CSS pixels), at device resolution: a real screenshot, decoded by
 * the browser itself (createImageBitmap takes a Blob, so the page's CSP does not come into it).
 */
export async function pagePixels(page: Page, region: { x: number; y: number; width: number; height: number }): Promise<Pixels> {
  const png = await page.screenshot({ clip: region, scale: 'device' });
  const { width, height, data, dpr } = await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const bmp = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const ctx = new OffscreenCanvas(bmp.width, bmp.height).getContext('2d')!;
    ctx.drawImage(bmp, 0, 0);
    return { width: bmp.width, height: bmp.height, data: Array.from(ctx.getImageData(0, 0, bmp.width, bmp.height).data), dpr: devicePixelRatio };
  }, png.toString('base64'));
  return {
    width,
    height,
    dpr,
    data,
    at: (x, y) => {
      const i = (y * width + x) * 4;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    },
  };
}

/** Wait until the pane's terminal area has kept one size for this long: nothing left for a resize handler to do. */
export async function waitPaneStable(page: Page, forMs: number, timeout = 10_000): Promise<void> {
  await page.waitForFunction(
    (ms) => {
      const host = document.querySelector('.term-host') as HTMLElement | null;
      if (!host) return false;
      const w = window as unknown as { __paneSize?: string; __paneSince?: number };
      const size = `${host.clientWidth}x${host.clientHeight}`;
      if (w.__paneSize !== size) {
        w.__paneSize = size;
        w.__paneSince = performance.now();
      }
      return performance.now() - w.__paneSince! >= ms;
    },
    forMs,
    { timeout, polling: 50 },
  );
}
