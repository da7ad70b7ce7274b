/**
 * Seed 000 (Moody 2003, NIC-based reduction on Quadrics) checked by simulation:
 * crescendo binomial host/NIC/intermediate latencies, the 0.80 µs scaling rule, the
 * optimal f-nomial degree at 31 nodes, Table 5.1's host vs NIC distributions at 900
 * ALC nodes (mean, σ, share in a window, best sample), the 1812-processor latencies
 * and improvements of Fig. 5.6, the vector split at 512 nodes, and 2 vs 1 process
 * per node. Plots: Fig. 5.5 (histograms) and Fig. 5.6 (latency vs processors).
 *
 * Calibrated (declared): the `alc` preset's NIC per-send cost on Table 5.1's NIC mean;
 * the `seed000-alc` noise profile on Table 5.1's host mean and σ. Everything else is
 * validation; the crescendo checks compare with the extract's model values (derived).
 */
import { histogramSvg, lineChartSvg, type Series } from '../../plot/svg.js';
import { NOISE_PROFILES, type NoiseSpec } from '../noise.js';
import { getPreset } from '../presets.js';
import { simulate, type SimMode, type SimOptions, type SimReport } from '../simulate.js';
import { bestWindowShare } from '../stats.js';
import { fmt, info, notMatchable, numeric, rel, us, verdict, type SeedReproduction, type SimCheck } from './check.js';

const S = 'seed 000';

export interface Seed000Options {
  /** Runs per distribution (Table 5.1, 1812 processors); default 400. */
  readonly runs?: number;
  /** Runs per noisy point of the Fig. 5.6 curves; default 60. */
  readonly curveRuns?: number;
  readonly plots?: boolean;
}

type Dt = 'int32' | 'float64';

