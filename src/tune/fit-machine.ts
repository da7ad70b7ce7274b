/**
 * `coll fit`: measure this machine and write its parameter set (a Machine JSON file).
 *
 * In-process: reduction throughput per (operator, datatype) with the real kernels of
 * src/core (γ per pair and a c(op, n) table like seed 000 Table 4.3) and the memory
 * copy rate (copyPerByte).
 *
 * Over the runtime, through FitHooks (runtime-hooks.ts runs the jigs of ./jigs as
 * jobs): ping-pong per link class (thread↔thread in a node → intra α, β;
 * process↔process over TCP → inter α, β), the seed 000 serial-reduction testjig
 * (r, c per series, C + L; L = intra α) and the seed 004 NBL testjig (f(L), between
 * nodes into the machine, within a node reported) and the LogGP jig (o_s, o_r and
 * the gap g(b) between node processes and within a node: host.oSend/oRecv and the
 * `loggp` section come from the inter-node run, the link α's become the one-way
 * latency less both overheads, which the models charge on the CPUs). Each hook returns measured
 * seconds; `runFit` fits them by least squares (fit.ts) and records every value's
 * source as "measured on <host> <date> by coll fit". Without a hook, or when a fit
 * is below the noise, the value is written as a marked assumption or left out, and
 * the reason is listed in `missing`.
 */
import { cpus, hostname } from 'node:os';
import { BUILTIN_OP_NAMES, SCALAR_TYPE_NAMES } from '../core/index.js';
import type { Machine } from '../model/machine.js';
import { fitPingPong, fitReduceThroughput, fitSerialReduction, fitTestjig, type PingPongFit, type ReduceFit, type Sample, type SerialPoint, type SerialReductionFit, type TestjigFit, type TestjigPoint } from './fit.js';
import { fitPlan, NOP_SERIES, type FitPlan } from './fit-plan.js';
import type { LinearFit } from './lsq.js';
import { measureCopy, measureReduce, supportedPairs, type TimingOptions } from './measure.js';

/**
 * A per-element (per-byte) cost from timings: the least-squares slope, or, when noise
 * made it non-positive (short timings on a busy machine), the time per unit of the
 * largest sample, an upper bound that still includes the call overhead: a machine file
 * must never claim that reducing or copying is free.
 */
export function perUnit(slope: number, samples: readonly Sample[]): { value: number; how: string } {
  if (slope > 0) return { value: slope, how: 'slope' };
  const big = samples.reduce((a, b) => (b.x > a.x ? b : a));
  return { value: big.seconds / big.x, how: `time per unit at ${big.x} (the slope came out ${slope.toExponential(2)} s: noise)` };
}

export interface FitHooks {
  /** One-way seconds for a message of `bytes` between two ranks of one node (runtime threads). */
  pingPongIntra?: (bytes: number) => Promise<number>;
  /** One-way seconds for a message of `bytes` between two processes over TCP. */
  pingPongInter?: (bytes: number) => Promise<number>;
  /** Seconds of a serial reduction over P ranks (seed 000 §3.2.1) of `count` elements. */
  serialReduction?: (P: number, op: string, dtype: string, count: number) => Promise<number>;
  /** Seconds per step of the NBL testjig between node processes: L active links, blocks of S doubles. */
  nblTestjig?: (L: number, S: number) => Promise<number>;
  /** The same within one node (threads); reported, not written into the machine. */
  nblTestjigIntra?: (L: number, S: number) => Promise<number>;
  /** LogGP jig between two node processes over TCP, for a message of `bytes`. */
  logGPInter?: (bytes: number) => Promise<LogGPSample>;
  /** The same between two threads of one node (used when there is no inter-node hook; else reported). */
  logGPIntra?: (bytes: number) => Promise<LogGPSample>;
}

/** One size of the LogGP jig: seconds per message of a burst, in send, in recv of an arrived message. */
export interface LogGPSample {
  readonly gap: number;
  readonly oSend: number;
  readonly oRecv: number;
}

/** The LogGP fit of one link class. */
export interface LogGPFit {
  readonly samples: readonly (LogGPSample & { readonly bytes: number })[];
  /** Medians over the sizes ≤ 1 KiB (per-message overheads). */
  readonly oSend: number;
  readonly oRecv: number;
  /** g(b) = g + G·b by relative least squares. */
  readonly g: number;
  readonly G: number;
  readonly fit: LinearFit;
}

