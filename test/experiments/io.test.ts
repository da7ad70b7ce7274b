/**
 * The parallel I/O experiment (`coll experiment io`, src/experiments/io-*.ts) and its
 * `coll reproduce 003` rows: the program's tile shape against mpi_io_bench.c's rule, the
 * jobs a plan makes, one tiny real run of every part (figures positive, data verified,
 * counters present; Open MPI's side when it is installed), the tables, docs section and
 * plots again from its JSON through the CLI, and the rows' pass/fail logic on edited
 * results. No speed is asserted.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { peerAvailable } from '../../src/bench/peer.js';
import { main } from '../../src/cli/main.js';
import { DOCS_MARKERS, FULL_PLAN, measureJson, planJobs, QUICK_PLAN, runIoMeasure, THROTTLE_SETTINGS, type IoMeasureResult, type IoPlan } from '../../src/experiments/io-measure.js';
import { tileShape, viewOf } from '../../src/experiments/io-program.js';
import { ioChecks } from '../../src/experiments/io-reproduce.js';

const KiB = 1024;
const dir = mkdtempSync(join(tmpdir(), 'coll-io-exp-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every part, as small as the patterns allow (one node process per job, 1 server but for none): 7 jobs, and two mpiruns with Open MPI. */
const TINY: IoPlan = {
  ...QUICK_PLAN,
  reps: 1,
  perJob: 1,
  warmup: 0,
  bytesPerRank: 64 * KiB,
  scalingServers: [1],
  scalingRanks: [2],
  compareRanks: 4,
  compareNodes: 1,
  compareServers: 1,
  compareStorages: ['tmpfs'],
  compareRounds: 1,
  listRanks: 2,
  listNodes: 1,
  listServers: 1,
  eagerLimits: [2048],
  eagerSizes: [256, 16 * KiB],
  eagerOps: 5,
  throttleRanks: 2,
  throttleNodes: 1,
  throttleBytes: 64 * KiB,
  throttleSettings: [THROTTLE_SETTINGS[4]],
};

describe('the rank program follows mpi_io_bench.c', () => {
  it('tile grid: px the largest divisor of P ≤ √P, tc = 256 elements of 32 B, tr = bytes / (32 · 256)', () => {
    expect(tileShape(4, 4 << 20)).toEqual({ px: 2, py: 2, tr: 512, tc: 256 });
    expect(tileShape(8, 1 << 20)).toEqual({ px: 2, py: 4, tr: 128, tc: 256 });
    expect(tileShape(6, 64 * KiB)).toEqual({ px: 2, py: 3, tr: 8, tc: 256 });
    expect(tileShape(2, 4096)).toEqual({ px: 1, py: 2, tr: 1, tc: 128 });
    expect(tileShape(4, 8192 + 32)).toBeUndefined();
    expect(viewOf('tile', 4, 3, 4 << 20)).toEqual({ etype: 'uint8', filetype: { kind: 'subarray', sizes: [1024, 16384], subsizes: [512, 8192], starts: [512, 8192] } });
    expect(viewOf('contiguous', 4, 3, 4 << 20)).toEqual({});
  });

  it('the full plan: 6 scaling jobs, 3 implementations per storage alternating per round, 2 list I/O, 3 eager, 5 throttle jobs', () => {
    const a = planJobs(FULL_PLAN, 0, true);
    const b = planJobs(FULL_PLAN, 1, true);
    const count = (p: string) => a.filter((j) => j.part === p).length;
    expect([count('scaling'), count('compare'), count('listio'), count('eager'), count('throttle')]).toEqual([6, 6, 2, 3, 5]);
    expect(a.filter((j) => j.part === 'scaling').map((j) => [j.ranks, j.nodes])).toContainEqual([2, 1]);
    expect(a.filter((j) => j.part === 'scaling').map((j) => [j.ranks, j.nodes])).toContainEqual([4, 2]);
    expect(a.filter((j) => j.part === 'compare' && j.storage === 'tmpfs').map((j) => j.impl)).toEqual(['local', 'pfs', 'openmpi']);
    expect(b.filter((j) => j.part === 'compare' && j.storage === 'tmpfs').map((j) => j.impl)).toEqual(['pfs', 'openmpi', 'local']);
    // Round 2 (the third) has only the comparison: it needs 3 rounds, the rest 2.
    expect(new Set(planJobs(FULL_PLAN, 2, true).map((j) => j.part))).toEqual(new Set(['compare']));
    expect(planJobs(FULL_PLAN, 0, false).some((j) => j.impl === 'openmpi')).toBe(false);
  });
});

