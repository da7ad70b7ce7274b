/**
 * `coll fit`: measure this machine and write its parameter set (a Machine JSON file).
 *
 * Measured in-process today: reduction throughput per (operator, datatype) with the
 * real kernels of src/core (γ per pair and a c(op, n) table like seed 000 Table 4.3)
 * and the memory copy rate (copyPerByte).
 *
 * Hooks for measurements over the runtime (src/runtime, being built): ping-pong per
 * link class (thread↔thread in a node → intra α, β; process↔process over TCP →
 * inter α, β), the seed 000 serial-reduction testjig (L, r, c, C) and the seed 004
 * NBL testjig (f(L)). Each hook returns measured seconds; `runFit` fits them with the
 * least-squares fits of fit.ts. Without a hook the corresponding values are written
 * as clearly marked assumptions ("assumed: not measured, ... hook missing").
 */
import { cpus, hostname } from 'node:os';
import { BUILTIN_OP_NAMES, SCALAR_TYPE_NAMES } from '../core/index.js';
import type { Machine } from '../model/machine.js';
import { fitPingPong, fitReduceThroughput, fitSerialReduction, fitTestjig, type PingPongFit, type ReduceFit, type SerialReductionFit, type TestjigFit } from './fit.js';
import { measureCopy, measureReduce, supportedPairs, type TimingOptions } from './measure.js';

export interface FitHooks {
  /** One-way seconds for a message of `bytes` between two ranks of one node (runtime threads). */
  pingPongIntra?: (bytes: number) => Promise<number>;
  /** One-way seconds for a message of `bytes` between two processes over TCP. */
  pingPongInter?: (bytes: number) => Promise<number>;
  /** Seconds of a serial reduction over P ranks (seed 000 §3.2.1) of `count` elements. */
  serialReduction?: (P: number, op: string, dtype: string, count: number) => Promise<number>;
  /** Seconds for the NBL testjig: one rank with L active links, blocks of S elements. */
  nblTestjig?: (L: number, S: number) => Promise<number>;
}

export interface FitOptions {
  name?: string;
  ops?: readonly string[];
  dtypes?: readonly string[];
  /** Element counts of the reduce samples (and of the c(op, n) table). */
  counts?: readonly number[];
  timing?: TimingOptions;
  hooks?: FitHooks;
  /** Progress display: step i of n, and what was just measured. */
  progress?: (i: number, n: number, what: string) => void;
}

export interface FitReport {
  readonly machine: Machine;
  readonly reduce: Readonly<Record<string, ReduceFit>>;
  readonly copy: ReduceFit;
  readonly intra?: PingPongFit;
  readonly inter?: PingPongFit;
  readonly serial?: SerialReductionFit;
  readonly testjig?: TestjigFit;
  /** What could not be measured and why. */
  readonly missing: readonly string[];
}

const PING_SIZES = [0, 64, 1024, 8192, 65536, 262144];
const COPY_SIZES = [64, 1024, 16384, 262144, 1 << 22];

