/**
 * FitHooks backed by real measurements: each hook runs its jig (src/tune/jigs) as a
 * job through `launch()` once, for the whole plan, and answers lookups from the
 * records; a value the plan did not cover runs a job for that point alone.
 *
 * - pingPongIntra: 2 ranks on 1 node (threads, shared memory);
 * - pingPongInter: 2 ranks on 2 nodes (processes, TCP over loopback);
 * - serialReduction: max(P) ranks on 1 node, sub-communicators of P ranks;
 * - nblTestjig / nblTestjigIntra: 4 ranks on 4 nodes / on 1 node;
 * - logGPInter / logGPIntra: the LogGP jig, 2 ranks on 2 nodes / on 1 node.
 */
import type { FitHooks, LogGPSample } from './fit-machine.js';
import type { FitPlan } from './fit-plan.js';
import { JigError } from './jigs/protocol.js';
import { runJig } from './jigs/run.js';

export interface RuntimeHookOptions {
  /** Called when a job starts (what it measures), e.g. for a progress display. */
  onJob?: (what: string) => void;
  /** Per-job time limit (ms). */
  timeoutMs?: number;
}

/** Memoise one job per key; later lookups share the promise. */
function once<T>(run: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= run());
}

function pick(m: ReadonlyMap<string, number>, key: string, what: string): number {
  const v = m.get(key);
  if (v === undefined) throw new JigError(`the ${what} jig printed no record for ${key}`, 'the job ended normally but skipped a point of the plan');
  return v;
}

export function runtimeHooks(plan: FitPlan, o: RuntimeHookOptions = {}): FitHooks {
  const timeoutMs = o.timeoutMs;
  const ping = (nodes: number, label: string) =>
    once(async () => {
      o.onJob?.(`ping-pong ${label}: ${plan.pingSizes.length} sizes`);
      const recs = await runJig('pingpong', { ranks: 2, nodes, timeoutMs, config: { sizes: plan.pingSizes, batches: plan.pingBatches, seconds: plan.pingSeconds } });
      return new Map(recs.map((r) => [String(r.bytes), r.seconds]));
    });
  const pingIntra = ping(1, 'thread↔thread (1 node)');
  const pingInter = ping(2, 'process↔process over TCP (2 nodes)');
  const pMax = Math.max(...plan.serialProcs);
  const serial = once(async () => {
    o.onJob?.(`serial-reduction testjig: P = ${plan.serialProcs[0]}..${pMax}, ${plan.serialSeries.length} series`);
    const recs = await runJig('serial', { ranks: pMax, nodes: 1, timeoutMs, config: { procs: plan.serialProcs, series: plan.serialSeries, reps: plan.serialReps } });
    return new Map(recs.map((r) => [`${r.P}:${r.series}`, r.seconds]));
  });
  const nbl = (nodes: number, label: string) =>
    once(async () => {
      o.onJob?.(`NBL testjig ${label}: L ${plan.nblLinks.join(',')} × S ${plan.nblSizes.join(',')}`);
      const recs = await runJig('nbl', { ranks: 4, nodes, timeoutMs, config: { links: plan.nblLinks, sizes: plan.nblSizes, reps: plan.nblReps, batch: plan.nblBatch } });
      return new Map(recs.map((r) => [`${r.L}:${r.S}`, r.seconds]));
    });
  const nblInter = nbl(4, 'between nodes (4 processes)');
  const nblIntra = nbl(1, 'within a node (4 threads)');
  const loggp = (nodes: number, label: string) =>
    once(async () => {
      o.onJob?.(`LogGP ${label}: o_s, o_r, g at ${plan.loggpSizes.length} sizes`);
      const recs = await runJig('loggp', { ranks: 2, nodes, timeoutMs, config: { sizes: plan.loggpSizes, reps: plan.loggpReps, burst: plan.loggpBurst } });
      return new Map(recs.map((r) => [r.bytes, { gap: r.seconds, oSend: r.oSend, oRecv: r.oRecv }]));
    });
  const loggpInter = loggp(2, 'process↔process over TCP (2 nodes)');
  const loggpIntra = loggp(1, 'thread↔thread (1 node)');
  const loggpAt = async (m: Promise<Map<number, LogGPSample>>, bytes: number): Promise<LogGPSample> => {
    const v = (await m).get(bytes);
    if (!v) throw new JigError(`the LogGP jig printed no record for ${bytes} B`, 'the job ended normally but skipped a point of the plan');
    return v;
  };
  const single = async (bytes: number, nodes: number): Promise<number> => {
    const recs = await runJig('pingpong', { ranks: 2, nodes, timeoutMs, config: { sizes: [bytes], batches: plan.pingBatches, seconds: plan.pingSeconds } });
    return recs[0].seconds;
  };
  return {
    pingPongIntra: async (bytes) => (plan.pingSizes.includes(bytes) ? pick(await pingIntra(), String(bytes), 'ping-pong') : single(bytes, 1)),
    pingPongInter: async (bytes) => (plan.pingSizes.includes(bytes) ? pick(await pingInter(), String(bytes), 'ping-pong') : single(bytes, 2)),
    serialReduction: async (P, op, dtype, count) => pick(await serial(), `${P}:${op}/${dtype}/${count}`, 'serial-reduction'),
    nblTestjig: async (L, S) => pick(await nblInter(), `${L}:${S}`, 'NBL'),
    nblTestjigIntra: async (L, S) => pick(await nblIntra(), `${L}:${S}`, 'NBL'),
    logGPInter: (bytes) => loggpAt(loggpInter(), bytes),
    logGPIntra: (bytes) => loggpAt(loggpIntra(), bytes),
  };
}
