/**
 * The timeline view in chromium (test/view/harness.ts): a simulated run from the
 * fixtures (lanes, spans, critical path and messages drawn; the tooltip of a known
 * span; zoom, pan, fit, the toggles) and a big run made at test time with the
 * simulator (a pipelined broadcast over 1,024 ranks, 130,944 spans): lanes virtualised,
 * hover after zooming in, and the time of a frame after zooming (reported; asserted
 * under a generous bound), and a measured run (`coll run --trace`: call spans above
 * their steps, steps in flight together side by side). Screenshots: view-timeline.png,
 * view-timeline-1024.png and view-timeline-run.png.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TimelineView, ViewDocument } from '../../src/view/document.js';
import { formatUs } from '../../src/view/page/format.js';
import { loadTimeline } from '../../src/view/timeline/load.js';
import { buildSpatial, type Spatial } from '../../src/view/timeline/spatial.js';
import { getPreset, simulate, toChromeTrace } from '../../src/sim/index.js';
import { describeView, fixture, launchViewBrowser, screenshot, type ViewBrowser } from './harness.js';

const VIEW = '.cv-view-timeline';

async function data(page: Page, key: string): Promise<number> {
  return Number(await page.locator(VIEW).getAttribute(`data-${key}`));
}

/** Run `act`, then wait until the view has drawn a frame after it. */
async function afterFrame(page: Page, act: () => Promise<unknown>): Promise<void> {
  const before = await data(page, 'frames');
  await act();
  await page.waitForFunction(`Number(document.querySelector('${VIEW}').dataset.frames) > ${before}`, undefined, { timeout: 10_000 });
}

const spatial = new WeakMap<TimelineView, Spatial>();

/** Client coordinates of the middle of span i (which must be in view). */
async function spanPoint(page: Page, v: TimelineView, i: number): Promise<{ x: number; y: number }> {
  const box = await page.locator(`${VIEW} canvas.cv-tl-canvas`).boundingBox();
  if (!box) throw new Error('no canvas');
  const [left, top, vs, k, laneH, gap, scroll] = await Promise.all(['plot-left', 'plot-top', 'view-start', 'px-per-us', 'lane-height', 'lane-gap', 'scroll-top'].map((a) => data(page, a)));
  const sp = spatial.get(v) ?? spatial.set(v, buildSpatial(v)).get(v);
  const row = sp?.rows[sp.spanRow[i]];
  if (!row) throw new Error(`span ${i} has no row`);
  const t = v.spans.start[i] + v.spans.dur[i] / 2;
  return { x: box.x + left + (t - vs) * k, y: box.y + top + v.spans.lane[i] * laneH - scroll + ((row.y0 + row.y1) / 2) * (laneH - gap) };
}

async function tooltip(page: Page): Promise<string> {
  await page.locator('#coll-tooltip:not([hidden])').waitFor({ timeout: 5000 });
  return (await page.locator('#coll-tooltip').innerText()).replace(/\s*\n\s*/g, '\n');
}

function expectTooltipOf(text: string, v: TimelineView, i: number): void {
  const l = v.spans.lane[i];
  expect(text).toContain(`${v.kinds[v.spans.kind[i]]} · ${v.lanes[l]}`);
  expect(text).toMatch(new RegExp(`rank\\s+${v.laneRank[l]}\\n`));
  expect(text).toMatch(new RegExp(`start\\s+${formatUs(v.spans.start[i])}\\n`));
  expect(text).toMatch(new RegExp(`duration\\s+${formatUs(v.spans.dur[i])}\\n`));
  if (v.spans.peer[i] >= 0) expect(text).toMatch(new RegExp(`peer\\s+rank ${v.spans.peer[i]}\\n`));
  if (v.spans.bytes[i] >= 0) expect(text).toMatch(new RegExp(`bytes\\s+[^\\n]*\\b${v.spans.bytes[i]} B`));
  expect(text).toMatch(new RegExp(`critical path\\s+${v.critical.includes(i) ? 'yes' : 'no'}`));
}

