/**
 * Seed 000 (Moody 2003, NIC-based reduction on Quadrics) checked by simulation:
 * crescendo binomial host/NIC/intermediate latencies, the 0.80 µs scaling rule, the
 * optimal f-nomial degree at 31 nodes, Table 5.1's host vs NIC distributions at 900
 * ALC nodes (mean, σ, share in a window, best sample), the 1812-processor latencies
 * and improvements of Fig. 5.6, the vector split at 512 nodes, and 2 vs 1 process
 * per node. Plots: Fig. 5.5 (histograms) and Fig. 5.6 (latency vs processors).
 *
 * Execution: the seed's NIC runs its f-nomial tree phase by phase (§4.2.3: a partial last
 * phase still costs L), so the NIC-based (and the crescendo host f-nomial) rows use
 * `execution: 'phased'`; info rows give the simulator's default DAG result next to them.
 * ALC's host-based runs stand for elan_reduce (not the seed's code) and keep the DAG. With
 * 2 processes per node the NIC runs follow §5.1: a shared-memory reduction on the host,
 * then one NIC per node over the nodes.
 *
 * Calibrated (declared; scripts/sim-calibrate-seed000.ts): the Elan3 presets' split of
 * C_NIC − C_host between nic.startup and nic.completion on the intermediate-only halving at
 * 16 nodes (32 nodes validates it); the `alc` preset's NIC per-send cost on Table 5.1's
 * NIC mean; the `seed000-alc` noise profile on Table 5.1's host mean and σ. Everything
 * else is validation; the crescendo checks compare with the extract's model values
 * (derived). Not matchable, each with its evidence in the note: the 1812-processor
 * Float64 latency and both improvements, the 8-element split factor (with 140 µs), and
 * the 2-element split regression.
 */
import { histogramSvg, lineChartSvg, type Series } from '../../plot/svg.js';
import { NOISE_PROFILES, type NoiseSpec } from '../noise.js';
import { getPreset } from '../presets.js';
import type { Execution } from '../phases.js';
import { simulate, type SimMode, type SimOptions, type SimReport } from '../simulate.js';
import { bestWindowShare, summarize, type Distribution } from '../stats.js';
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

/** Seed 000 Table 4.2 (NIC-based) and Table 4.3 (NIC Float64 Add) in µs, for the evidence notes. */
const SEED_NIC = { L: 2.1, r: 0.42, C: 9.2 } as const;
const SEED_C_F64_ADD: Readonly<Record<number, number>> = { 1: 1.5, 2: 2.95, 4: 5.8, 8: 11.56 };

/** Messages the root of an f-nomial tree over P receives: (f − 1)·⌊log_f P⌋ + ⌈P / f^⌊log_f P⌋ − 1⌉ (§4.2.3). */
export function rootMessages(P: number, f: number): { phases: number; messages: number } {
  let full = 0;
  let pow = 1;
  while (pow * f <= P) {
    pow *= f;
    full++;
  }
  const last = Math.ceil(P / pow - 1);
  return { phases: full + (last > 0 ? 1 : 0), messages: (f - 1) * full + last };
}

/** Seed 000's refined f-nomial model T = C + L·⌈log_f P⌉ + (r + c)·messages (§4.2.3), µs. */
export function refinedModel(P: number, f: number, c: number, p: { L: number; r: number; C: number } = SEED_NIC): number {
  const t = rootMessages(P, f);
  return p.C + p.L * t.phases + (p.r + c) * t.messages;
}

/** Table 4.3's NIC Float64 Add c(n) (µs); 16 elements: 2·c(8), as the extract extrapolates. */
const cF64 = (n: number): number => SEED_C_F64_ADD[n] ?? 2 * cF64(n / 2);

