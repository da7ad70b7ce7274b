/**
 * The page shell in chromium (test/view/harness.ts): the file list (one tab per file,
 * its kind shown), switching files by click and by keyboard, the hash that keeps the
 * selection, and an embedded document whose strings contain `</script>` (the export's
 * escaping) drawn as text.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ViewDocument } from '../../src/view/document.js';
import { describeView, fixture, launchViewBrowser, type ViewBrowser } from './harness.js';

describeView('the coll view page shell', () => {
  let b: ViewBrowser;
  beforeAll(async () => {
    b = await launchViewBrowser();
  });
  afterAll(() => b?.close());

  it('lists the files with their kinds and switches between them by click and keyboard', async () => {
    const { page, errors } = await b.open([fixture('schedule-allreduce-ring-8.json'), fixture('schedule-bcast-binomial-16.json')]);
    const tabs = page.getByRole('tab');
    expect(await tabs.count()).toBe(2);
    expect(await tabs.nth(0).getAttribute('aria-selected')).toBe('true');
    expect(await tabs.nth(0).locator('.cv-kind').textContent()).toBe('schedule');
    expect(await tabs.nth(1).locator('.cv-name').textContent()).toBe('schedule-bcast-binomial-16.json');
    expect(await page.locator('.cv-panel-head').textContent()).toContain('allreduce ring, 8 ranks');

    await tabs.nth(1).click();
    expect(await tabs.nth(1).getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('#cv-panel').getAttribute('data-index')).toBe('1');
    expect(await page.locator('.cv-panel-head').textContent()).toContain('bcast binomial, 16 ranks');
    expect(page.url()).toMatch(/#file=1$/);

    await page.keyboard.press('ArrowUp'); // focus is on the clicked tab
    expect(await tabs.nth(0).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('End');
    expect(await tabs.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.locator('#cv-panel').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('1');
    expect(await tabs.nth(0).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press(']');
    expect(await tabs.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('[');
    expect(await tabs.nth(0).getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('#coll-view').getAttribute('data-ready')).toBe('true');
    expect(errors).toEqual([]);
  });

  it('opens on the file the hash names', async () => {
    const { page } = await b.open([fixture('schedule-allreduce-ring-8.json'), fixture('schedule-bcast-binomial-16.json')], { file: 1 });
    expect(await page.getByRole('tab').nth(1).getAttribute('aria-selected')).toBe('true');
  });

  it('shows names containing </script> and <!-- as text (the embedded document is escaped)', async () => {
    const evil = '</script><script>window.pwned=1</script><!-- x';
    const doc: ViewDocument = {
      format: 'collectives-view',
      version: 1,
      generated: new Date().toISOString(),
      files: [{ kind: 'model', name: evil, points: [], meta: { note: evil } }],
    };
    const { page, errors } = await b.openDocument(doc);
    expect(await page.locator('.cv-tab .cv-name').textContent()).toBe(evil);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