describeView('the timeline view', () => {
  let b: ViewBrowser;
  beforeAll(async () => {
    b = await launchViewBrowser();
  });
  afterAll(() => b?.close());

  it('draws a simulated run: lanes, spans, critical path, messages, a tooltip; zoom, pan and fit', async () => {
    const file = fixture('timeline-sim-allreduce-16.json');
    const v = loadTimeline(JSON.parse(readFileSync(file, 'utf8')), 'timeline-sim-allreduce-16.json');
    const { page, errors } = await b.open([file]);
    await page.locator(`${VIEW} canvas.cv-tl-canvas`).waitFor();
    expect(await data(page, 'lanes')).toBe(v.lanes.length);
    expect(await data(page, 'spans')).toBe(v.spans.lane.length);
    expect(await data(page, 'critical')).toBe(v.critical.length);
    expect(await data(page, 'first-lane')).toBe(0);
    expect(await data(page, 'last-lane')).toBe(v.lanes.length);
    expect(await data(page, 'drawn-spans')).toBe(v.spans.lane.length);
    expect(await data(page, 'drawn-critical')).toBe(v.critical.length);
    expect(await data(page, 'drawn-messages')).toBe(await data(page, 'messages'));
    expect(await data(page, 'view-start')).toBe(0);
    const end = Math.max(...v.spans.start.map((s, i) => s + v.spans.dur[i]), ...v.marks.start.map((s, i) => s + v.marks.dur[i]));
    expect(await data(page, 'view-end')).toBeCloseTo(end, 6);
    expect(await page.locator(`${VIEW} .cv-tl-legend li`).count()).toBe(v.kinds.length + 1 + (v.marks.lane.length ? 1 : 0));

    // Hover the longest message step: the tooltip shows its numbers.
    let i = -1;
    v.spans.dur.forEach((d, j) => {
      if (v.spans.peer[j] >= 0 && (i < 0 || d > v.spans.dur[i])) i = j;
    });
    const p = await spanPoint(page, v, i);
    await page.mouse.move(p.x, p.y);
    expectTooltipOf(await tooltip(page), v, i);
    expect(await data(page, 'hover')).toBe(i);
    await screenshot(page, 'timeline');

    // Zoom in with the wheel around the hovered span: the window shrinks around it.
    await afterFrame(page, () => page.mouse.wheel(0, -600));
    const [vs, ve] = [await data(page, 'view-start'), await data(page, 'view-end')];
    expect(ve - vs).toBeLessThan(end / 2);
    expect(vs).toBeLessThanOrEqual(v.spans.start[i] + v.spans.dur[i]);
    expect(ve).toBeGreaterThanOrEqual(v.spans.start[i]);
    // Drag to pan right (earlier times come into view).
    const q = await spanPoint(page, v, i);
    await afterFrame(page, async () => {
      await page.mouse.move(q.x, q.y);
      await page.mouse.down();
      await page.mouse.move(q.x + 120, q.y, { steps: 4 });
      await page.mouse.up();
    });
    const vs2 = await data(page, 'view-start');
    expect(vs2).toBeLessThan(vs);
    expect((await data(page, 'view-end')) - vs2).toBeCloseTo(ve - vs, 6);
    // Keyboard: + zooms in, ← pans, 0 fits; the buttons and double click too.
    await page.locator(`${VIEW} .cv-tl`).focus();
    await afterFrame(page, () => page.keyboard.press('+'));
    expect((await data(page, 'view-end')) - (await data(page, 'view-start'))).toBeLessThan(ve - vs);
    await afterFrame(page, () => page.keyboard.press('0'));
    expect(await data(page, 'view-start')).toBe(0);
    expect(await data(page, 'view-end')).toBeCloseTo(end, 6);
    await afterFrame(page, () => page.locator(`${VIEW} [data-action="zoom-in"]`).click());
    expect((await data(page, 'view-end')) - (await data(page, 'view-start'))).toBeCloseTo(end / 1.5, 6);
    await afterFrame(page, () => page.locator(`${VIEW} [data-action="fit"]`).click());
    const c = await spanPoint(page, v, i);
    await afterFrame(page, () => page.mouse.dblclick(c.x, c.y));
    expect((await data(page, 'view-end')) - (await data(page, 'view-start'))).toBeCloseTo(end / 2, 6);
    // The toggles.
    await afterFrame(page, () => page.locator(`${VIEW} input[data-toggle="critical"]`).uncheck());
    expect(await data(page, 'drawn-critical')).toBe(0);
    await afterFrame(page, () => page.locator(`${VIEW} input[data-toggle="messages"]`).uncheck());
    expect(await data(page, 'drawn-messages')).toBe(0);
    expect(errors).toEqual([]);
  });

  it('stays smooth on 1,024 ranks and 10⁵ spans: virtual lanes, hover after zooming, frame times', async () => {
    const rep = simulate({ collective: 'bcast', algorithm: 'chain', machine: getPreset('loggopsim'), procs: 1024, bytes: 512 * 1024, timeline: true });
    const trace = toChromeTrace(rep.timeline ?? [], { collective: 'bcast', algorithm: 'chain', machine: 'loggopsim', procs: 1024, ranks: 1024 });
    const name = 'timeline-sim-bcast-chain-1024.json';
    const v = loadTimeline(trace, name);
    expect(v.lanes.length).toBe(1024);
    expect(v.spans.lane.length).toBeGreaterThanOrEqual(1e5);
    const doc: ViewDocument = { format: 'collectives-view', version: 1, generated: new Date().toISOString(), files: [{ name, ...v }] };
    const { page, errors } = await b.openDocument(doc);
    await page.locator(`${VIEW} canvas.cv-tl-canvas`).waitFor();
    expect(await data(page, 'lanes')).toBe(1024);
    expect(await data(page, 'spans')).toBe(v.spans.lane.length);
    const first = await data(page, 'first-lane');
    const last = await data(page, 'last-lane');
    expect(first).toBe(0);
    expect(last).toBeLessThan(1024); // virtualised: only the lanes in view are drawn
    const fitMs = await data(page, 'frame-ms');
    await screenshot(page, 'timeline-1024');

    // Zoom in on a span of a lane in view with the wheel; time the frames.
    const lane = Math.floor(last / 2);
    const sends = v.spans.lane.map((l, j) => j).filter((j) => v.spans.lane[j] === lane && v.kinds[v.spans.kind[j]] === 'send');
    expect(sends.length).toBeGreaterThan(10);
    const i = sends[Math.floor(sends.length / 2)];
    const zoomMs: number[] = [];
    for (let z = 0; z < 6; z++) {
      const p = await spanPoint(page, v, i);
      await afterFrame(page, () => page.mouse.move(p.x, p.y).then(() => page.mouse.wheel(0, -400)));
      zoomMs.push(await data(page, 'frame-ms'));
    }
    const p = await spanPoint(page, v, i);
    await page.mouse.move(p.x + 1, p.y);
    await page.mouse.move(p.x, p.y);
    expectTooltipOf(await tooltip(page), v, i);
    // Scroll down a page of lanes and pan: other lanes are drawn.
    await page.locator(`${VIEW} .cv-tl`).focus();
    await afterFrame(page, () => page.keyboard.press('PageDown'));
    expect(await data(page, 'first-lane')).toBeGreaterThan(first);
    await afterFrame(page, () => page.keyboard.press('0'));
    const panMs: number[] = [];
    for (let z = 0; z < 3; z++) {
      await afterFrame(page, () => page.keyboard.press('ArrowRight'));
      panMs.push(await data(page, 'frame-ms'));
    }
    console.log(`timeline 1024 ranks, ${v.spans.lane.length} spans: fit frame ${fitMs} ms; after zoom ${zoomMs.join(', ')} ms; pan ${panMs.join(', ')} ms`);
    for (const ms of [fitMs, ...zoomMs, ...panMs]) expect(ms).toBeLessThan(500);
    expect(errors).toEqual([]);
  });

  it('draws a measured run (coll run --trace): call spans above their steps, a step and a call hovered', async () => {
    // The fixture when scripts/view-fixtures.ts has made it, else a run made now.
    let file = fixture('timeline-run-allreduce-4.json');
    let tmp: string | undefined;
    if (!existsSync(file)) {
      tmp = mkdtempSync(join(tmpdir(), 'coll-tl-run-'));
      file = join(tmp, 'timeline-run-allreduce-4.json');
      const root = fileURLToPath(new URL('../../', import.meta.url));
      const r = spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'src', 'cli', 'bin.ts'), 'run', '-n', '4', '--nodes', '2', '--trace', file, join(root, 'examples', 'allreduce.ts')], { cwd: root, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
    }
    try {
      const v = loadTimeline(JSON.parse(readFileSync(file, 'utf8')), 'timeline-run-allreduce-4.json');
      expect(v.source).toBe('run');
      const { page, errors } = await b.open([file]);
      await page.locator(`${VIEW} canvas.cv-tl-canvas`).waitFor();
      expect(await data(page, 'lanes')).toBe(v.lanes.length);
      expect(await data(page, 'spans')).toBe(v.spans.lane.length);
      expect(await data(page, 'critical')).toBe(v.critical.length);
      const sp = buildSpatial(v);
      const nested = (await page.locator(VIEW).getAttribute('data-nested-lanes')) ?? '';
      expect(nested).toBe([...sp.nested].flatMap((x, l) => (x ? [l] : [])).join(','));
      expect(nested).not.toBe('');
      // The longest step and the call around it.
      let step = -1;
      v.spans.dur.forEach((d, j) => {
        if (v.spans.peer[j] >= 0 && (step < 0 || d > v.spans.dur[step])) step = j;
      });
      const call = v.spans.lane.findIndex((l, j) => l === v.spans.lane[step] && v.kinds[v.spans.kind[j]] === 'collective' && v.spans.start[j] <= v.spans.start[step] && v.spans.start[j] + v.spans.dur[j] >= v.spans.start[step] + v.spans.dur[step]);
      expect(call).toBeGreaterThanOrEqual(0);
      const p = await spanPoint(page, v, step);
      await page.mouse.move(p.x, p.y);
      expectTooltipOf(await tooltip(page), v, step);
      await screenshot(page, 'timeline-run');
      const q = await spanPoint(page, v, call);
      await page.mouse.move(q.x, q.y);
      const text = await tooltip(page);
      expectTooltipOf(text, v, call);
      expect(text).toMatch(new RegExp(`label\\s+${v.spans.label[call]}`));
      expect(errors).toEqual([]);
    } finally {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    }
  });
});