/**
 * The seed's parameters applied to the f-nomial split of n float64 elements over P nodes with s
 * splits (µs): C, then per split level an exchange (L + r + c of the half kept), the f-nomial
 * over the P/2^s group members on the piece (§4.2.3), and the recombine (L + (2^s − 1)·r at the
 * root). `x` is a per-message cost added to every L (our ALC fit's kind of cost). The seed gives
 * no split-cost model; this is the extract's sketch with the refined tree model.
 */
export function splitModel(P: number, n: number, s: number, f: number, x = 0): number {
  const { L, r, C } = SEED_NIC;
  let t = C;
  for (let l = 1; l <= s; l++) t += L + x + r + cF64(n / 2 ** l);
  const g = rootMessages(P / 2 ** s, f);
  t += (L + x) * g.phases + (r + cF64(n / 2 ** s)) * g.messages;
  if (s > 0) t += L + x + (2 ** s - 1) * r;
  return t;
}

/** The x ≥ 0 where an increasing g crosses zero (bisection on [0, 1000]). */
function solveX(g: (x: number) => number): number {
  let lo = 0;
  let hi = 1000;
  if (g(lo) >= 0) return lo;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (g(mid) < 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Runs per distribution without --quick; rows that need them are `info` with fewer. */
const DEFAULT_RUNS = 400;

export function seed000(o: Seed000Options = {}): SeedReproduction {
  const runs = o.runs ?? DEFAULT_RUNS;
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
    sim({ collective: 'reduce', algorithm: 'binomial', machine: cres, procs: P, bytes: bytesOf(dt), datatype: dt, op, mode, execution: 'phased' }).first.time / us;
  for (const [P, h, n] of [[2, 6.04, 11.97], [32, 19.4, 23.05]] as const) {
    checks.push(numeric(S, `binomial int32 sum, crescendo, P = ${P}: host`, h, bin(P, 'host'), 0.02, ' µs', 'derived', 'the extract’s model value from Tables 4.2/4.3'));
    checks.push(numeric(S, `same, NIC-based (offload)`, n, bin(P, 'offload'), 0.02, ' µs', 'derived'));
  }
  const lag = bin(2, 'offload') - bin(2, 'host');
  checks.push(numeric(S, 'NIC lags the host at 2 nodes (Fig. 5.2, "about 5 µs", host about twice as fast)', 5, lag, 0.3, ' µs', 'validation'));
  const eq = [2, 3].every((P) => bin(P, 'intermediate') === bin(P, 'host'));
  checks.push(verdict(S, 'intermediate-only NIC = host-based at P = 2 and 3 (no interior nodes)', 'equal', eq ? 'equal' : 'different', eq, 'exact', 'validation'));
  // Intermediate-only (Fig. 3.6b): the interior NICs' start-up overlaps the leaves' messages, the
  // root's completion is gone; what remains is the start-up beyond the leaf latency. The split of
  // C_NIC − C_host between start-up and completion is not published: fitted on P = 16
  // (scripts/sim-calibrate-seed000.ts), P = 32 validates it.
  const kept = (P: number): number => (bin(P, 'intermediate') - bin(P, 'host')) / (bin(P, 'offload') - bin(P, 'host'));
  for (const [P, basis] of [[16, 'calibrated'], [32, 'validation']] as const) {
    const x = kept(P);
    checks.push(
      verdict(
        S,
        `intermediate-only cuts the host–NIC synchronisation overhead "roughly in half", P = ${P} (Fig. 5.2)`,
        '≈ 0.5 of the NIC − host gap',
        `${x.toFixed(2)} (host ${fmt(bin(P, 'host'), '')}, intermediate ${fmt(bin(P, 'intermediate'), '')}, NIC ${fmt(bin(P, 'offload'), ' µs')})`,
        x >= 0.3 && x <= 0.7,
        '0.3–0.7',
        basis,
        basis === 'calibrated'
          ? `crescendo/alc nic.startup ${fmt(cres.nic!.startup! / us, ' µs')} / nic.completion ${fmt(cres.nic!.completion! / us, ' µs')} (the split of C_NIC − C_host = 6.50 µs) fitted to it`
          : 'with the start-up/completion split fitted at P = 16',
      ),
    );
  }
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
  const bestF = (execution: Execution) =>
    [1, 2, 4, 8].map((n) => {
      let best = { f: 0, t: Infinity };
      for (let f = 2; f <= 8; f++) {
        const t = sim({ collective: 'reduce', algorithm: 'fnomial', params: { f }, machine: cres, procs: 31, bytes: 8 * n, datatype: 'float64', mode: 'offload', execution }).first.time;
        if (t < best.t - 1e-12) best = { f, t };
      }
      return best;
    });
  const degrees = (b: { f: number; t: number }[]): string => `f = ${b.map((x) => x.f).join(', ')} (${b.map((x) => fmt(x.t / us, '')).join(' / ')} µs)`;
  const phasedF = bestF('phased');
  const fOk = phasedF.map((b) => b.f).join(',') === '4,2,2,2';
  checks.push(
    verdict(
      S,
      'optimal f-nomial degree, 31 nodes, NIC Float64 Add, 1/2/4/8 elements (Fig. 5.3)',
      'f = 4, 2, 2, 2',
      degrees(phasedF),
      fOk,
      'exact',
      'validation',
      'phased execution, as the seed’s NIC runs the tree (a partial last phase still costs L, §4.2.3)',
    ),
  );
  checks.push(
    info(
      S,
      'same, asynchronous DAG execution (the simulator’s default)',
      'f = 4, 2, 2, 2',
      degrees(bestF('dag')),
      'in the DAG a child whose subtree is partial sends as soon as it is done, so the partial last phase of f = 2 at 31 nodes costs no L and f = 2 wins for one element',
    ),
  );

  // ---- ALC. NIC-based runs follow the seed's implementation (§5.1): the processes of a node
  // first reduce through shared memory on the host, then one NIC thread per node runs the
  // phased f-nomial over the nodes (the NIC-based processes sleep meanwhile and see no noise;
  // their initiation is neglected, see the exposure row). Host-based runs stand for
  // elan_reduce, a Quadrics library 4-ary tree over all processes that the seed does not
  // describe as phased: DAG execution.
  const smpStep = (dt: Dt): number =>
    sim({ collective: 'reduce', algorithm: 'binomial', machine: alc, procs: 2, ppn: 2, bytes: bytesOf(dt), datatype: dt, mode: 'host' }).first.time - (alc.host.callOverhead ?? 0);
  /** NIC-based reduce on `nodes` nodes × `ppn` processes: the shared-memory step, then the NIC tree over the nodes. */
  const nicRun = (nodes: number, ppn: number, dt: Dt, o: Partial<SimOptions> = {}): { d: Distribution; samples: Float64Array } => {
    const pre = ppn > 1 ? smpStep(dt) : 0;
    const r = sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: nodes, bytes: bytesOf(dt), datatype: dt, mode: 'offload', execution: 'phased', keepSamples: true, ...o });
    const samples = r.samples!.map((x) => x + pre);
    return { d: summarize(samples), samples };
  };
  // Table 5.1: 900 nodes × 2, float64 sum, 4-nomial, top 1% dropped.
  const host = sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: 1800, ppn: 2, bytes: 8, datatype: 'float64', mode: 'host', noise, runs, keepSamples: true });
  const nic = nicRun(900, 2, 'float64', { noise, runs });
  const hd = host.distribution;
  const nd = nic.d;
  checks.push(
    numeric(S, `Table 5.1 NIC-based mean, 900 nodes × 2 (top 1% dropped, ${runs} runs)`, 73.67, nd.trimmedMean / us, 0.01, ' µs', 'calibrated', 'alc nic.oSend fitted to it (shared-memory step + phased NIC tree over the nodes)'),
  );
  checks.push(
    info(
      S,
      'same, NIC tree in asynchronous DAG execution (the simulator’s default)',
      '73.67 µs',
      fmt(nicRun(900, 2, 'float64', { execution: 'dag' }).d.mean / us, ' µs'),
      '900 nodes is not a power of 4: the partial last phase (3 of the root’s children) saves its L in the DAG',
    ),
  );
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
  const nicShare = bestWindowShare(nic.samples, 4 * us);
  const hostShare = bestWindowShare(host.samples!, 20 * us);
  checks.push(numeric(S, 'Fig. 5.5: share of NIC-based samples within a 4 µs window', 97, nicShare * 100, 0.04, '%', 'validation'));
  const hostShareClaim = 'Fig. 5.5: share of host-based samples within a 20 µs window';
  // The share lies near the lower edge of its tolerance (45.6%): with fewer runs (--quick) its
  // sampling error alone decides the verdict, so it is judged only with the default runs.
  const shareSe = Math.sqrt((hostShare * (1 - hostShare)) / runs) * 100;
  checks.push(
    runs >= DEFAULT_RUNS
      ? numeric(S, hostShareClaim, 57, hostShare * 100, 0.2, '%', 'validation')
      : info(
          S,
          hostShareClaim,
          '57%',
          fmt(hostShare * 100, '%'),
          `judged only without --quick (${DEFAULT_RUNS} runs): with ${runs} runs the share's sampling error (≈ ±${shareSe.toFixed(1)} points) spans the tolerance's lower edge (${fmt(57 * 0.8, '%')}), so chance would decide the verdict`,
        ),
  );
  checks.push(
    numeric(S, '§5.4.1: best host-based sample ≈ a third of the host mean', 1 / 3, hd.min / hd.mean, 0.2, '', 'validation', `best ${fmt(hd.min / us, ' µs')}, mean ${fmt(hd.mean / us, ' µs')}`),
  );
  // Revisit: what if the NIC-based processes were exposed to noise while they start and finish?
  // (Every process in the tree, so that both CPUs of a node are busy during the windows.)
  const exposed = sim({
    collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: 1800, ppn: 2, bytes: 8, datatype: 'float64', mode: 'offload', execution: 'phased',
    noise: { ...noise, nicWindowExposed: true }, runs: Math.min(runs, 200),
  }).distribution;
  checks.push(
    info(
      S,
      'NIC start-up/completion window exposed to the same noise (the seed’s stated NIC exposure)',
      'σ 0.29 µs',
      `mean ${fmt(exposed.trimmedMean / us, ' µs')}, σ ${fmt(exposed.trimmedStd / us, ' µs')}`,
      'with the host-calibrated detours, exposing the start-up/completion windows of 1800 processes gives the NIC a host-like spread: the seed’s σ says the NIC-based processes escape this noise, so the default neglects the window',
    ),
  );

  // ---- 1812 processors (906 × 2), Fig. 5.6: NIC 4-nomial (+ hw barrier) vs host elan_reduce (4-ary tree + hw broadcast).
  const hwBarrier = sim({ collective: 'barrier', algorithm: 'hw_barrier', machine: alc, procs: 906 }).first.time;
  const hwBcast = sim({ collective: 'bcast', algorithm: 'hw_multicast', machine: alc, procs: 906, bytes: 8 }).first.time;
  const bigRuns = Math.max(50, runs >> 1);
  const hostBig = (dt: Dt): Distribution =>
    sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: 1812, ppn: 2, bytes: bytesOf(dt), datatype: dt, mode: 'host', noise, runs: bigRuns }).distribution;
  const nicBig = (dt: Dt, execution: Execution = 'phased'): number => nicRun(906, 2, dt, { noise, runs: bigRuns, execution }).d.mean + hwBarrier;
  const hb = { int32: hostBig('int32'), float64: hostBig('float64') };
  const m = { nic: { int32: nicBig('int32'), float64: nicBig('float64') }, host: { int32: hb.int32.mean + hwBcast, float64: hb.float64.mean + hwBcast } };
  const emulation = 'measured like the thesis: the mean over all runs (nothing dropped), the NIC loop with its hardware barrier, the host’s elan_reduce with its hardware broadcast';
  // Table 4.3's c on the root path of the 906-node 4-nomial: the only int32/float64 difference of the NIC runs.
  const rootMsgs = rootMessages(906, 4).messages;
  const cGap = rootMsgs * (SEED_C_F64_ADD[1] - 0.25);
  const gapNote = `Fig. 5.6's float64 − int32 = 118 − 73 = 45 µs, while Table 4.3's c (1.50 vs 0.25 µs) on the ${rootMsgs} messages the root of a 906-node 4-nomial receives give ${fmt(cGap, ' µs')} (ours ${fmt((m.nic.float64 - m.nic.int32) / us, ' µs')}): the two cannot both hold with the seed's c`;
  checks.push(numeric(S, '1812 processors, NIC Int32 Add (Fig. 5.6)', 73, m.nic.int32 / us, 0.15, ' µs', 'validation', `${emulation}; one NIC per node after the shared-memory step (§5.1)`));
  checks.push(
    notMatchable(
      S,
      '1812 processors, NIC Float64 Add (Fig. 5.6)',
      '118 µs',
      fmt(m.nic.float64 / us, ' µs'),
      `Table 5.1 gives 73.67 µs for the same operation on 900 nodes × 2 and σ 0.29 µs; no deterministic NIC model (and no noise the NIC σ allows) gives both, so matching 118 µs would need an unexplained 44 µs term. Also ${gapNote}`,
      'validation',
      rel(m.nic.float64 / us, 118),
    ),
  );
  checks.push(
    info(
      S,
      '1812 processors, NIC Int32 / Float64 Add with the NIC tree in asynchronous DAG execution',
      '73 / 118 µs',
      `${fmt(nicBig('int32', 'dag') / us, '')} / ${fmt(nicBig('float64', 'dag') / us, ' µs')}`,
      '906 nodes: the root’s partial last phase (3 children) costs no L in the DAG',
    ),
  );
  const imp = (dt: Dt) => (m.host[dt] - m.nic[dt]) / m.nic[dt];
  const hostPub = 73 * 2.21;
  const tail = (hostPub * us - hwBcast - 0.99 * hb.int32.trimmedMean) / 0.01;
  checks.push(
    notMatchable(
      S,
      '1812 processors: NIC improvement over host, Int32 Add',
      '121%',
      `${(imp('int32') * 100).toFixed(1)}% (host ${fmt(m.host.int32 / us, ' µs')})`,
      `improvement = (host − NIC)/NIC, so 121% over 73 µs puts the host (elan_reduce + hardware broadcast, mean of all samples) at ${fmt(hostPub, ' µs')}; ` +
        `Table 5.1 has 89.30 µs for the same host operation on 900 nodes × 2 with the top 1% dropped, and our noise, fitted to it, gives ${fmt(hb.int32.trimmedMean / us, ' µs')} trimmed and ${fmt(hb.int32.mean / us, ' µs')} untrimmed here. ` +
        `The difference would have to come from the top 1% of host samples alone, averaging ≈ ${fmt(tail / 1e-3, ' ms')}: a tail the seed gives no number for (dropped in Table 5.1, beyond Fig. 5.5's axis), ` +
        'whose only other witness, the float64 improvement, divides by the 118 µs that is not matchable; fitting it here would validate nothing',
      'validation',
      rel(imp('int32') * 100, 121),
    ),
  );
  const needRatio = 2.21 / 1.39;
  checks.push(
    notMatchable(
      S,
      '1812 processors: NIC improvement over host, Float64 Add',
      '39%',
      `${(imp('float64') * 100).toFixed(1)}%`,
      `39% = host/118 µs − 1, and 118 µs is not matchable (above). With the hosts equal (host c 0.02 µs for both types: ours ${fmt(m.host.int32 / us, '')} / ${fmt(m.host.float64 / us, ' µs')}, published 161.3 / 164.0), ` +
        `121% and 39% need NIC float64 / int32 = ${needRatio.toFixed(2)}; ${gapNote}, a ratio of ${((m.nic.int32 + cGap * us) / m.nic.int32).toFixed(2)} at our int32 latency`,
      'validation',
      rel(imp('float64') * 100, 39),
    ),
  );
  const half = m.nic.int32 / m.host.int32;
  checks.push(numeric(S, 'NIC Int32 reduction in "about half the time" of the host at scale', 0.5, half, 0.3, '', 'validation', 'ratio NIC/host at 1812 processors'));

  // ---- Vector split at 512 nodes, NIC float64 sum (Fig. 5.1), 4-nomial trees as in all the
  // seed's large-scale NIC runs (§5.4.2; Fig. 5.1 does not state f).
  const split = (n: number, s: number, execution: Execution = 'phased', f = 4): number =>
    (s === 0
      ? sim({ collective: 'reduce', algorithm: 'fnomial', params: { f }, machine: alc, procs: 512, bytes: 8 * n, datatype: 'float64', mode: 'offload', execution })
      : sim({ collective: 'reduce', algorithm: 'fnomial_split', params: { f, splits: s }, machine: alc, procs: 512, bytes: 8 * n, datatype: 'float64', mode: 'offload', execution })
    ).first.time / us;
  const s8 = split(8, 0) / split(8, 3);
  const s16 = split(16, 0) / split(16, 4);
  const t16 = split(16, 4);
  const two0 = split(2, 0);
  const two1 = split(2, 1);
  // The seed's own model of the split (Table 4.2 NIC L, r, C; Table 4.3 c; c(16) = 2·c(8)) with a
  // per-send cost x added on every message, as our ALC fit adds it.
  const sm = (n: number, s: number, x: number): number => splitModel(512, n, s, 4, x);
  const s8Of = (x: number): number => sm(8, 0, x) / sm(8, 3, x);
  const xMaxS8 = solveX((x) => 2.4 - s8Of(x)); // s8 within its tolerance (≥ 2.4) iff x ≤ xMaxS8
  const xMinT16 = solveX((x) => sm(16, 4, x) - 105); // 140 µs within 25% (≥ 105) iff x ≥ xMinT16
  const s8Note =
    `the seed's own split model (Table 4.2/4.3, 4-nomial) gives ${s8Of(0).toFixed(2)}× and ${fmt(sm(16, 4, 0), ' µs')} for the 16-element point; with a per-message cost x on ALC, ` +
    `the 8-element factor stays ≥ 2.4 only for x ≤ ${fmt(xMaxS8, ' µs')} while 140 µs is reached within 25% only for x ≥ ${fmt(xMinT16, ' µs')}: no x gives both, and Table 5.1 fixes ours at ${fmt(alc.nic!.oSend / us, ' µs')}`;
  checks.push(
    notMatchable(
      S,
      'split, 512 nodes: 8 elements "nearly a factor of three" faster after 3 splits',
      '≈ 3× (tolerance 20%)',
      `${s8.toFixed(2)}×`,
      `not matchable together with the 16-element 140 µs (below, which we match): ${s8Note}`,
      'validation',
      rel(s8, 3),
    ),
  );
  checks.push(verdict(S, 'split: 16 elements "over three times faster" after 4 splits', '> 3×', `${s16.toFixed(2)}×`, s16 > 3, '> 3', 'validation', '4-nomial trees (§5.4.2); c(16) is not published: 16 × the 1-element γ'));
  checks.push(numeric(S, 'split: 16-element latency after splitting', 140, t16, 0.25, ' µs', 'validation', '4-nomial trees (§5.4.2); with the per-send cost fitted on Table 5.1'));
  // One split of 2 elements: the seed's model saves (c(2) − c(1)) per root message against one exchange and the recombine.
  const save2 = [2, 3, 4, 5, 6, 7, 8].map((f) => splitModel(512, 2, 0, f, 0) - splitModel(512, 2, 1, f, 0));
  const save2f4 = save2[2];
  checks.push(
    notMatchable(
      S,
      'split: 2 elements slightly slower after one split',
      'slower',
      `${fmt(two0, ' µs')} → ${fmt(two1, ' µs')} (${two1 > two0 ? 'slower' : 'faster'})`,
      `the seed's explanation ("the total savings in computation over the height of the tree is less than the added communication cost of the recombine step") fails on its own numbers: ` +
        `with Table 4.2/4.3 one split saves ${fmt(Math.min(...save2), '')}–${fmt(Math.max(...save2), ' µs')} net at 512 nodes (f = 2…8, exchange and recombine of L + r each included; ${fmt(save2f4, ' µs')} for f = 4); ` +
        `an extra cost per split level of ${fmt(save2f4, ' µs')}, enough to undo it, would cut the 8-element factor after 3 splits from ${s8Of(0).toFixed(2)}× to ${(sm(8, 0, 0) / (sm(8, 3, 0) + 3 * save2f4)).toFixed(2)}× (published ≈ 3×)`,
      'validation',
    ),
  );
  checks.push(
    info(
      S,
      'split with the trees in asynchronous DAG execution; and with the best of f = 2, 4 per point (phased)',
      '≈ 3×; > 3×; 140 µs; slower',
      `DAG: ${(split(8, 0, 'dag') / split(8, 3, 'dag')).toFixed(2)}×; ${(split(16, 0, 'dag') / split(16, 4, 'dag')).toFixed(2)}×; ${fmt(split(16, 4, 'dag'), ' µs')}; ` +
        `best f: ${(Math.min(split(8, 0), split(8, 0, 'phased', 2)) / Math.min(split(8, 3), split(8, 3, 'phased', 2))).toFixed(2)}×; ` +
        `${(Math.min(split(16, 0), split(16, 0, 'phased', 2)) / Math.min(split(16, 4), split(16, 4, 'phased', 2))).toFixed(2)}×`,
      'DAG = phased here: in 4-nomials over 2·4^k nodes (512, and the groups of 128 and 32) the partial last phase’s one child heads a full subtree, so nothing finishes early; f = 2 is faster unsplit, which lowers the factors',
    ),
  );

  // ---- 2 vs 1 process per node (Fig. 2.1 / 5.6): host deviates much more than the NIC.
  const dev = (mode: SimMode): number => {
    const t = (ppn: number) =>
      mode === 'host'
        ? sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: 256 * ppn, ppn, bytes: 8, datatype: 'float64', mode, noise, runs: bigRuns }).distribution.mean
        : nicRun(256, ppn, 'float64', { noise, runs: bigRuns }).d.mean;
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
          { name: `NIC-based (mean ${fmt(nd.trimmedMean / us, ' µs')})`, bins: edges(nic.samples, 40 * us, hi, 55) },
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
            const mean =
              mode === 'host'
                ? sim({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: nodes * ppn, ppn, bytes: bytesOf(dt), datatype: dt, mode, noise, runs: ppn === 2 ? curveRuns : 1 }).distribution.mean + hwBcast
                : nicRun(nodes, ppn, dt).d.mean + hwBarrier;
            pts.push([nodes * ppn, mean / us]);
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
    effort: `${runs} runs per Table 5.1 distribution, ${bigRuns} for the 1812-processor and 2-vs-1 ppn means, ${curveRuns} per noisy Fig. 5.6 point (the thesis timed 100,000)`,
  };
}
