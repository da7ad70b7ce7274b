/**
 * The server path end to end: `coll view FILE…` started in-process (main(), a free
 * port), its URL read from what it prints, the page loaded over HTTP in chromium (the
 * file list drawn from /document.json), the routes checked with fetch, and Ctrl-C
 * (SIGINT) stopping it with exit code 0.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { describeView, fixture, launchViewBrowser, type ViewBrowser } from './harness.js';

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
      // Ctrl-C as the command sees it, without the browser driver's own SIGINT handler (it would exit).
      const others = process.listeners('SIGINT').slice(0, -1);
      for (const l of others) process.off('SIGINT', l);
      process.emit('SIGINT');
      for (const l of others) process.on('SIGINT', l);
    }
    expect(await exit).toBe(0);
    expect(lines.join('\n')).toContain('coll view: stopped');
    vi.restoreAllMocks();
  });
});
