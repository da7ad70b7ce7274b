/**
 * `coll reproduce models`: the seeds' modelling claims, recomputed. Each check gives
 * the published value, ours, the relative error where numeric, the tolerance and a
 * status: pass / fail, `not-matchable` when the number cannot be reproduced without
 * inventing parameters (the output says which), or `info` for context rows.
 *
 * "Published" values are the seeds' (thesis/paper) statements; where a value was
 * derived by the reference extracts from the seeds' own formulas it says "derived".
 */
import { listAlgorithms, generateSchedule } from '../algorithms/registry.js';
import { computeStats } from '../schedule/stats.js';
import { nodeTopology } from '../schedule/topology.js';
import { crossoverBytes, napInterSteps, napTime, rdTime, smpTime } from './closed/bienz.js';
import { fenceOverSnakeAsymptote } from './closed/littlefield.js';
import { nicBarrierTime, startupTime } from './closed/yu.js';
import { evaluateDag } from './dag.js';
import { fnomialRefined, nicScalesBetter, optimalDegree } from './lrc.js';
import { BARRIER_CONSTANTS } from './machines/barrier-nics.js';
import { BLUE_WATERS, DELTA, ELAN3_NIC, MYRINET_BARRIER, QUADRICS_BARRIER } from './machines/index.js';
import { ELAN3_C_HOST, ELAN3_C_NIC, ELAN3_LRC } from './machines/quadrics-elan3.js';
import { costSchedule } from './models.js';
import { bienzParams, bienzRegime, littlefieldParams, littlefieldRegime, littlefieldTimes, type RegimeMap } from './regime.js';

export type CheckStatus = 'pass' | 'fail' | 'not-matchable' | 'info';

export interface Check {
  readonly seed: string;
  readonly claim: string;
  readonly published: string;
  readonly ours: string;
  readonly relError?: number;
  readonly tolerance: string;
  readonly status: CheckStatus;
  readonly note?: string;
}

export interface ReproduceOptions {
  /** Also cost the catalogue's schedules where the claim allows (default true). */
  schedules?: boolean;
  /** Include 32,768-rank schedules (slow, several seconds; default true). */
  largeSchedules?: boolean;
}

export interface Reproduction {
  readonly checks: readonly Check[];
  readonly maps: readonly { readonly name: string; readonly map: RegimeMap }[];
}