export interface FitOptions {
  name?: string;
  ops?: readonly string[];
  dtypes?: readonly string[];
  /** Element counts of the reduce samples (and of the c(op, n) table). */
  counts?: readonly number[];
  timing?: TimingOptions;
  hooks?: FitHooks;
  /** What the hooks measure (sizes, process counts, series, repetitions); default the full plan. */
  plan?: FitPlan;
  /** Progress display: step i of n, and what was just measured. */
  progress?: (i: number, n: number, what: string) => void;
}

export interface FitReport {
  readonly machine: Machine;
  /** Per "op/datatype": the fit and its samples (x = elements combined, seconds per call). */
  readonly reduce: Readonly<Record<string, ReduceFit & { readonly samples: readonly Sample[] }>>;
  /** The memory copy fit and its samples (x = bytes, seconds per copy). */
  readonly copy: ReduceFit & { readonly samples: readonly Sample[] };
  /** Ping-pong fits with their one-way samples. */
  readonly intra?: PingPongFit & { readonly samples: readonly Sample[] };
  readonly inter?: PingPongFit & { readonly samples: readonly Sample[] };
  readonly serial?: SerialReductionFit;
  readonly serialSamples?: Readonly<Record<string, readonly SerialPoint[]>>;
  /** NBL testjig between node processes (goes into the machine) and within a node (reported). */
  readonly testjig?: { readonly fit: TestjigFit; readonly points: readonly TestjigPoint[] };
  readonly testjigIntra?: { readonly fit: TestjigFit; readonly points: readonly TestjigPoint[] };
  /** LogGP between node processes (written) and within a node (reported, or written without the former). */
  readonly loggp?: LogGPFit;
  /** Where `loggp` was measured: between node processes ('inter') or threads of one node ('intra'). */
  readonly loggpLink?: 'inter' | 'intra';
  readonly loggpIntra?: LogGPFit;
  /** What could not be measured and why. */
  readonly missing: readonly string[];
}

const COPY_SIZES = [64, 1024, 16384, 262144, 1 << 22];

