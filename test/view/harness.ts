/**
 * End-to-end harness for the `coll view` page: loads fixture files through the same
 * code as `coll view --export` (src/view/load.ts, src/view/export.ts; the bundle from
 * src/view/assets.ts, built on the fly from source), writes the HTML to a temporary
 * directory, and opens it from file:// in Debian's chromium driven by playwright-core
 * (one browser per test file: launch in beforeAll, close in afterAll).
 *
 *   import { describeView, fixture, launchViewBrowser, screenshot, type ViewBrowser } from './harness.js';
 *   describeView('the schedule view', () => {
 *     let b: ViewBrowser;
 *     beforeAll(async () => { b = await launchViewBrowser(); });
 *     afterAll(() => b?.close());
 *     it('draws arrows', async () => {
 *       const { page, errors } = await b.open([fixture('schedule-allreduce-ring-8.json')]);
 *       expect(await page.locator('#cv-panel svg .arrow').count()).toBe(56);
 *       await screenshot(page, 'schedule');
 *       expect(errors).toEqual([]);
 *     });
 *   });
 *
 * The test files are type-checked without the DOM library (they run in Node): query
 * the page with locators (count, textContent, getAttribute, hover, boundingBox) or
 * pass page.evaluate a string expression. The shared tooltip is `#coll-tooltip`.
 * Screenshots go to docs/img/view-<name>.png with COLL_VIEW_SCREENSHOTS=1, else to a
 * temporary directory.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { describe } from 'vitest';
import type { ViewDocument } from '../../src/view/document.js';
import { exportHtml } from '../../src/view/export.js';
import { loadViewDocument } from '../../src/view/load.js';

/** The browser the tests drive (Debian's chromium; COLL_CHROMIUM overrides). */
export const CHROMIUM = process.env.COLL_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export const chromiumMissing: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `no chromium at ${CHROMIUM}: install it (apt-get install chromium; .ci/run does) or point COLL_CHROMIUM at one`;

/** A describe block that is skipped, with the reason in its title and on stderr, only when there is no chromium. */
export function describeView(title: string, fn: () => void): void {
  if (chromiumMissing) console.warn(`skipping '${title}': ${chromiumMissing}`);
  describe.skipIf(chromiumMissing !== undefined)(chromiumMissing ? `${title} [skipped: ${chromiumMissing}]` : title, fn);
}

/** The fixture files (real outputs of the commands; scripts/view-fixtures.ts regenerates them). */
export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const fixture = (name: string): string => join(FIXTURES, name);

export interface OpenOptions {
  /** Index of the file selected first (the page's #file=N), default 0. */
  readonly file?: number;
}

export interface ViewPage {
  readonly page: Page;
  /** Uncaught exceptions and console errors of the page so far (a test ends with expect(errors).toEqual([])). */
  readonly errors: string[];
  /** The HTML file opened. */
  readonly path: string;
}

export interface ViewBrowser {
  readonly context: BrowserContext;
  /** Load `files` as `coll view --export` does and open the page on them. */
  open(files: readonly string[], o?: OpenOptions): Promise<ViewPage>;
  /** Open the page on a document made by hand. */
  openDocument(doc: ViewDocument, o?: OpenOptions): Promise<ViewPage>;
  /** Open a served page (`coll view`'s URL) and wait until its view is drawn. */
  openUrl(url: string): Promise<ViewPage>;
  close(): Promise<void>;
}

/** Chromium's flags: headless, no sandbox (root in CI), nothing that reaches the network. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const VIEWPORT = { width: 1280, height: 800 };

/** Start chromium with a fresh profile directory (removed by close()). */
export async function launchViewBrowser(): Promise<ViewBrowser> {
  if (chromiumMissing) throw new Error(chromiumMissing);
  const work = mkdtempSync(join(tmpdir(), 'coll-view-e2e-'));
  const profile = join(work, 'profile');
  mkdirSync(profile);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: VIEWPORT,
    deviceScaleFactor: 1,
    timeout: 30_000,
  });
  let n = 0;

  async function goto(url: string): Promise<ViewPage> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
    });
    await page.goto(url);
    await page.waitForSelector('#coll-view[data-ready="true"], #coll-view[data-ready="error"]', { timeout: 15_000 });
    return { page, errors, path: url };
  }

  async function openDocument(doc: ViewDocument, o: OpenOptions = {}): Promise<ViewPage> {
    const path = join(work, `page-${n++}.html`);
    writeFileSync(path, await exportHtml(doc));
    const r = await goto(`${pathToFileURL(path).href}${o.file ? `#file=${o.file}` : ''}`);
    return { ...r, path };
  }

  return {
    context,
    openDocument,
    open: async (files, o) => openDocument(await loadViewDocument(files), o),
    openUrl: goto,
    async close() {
      await context.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go: docs/img/ with COLL_VIEW_SCREENSHOTS=1, else a temporary directory. */
export const SCREENSHOT_DIR = process.env.COLL_VIEW_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/img/', import.meta.url)) : join(tmpdir(), 'coll-view-screenshots');

/** Save the page (the viewport) as view-<name>.png; resolves to the file's path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `view-${basename(name)}.png`);
  await page.screenshot({ path, fullPage: false, animations: 'disabled' });
  return path;
}