const rel = (ours: number, pub: number): number => Math.abs(ours - pub) / Math.abs(pub);
const numCheck = (seed: string, claim: string, pub: number, ours: number, tol: number, unit: string, note?: string): Check => {
  const e = rel(ours, pub);
  return {
    seed,
    claim,
    published: `${pub}${unit}`,
    ours: `${ours.toFixed(2)}${unit}`,
    relError: e,
    tolerance: `${(tol * 100).toPrecision(2)}%`,
    status: e <= tol ? 'pass' : 'fail',
    note,
  };
};
const registered = (c: Parameters<typeof listAlgorithms>[0], n: string): boolean => listAlgorithms(c).some((a) => a.name === n);
const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)}%`;

function seed000(o: ReproduceOptions): Check[] {
  const S = 'seed 000';
  const out: Check[] = [];
  const nic = (c: number) => ({ ...ELAN3_LRC.nic, c });
  const host = (c: number) => ({ ...ELAN3_LRC.host, c });
  const pubF = [4, 2, 2, 2];
  const pubT = [28.94, 36.55, 50.8, 79.6];
  [1, 2, 4, 8].forEach((n, i) => {
    const opt = optimalDegree(31, nic(ELAN3_C_NIC['sum/float64'][i]), { fMax: 8 });
    out.push({
      seed: S,
      claim: `optimal f-nomial degree, 31 nodes, NIC Float64 Add, ${n} element${n > 1 ? 's' : ''} (refined model, Fig. 5.3)`,
      published: `f = ${pubF[i]}`,
      ours: `f = ${opt.f}`,
      tolerance: 'exact',
      status: opt.f === pubF[i] ? 'pass' : 'fail',
    });
    out.push(numCheck(S, `refined-model latency at that degree, ${n} element${n > 1 ? 's' : ''}`, pubT[i], opt.time, 0.0005, ' µs', 'published value derived by the extract from Tables 4.2/4.3'));
  });
  if (o.schedules !== false && registered('reduce', 'fnomial')) {
    const best = [1, 2, 4, 8].map((n) => {
      let b = { f: 0, t: Infinity };
      for (let f = 2; f <= 8; f++) {
        const t = evaluateDag(generateSchedule('reduce', 'fnomial', { size: 31, count: n, params: { f } }), ELAN3_NIC).time * 1e6;
        if (t < b.t) b = { f, t };
      }
      return b;
    });
    out.push({
      seed: S,
      claim: 'same, DAG evaluation of the reduce/fnomial schedules on elan3-nic (asynchronous phases)',
      published: 'f = 4, 2, 2, 2',
      ours: `f = ${best.map((b) => b.f).join(', ')} (${best.map((b) => b.t.toFixed(2)).join(' / ')} µs)`,
      tolerance: '—',
      status: 'info',
      note: 'the refined formula is loosely synchronous; the DAG lets partial last phases finish early, which favours f = 2 for 1 element',
    });
  }
  out.push(numCheck(S, 'PCI-bus saving per hop, L_host − L_NIC', 0.8, ELAN3_LRC.host.L - ELAN3_LRC.nic.L, 1e-9, ' µs'));
  const ops: [string, string, string, boolean][] = [
    ['NOP', 'noop', 'scales better (0.00 µs)', true],
    ['Int32 Add', 'sum/int32', 'scales better (0.25 µs)', true],
    ['Float64 Max', 'max/float64', '"close to the limit" (0.67 µs < 0.80)', true],
    ['Float64 Add', 'sum/float64', 'scales worse (1.50 µs > 0.80)', false],
  ];
  for (const [label, key, pub, better] of ops) {
    const ch = key === 'noop' ? 0 : ELAN3_C_HOST[key][0];
    const cn = key === 'noop' ? 0 : ELAN3_C_NIC[key][0];
    const r = nicScalesBetter(host(ch), nic(cn));
    out.push({
      seed: S,
      claim: `NIC binomial scales better than host iff c < L_host − L_NIC: ${label}, 1 element`,
      published: pub,
      ours: `${r.better ? 'better' : 'worse'}: per-phase ${r.slopeNic.toFixed(2)} vs ${r.slopeHost.toFixed(2)} µs (rule says ${r.ruleBetter ? 'better' : 'worse'})`,
      tolerance: 'same verdict',
      status: r.better === better && r.ruleBetter === better ? 'pass' : 'fail',
    });
  }
  const lag = fnomialRefined(2, 2, nic(ELAN3_C_NIC['sum/int32'][0])) - fnomialRefined(2, 2, host(ELAN3_C_HOST['sum/int32'][0]));
  out.push({
    ...numCheck(S, 'NIC lag behind host at 2 nodes, binomial Int32 Add (Fig. 5.2, measured)', 5, lag, 0.3, ' µs', 'published "about 5 µs" (host about twice as fast)'),
    tolerance: '30%',
  });
  const m906i = fnomialRefined(906, 4, nic(ELAN3_C_NIC['sum/int32'][0]));
  const m906f = fnomialRefined(906, 4, nic(ELAN3_C_NIC['sum/float64'][0]));
  out.push({
    seed: S,
    claim: '1812 processors (906 nodes × 2), 4-nomial, Int32 / Float64 Add (Fig. 5.6, measured)',
    published: '73 / 118 µs',
    ours: `${m906i.toFixed(2)} / ${m906f.toFixed(2)} µs`,
    relError: rel(m906f, 118),
    tolerance: '—',
    status: 'not-matchable',
    note: 'the small-cluster parameters under-predict by 2–2.5×; matching needs terms the thesis does not give (L growing with fat-tree depth, 2-ppn shared-memory step, barrier in the loop, OS noise)',
  });
  return out;
}

/** The paper's grid: 4×4, 16×16, 16×32 meshes × N = 10^2 … 5·10^5. */
const PAPER_MESHES = [
  { W: 4, H: 4 },
  { W: 16, H: 16 },
  { W: 32, H: 16 },
];
const PAPER_N = [1e2, 1e3, 1e4, 1e5, 5e5];

function seed004(maps: { name: string; map: RegimeMap }[]): Check[] {
  const S = 'seed 004';
  const out: Check[] = [];
  const std = littlefieldRegime(DELTA, 'standard');
  const nom = littlefieldRegime(DELTA, 'nominal');
  const fit = littlefieldRegime(DELTA, 'fitted');
  const lit = littlefieldRegime(DELTA, 'nominal', { literal: true });
  maps.push({ name: 'seed004-standard', map: std }, { name: 'seed004-nominal', map: nom }, { name: 'seed004-fitted', map: fit }, { name: 'seed004-nominal-literal', map: lit });
  const cells = (m: RegimeMap): { a: string; P: number; N: number }[] => m.winners.flatMap((row, j) => row.map((a, i) => ({ a, P: m.ys[j], N: m.xs[i] })));

  const shortTree = [std, nom].every((m) => m.winners.every((row) => row[0] === 'Tree'));
  out.push({
    seed: S,
    claim: 'Tree is fastest for short vectors under both models (N = 100, every mesh 2×2 … 32×32)',
    published: 'Tree (Fig. 5)',
    ours: shortTree ? 'Tree in every row, standard and nominal' : 'not Tree somewhere',
    tolerance: 'all rows',
    status: shortTree ? 'pass' : 'fail',
  });
  const sc = cells(std).filter((c) => c.a !== 'Tree');
  const fenceShare = sc.filter((c) => c.a === 'Fence').length / sc.length;
  out.push({
    seed: S,
    claim: 'standard model (f = 1): Fence fastest "almost everywhere else"',
    published: 'almost everywhere',
    ours: `Fence wins ${(fenceShare * 100).toFixed(0)}% of the non-Tree cells`,
    tolerance: '≥ 75%',
    status: fenceShare >= 0.75 ? 'pass' : 'fail',
  });
  const snakeStd = cells(std).filter((c) => c.a === 'Snake');
  const maxP = Math.max(...snakeStd.map((c) => c.P));
  const minN = Math.min(...snakeStd.map((c) => c.N));
  out.push({
    seed: S,
    claim: 'standard model: Snake wins only with very long vectors on just a few nodes',
    published: 'small regime',
    ours: `Snake cells: ${snakeStd.length}/${cells(std).length}, all with P ≤ ${maxP} and N ≥ ${minN}`,
    tolerance: 'P ≤ 64, N ≥ 10^4',
    status: maxP <= 64 && minN >= 1e4 ? 'pass' : 'fail',
  });
  const snakeNom = cells(nom).filter((c) => c.a === 'Snake');
  const bigSnake = snakeNom.filter((c) => c.P >= 256).length;
  out.push({
    seed: S,
    claim: 'nominal NBL (f = L): Snake fastest over a large regime incl. moderately long vectors and many nodes',
    published: 'large regime',
    ours: `Snake cells: ${snakeNom.length} (standard: ${snakeStd.length}); ${bigSnake} of them at P ≥ 256; from N = ${Math.min(...snakeNom.map((c) => c.N))}`,
    tolerance: '≥ 2× standard, some at P ≥ 256',
    status: snakeNom.length >= 2 * snakeStd.length && bigSnake > 0 ? 'pass' : 'fail',
  });
  // ≥ 33% margins on the paper's grid, nominal model.
  const p = littlefieldParams(DELTA, 'nominal');
  const best: Record<string, { m: number; where: string }> = {};
  for (const { W, H } of PAPER_MESHES) {
    for (const N of PAPER_N) {
      const t = littlefieldTimes(p, W, H, N);
      const l = [
        { a: 'Tree', t: t.tree },
        { a: 'Snake', t: t.snake },
        { a: 'Fence', t: t.fence },
      ].sort((x, y) => x.t - y.t);
      const m = l[1].t / l[0].t - 1;
      if (!best[l[0].a] || m > best[l[0].a].m) best[l[0].a] = { m, where: `${W}x${H}, N=${N}` };
    }
  }
  for (const a of ['Tree', 'Fence', 'Snake']) {
    const b = best[a];
    out.push({
      seed: S,
      claim: `each algorithm ≥ 33% faster than the other two somewhere (nominal NBL, paper's grid): ${a}`,
      published: '≥ 33%',
      ours: b ? `${pct(b.m)} at ${b.where}` : 'never fastest',
      tolerance: '≥ 33%',
      status: b && b.m >= 0.33 ? 'pass' : 'fail',
    });
  }
  const pf = littlefieldParams(DELTA, 'fitted');
  const t16 = littlefieldTimes(pf, 4, 4, 5e5);
  const sf = t16.fence / t16.snake - 1;
  out.push({
    ...numCheck(S, 'Snake up to 33% faster than Fence for long vectors, P = 16 (fitted f, N = 5·10^5; Fig. 7)', 33, sf * 100, 0.1, '%', 'measured in the paper; ours is the fitted model'),
    tolerance: '±10% of the value',
  });
  out.push({
    ...numCheck(S, 'asymptotic Snake advantage, nominal NBL: 1 − Snake/Fence per block', 33, (1 - 1 / fenceOverSnakeAsymptote(p)) * 100, 0.02, '%'),
    tolerance: '2%',
  });
  const treeLit = cells(lit).filter((c) => c.a === 'Tree').length / cells(lit).length;
  const treeNom = cells(nom).filter((c) => c.a === 'Tree').length / cells(nom).length;
  out.push({
    seed: S,
    claim: 'the appendix read literally (L·(α + f(L)βS)) contradicts the regime statements',
    published: 'Snake large regime (form B)',
    ours: `literal nominal: Tree wins ${(treeLit * 100).toFixed(0)}% of cells (form B: ${(treeNom * 100).toFixed(0)}%)`,
    tolerance: '—',
    status: 'info',
    note: 'form B reproduces the printed Fence S_opt exactly and the regime claims; the literal form does not',
  });
  out.push({
    seed: S,
    claim: 'nominal model matches the empirical regime map (Fig. 8) better than the standard model',
    published: 'Fig. 8 (image only)',
    ours: 'maps written with --plot',
    tolerance: '—',
    status: 'not-matchable',
    note: 'the extract has no figure data; compare the SVG maps by eye',
  });
  return out;
}