export function seed000(o: Seed000Options = {}): SeedReproduction {
  const runs = o.runs ?? 400;
  const curveRuns = o.curveRuns ?? 60;
  const cres = getPreset('crescendo');
  const alc = getPreset('alc');
  const noise: NoiseSpec = NOISE_PROFILES['seed000-alc'];
  const checks: SimCheck[] = [];
  const plots: { name: string; svg: string }[] = [];
  const sim = (x: Partial<SimOptions> & Pick<SimOptions, 'collective' | 'algorithm' | 'machine' | 'procs'>): SimReport => simulate({ seed: 2003, ...x });
  const bytesOf = (dt: Dt, n = 1): number => (dt === 'int32' ? 4 : 8) * n;

  // ---- crescendo: binomial, 1 element int32 sum (Table 4.2/4.3 parameters).
  const bin = (P: number, mode: SimMode, op = 'sum', dt: Dt = 'int32'): number =>
    sim({ collective: 'reduce', algorithm: 'binomial', machine: cres, procs: P, bytes: bytesOf(dt), datatype: dt, op, mode }).first.time / us;
  for (const [P, h, n] of [[2, 6.04, 11.97], [32, 19.4, 23.05]] as const) {
    checks.push(numeric(S, `binomial int32 sum, crescendo, P = ${P}: host`, h, bin(P, 'host'), 0.02, ' µs', 'derived', 'the extract’s model value from Tables 4.2/4.3'));
    checks.push(numeric(S, `same, NIC-based (offload)`, n, bin(P, 'offload'), 0.02, ' µs', 'derived'));
  }
  const lag = bin(2, 'offload') - bin(2, 'host');
  checks.push(numeric(S, 'NIC lags the host at 2 nodes (Fig. 5.2, "about 5 µs", host about twice as fast)', 5, lag, 0.3, ' µs', 'validation'));
  const eq = [2, 3].every((P) => bin(P, 'intermediate') === bin(P, 'host'));
  checks.push(verdict(S, 'intermediate-only NIC = host-based at P = 2 and 3 (no interior nodes)', 'equal', eq ? 'equal' : 'different', eq, 'exact', 'validation'));
  const halves = [16, 32].map((P) => (bin(P, 'intermediate') - bin(P, 'host')) / (bin(P, 'offload') - bin(P, 'host')));
  checks.push(
    verdict(
      S,
      'intermediate-only cuts the host–NIC synchronisation overhead "roughly in half" (P = 16, 32)',
      '≈ 0.5 of the NIC − host gap',
      halves.map((x) => x.toFixed(2)).join(', '),
      halves.every((x) => x >= 0.3 && x <= 0.7),
      '0.3–0.7',
      'validation',
      halves.every((x) => x >= 0.3) ? undefined : 'below 0.3 (negative: faster than host): here the interior NICs start while the leaves’ messages are in flight and then forward NIC-to-NIC (0.80 µs saved per hop), so intermediate-only beats host-based; the thesis measured half of the overhead remaining',
    ),
  );
  // The 0.80 µs rule: the NIC − host gap shrinks with P iff c_NIC − c_host < L_host − L_NIC.
  for (const [label, op, dt, better] of [
    ['NOP', 'noop', 'int32', true],
    ['Int32 Add', 'sum', 'int32', true],
    ['Float64 Max', 'max', 'float64', true],
    ['Float64 Add', 'sum', 'float64', false],
  ] as const) {
    const gap = (P: number) => bin(P, 'offload', op, dt) - bin(P, 'host', op, dt);
    const slope = (gap(32) - gap(4)) / 3;
    checks.push(
      verdict(
        S,
        `NIC binomial scales better than host iff c < 0.80 µs: ${label} (Fig. 5.4)`,
        better ? 'NIC better' : 'NIC worse',
        `${slope < 0 ? 'NIC better' : 'NIC worse'} (gap ${slope >= 0 ? '+' : ''}${slope.toFixed(2)} µs per phase)`,
        slope < 0 === better,
        'same verdict',
        'validation',
      ),
    );
  }
  // Optimal degree at 31 nodes, NIC float64 sum (Fig. 5.3).
  const bestF = [1, 2, 4, 8].map((n) => {
    let best = { f: 0, t: Infinity };
    for (let f = 2; f <= 8; f++) {
      const t = sim({ collective: 'reduce', algorithm: 'fnomial', params: { f }, machine: cres, procs: 31, bytes: 8 * n, datatype: 'float64', mode: 'offload' }).first.time;
      if (t < best.t - 1e-12) best = { f, t };
    }
    return best;
  });
  const fOk = bestF.map((b) => b.f).join(',') === '4,2,2,2';
  checks.push(
    verdict(
      S,
      'optimal f-nomial degree, 31 nodes, NIC Float64 Add, 1/2/4/8 elements (Fig. 5.3)',
      'f = 4, 2, 2, 2',
      `f = ${bestF.map((b) => b.f).join(', ')} (${bestF.map((b) => fmt(b.t / us, '')).join(' / ')} µs)`,
      fOk,
      'exact',
      'validation',
      fOk ? undefined : 'the simulator runs the asynchronous DAG: partial last phases finish early, which favours f = 2 for one element (as the DAG evaluation of coll reproduce models)',
    ),
  );

  // ---- ALC, Table 5.1: 900 nodes × 2, float64 sum, 4-nomial, top 1% dropped.
  const table = (mode: SimMode, extra: Partial<SimOptions> = {}) =>
    sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: 1800, ppn: 2, bytes: 8, datatype: 'float64', mode, noise, runs, keepSamples: true, ...extra });
  const host = table('host');
  const nic = table('offload');
  const hd = host.distribution;
  const nd = nic.distribution;
  checks.push(numeric(S, `Table 5.1 NIC-based mean, 900 nodes × 2 (top 1% dropped, ${runs} runs)`, 73.67, nd.trimmedMean / us, 0.01, ' µs', 'calibrated', 'alc nic.oSend fitted to it'));
  checks.push(numeric(S, 'Table 5.1 host-based mean', 89.3, hd.trimmedMean / us, 0.08, ' µs', 'calibrated', 'noise profile seed000-alc fitted to the host mean and σ'));
  checks.push(numeric(S, 'Table 5.1 host-based σ', 65.26, hd.trimmedStd / us, 0.12, ' µs', 'calibrated'));
  checks.push(
    verdict(
      S,
      'Table 5.1 NIC-based σ (two orders of magnitude below the host’s)',
      '0.29 µs',
      `${fmt(nd.trimmedStd / us, ' µs')} (host σ ${fmt(hd.trimmedStd / us, ' µs')})`,
      Math.abs(nd.trimmedStd / us - 0.29) <= 0.5 && hd.trimmedStd > 100 * Math.max(nd.trimmedStd, 0.29 * us) * 0.5,
      '|Δ| ≤ 0.5 µs',
      'validation',
      'the NIC runs see no noise at all here (processes sleep while their NIC works); the published 0.29 µs is jitter we do not model',
    ),
  );
  const nicShare = bestWindowShare(nic.samples!, 4 * us);
  const hostShare = bestWindowShare(host.samples!, 20 * us);
  checks.push(numeric(S, 'Fig. 5.5: share of NIC-based samples within a 4 µs window', 97, nicShare * 100, 0.04, '%', 'validation'));
  checks.push(numeric(S, 'Fig. 5.5: share of host-based samples within a 20 µs window', 57, hostShare * 100, 0.2, '%', 'validation'));
  checks.push(
    numeric(S, '§5.4.1: best host-based sample ≈ a third of the host mean', 1 / 3, hd.min / hd.mean, 0.2, '', 'validation', `best ${fmt(hd.min / us, ' µs')}, mean ${fmt(hd.mean / us, ' µs')}`),
  );
  // Revisit: what if the NIC-based processes were exposed to noise while they start and finish?
  const exposed = table('offload', { noise: { ...noise, nicWindowExposed: true }, runs: Math.min(runs, 200), keepSamples: false }).distribution;
  checks.push(
    info(
      S,
      'NIC start-up/completion window exposed to the same noise (the seed’s stated NIC exposure)',
      'σ 0.29 µs',
      `mean ${fmt(exposed.trimmedMean / us, ' µs')}, σ ${fmt(exposed.trimmedStd / us, ' µs')}`,
      'with the host-calibrated detours, exposing the ~3 µs windows of 1800 processes gives the NIC a host-like spread: the seed’s σ says the NIC-based processes escape this noise, so the default neglects the window',
    ),
  );

  // ---- 1812 processors (906 × 2), Fig. 5.6: NIC 4-nomial vs host elan_reduce (4-ary tree + hw broadcast).
  const hwBarrier = sim({ collective: 'barrier', algorithm: 'hw_barrier', machine: alc, procs: 906 }).first.time;
  const hwBcast = sim({ collective: 'bcast', algorithm: 'hw_multicast', machine: alc, procs: 906, bytes: 8 }).first.time;
  const big = (mode: SimMode, dt: Dt) =>
    sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: 1812, ppn: 2, bytes: bytesOf(dt), datatype: dt, mode, noise, runs: Math.max(50, runs >> 1) }).distribution
      .mean + (mode === 'host' ? hwBcast : hwBarrier);
  const emulation = 'measured like the thesis: the mean over all runs (nothing dropped), the NIC loop with its hardware barrier, the host’s elan_reduce with its hardware broadcast';
  const m = { nic: { int32: big('offload', 'int32'), float64: big('offload', 'float64') }, host: { int32: big('host', 'int32'), float64: big('host', 'float64') } };
  checks.push(numeric(S, '1812 processors, NIC Int32 Add (Fig. 5.6)', 73, m.nic.int32 / us, 0.15, ' µs', 'validation', emulation));
  checks.push(
    notMatchable(
      S,
      '1812 processors, NIC Float64 Add (Fig. 5.6)',
      '118 µs',
      fmt(m.nic.float64 / us, ' µs'),
      'Table 5.1 gives 73.67 µs for the same operation on 900 nodes × 2 and σ 0.29 µs; no deterministic NIC model (and no noise the NIC σ allows) gives both, so matching 118 µs would need an unexplained 44 µs term',
      'validation',
      rel(m.nic.float64 / us, 118),
    ),
  );
  const imp = (dt: Dt) => (m.host[dt] - m.nic[dt]) / m.nic[dt];
  checks.push(numeric(S, '1812 processors: NIC improvement over host, Int32 Add', 121, imp('int32') * 100, 0.25, '%', 'validation', 'improvement = (host − NIC)/NIC'));
  checks.push(numeric(S, '1812 processors: NIC improvement over host, Float64 Add', 39, imp('float64') * 100, 0.25, '%', 'validation'));
  const half = m.nic.int32 / m.host.int32;
  checks.push(numeric(S, 'NIC Int32 reduction in "about half the time" of the host at scale', 0.5, half, 0.3, '', 'validation', 'ratio NIC/host at 1812 processors'));

  // ---- Vector split at 512 nodes, NIC float64 sum (Fig. 5.1).
  const split = (n: number, s: number): number => {
    let best = Infinity;
    for (const f of [2, 4]) {
      const t = s === 0
        ? sim({ collective: 'reduce', algorithm: 'fnomial', params: { f }, machine: alc, procs: 512, bytes: 8 * n, datatype: 'float64', mode: 'offload' }).first.time
        : sim({ collective: 'reduce', algorithm: 'fnomial_split', params: { f, splits: s }, machine: alc, procs: 512, bytes: 8 * n, datatype: 'float64', mode: 'offload' }).first.time;
      best = Math.min(best, t);
    }
    return best / us;
  };
  const s8 = split(8, 0) / split(8, 3);
  const s16 = split(16, 0) / split(16, 4);
  const t16 = split(16, 4);
  checks.push(numeric(S, 'split, 512 nodes: 8 elements "nearly a factor of three" faster after 3 splits', 3, s8, 0.2, '×', 'validation', 'best of f = 2, 4 per point (the seed does not say which f)'));
  checks.push(verdict(S, 'split: 16 elements "over three times faster" after 4 splits', '> 3×', `${s16.toFixed(2)}×`, s16 > 3, '> 3', 'validation'));
  checks.push(numeric(S, 'split: 16-element latency after splitting', 140, t16, 0.25, ' µs', 'validation'));
  const two0 = split(2, 0);
  const two1 = split(2, 1);
  checks.push(verdict(S, 'split: 2 elements slightly slower after one split', 'slower', `${fmt(two0, ' µs')} → ${fmt(two1, ' µs')}`, two1 > two0, 'slower', 'validation'));

  // ---- 2 vs 1 process per node (Fig. 2.1 / 5.6): host deviates much more than the NIC.
  const dev = (mode: SimMode): number => {
    const t = (ppn: number) =>
      sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: 256 * ppn, ppn, bytes: 8, datatype: 'float64', mode, noise, runs: Math.max(50, runs >> 1) }).distribution.mean;
    return t(2) / t(1) - 1;
  };
  const dh = dev('host');
  const dn = dev('offload');
  checks.push(
    verdict(S, '2 processes per node deviate "drastically" from 1 for host-based reduce, "to a lesser degree" for NIC-based (256 nodes)', 'host ≫ NIC', `host +${(dh * 100).toFixed(0)}%, NIC +${(dn * 100).toFixed(0)}%`, dh > 2 * Math.max(dn, 0.01), 'host > 2 × NIC', 'validation'),
  );

  if (o.plots !== false) {
    const edges = (d: Float64Array, lo: number, hi: number, n: number): [number, number, number][] => {
      const w = (hi - lo) / n;
      const c = new Array<number>(n).fill(0);
      for (const x of d) if (x >= lo && x < hi) c[Math.floor((x - lo) / w)]++;
      return c.map((k, i) => [(lo + i * w) / us, (lo + (i + 1) * w) / us, k]);
    };
    const hi = Math.max(150 * us, nd.p99 * 1.05);
    plots.push({
      name: 'seed000-fig5.5-distribution',
      svg: histogramSvg({
        title: `Seed 000 Fig. 5.5 (simulated): 900 nodes × 2, float64 sum, ${runs} runs`,
        x: { label: 'latency (µs)' },
        groups: [
          { name: `NIC-based (mean ${fmt(nd.trimmedMean / us, ' µs')})`, bins: edges(nic.samples!, 40 * us, hi, 55) },
          { name: `host-based (mean ${fmt(hd.trimmedMean / us, ' µs')})`, bins: edges(host.samples!, 40 * us, hi, 55) },
        ],
      }),
    });
    const series: Series[] = [];
    for (const ppn of [1, 2]) {
      for (const dt of ['int32', 'float64'] as const) {
        for (const mode of ['offload', 'host'] as const) {
          const pts: [number, number][] = [];
          for (const nodes of [4, 16, 64, 256, 906]) {
            const r = sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: nodes * ppn, ppn, bytes: bytesOf(dt), datatype: dt, mode, noise, runs: ppn === 2 && mode === 'host' ? curveRuns : 1 });
            pts.push([nodes * ppn, (r.distribution.mean + (mode === 'host' ? hwBcast : hwBarrier)) / us]);
          }
          series.push({ name: `${mode === 'offload' ? 'NIC' : 'host'} ${dt} ${ppn} ppn`, points: pts });
        }
      }
    }
    plots.push({
      name: 'seed000-fig5.6-latency-vs-processors',
      svg: lineChartSvg({
        title: 'Seed 000 Fig. 5.6 (simulated): 1-element reduce on ALC, NIC 4-nomial (+ hw barrier) vs host (+ hw broadcast); host int32 = float64',
        x: { label: 'processors', log: true },
        y: { label: 'mean latency (µs)', log: true },
        series,
      }),
    });
  }
  return {
    seed: S,
    checks,
    plots,
    effort: `${runs} runs per Table 5.1 distribution, ${Math.max(50, runs >> 1)} for the 1812-processor and 2-vs-1 ppn means, ${curveRuns} per noisy Fig. 5.6 point (the thesis timed 100,000)`,
  };
}
