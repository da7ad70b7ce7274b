/**
 * Test harness: run an algorithm's schedule through the reference executor with
 * generated inputs and compare against the sequential reference.
 */
import { expect } from 'vitest';
import {
  datatype,
  defineOp,
  getElement,
  op as lookupOp,
  setElement,
  type Datatype,
  type DatatypeName,
  type ElementValue,
  type Op,
} from '../../src/core/index.js';
import { generateSchedule, getAlgorithm } from '../../src/algorithms/registry.js';
import type { AlgorithmSpec } from '../../src/algorithms/types.js';
import { executeSchedule, prng } from '../../src/reference/executor.js';
import { referenceOutputs } from '../../src/reference/sequential.js';
import { ioCounts, isReduction, isRooted, type ParamValue } from '../../src/schedule/context.js';
import { firstViolation } from '../../src/algorithms/restrictions.js';
import { makeContext } from '../../src/schedule/context.js';
import { flatTopology, meshTopology, nodeTopology, type Topology } from '../../src/schedule/topology.js';
import type { CollectiveKind } from '../../src/schedule/types.js';

/**
 * A non-commutative, associative operator on uint32: composition of permutations of
 * {0..7}, 3 bits per image. (a ∘ b)(i) = a(b(i)).
 */
export const PERM_OP: Op = (() => {
  try {
    return lookupOp('perm8');
  } catch {
    return defineOp('perm8', {
      commutative: false,
      datatypes: ['uint32'],
      combine: (a, b) => composePerm(Number(a), Number(b)),
    });
  }
})();

export function composePerm(a: number, b: number): number {
  let out = 0;
  for (let i = 0; i < 8; i++) {
    const bi = (b >>> (3 * i)) & 7;
    const abi = (a >>> (3 * bi)) & 7;
    out |= abi << (3 * i);
  }
  return out >>> 0;
}