describe('a tiny real run of every part', () => {
  let r: IoMeasureResult;
  const peer = peerAvailable('openmpi');

  it('records with positive figures, every byte verified, server counters', async () => {
    r = await runIoMeasure(TINY);
    const pos = (x: number): boolean => Number.isFinite(x) && x > 0;
    expect(r.scalingPoints.map((p) => p.pattern)).toEqual(['contiguous', 'tile']);
    for (const p of [...r.scalingPoints, ...r.comparePoints, ...r.listPoints, ...r.throttlePoints]) {
      for (const s of [p.write, p.writeSync, p.read]) expect(pos(s.median) && s.min <= s.median && s.median <= s.max, JSON.stringify(p)).toBe(true);
    }
    expect(new Set(r.comparePoints.map((p) => p.impl))).toEqual(new Set(peer ? ['local', 'pfs', 'openmpi'] : ['local', 'pfs']));
    expect(r.peerMissing === undefined).toBe(peer);
    // writeAtAll / readAtAll taken apart on rank 0: the tile aggregates (an exchange), contiguous blocks do not.
    expect(r.breakdownPoints.map((p) => `${p.pattern} ${p.impl} ${p.phase}`)).toEqual(['contiguous', 'tile'].flatMap((pat) => ['local', 'pfs'].flatMap((i) => [`${pat} ${i} write`, `${pat} ${i} read`])));
    for (const p of r.breakdownPoints) {
      expect(pos(p.totalMs) && pos(p.slowestMs) && pos(p.steps.file) && Object.values(p.steps).every((x) => Number.isFinite(x)), JSON.stringify(p)).toBe(true);
      expect(p.steps.exchange > 0, JSON.stringify(p)).toBe(p.pattern === 'tile');
    }
    expect(r.listPoints.map((p) => p.listIo)).toEqual([true, false]);
    expect(r.listPoints[1].requestsPerCall).toBe(r.listPoints[1].regionsPerCall);
    expect(r.eagerPoints.map((p) => p.bytes)).toEqual([256, 16 * KiB]);
    for (const p of r.eagerPoints) expect(pos(p.writeUs.median) && pos(p.readUs.median) && pos(p.sizeUs.median)).toBe(true);
    const fin = r.throttlePoints[0].counters[0];
    expect(fin.finMessages).toBe(fin.rendezvousPull + fin.rendezvousPush);
    for (const s of r.samples) for (const c of s.cases) expect(c.errors, `${s.label}: ${c.name}`).toBe(0);
    // One server count and no event-completion job: no claim 14 row, no completion row.
    expect(ioChecks(r).map((c) => c.claim.slice(0, 24))).toEqual(['claim 15: zero-copy list', 'claim 15 (mechanism): a ', 'claim 16: the throttle c']);
  });

  describe('the CLI', () => {
    let out: string[];
    beforeEach(() => {
      out = [];
      vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
      vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    });
    afterEach(() => vi.restoreAllMocks());

    it('--from FILE: tables, plots and the docs section again from the JSON, without jobs', async () => {
      const json = join(dir, 'io.json');
      writeFileSync(json, JSON.stringify(measureJson(r)));
      const docs = join(dir, 'io-measurements.md');
      writeFileSync(docs, '# Parallel I/O\n\nHand-written text.\n');
      expect(await main(['experiment', 'io', '--from', json, '--plot', join(dir, 'img'), '--docs', docs])).toBe(0);
      const text = out.join('\n');
      for (const t of ['Scaling', 'Against Open MPI', "Where ours' collective time goes", 'Claim 15', 'Eager vs rendezvous', 'Claim 16']) expect(text).toContain(t);
      for (const p of ['scaling', 'compare', 'listio', 'eager', 'throttle']) expect(readFileSync(join(dir, 'img', `io-${p}.svg`), 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
      const doc = readFileSync(docs, 'utf8');
      expect(doc).toContain('Hand-written text.');
      expect(doc).toContain(DOCS_MARKERS.begin);
      expect(doc).toContain('![compare](img/io-compare.svg)');
      expect(existsSync(join(dir, 'img', 'io-compare.svg'))).toBe(true);
    });

    it('--help, and bad options are errors before any job', async () => {
      const err: string[] = [];
      vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
      expect(await main(['experiment', 'io', '--help'])).toBe(0);
      expect(await main(['experiment', 'io', '--part', 'nope'])).not.toBe(0);
      expect(await main(['experiment', 'io', '--reps', '0'])).not.toBe(0);
      expect(await main(['experiment', 'io', '--from', join(dir, 'io.json'), '--quick'])).not.toBe(0);
      expect(err.join('\n')).toMatch(/--part 'nope' is not one of scaling, compare, listio, eager, throttle[\s\S]*--reps[\s\S]*--from runs none/);
    });
  });
});

describe('coll reproduce 003 rows (edited results)', () => {
  const base = (): IoMeasureResult => {
    const c = (x: Partial<IoMeasureResult['listPoints'][number]['counters'][number]> = {}) => ({ eager: 0, rendezvousPull: 10, rendezvousPush: 6, finMessages: 0, throttled: 3, maxConcurrentBulk: 1, listRequests: 16, listRegions: 1024, bytesWritten: 1, bytesRead: 1, ...x });
    const ph = (w: number, rd: number) => ({ write: { median: w, min: w, max: w }, writeSync: { median: w, min: w, max: w }, read: { median: rd, min: rd, max: rd }, samples: 2 });
    return {
      plan: { ...FULL_PLAN, listServers: 2, throttleRanks: 8 },
      started: '', finished: '', machine: '', loadBefore: [], loadAfter: [], seconds: 1, dirs: { tmpfs: '/dev/shm', disk: '/tmp' }, samples: [],
      scalingPoints: [1, 2].map((servers) => ({ pattern: 'tile' as const, ranks: 4, nodes: 2, servers, ...ph(100 * servers, 150) })),
      comparePoints: [], breakdownPoints: [], eagerPoints: [],
      listPoints: [
        { listIo: true, ...ph(300, 250), requestsPerCall: 2, regionsPerCall: 128, counters: [c()] },
        { listIo: false, ...ph(40, 30), requestsPerCall: 128, regionsPerCall: 128, counters: [c({ listRequests: 1024 })] },
      ],
      throttlePoints: [
        { setting: { rendezvous: 'server', maxBulk: 1, completion: 'event' }, ...ph(90, 80), counters: [c()] },
        { setting: { rendezvous: 'server', maxBulk: 4, completion: 'event' }, ...ph(92, 82), counters: [c({ maxConcurrentBulk: 4, throttled: 0, rendezvousPush: 0 })] },
        { setting: { rendezvous: 'adaptive', maxBulk: 4, completion: 'event' }, ...ph(95, 85), counters: [c({ maxConcurrentBulk: 4, throttled: 0 })] },
        { setting: { rendezvous: 'adaptive', maxBulk: 4, completion: 'fin' }, ...ph(90, 80), counters: [c({ maxConcurrentBulk: 3, throttled: 0, finMessages: 16 })] },
      ],
    };
  };
  const status = (r: IoMeasureResult, start: string): string | undefined => ioChecks(r).find((c) => c.claim.startsWith(start))?.status;

  it('pass on figures that follow the protocol and the claimed direction; the server count and the rendezvous rule are information', () => {
    const rows = ioChecks(base());
    expect(rows.map((c) => c.status)).toEqual(['info', 'pass', 'pass', 'pass', 'pass', 'info']);
  });

  it('fail when list I/O is slower, a FIN goes missing or one is sent with event completion, or the throttle lets more through', () => {
    const r = base();
    expect(status({ ...r, listPoints: [{ ...r.listPoints[0], write: { median: 30, min: 30, max: 30 } }, r.listPoints[1]] }, 'claim 15: zero-copy')).toBe('fail');
    expect(status({ ...r, listPoints: [r.listPoints[0], { ...r.listPoints[1], counters: [{ ...r.listPoints[1].counters[0], listRequests: 16 }] }] }, 'claim 15 (mechanism)')).toBe('fail');
    const fin = (f: number, i: number) => ({ ...r, throttlePoints: r.throttlePoints.map((p, k) => (k === i ? { ...p, counters: [{ ...p.counters[0], finMessages: f }] } : p)) });
    expect(status(fin(15, 3), 'claim 16: completion')).toBe('fail');
    expect(status(fin(1, 0), 'claim 16: completion')).toBe('fail');
    const over = { ...r, throttlePoints: r.throttlePoints.map((p, k) => (k === 0 ? { ...p, counters: [{ ...p.counters[0], maxConcurrentBulk: 2 }] } : p)) };
    expect(status(over, 'claim 16: the throttle')).toBe('fail');
    const idle = { ...r, throttlePoints: r.throttlePoints.map((p) => ({ ...p, counters: p.counters.map((c) => ({ ...c, throttled: 0 })) })) };
    expect(status(idle, 'claim 16: the throttle')).toBe('info');
  });
});