export async function runFit(o: FitOptions = {}): Promise<FitReport> {
  const ops = o.ops ?? BUILTIN_OP_NAMES.filter((x) => x !== 'minloc' && x !== 'maxloc');
  const dtypes = o.dtypes ?? SCALAR_TYPE_NAMES;
  const counts = o.counts ?? [1, 8, 64, 512, 4096, 32768];
  const pairs = supportedPairs(ops, dtypes);
  const hooks = o.hooks ?? {};
  const plan = o.plan ?? fitPlan(false);
  const total = pairs.length + 1 + [hooks.pingPongIntra, hooks.pingPongInter, hooks.logGPInter, hooks.logGPIntra, hooks.serialReduction, hooks.nblTestjig, hooks.nblTestjigIntra].filter(Boolean).length;
  let step = 0;
  const tick = (what: string): void => o.progress?.(++step, total, what);
  const when = new Date().toISOString();
  const M = `measured on ${hostname()} ${when} by coll fit (node ${process.version})`;
  const sources: Record<string, string> = {};
  const missing: string[] = [];

  // Reduction throughput.
  const reduce: Record<string, ReduceFit & { samples: readonly Sample[] }> = {};
  const rows: Record<string, number[]> = {};
  const gammaBy: Record<string, number> = {};
  for (const { op, dtype } of pairs) {
    const s = measureReduce(op, dtype, counts, o.timing);
    const key = `${op}/${dtype}`;
    const f = fitReduceThroughput(s);
    reduce[key] = { ...f, samples: s };
    rows[key] = s.map((x) => x.seconds);
    const g = perUnit(f.gamma, s);
    gammaBy[key] = g.value;
    sources[`gammaBy.${key}`] = `${M}: ${g.how} of ${counts.length} reduce timings (rms residual ${f.fit.rms.toExponential(2)} s)`;
    tick(`reduce ${key}: ${(f.gamma * 1e9).toFixed(3)} ns/element + ${(f.overhead * 1e9).toFixed(0)} ns/call`);
  }
  sources.reduceTable = `${M}: seconds per call to combine two vectors of n elements (kernels of src/core)`;

  // Copy rate.
  const copySamples = measureCopy(COPY_SIZES, o.timing);
  const copy = fitReduceThroughput(copySamples);
  const c = perUnit(copy.gamma, copySamples);
  const copyPerByte = c.value;
  sources.copyPerByte = `${M}: ${c.how} of memcpy timings, ${COPY_SIZES.length} sizes (rms residual ${copy.fit.rms.toExponential(2)} s)`;
  tick(`copy: ${(1 / copyPerByte / 1e9).toFixed(2)} GB/s`);

  // Link classes through the runtime hooks (one-way times, relative least squares).
  const ping = async (h: (b: number) => Promise<number>): Promise<PingPongFit & { samples: Sample[] }> => {
    const samples: Sample[] = [];
    for (const b of plan.pingSizes) samples.push({ x: b, seconds: await h(b) });
    return { ...fitPingPong(samples, { relative: true }), samples };
  };
  const sizesText = `${plan.pingSizes.length} sizes ${plan.pingSizes[0]} B … ${plan.pingSizes[plan.pingSizes.length - 1]} B, half the median round trip`;
  let intra: (PingPongFit & { samples: Sample[] }) | undefined;
  let inter: (PingPongFit & { samples: Sample[] }) | undefined;
  if (hooks.pingPongIntra) {
    intra = await ping(hooks.pingPongIntra);
    sources.intra = `${M}: ping-pong thread↔thread in one node, ${sizesText}; relative least squares (rms residual ${intra.fit.rms.toExponential(2)} s, largest ${(intra.fit.maxRelResidual * 100).toFixed(0)}%)`;
    tick(`ping-pong intra: α ${(intra.alpha * 1e6).toFixed(2)} µs, ${(1 / intra.beta / 1e9).toFixed(2)} GB/s`);
  } else {
    missing.push('intra-node α, β: no runtime ping-pong hook (thread↔thread) yet');
    sources['intra.alpha'] = 'assumed: 5 µs thread hop; not measured (runtime ping-pong hook missing)';
    sources['intra.beta'] = `assumed: the measured memcpy rate; not measured by ping-pong (runtime hook missing)`;
  }
  if (hooks.pingPongInter) {
    inter = await ping(hooks.pingPongInter);
    sources.inter = `${M}: ping-pong process↔process over TCP (loopback), ${sizesText}; relative least squares (rms residual ${inter.fit.rms.toExponential(2)} s, largest ${(inter.fit.maxRelResidual * 100).toFixed(0)}%)`;
    tick(`ping-pong inter: α ${(inter.alpha * 1e6).toFixed(2)} µs, ${(1 / inter.beta / 1e9).toFixed(2)} GB/s`);
  } else {
    missing.push('inter-node α, β: no runtime ping-pong hook (processes over TCP) yet');
    sources['inter.alpha'] = 'assumed: 30 µs TCP loopback; not measured (runtime ping-pong hook missing)';
    sources['inter.beta'] = 'assumed: 1 GB/s TCP loopback; not measured (runtime ping-pong hook missing)';
  }

  // LogGP: per-message CPU overheads and the gap (o_s, o_r, g(b) = g + G·b).
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const logGP = async (h: (b: number) => Promise<LogGPSample>): Promise<LogGPFit> => {
    const samples: (LogGPSample & { bytes: number })[] = [];
    for (const b of plan.loggpSizes) samples.push({ bytes: b, ...(await h(b)) });
    const small = samples.filter((s) => s.bytes <= 1024);
    const use = small.length > 0 ? small : samples.slice(0, 1);
    const gaps = samples.map((s) => ({ x: s.bytes, seconds: s.gap }));
    const f = fitPingPong(gaps, { relative: true });
    const big = gaps.filter((s) => s.x > 0);
    const G = big.length > 0 ? perUnit(f.beta, big).value : Math.max(0, f.beta);
    return { samples, oSend: median(use.map((s) => s.oSend)), oRecv: median(use.map((s) => s.oRecv)), g: Math.max(0, f.alpha), G, fit: f.fit };
  };
  const us = (s: number): string => `${(s * 1e6).toFixed(2)} µs`;
  let loggpInter: LogGPFit | undefined;
  let loggpIntra: LogGPFit | undefined;
  if (hooks.logGPInter) {
    loggpInter = await logGP(hooks.logGPInter);
    tick(`LogGP inter: o_s ${us(loggpInter.oSend)}, o_r ${us(loggpInter.oRecv)}, g ${us(loggpInter.g)}`);
  }
  if (hooks.logGPIntra) {
    loggpIntra = await logGP(hooks.logGPIntra);
    tick(`LogGP intra: o_s ${us(loggpIntra.oSend)}, o_r ${us(loggpIntra.oRecv)}, g ${us(loggpIntra.g)}`);
  }
  const lg = loggpInter ?? loggpIntra;
  const lgWhere = loggpInter ? 'between node processes over TCP (2 nodes)' : 'between threads of one node';
  const lgWhat = `LogGP jig ${lgWhere}, ${plan.loggpSizes.length} sizes ${plan.loggpSizes[0]} B … ${plan.loggpSizes[plan.loggpSizes.length - 1]} B, medians of ${plan.loggpReps}`;
  let oSend = 0;
  let oRecv = 0;
  let loggp: Machine['loggp'];
  if (lg) {
    oSend = lg.oSend;
    oRecv = lg.oRecv;
    sources.oSend = `${M}: ${lgWhat}; median time in send of one message ≤ 1 KiB (the peer acknowledges each)`;
    sources.oRecv = `${M}: ${lgWhat}; median time in recv of a message that has already arrived, ≤ 1 KiB`;
    // The models charge o_s and o_r on the CPUs: a link's α is the one-way time less both.
    const o2 = oSend + oRecv;
    const lat = loggpInter ? inter : intra;
    const L = lat ? Math.max(0, lat.alpha - o2) : undefined;
    loggp = { L: L ?? 0, o: o2 / 2, g: lg.g, G: lg.G };
    sources.loggp = `${M}: ${lgWhat}; o = (o_s + o_r)/2, g and G the intercept and slope of the gap per message of bursts (relative least squares, rms residual ${lg.fit.rms.toExponential(2)} s), L = ping-pong α − o_s − o_r${lat ? '' : ' (no ping-pong: L written as 0)'}`;
    for (const [c, pp] of [['intra', intra], ['inter', inter]] as const) {
      if (!pp) continue;
      const a = pp.alpha - o2;
      sources[`${c}.alpha`] = `${M}: ping-pong α ${us(pp.alpha)} less o_s + o_r ${us(o2)} (${lgWhere}; the models charge them on the CPUs)${a < 0 ? `; came out ${us(a)}: this class's overheads are smaller than the measured o (one o per machine), clamped to 0` : ''}`;
    }
    if (loggpInter && loggpIntra) {
      sources.loggpIntra = `${M}: LogGP jig between threads of one node: o_s ${us(loggpIntra.oSend)}, o_r ${us(loggpIntra.oRecv)}, g ${us(loggpIntra.g)}, G ${(loggpIntra.G * 1e9).toFixed(3)} ns/B (reported only; the machine has one o, taken between nodes)`;
    }
  } else {
    missing.push('LogGP o, g, G: no runtime LogGP hook (o_s = o_r = 0 assumed, inside α)');
  }
  let serial: SerialReductionFit | undefined;
  let serialSamples: Record<string, SerialPoint[]> | undefined;
  let lrc: Machine['lrc'];
  if (hooks.serialReduction) {
    const series: Record<string, SerialPoint[]> = {};
    for (const key of plan.serialSeries) {
      const [op, dtype, count] = key.split('/');
      series[key] = [];
      for (const P of plan.serialProcs) series[key].push({ P, seconds: await hooks.serialReduction(P, op, dtype, Number(count)) });
    }
    serialSamples = series;
    serial = fitSerialReduction(series, NOP_SERIES);
    // The jig runs its ranks as threads of one node: L is the intra-node latency.
    const L = intra?.alpha ?? inter?.alpha ?? 0;
    const C = serial.CplusL[NOP_SERIES] - L;
    const nop = serial.fits[NOP_SERIES];
    const what = `serial-reduction testjig (seed 000 §3.2.1), P = ${plan.serialProcs.join(',')} ranks on one node, median of ${plan.serialReps}`;
    if (serial.r > 0 && L >= 0) {
      lrc = { L: Math.max(0, L), r: serial.r, C: Math.max(0, C) };
      sources['lrc.r'] = `${M}: ${what}; slope of the NOP series (rms residual ${nop.rms.toExponential(2)} s, R² ${nop.r2.toFixed(3)})`;
      sources['lrc.L'] = intra ? `${M}: = intra α (ping-pong thread↔thread)` : 'assumed: no ping-pong measurement';
      sources['lrc.C'] = `${M}: NOP intercept at P = 1 minus L${C < 0 ? ` (came out ${(C * 1e6).toFixed(2)} µs, clamped to 0)` : ''}`;
    } else {
      missing.push(`seed 000 L, r, C: the NOP series slope came out ${(serial.r * 1e6).toFixed(2)} µs per rank (noise above the signal); not written`);
    }
    tick(`serial reduction: r ${(serial.r * 1e6).toFixed(2)} µs, C+L ${(serial.CplusL[NOP_SERIES] * 1e6).toFixed(2)} µs`);
  } else {
    missing.push('seed 000 L, r, c, C: no runtime serial-reduction hook yet');
  }
  const jig = async (h: (L: number, S: number) => Promise<number>): Promise<{ fit: TestjigFit; points: TestjigPoint[] }> => {
    const points: TestjigPoint[] = [];
    for (const L of plan.nblLinks) for (const S of plan.nblSizes) points.push({ L, S, seconds: await h(L, S) });
    return { fit: fitTestjig(points), points };
  };
  let testjig: { fit: TestjigFit; points: TestjigPoint[] } | undefined;
  let testjigIntra: { fit: TestjigFit; points: TestjigPoint[] } | undefined;
  let nbl: Machine['nbl'];
  const fText = (f: Readonly<Record<number, number>>): string => plan.nblLinks.map((L) => `f(${L}) ${f[L]?.toFixed(2)}`).join(', ');
  const jigWhat = `NBL testjig (seed 004 Table 1 design: L = ${plan.nblLinks.join(',')}, S = ${plan.nblSizes.join(',')} doubles)`;
  if (hooks.nblTestjig) {
    testjig = await jig(hooks.nblTestjig);
    const f = testjig.fit.f;
    const ok = plan.nblLinks.every((L) => f[L] > 0 && Number.isFinite(f[L]));
    if (ok) {
      nbl = { f: { table: f, source: `${M}: ${jigWhat} between node processes; f(L) = b_L / b_1 (least-squares slopes)` } };
      sources.nbl = `${M}: ${jigWhat} between node processes (TCP); f(L) = b_L / b_1, slopes of T_L(S) by least squares`;
    } else {
      missing.push(`NBL f(L) between nodes: slopes not all positive (${fText(f)}): block-size effect below the noise; not written`);
    }
    tick(`NBL testjig between nodes: ${fText(f)}`);
  } else {
    missing.push('NBL f(L): no runtime testjig hook yet');
  }
  if (hooks.nblTestjigIntra) {
    testjigIntra = await jig(hooks.nblTestjigIntra);
    sources['nblIntra'] = `${M}: ${jigWhat} within one node (threads): ${fText(testjigIntra.fit.f)} (reported only; the machine file has one f(L), taken between nodes)`;
    tick(`NBL testjig within a node: ${fText(testjigIntra.fit.f)}`);
  }

  const gamma = gammaBy['sum/float64'] ?? Object.values(gammaBy)[0] ?? 0;
  sources.gamma = `${M}: γ of sum/float64 (default for pairs not measured)`;
  sources.oSend ??= 'assumed: 0 (per-message host overhead is inside α; not measured: no LogGP hook)';
  sources.oRecv ??= 'assumed: 0 (per-message host overhead is inside α; not measured: no LogGP hook)';
  const less = (a: number): number => Math.max(0, a - oSend - oRecv);
  const machine: Machine = {
    name: o.name ?? 'local',
    description: `this machine: ${hostname()}, ${cpus().length}× ${cpus()[0]?.model ?? 'unknown CPU'}`,
    source: M,
    sources,
    intra: intra ? { alpha: less(intra.alpha), beta: Math.max(0, intra.beta) } : { alpha: 5e-6, beta: copyPerByte },
    inter: inter ? { alpha: less(inter.alpha), beta: Math.max(0, inter.beta) } : { alpha: 30e-6, beta: 1e-9 },
    oSend,
    oRecv,
    gamma,
    gammaBy,
    reduceTable: { counts: [...counts], rows },
    copyPerByte,
    ...(lrc ? { lrc } : {}),
    ...(nbl ? { nbl } : {}),
    ...(loggp ? { loggp } : {}),
    ppn: cpus().length,
  };
  return { machine, reduce, copy: { ...copy, samples: copySamples }, intra, inter, serial, serialSamples, testjig, testjigIntra, loggp: loggpInter ?? loggpIntra, loggpLink: loggpInter ? 'inter' : loggpIntra ? 'intra' : undefined, loggpIntra: loggpInter ? loggpIntra : undefined, missing };
}