function seed001(o: ReproduceOptions, maps: { name: string; map: RegimeMap }[]): Check[] {
  const S = 'seed 001';
  const out: Check[] = [];
  const bp = bienzParams(BLUE_WATERS);
  for (const [nodes, pub, what] of [
    [16, 1, '16 nodes × 16 ("a single inter-node step")'],
    [4096, 3, '4096 nodes × 16 ("only three inter-node steps")'],
    [2048, 3, '32,768 processes = 2048 nodes × 16 (derived ⌈log16 2048⌉)'],
  ] as const) {
    const k = napInterSteps(nodes, 16);
    out.push({ seed: S, claim: `NAP inter-node steps, ${what}`, published: String(pub), ours: String(k), tolerance: 'exact', status: k === pub ? 'pass' : 'fail' });
  }
  const sched = o.schedules !== false && registered('allreduce', 'nap') && registered('allreduce', 'smp');
  const procs = o.largeSchedules === false ? 4096 : 32768;
  if (sched) {
    const topo = nodeTopology(procs, 16);
    const steps: Record<string, number> = {};
    const times: Record<string, number> = {};
    for (const a of ['recursive_doubling', 'smp', 'nap']) {
      const s = generateSchedule('allreduce', a, { size: procs, count: 1, topology: topo, validate: false });
      steps[a] = computeStats(s, { topology: topo }).maxInterNodeMessagesPerRank;
      times[a] = costSchedule(s, BLUE_WATERS, 'maxrate', { topology: topo }).time;
    }
    const n = procs / 16;
    const want = { recursive_doubling: Math.log2(n), smp: Math.log2(n), nap: napInterSteps(n, 16) };
    out.push({
      seed: S,
      claim: `max inter-node messages per process at ${procs} processes (schedules): RD / SMP / NAP`,
      published: `${want.recursive_doubling} / ${want.smp} / ${want.nap} (log2 n, log2 n, ⌈log_ppn n⌉)`,
      ours: `${steps.recursive_doubling} / ${steps.smp} / ${steps.nap}`,
      tolerance: 'exact',
      status: steps.recursive_doubling === want.recursive_doubling && steps.smp === want.smp && steps.nap === want.nap ? 'pass' : 'fail',
    });
    const ok = times.nap < times.smp && times.nap < times.recursive_doubling;
    out.push({
      seed: S,
      claim: `NAP fastest for 8-byte allreduce at ${procs} processes (schedules, max-rate model)`,
      published: 'NAP < RD, SMP (Figs. 10, 11, 15)',
      ours: `NAP ${(times.nap * 1e6).toFixed(2)}, RD ${(times.recursive_doubling * 1e6).toFixed(2)}, SMP ${(times.smp * 1e6).toFixed(2)} µs`,
      tolerance: 'ordering',
      status: ok ? 'pass' : 'fail',
      note: 'Blue Waters-like parameters are ASSUMED (the paper prints none): a qualitative check',
    });
  }
  const P = 32768;
  const s8 = { nap: napTime(bp, P, 16, 8, { napSteps: 'ceil', injectors: 15 }), rd: rdTime(bp, P, 16, 8), smp: smpTime(bp, P, 16, 8, { smpIntraSteps: 2 }) };
  out.push({
    seed: S,
    claim: 'small-message advantage of NAP over RD and SMP at 32,768 processes (Eqs. 4–6, 8 B)',
    published: 'NAP fastest (Fig. 11)',
    ours: `NAP ${(s8.nap * 1e6).toFixed(2)}, RD ${(s8.rd * 1e6).toFixed(2)}, SMP ${(s8.smp * 1e6).toFixed(2)} µs`,
    tolerance: 'ordering',
    status: s8.nap < s8.rd && s8.nap < s8.smp ? 'pass' : 'fail',
    note: 'assumed parameters; holds whenever α·(lg n − ⌈log_ppn n⌉) exceeds the extra intra-node cost',
  });
  const x = crossoverBytes(
    (s) => napTime(bp, P, 16, s, { napSteps: 'ceil', injectors: 15 }),
    (s) => smpTime(bp, P, 16, s, { smpIntraSteps: 2 }),
  );
  out.push({
    seed: S,
    claim: 'NAP faster up to 2048 bytes at 32,768 processes, SMP above (Fig. 15, measured)',
    published: '2048 B',
    ours: x === undefined ? 'no crossover' : `crossover at ${x} B`,
    relError: x === undefined ? undefined : rel(x, 2048),
    tolerance: '—',
    status: 'not-matchable',
    note: 'needs the Blue Waters α, β, α_ℓ, β_ℓ, γ, R_N that seed 001 does not print; ours uses the assumed bluewaters set',
  });
  const margin = [256, 4096, 65536].map((p) => {
    const nap = napTime(bp, p, 16, 8, { napSteps: 'ceil', injectors: 15 });
    const other = Math.min(rdTime(bp, p, 16, 8), smpTime(bp, p, 16, 8, { smpIntraSteps: 2 }));
    return other / nap - 1;
  });
  out.push({
    seed: S,
    claim: 'NAP advantage (8 B) grows with process count (Fig. 10): P = 256, 4096, 65536',
    published: 'growing',
    ours: margin.map(pct).join(', '),
    tolerance: 'increasing',
    status: margin[0] < margin[1] && margin[1] < margin[2] ? 'pass' : 'fail',
    note: 'assumed parameters (qualitative)',
  });
  maps.push({ name: 'seed001-allreduce-16ppn', map: bienzRegime(BLUE_WATERS, { ppn: 16 }) });
  return out;
}