export async function runFit(o: FitOptions = {}): Promise<FitReport> {
  const ops = o.ops ?? BUILTIN_OP_NAMES.filter((x) => x !== 'minloc' && x !== 'maxloc');
  const dtypes = o.dtypes ?? SCALAR_TYPE_NAMES;
  const counts = o.counts ?? [1, 8, 64, 512, 4096, 32768];
  const pairs = supportedPairs(ops, dtypes);
  const hooks = o.hooks ?? {};
  const total = pairs.length + 1 + (hooks.pingPongIntra ? 1 : 0) + (hooks.pingPongInter ? 1 : 0) + (hooks.serialReduction ? 1 : 0) + (hooks.nblTestjig ? 1 : 0);
  let step = 0;
  const tick = (what: string): void => o.progress?.(++step, total, what);
  const when = new Date().toISOString();
  const M = `measured: coll fit ${when} on ${hostname()} (node ${process.version})`;
  const sources: Record<string, string> = {};
  const missing: string[] = [];

  // Reduction throughput.
  const reduce: Record<string, ReduceFit> = {};
  const rows: Record<string, number[]> = {};
  const gammaBy: Record<string, number> = {};
  for (const { op, dtype } of pairs) {
    const s = measureReduce(op, dtype, counts, o.timing);
    const key = `${op}/${dtype}`;
    const f = fitReduceThroughput(s);
    reduce[key] = f;
    rows[key] = s.map((x) => x.seconds);
    gammaBy[key] = Math.max(0, f.gamma);
    sources[`gammaBy.${key}`] = `${M}: slope of ${counts.length} reduce timings (rms residual ${f.fit.rms.toExponential(2)} s)`;
    tick(`reduce ${key}: ${(f.gamma * 1e9).toFixed(3)} ns/element + ${(f.overhead * 1e9).toFixed(0)} ns/call`);
  }
  sources.reduceTable = `${M}: seconds per call to combine two vectors of n elements (kernels of src/core)`;

  // Copy rate.
  const copySamples = measureCopy(COPY_SIZES, o.timing);
  const copy = fitReduceThroughput(copySamples);
  const copyPerByte = Math.max(0, copy.gamma);
  sources.copyPerByte = `${M}: slope of memcpy timings, ${COPY_SIZES.length} sizes (rms residual ${copy.fit.rms.toExponential(2)} s)`;
  tick(`copy: ${(1 / copyPerByte / 1e9).toFixed(2)} GB/s`);

  // Link classes through the runtime hooks.
  const ping = async (h: (b: number) => Promise<number>): Promise<PingPongFit> => {
    const s = [];
    for (const b of PING_SIZES) s.push({ x: b, seconds: await h(b) });
    return fitPingPong(s);
  };
  let intra: PingPongFit | undefined;
  let inter: PingPongFit | undefined;
  if (hooks.pingPongIntra) {
    intra = await ping(hooks.pingPongIntra);
    sources.intra = `${M}: ping-pong thread↔thread, ${PING_SIZES.length} sizes (rms ${intra.fit.rms.toExponential(2)} s)`;
    tick(`ping-pong intra: α ${(intra.alpha * 1e6).toFixed(2)} µs, ${(1 / intra.beta / 1e9).toFixed(2)} GB/s`);
  } else {
    missing.push('intra-node α, β: no runtime ping-pong hook (thread↔thread) yet');
    sources['intra.alpha'] = 'assumed: 5 µs thread hop; not measured (runtime ping-pong hook missing)';
    sources['intra.beta'] = `assumed: the measured memcpy rate; not measured by ping-pong (runtime hook missing)`;
  }
  if (hooks.pingPongInter) {
    inter = await ping(hooks.pingPongInter);
    sources.inter = `${M}: ping-pong process↔process over TCP, ${PING_SIZES.length} sizes (rms ${inter.fit.rms.toExponential(2)} s)`;
    tick(`ping-pong inter: α ${(inter.alpha * 1e6).toFixed(2)} µs, ${(1 / inter.beta / 1e9).toFixed(2)} GB/s`);
  } else {
    missing.push('inter-node α, β: no runtime ping-pong hook (processes over TCP) yet');
    sources['inter.alpha'] = 'assumed: 30 µs TCP loopback; not measured (runtime ping-pong hook missing)';
    sources['inter.beta'] = 'assumed: 1 GB/s TCP loopback; not measured (runtime ping-pong hook missing)';
  }
  let serial: SerialReductionFit | undefined;
  let lrc: Machine['lrc'];
  if (hooks.serialReduction) {
    const series: Record<string, { P: number; seconds: number }[]> = { noop: [], 'sum/float64/1': [] };
    for (let P = 2; P <= 8; P++) {
      series.noop.push({ P, seconds: await hooks.serialReduction(P, 'noop', 'float64', 1) });
      series['sum/float64/1'].push({ P, seconds: await hooks.serialReduction(P, 'sum', 'float64', 1) });
    }
    serial = fitSerialReduction(series, 'noop');
    const L = inter?.alpha ?? intra?.alpha ?? 0;
    lrc = { L, r: serial.r, C: Math.max(0, serial.CplusL.noop - L) };
    sources.lrc = `${M}: serial-reduction testjig (seed 000 §3.2.1), P = 2..8; L from ping-pong, C = intercept − L`;
    tick(`serial reduction: r ${(serial.r * 1e6).toFixed(2)} µs, C+L ${(serial.CplusL.noop * 1e6).toFixed(2)} µs`);
  } else {
    missing.push('seed 000 L, r, c, C: no runtime serial-reduction hook yet');
  }
  let testjig: TestjigFit | undefined;
  let nbl: Machine['nbl'];
  if (hooks.nblTestjig) {
    const pts = [];
    for (const L of [1, 2, 4, 6]) for (const S of [64, 256, 1024, 4096]) pts.push({ L, S, seconds: await hooks.nblTestjig(L, S) });
    testjig = fitTestjig(pts);
    nbl = { f: { table: testjig.f, source: `${M}: NBL testjig (seed 004 Table 1 design)` } };
    sources.nbl = `${M}: NBL testjig slopes, f(L) = b_L / b_1`;
    tick(`NBL testjig: f(2) ${testjig.f[2]?.toFixed(2)}, f(4) ${testjig.f[4]?.toFixed(2)}, f(6) ${testjig.f[6]?.toFixed(2)}`);
  } else {
    missing.push('NBL f(L): no runtime testjig hook yet');
  }

  const gamma = gammaBy['sum/float64'] ?? Object.values(gammaBy)[0] ?? 0;
  sources.gamma = `${M}: γ of sum/float64 (default for pairs not measured)`;
  sources.oSend = 'assumed: 0 (per-message host overhead is inside α until the runtime hooks measure it)';
  sources.oRecv = 'assumed: 0 (per-message host overhead is inside α until the runtime hooks measure it)';
  const machine: Machine = {
    name: o.name ?? 'local',
    description: `this machine: ${hostname()}, ${cpus().length}× ${cpus()[0]?.model ?? 'unknown CPU'}`,
    source: M,
    sources,
    intra: intra ? { alpha: Math.max(0, intra.alpha), beta: Math.max(0, intra.beta) } : { alpha: 5e-6, beta: copyPerByte },
    inter: inter ? { alpha: Math.max(0, inter.alpha), beta: Math.max(0, inter.beta) } : { alpha: 30e-6, beta: 1e-9 },
    oSend: 0,
    oRecv: 0,
    gamma,
    gammaBy,
    reduceTable: { counts: [...counts], rows },
    copyPerByte,
    ...(lrc ? { lrc } : {}),
    ...(nbl ? { nbl } : {}),
    ppn: cpus().length,
  };
  return { machine, reduce, copy, intra, inter, serial, testjig, missing };
}
