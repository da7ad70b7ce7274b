/**
 * The schedule, bench and model views in chromium (test/view/harness.ts; one browser,
 * one page holding every fixture as a tab). Each check is against the raw fixture —
 * real outputs of `coll schedule --json`, `coll bench --json`, `coll bench matrix
 * --json` with Open MPI, `coll tune --report` and `coll fit --report` — computed here
 * without the loader: rank rows = size, arrows = sends, boxes = local steps, heat-map
 * cells = (collective, bytes) pairs measured by both, curves = series, markers = points;
 * hovering an arrow, a cell and a point shows the numbers computed here from the
 * fixture. Screenshots: docs/img/view-schedule.png, view-bench.png, view-model.png
 * with COLL_VIEW_SCREENSHOTS=1.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { generateSchedule } from '../../src/algorithms/registry.js';
import { scheduleDocument } from '../../src/cli/commands/schedule.js';
import { computeStats } from '../../src/schedule/stats.js';
import { flatTopology } from '../../src/schedule/topology.js';
import { formatRatio, formatUs } from '../../src/view/page/format.js';
import { describeView, fixture, launchViewBrowser, screenshot, type ViewBrowser, type ViewPage } from './harness.js';

// ------------------------------------------------------------------ the fixtures, read raw

interface RawStep {
  readonly kind: string;
  readonly peer?: number;
  readonly round: number;
  readonly deps: readonly number[];
  readonly phase?: string;
  readonly region?: { readonly count: number };
  readonly dst?: { readonly count: number };
}
interface RawRank {
  readonly rank: number;
  readonly size: number;
  readonly steps: readonly RawStep[];
}
interface RawMatrixSample {
  readonly impl: string;
  readonly job: { readonly collective: string; readonly ranks: number; readonly kind: string; readonly datatype: string; readonly op: string; readonly nonblocking?: boolean; readonly communicator?: string };
  readonly bytes: number;
  readonly avg_us: number;
}
interface RawMatrix {
  readonly options: { readonly peers: readonly string[] };
  readonly samples: readonly RawMatrixSample[];
}
interface RawSide {
  readonly algorithm: string;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly predicted?: number;
  readonly measured: number;
}
interface RawTune {
  readonly verified: { readonly points: readonly { readonly collective: string; readonly P: number; readonly bytes: number; readonly choice: RawSide; readonly default: RawSide }[] };
}
interface RawFit {
  /** src/tune/fit-report.ts: samples in seconds. */
  readonly series: readonly { readonly name: string; readonly samples: { readonly x: readonly number[]; readonly measured: readonly number[]; readonly predicted: readonly number[] } }[];
}

const FILES = {
  schedule: 'schedule-allreduce-ring-8.json',
  lines: 'bench-allreduce-2.jsonl',
  matrix: 'bench-matrix.json',
  tune: 'tune-report.json',
  fit: 'fit-report.json',
} as const;
/** The matrix is the full one behind docs/benchmarks.md (`coll bench matrix --json docs/data/bench-matrix.json`; README screenshot). */
const MATRIX = fileURLToPath(new URL('../../docs/data/bench-matrix.json', import.meta.url));
const pathOf = (name: string): string => (name === FILES.matrix ? MATRIX : fixture(name));
const hasFit = existsSync(fixture(FILES.fit));
const order: readonly string[] = [FILES.schedule, FILES.lines, FILES.matrix, FILES.tune, ...(hasFit ? [FILES.fit] : [])];
const tabOf = (name: string): number => order.indexOf(name);
const read = <T>(name: string): T => JSON.parse(readFileSync(pathOf(name), 'utf8')) as T;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const isMessage = (k: string): boolean => k === 'send' || k === 'recv';
const countOf = (s: RawStep): number => s.region?.count ?? s.dst?.count ?? 0;
const depName = (steps: readonly RawStep[], d: number): string => {
  const s = steps[d];
  return s.kind === 'send' ? `#${d} send → ${s.peer}` : s.kind === 'recv' ? `#${d} recv ← ${s.peer}` : `#${d} ${s.kind}`;
};

// ------------------------------------------------------------------ page helpers

/** Select the tab of `name`; resolves the view element. */
async function show(page: Page, name: string): Promise<ReturnType<Page['locator']>> {
  await page.locator(`#cv-tab-${tabOf(name)}`).click();
  await page.waitForSelector('#coll-view[data-ready="true"]');
  return page.locator('#cv-panel .cv-view');
}