function seed003(o: ReproduceOptions): Check[] {
  const S = 'seed 003';
  const out: Check[] = [];
  out.push(numCheck(S, 'NIC barrier projection at 1024 nodes, Quadrics (Fig. 6.6)', 22.13, nicBarrierTime(BARRIER_CONSTANTS.quadrics, 1024), 1e-4, ' µs'));
  out.push(numCheck(S, 'NIC barrier projection at 1024 nodes, Myrinet (Fig. 6.6)', 38.94, nicBarrierTime(BARRIER_CONSTANTS.myrinet, 1024), 1e-4, ' µs'));
  if (o.schedules !== false) {
    const s = generateSchedule('barrier', 'dissemination', { size: 1024, validate: false });
    out.push(numCheck(S, 'same, DAG evaluation of the 1024-rank dissemination schedule, Quadrics constants', 22.13, evaluateDag(s, QUADRICS_BARRIER).time * 1e6, 1e-4, ' µs'));
    out.push(numCheck(S, 'same, DAG evaluation of the 1024-rank dissemination schedule, Myrinet constants', 38.94, evaluateDag(s, MYRINET_BARRIER).time * 1e6, 1e-4, ' µs'));
  }
  out.push(numCheck(S, 'Myrinet model vs measured barrier at 8 nodes (Fig. 6.5, 14.20 µs measured)', 14.2, nicBarrierTime(BARRIER_CONSTANTS.myrinet, 8), 0.05, ' µs'));
  out.push({
    ...numCheck(S, 'start-up model, 128 processes, MPD-BC (Table 2.1: 3.10 s measured)', 3.1, startupTime('mpd-bc', 128), 0.1, ' s', 'W_x is not defined in the thesis; uses the extract’s inferred W_x = 4x B / 10^8 B/s'),
    status: 'info',
  });
  out.push({
    ...numCheck(S, 'start-up model, 128 processes, Original (Table 2.1: 13.7 s measured)', 13.7, startupTime('original', 128), 0.1, ' s', 'inferred W_x, as above'),
    status: 'info',
  });
  return out;
}

export function reproduceModels(o: ReproduceOptions = {}): Reproduction {
  const maps: { name: string; map: RegimeMap }[] = [];
  const checks = [...seed000(o), ...seed004(maps), ...seed001(o, maps), ...seed003(o)];
  return { checks, maps };
}
