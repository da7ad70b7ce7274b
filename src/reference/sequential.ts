/**
 * Sequential reference results: what each collective must produce, computed the
 * obvious way (reductions fold the ranks' vectors in rank order, v0 ∘ v1 ∘ … ∘ vP−1).
 * Tests compare every algorithm's output against these.
 */
import { datatype, type Datatype, type DatatypeName } from '../core/datatypes.js';
import { op as lookupOp, type Op } from '../core/ops.js';
import type { CollectiveKind } from '../schedule/types.js';

export interface ReferenceInput {
  collective: CollectiveKind;
  datatype: DatatypeName | Datatype;
  op?: string | Op;
  size: number;
  count: number;
  root?: number;
  /** Per rank: input buffer bytes (bcast: the root's data, at index root). */
  inputs: readonly Uint8Array[];
}

/** Per rank: the expected output buffer, or undefined where the output is not significant. */
export function referenceOutputs(x: ReferenceInput): (Uint8Array | undefined)[] {
  const t = datatype(x.datatype);
  const es = t.size;
  const P = x.size;
  const root = x.root ?? 0;
  const n = x.count;
  const block = (r: number, i: number): Uint8Array => x.inputs[r].subarray(i * n * es, (i + 1) * n * es);
  const fold = (parts: Uint8Array[]): Uint8Array => {
    const k = lookupOp(x.op ?? 'sum').kernel(t);
    const acc = parts[0].slice();
    for (let i = 1; i < parts.length; i++) k(acc, acc, parts[i], parts[0].byteLength / es);
    return acc;
  };
  const concat = (parts: Uint8Array[]): Uint8Array => {
    const out = new Uint8Array(parts.reduce((s, p) => s + p.byteLength, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.byteLength;
    }
    return out;
  };
  const all = <T>(f: (r: number) => T): T[] => Array.from({ length: P }, (_, r) => f(r));
  const ranks = all((r) => r);
  switch (x.collective) {
    case 'barrier':
      return all(() => new Uint8Array(0));
    case 'bcast':
      return all(() => x.inputs[root].subarray(0, n * es).slice());
    case 'reduce': {
      const res = fold(ranks.map((r) => x.inputs[r].subarray(0, n * es)));
      return all((r) => (r === root ? res : undefined));
    }
    case 'allreduce': {
      const res = fold(ranks.map((r) => x.inputs[r].subarray(0, n * es)));
      return all(() => res.slice());
    }
    case 'allgather': {
      const res = concat(ranks.map((r) => x.inputs[r].subarray(0, n * es)));
      return all(() => res.slice());
    }
    case 'gather': {
      const res = concat(ranks.map((r) => x.inputs[r].subarray(0, n * es)));
      return all((r) => (r === root ? res : undefined));
    }
    case 'scatter':
      return all((r) => block(root, r).slice());
    case 'reduce_scatter':
      return all((i) => fold(ranks.map((r) => block(r, i))));
    case 'alltoall':
      return all((dst) => concat(ranks.map((src) => block(src, dst))));
    case 'scan':
      return all((r) => fold(ranks.slice(0, r + 1).map((q) => x.inputs[q].subarray(0, n * es))));
    case 'exscan':
      // Rank 0's output is not significant (MPI).
      return all((r) => (r === 0 ? undefined : fold(ranks.slice(0, r).map((q) => x.inputs[q].subarray(0, n * es)))));
  }
}
