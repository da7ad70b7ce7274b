/**
 * The server path end to end: `coll view FILE…` started in-process (main(), a free
 * port), its URL read from what it prints, the page loaded over HTTP in chromium (the
 * file list drawn from /document.json), the routes checked with fetch, and Ctrl-C
 * (SIGINT) stopping it with exit code 0; --open where there is no browser opener.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { describeView, fixture, launchViewBrowser, type ViewBrowser } from './harness.js';

/** Ctrl-C as the command sees it (its SIGINT handler, the last one added), without the browser driver's own handler, which would exit. */
function ctrlC(): void {
  const others = process.listeners('SIGINT').slice(0, -1);
  for (const l of others) process.off('SIGINT', l);
  process.emit('SIGINT');
  for (const l of others) process.on('SIGINT', l);
}

describeView('coll view serving the page', () => {
  let b: ViewBrowser;
  beforeAll(async () => {
    b = await launchViewBrowser();
  });
  afterAll(() => b?.close());

  it('serves the page and the document on 127.0.0.1 until SIGINT', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
    const files = [fixture('schedule-allreduce-ring-8.json'), fixture('tune-report.json')];
    const exit = main(['view', ...files]);
    let url = '';
    for (let i = 0; i < 300 && !url; i++) {
      url = /serving on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(lines.join('\n'))?.[1] ?? '';
      if (!url) await new Promise((r) => setTimeout(r, 50));
    }
    try {
      expect(url, lines.join('\n')).not.toBe('');
      const { page, errors } = await b.openUrl(url);
      const tabs = page.getByRole('tab');
      expect(await tabs.count()).toBe(2);
      expect(await tabs.locator('.cv-name').allTextContents()).toEqual(['schedule-allreduce-ring-8.json', 'tune-report.json']);
      expect(await tabs.locator('.cv-kind').allTextContents()).toEqual(['schedule', 'model']);
      expect(errors).toEqual([]);

      const doc = (await (await fetch(`${url}document.json`)).json()) as { format: string; files: { kind: string }[] };
      expect(doc.format).toBe('collectives-view');
      const js = await fetch(`${url}page.js`);
      expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect((await fetch(`${url}nothing`)).status).toBe(404);
      expect((await fetch(url, { method: 'POST' })).status).toBe(405);
    } finally {
      ctrlC();
    }
    expect(await exit).toBe(0);
    expect(lines.join('\n')).toContain('coll view: stopped');
    vi.restoreAllMocks();
  });

  it.skipIf(process.platform !== 'linux')('--open without a browser opener says so and keeps serving', async () => {
    const lines: string[] = [];
    const errs: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errs.push(a.join(' ')));
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    const exit = main(['view', '--open', fixture('schedule-bcast-binomial-16.json')]);
    try {
      for (let i = 0; i < 300 && errs.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(errs.join('\n')).toMatch(/^coll view: could not open a browser \(no xdg-open on this system\); open http:\/\/127\.0\.0\.1:\d+\/ yourself$/);
      const url = /serving on (\S+)/.exec(lines.join('\n'))?.[1] ?? '';
      expect((await fetch(`${url}document.json`)).status).toBe(200);
    } finally {
      process.env.PATH = path;
      ctrlC();
    }
    expect(await exit).toBe(0);
    vi.restoreAllMocks();
  });
});