/** Hover `selector` (the first match) and resolve the tooltip as label → value. */
async function hoverTip(page: Page, selector: string): Promise<Map<string, string>> {
  await page.mouse.move(0, 0);
  await page.locator(selector).first().hover();
  await page.waitForSelector('#coll-tooltip:not([hidden])');
  const rows = await page.locator('#coll-tooltip tr').allInnerTexts();
  const out = new Map<string, string>();
  for (const r of rows) {
    const [k, ...v] = r.split('\t');
    out.set(k.trim(), v.join('\t').trim());
  }
  return out;
}

describeView('the schedule, bench and model views', () => {
  let b: ViewBrowser;
  let vp: ViewPage;
  beforeAll(async () => {
    b = await launchViewBrowser();
    vp = await b.open(order.map(pathOf));
  });
  afterAll(() => b?.close());

  it('draws the schedule: a row per rank, an arrow per send, a box per local step; hovering an arrow shows its numbers and lights its dependencies', async () => {
    const { page } = vp;
    const doc = read<{ schedule: readonly RawRank[]; elementBytes?: number }>(FILES.schedule);
    const raw = doc.schedule;
    const size = raw[0].size;
    const sends = raw.flatMap((r) => r.steps.map((s, i) => ({ rank: r.rank, i, s })).filter((x) => x.s.kind === 'send'));
    const locals = raw.reduce((n, r) => n + r.steps.filter((s) => !isMessage(s.kind)).length, 0);
    const el = await show(page, FILES.schedule);
    expect(await el.getAttribute('data-ranks')).toBe(String(size));
    expect(await page.locator('.rank-row').count()).toBe(size);
    expect(await page.locator('.msg-arrow').count()).toBe(sends.length);
    expect(await el.getAttribute('data-arrows')).toBe(String(sends.length));
    expect(await page.locator('.op-box').count()).toBe(locals);
    expect(await el.getAttribute('data-rounds')).toBe(String(Math.max(...raw.flatMap((r) => r.steps.map((s) => s.round))) + 1));

    // Rank 2's last send of data (to rank 3 in a ring), with its matching receive by the IR's rule.
    const a = 2;
    const send = sends.filter((x) => x.rank === a && countOf(x.s) > 0).at(-1);
    if (!send || send.s.peer === undefined) throw new Error('the fixture has no send from rank 2');
    const to = send.s.peer;
    const k = raw[a].steps.slice(0, send.i).filter((s) => s.kind === 'send' && s.peer === to).length;
    const recvIdx = raw[to].steps.map((s, i) => ({ s, i })).filter((x) => x.s.kind === 'recv' && x.s.peer === a)[k].i;
    const recv = raw[to].steps[recvIdx];
    const tip = await hoverTip(page, `.msg-arrow[data-rank="${a}"][data-step="${send.i}"]`);
    expect(tip.get('rank')).toBe(`${a} (send #${send.i})`);
    expect(tip.get('peer')).toBe(`${to} (recv #${recvIdx})`);
    expect(tip.get('round')).toBe(String(send.s.round));
    expect(tip.get('count')).toBe(String(countOf(send.s)));
    const bytes = countOf(send.s) * (doc.elementBytes ?? 8);
    expect(tip.get('bytes')).toMatch(new RegExp(`(^|\\()${bytes} B\\)?$`));
    if (send.s.phase) expect(tip.get('phase')).toBe(send.s.phase);
    expect(tip.get('send waits for')).toBe(send.s.deps.length ? send.s.deps.map((d) => depName(raw[a].steps, d)).join(', ') : 'nothing');
    expect(tip.get('recv waits for')).toBe(recv.deps.length ? recv.deps.map((d) => depName(raw[to].steps, d)).join(', ') : 'nothing');
    // The steps waited for are lit: one element per dependency (a box, or the arrow of the message a send/recv belongs to).
    const msgOf = (rank: number, i: number): string => {
      const s = raw[rank].steps[i];
      if (!isMessage(s.kind)) return `box ${rank}:${i}`;
      if (s.kind === 'send') return `msg ${rank}:${i}`;
      const from = s.peer ?? -1;
      const kk = raw[rank].steps.slice(0, i).filter((x) => x.kind === 'recv' && x.peer === from).length;
      const si = raw[from].steps.map((x, j) => ({ x, j })).filter((y) => y.x.kind === 'send' && y.x.peer === rank)[kk].j;
      return `msg ${from}:${si}`;
    };
    const lit = new Set([...send.s.deps.map((d) => msgOf(a, d)), ...recv.deps.map((d) => msgOf(to, d))]);
    lit.delete(`msg ${a}:${send.i}`);
    expect(await page.locator('.cv-sched .dep').count()).toBe(lit.size);
    expect(await page.locator('.msg-arrow.active').count()).toBe(1);

    // Zoom in with the button, back with Reset.
    const z0 = Number(await el.getAttribute('data-zoom'));
    await page.locator('.cv-sched-btn[data-action="zoom-in"]').click();
    expect(Number(await el.getAttribute('data-zoom'))).toBeCloseTo(z0 * 1.5, 2);
    await page.locator('.cv-sched-btn[data-action="reset"]').click();
    expect(Number(await el.getAttribute('data-zoom'))).toBeCloseTo(z0, 3);
    // The same from the keyboard on the focused diagram.
    await page.locator('.cv-sched-svg').focus();
    await page.keyboard.press('+');
    expect(Number(await el.getAttribute('data-zoom'))).toBeCloseTo(z0 * 1.5, 2);
    await page.keyboard.press('0');
    expect(Number(await el.getAttribute('data-zoom'))).toBeCloseTo(z0, 3);
    await page.locator('.cv-sched-svg').blur();
    await hoverTip(page, `.msg-arrow[data-rank="${a}"][data-step="${send.i}"]`);
    await screenshot(page, 'schedule');
    expect(vp.errors).toEqual([]);
  });

  it('draws the benchmark lines: a curve per series, a cell per size both measured; a point shows our time, the peer\'s and the ratio', async () => {
    const { page } = vp;
    const lines = readFileSync(fixture(FILES.lines), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { impl?: string; requested?: string; algorithm: string; bytes: number; avg_us: number });
    const key = (r: (typeof lines)[number]): string => (r.impl ? r.impl : r.requested === 'auto' ? 'auto' : r.algorithm);
    const series = [...new Set(lines.map(key))];
    const el = await show(page, FILES.lines);
    expect(await el.getAttribute('data-series-total')).toBe(String(series.length));
    expect(await page.locator('.curve').count()).toBe(series.length);
    const peers = [...new Set(lines.map((r) => r.impl).filter((x): x is string => !!x))];
    const auto = lines.filter((r) => key(r) === 'auto');
    const pairs = peers.flatMap((p) => lines.filter((r) => r.impl === p && auto.some((o) => o.bytes === r.bytes)));
    expect(await page.locator('.heat-cell').count()).toBe(pairs.length);
    expect(await el.getAttribute('data-points')).toBe(String(lines.length));
    if (peers.length) {
      const p = pairs[pairs.length - 1];
      const ours = median(auto.filter((o) => o.bytes === p.bytes).map((o) => o.avg_us));
      const tip = await hoverTip(page, `.curve-point[data-impl="collectives"][data-algorithm="auto"][data-bytes="${p.bytes}"][data-variant=""]`);
      expect(tip.get('series')).toBe('auto');
      expect(tip.get('collectives')).toBe(formatUs(ours));
      expect(tip.get(p.impl ?? '')).toBe(formatUs(p.avg_us));
      expect(tip.get(`ratio to ${p.impl}`)).toMatch(new RegExp(`^${formatRatio(ours / p.avg_us).replace('.', '\\.')} `));
    }
    expect(vp.errors).toEqual([]);
  });

  it('draws the matrix against Open MPI: heat-map cells, their ratios and colours, curves per series; a cell shows both times and the ratio', async () => {
    const { page } = vp;
    const m = read<RawMatrix>(FILES.matrix);
    const jobKey = (s: RawMatrixSample): string => JSON.stringify([s.job.collective, s.job.ranks, s.job.datatype, s.job.op, s.job.kind, !!s.job.nonblocking, s.job.communicator ?? '']);
    const series = new Set(m.samples.map((s) => `${s.impl} ${jobKey(s)}`));
    const at = (impl: string, s: RawMatrixSample): number => median(m.samples.filter((x) => x.impl === impl && jobKey(x) === jobKey(s) && x.bytes === s.bytes).map((x) => x.avg_us));
    const cells = new Map<string, { c: string; ranks: number; bytes: number; ours: number; peer: number; p: string }>();
    for (const p of m.options.peers) {
      for (const s of m.samples) {
        if (s.impl !== 'collectives' || s.job.kind !== 'grid') continue;
        const peer = at(p, s);
        if (Number.isFinite(peer)) cells.set(`${p} ${s.job.ranks} ${s.job.collective} ${s.bytes}`, { c: s.job.collective, ranks: s.job.ranks, bytes: s.bytes, ours: at('collectives', s), peer, p });
      }
    }
    expect(cells.size).toBeGreaterThan(0);
    const el = await show(page, FILES.matrix);
    // First shown: the rank count with the most cells (the grid's), plain calls only.
    const gridRanks = [...new Set(m.samples.filter((s) => s.job.kind === 'grid').map((s) => s.job.ranks))].sort((x, y) => [...cells.values()].filter((c) => c.ranks === y).length - [...cells.values()].filter((c) => c.ranks === x).length || y - x);
    const first = gridRanks[0];
    const plainOf = (r: number): string[] => [...series].filter((k) => {
      const j = JSON.parse(k.slice(k.indexOf(' ') + 1)) as [string, number, string, string, string];
      return j[4] === 'grid' && j[1] === r;
    });
    const firstCells = [...cells.values()].filter((c) => c.ranks === first);
    expect(await el.getAttribute('data-ranks-selected')).toBe(String(first));
    expect(await page.locator('.curve').count()).toBe(plainOf(first).length);
    expect(await page.locator('.heat-cell').count()).toBe(firstCells.length);

    // Every cell carries its ratio; faster cells are blue, slower red.
    for (const c of firstCells) {
      const cell = page.locator(`.heat-cell[data-peer="${c.p}"][data-ranks="${c.ranks}"][data-collective="${c.c}"][data-bytes="${c.bytes}"]`);
      expect(Number(await cell.getAttribute('data-ratio'))).toBeCloseTo(c.ours / c.peer, 9);
      const [r, , bl] = ((await cell.getAttribute('fill')) ?? '').match(/\d+/g)?.map(Number) ?? [];
      if (c.ours / c.peer < 0.9) expect(bl).toBeGreaterThan(r);
      if (c.ours / c.peer > 1.1) expect(r).toBeGreaterThan(bl);
    }
    const c = [...firstCells].sort((x, y) => y.bytes - x.bytes)[0];
    const tip = await hoverTip(page, `.heat-cell[data-peer="${c.p}"][data-ranks="${c.ranks}"][data-collective="${c.c}"][data-bytes="${c.bytes}"]`);
    expect(tip.get('collectives')).toBe(formatUs(c.ours));
    expect(tip.get(c.p)).toBe(formatUs(c.peer));
    expect(tip.get('ratio')).toMatch(new RegExp(`^${formatRatio(c.ours / c.peer).replace('.', '\\.')} \\(collectives (faster|slower)\\)$`));
    expect(tip.get('algorithm')).toBe('auto');
    // The cell's points light up on the curves (ours and the peer's).
    expect(await page.locator(`.curve-point.lit[data-collective="${c.c}"][data-bytes="${c.bytes}"]`).count()).toBe(1 + m.options.peers.length);
    await screenshot(page, 'bench');

    // Every rank count, spot checks and variants: every series and every cell.
    if (new Set(m.samples.map((s) => s.job.ranks)).size > 1) await page.selectOption('select[data-control="ranks"]', 'all');
    if (await page.locator('input[data-control="variants"]').count()) await page.locator('input[data-control="variants"]').check();
    expect(await page.locator('.heat-cell').count()).toBe(cells.size);
    expect(await el.getAttribute('data-cells')).toBe(String(cells.size));
    expect(await page.locator('.curve').count()).toBe(series.size);
    expect(await el.getAttribute('data-series')).toBe(String(series.size));
    expect(vp.errors).toEqual([]);
  });

  it('draws the tuning report: a marker per measured point, the scatter of those with a prediction; a point shows predicted, measured and the ratio', async () => {
    const { page } = vp;
    const t = read<RawTune>(FILES.tune);
    const pts = t.verified.points.flatMap((p) => (['choice', 'default'] as const).map((role) => ({ ...p, role, side: p[role] })));
    const predicted = pts.filter((p) => p.side.predicted !== undefined && p.side.predicted > 0);
    const el = await show(page, FILES.tune);
    const Ps = [...new Set(pts.map((p) => p.P))];
    if (Ps.length > 1) await page.selectOption('select[data-control="P"]', 'all');
    expect(await page.locator('.model-point').count()).toBe(pts.length);
    expect(await page.locator('.scatter-point').count()).toBe(predicted.length);
    expect(await el.getAttribute('data-predicted')).toBe(String(predicted.length));
    expect(await page.locator('.identity-line').count()).toBe(1);
    const collectives = new Set(pts.map((p) => p.collective));
    expect(await page.locator('.cv-model-panel').count()).toBe(collectives.size);
    expect(await page.locator('.model-line.measured').count()).toBe(new Set(pts.map((p) => `${p.collective} ${p.P} ${p.role} ${p.side.algorithm}`)).size);

    const p = predicted[predicted.length - 1];
    const sel = `.scatter-point[data-collective="${p.collective}"][data-p="${p.P}"][data-bytes="${p.bytes}"][data-role="${p.role}"]`;
    const tip = await hoverTip(page, sel);
    const pred = (p.side.predicted ?? 0) * 1e6;
    const meas = p.side.measured * 1e6;
    expect(tip.get('algorithm')?.startsWith(p.side.algorithm)).toBe(true);
    expect(tip.get('P')).toBe(String(p.P));
    expect(tip.get('bytes')).toMatch(new RegExp(`(^|\\()${p.bytes} B\\)?$`));
    expect(tip.get('predicted')).toBe(formatUs(pred));
    expect(tip.get('measured')).toBe(formatUs(meas));
    expect(tip.get('ratio')).toBe(`${formatRatio(meas / pred)} measured / predicted`);
    // The same point is lit in its collective's panel.
    expect(await page.locator(`.model-point.lit[data-collective="${p.collective}"][data-bytes="${p.bytes}"][data-role="${p.role}"]`).count()).toBe(1);
    await screenshot(page, 'model');
    expect(vp.errors).toEqual([]);
  });

  it('stays usable on 1,024 ranks: out-of-view rows are culled, zooming repaints quickly, hovering still answers', async () => {
    // `coll schedule allreduce recursive_doubling -n 1024 --count 16 --json`, made in-process.
    const P = 1024;
    const schedule = generateSchedule('allreduce', 'recursive_doubling', { size: P, count: 16, root: 0, commutative: true, topology: flatTopology(P), params: {} });
    const dir = mkdtempSync(join(tmpdir(), 'coll-view-big-'));
    try {
      const file = join(dir, 'schedule-allreduce-rd-1024.json');
      writeFileSync(file, JSON.stringify(scheduleDocument(schedule, computeStats(schedule, { topology: flatTopology(P) }))));
      const { page, errors } = await b.open([file]);
      const el = page.locator('#cv-panel .cv-view');
      const sends = schedule.reduce((n, r) => n + r.steps.filter((x) => x.kind === 'send').length, 0);
      expect(await el.getAttribute('data-ranks')).toBe(String(P));
      expect(await page.locator('.rank-row').count()).toBe(P);
      expect(await el.getAttribute('data-arrows')).toBe(String(sends));
      // Only the groups near the viewport are displayed.
      const groups = page.locator('.cv-sched-boxes > g');
      const hidden = Number(await page.evaluate("[...document.querySelectorAll('.cv-sched-boxes > g')].filter((g) => g.style.display === 'none').length"));
      expect(hidden).toBeGreaterThan((await groups.count()) / 2);
      // Four zoom steps, each awaited to its next frame: a sanity bound (drawn without
      // culling a step took up to 850 ms on a loaded 2-core machine, with it 30–70 ms).
      const ms = Number(
        await page.evaluate(`(async () => {
          const frame = () => new Promise((r) => requestAnimationFrame(() => r(0)));
          const buttons = ['zoom-in', 'zoom-out'].map((a) => document.querySelector('.cv-sched-btn[data-action="' + a + '"]'));
          const t = performance.now();
          for (let i = 0; i < 4; i++) { buttons[i % 2].click(); await frame(); }
          return (performance.now() - t) / 4;
        })()`),
      );
      expect(ms).toBeLessThan(1500);
      const tip = await hoverTip(page, '.op-box[data-rank="1"][data-kind="reduce"]');
      expect(tip.get('kind')).toBe('reduce');
      expect(tip.get('rank')).toMatch(/^1 \(step #\d+\)$/);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!hasFit)('draws a fit report as measured samples against the fitted line', async () => {
    const { page } = vp;
    const f = read<RawFit>(FILES.fit);
    const samples = f.series.reduce((n, s) => n + s.samples.measured.filter((m) => m > 0).length, 0);
    await show(page, FILES.fit);
    expect(await page.locator('.model-point.role-fit').count()).toBe(samples);
    expect(await page.locator('.model-line.fitted').count()).toBe(f.series.filter((s) => s.samples.predicted.some((p) => p > 0)).length);
    expect(await page.locator('.model-line.measured').count()).toBe(0);
    const s = f.series.find((x) => x.samples.predicted.some((p) => p > 0) && x.samples.measured.some((m) => m > 0));
    if (s) {
      const i = s.samples.x.findIndex((_, j) => s.samples.measured[j] > 0 && s.samples.predicted[j] > 0);
      const tip = await hoverTip(page, `.model-point.role-fit[data-algorithm="${s.name}"][data-bytes="${s.samples.x[i]}"]`);
      expect(tip.get('measured')).toBe(formatUs(s.samples.measured[i] * 1e6));
      expect(tip.get('predicted')).toBe(formatUs(s.samples.predicted[i] * 1e6));
    }
    expect(vp.errors).toEqual([]);
  });
});