export function randomPerm(rand: () => number): number {
  const p = [0, 1, 2, 3, 4, 5, 6, 7];
  for (let i = 7; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p.reduce((acc, v, i) => acc | (v << (3 * i)), 0) >>> 0;
}

/** A value for (datatype, op) that keeps every reduction exact in any order. */
function value(t: Datatype, opName: string, rand: () => number, rank: number): ElementValue {
  const pick = (xs: readonly number[]): number => xs[Math.floor(rand() * xs.length)];
  let v: number;
  switch (opName) {
    case 'perm8':
      return randomPerm(rand);
    case 'prod':
      v = t.kind === 'uint' ? pick([1, 2, 3]) : pick([1, -1, 2, 1]);
      break;
    case 'land':
    case 'lor':
    case 'lxor':
      v = pick([0, 0, 1, 2]);
      break;
    case 'minloc':
    case 'maxloc':
    default:
      if (t.kind === 'pair') {
        const val = pick([0, 1, 2, 3, -1, -2]);
        return { value: t.bigint ? BigInt(val) : val, index: rank };
      }
      v = t.kind === 'uint' ? Math.floor(rand() * 16) : Math.floor(rand() * 17) - 8;
  }
  if (t.kind === 'uint' && v < 0) v = -v;
  return t.bigint ? BigInt(v) : v;
}

export interface CaseConfig {
  collective: CollectiveKind;
  algorithm: string;
  size: number;
  count: number;
  root?: number;
  datatype?: DatatypeName;
  op?: string;
  topology?: Topology;
  params?: Readonly<Record<string, ParamValue>>;
  order?: 'deterministic' | 'random';
  seed?: number;
}

/** Run one case and assert the result equals the sequential reference on every rank. */
export function runCase(c: CaseConfig): void {
  const t = datatype(c.datatype ?? (c.op === 'perm8' ? 'uint32' : c.op === 'minloc' || c.op === 'maxloc' ? 'float64_int32' : 'int32'));
  const opName = c.op ?? 'sum';
  const o = lookupOp(opName);
  const root = c.root ?? 0;
  const rand = prng((c.seed ?? 1) * 7919 + c.size * 31 + c.count);
  const schedule = generateSchedule(c.collective, c.algorithm, {
    size: c.size,
    count: c.count,
    root,
    commutative: o.commutative,
    elementSize: t.size,
    topology: c.topology,
    params: c.params,
  });
  const label = `${c.collective}/${c.algorithm} P=${c.size} count=${c.count} root=${root} ${t.name}/${opName} ${c.topology?.label ?? ''} ${JSON.stringify(c.params ?? {})} ${c.order ?? 'deterministic'}`;
  const inputs: Uint8Array[] = [];
  const outputs: (Uint8Array | undefined)[] = [];
  for (let r = 0; r < c.size; r++) {
    const io = ioCounts(c.collective, r, c.size, c.count, root);
    const n = c.collective === 'bcast' ? (r === root ? c.count : 0) : io.in;
    const buf = new Uint8Array(n * t.size);
    for (let i = 0; i < n; i++) setElement(t, buf, i, value(t, opName, rand, r));
    inputs.push(buf);
    outputs.push(c.collective === 'bcast' && r === root ? buf : undefined);
  }
  const result = executeSchedule(schedule, {
    datatype: t,
    op: isReduction(c.collective) ? o : undefined,
    inputs: c.collective === 'bcast' ? undefined : inputs,
    outputs,
    order: c.order,
    seed: c.seed,
  });
  const expected = referenceOutputs({
    collective: c.collective,
    datatype: t,
    op: o,
    size: c.size,
    count: c.count,
    root,
    inputs: c.collective === 'bcast' ? inputs.map((b, r) => (r === root ? b : new Uint8Array(0))) : inputs,
  });
  for (let r = 0; r < c.size; r++) {
    const want = expected[r];
    if (!want) continue;
    const got = result.outputs[r].subarray(0, want.byteLength);
    if (opName === 'noop') {
      // No computation: each element must be some rank's contribution.
      continue;
    }
    if (!bytesEqual(got, want)) {
      const i = firstDiff(got, want, t.size);
      throw new Error(
        `${label}: rank ${r} differs at element ${i}: got ${fmt(getElement(t, got, i))}, want ${fmt(getElement(t, want, i))}`,
      );
    }
  }
  if (c.collective === 'allreduce' || c.collective === 'allgather') {
    for (let r = 1; r < c.size; r++) {
      expect(bytesEqual(result.outputs[r], result.outputs[0]), `${label}: rank ${r} differs from rank 0`).toBe(true);
    }
  }
}

function fmt(v: ElementValue): string {
  return typeof v === 'object' ? `{${String(v.value)},${v.index}}` : String(v);
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

function firstDiff(a: Uint8Array, b: Uint8Array, es: number): number {
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return Math.floor(i / es);
  return -1;
}

/** Topologies to try for an algorithm at P ranks. */
export function topologiesFor(spec: AlgorithmSpec, P: number): Topology[] {
  if (spec.topology === 'mesh') {
    const out: Topology[] = [];
    for (let w = 1; w <= P; w++) if (P % w === 0 && w <= 64 && P / w <= 64) out.push(meshTopology(w, P / w));
    return out;
  }
  if (spec.topology === 'nodes') {
    const out: Topology[] = [flatTopology(P)];
    for (const ppn of [2, 3, 4, 8]) if (ppn < P) out.push(nodeTopology(P, ppn, 'block'));
    if (P > 4) out.push(nodeTopology(P, 2, 'cyclic'));
    if (P === 1) out.push(nodeTopology(1, 1));
    return out;
  }
  return [flatTopology(P)];
}

/** Parameter variants: defaults, then each int parameter at its minimum and min+1, each enum value. */
export function paramVariants(spec: AlgorithmSpec): Record<string, ParamValue>[] {
  const out: Record<string, ParamValue>[] = [{}];
  for (const p of spec.params) {
    if (p.type === 'int' && p.min !== undefined) {
      for (const v of [p.min, p.min + 1, p.min + 3]) if (p.max === undefined || v <= p.max) out.push({ [p.name]: v });
    } else if (p.type === 'enum') {
      for (const v of p.values ?? []) out.push({ [p.name]: v });
    } else if (p.type === 'bool') {
      out.push({ [p.name]: true }, { [p.name]: false });
    }
  }
  return out;
}

/** Does the configuration satisfy the algorithm's restrictions? */
export function applicable(spec: AlgorithmSpec, c: Omit<CaseConfig, 'algorithm' | 'collective'>): boolean {
  const o = lookupOp(c.op ?? 'sum');
  const ctx = makeContext(spec.collective, {
    rank: 0,
    size: c.size,
    count: c.count,
    root: c.root ?? 0,
    commutative: o.commutative,
    topology: c.topology,
  });
  return firstViolation(spec.restrictions, ctx) === undefined;
}

export function rootsFor(collective: CollectiveKind, P: number): number[] {
  if (!isRooted(collective)) return [0];
  if (P <= 12) return Array.from({ length: P }, (_, r) => r);
  return [...new Set([0, 1, Math.floor(P / 2), P - 1])];
}

export { getAlgorithm };
