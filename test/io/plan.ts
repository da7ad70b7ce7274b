/**
 * A seeded plan of writes for the file API tests and the sequential reference file it
 * must produce: per step, per rank, a view (displacement, float64 elements, a filetype),
 * an offset and a count (0 for some ranks), collective or independent.
 */
import { Rng } from '../../src/core/random.js';
import { FileView, type FilePattern } from '../../src/io/view.js';

export interface RankPart {
  readonly disp: number;
  readonly filetype: FilePattern;
  readonly offset: number;
  readonly count: number;
}

export interface PlanStep {
  readonly collective: boolean;
  readonly ranks: readonly RankPart[];
  value(rank: number, i: number): number;
}

/** Disjoint regions per rank within a step (views interleave, never overlap), so the result does not depend on timing. */
export function filePlan(seed: number, P: number, rounds: number): PlanStep[] {
  const rng = new Rng(seed);
  const steps: PlanStep[] = [];
  for (let s = 0; s < rounds; s++) {
    const kind = rng.int(3);
    const base = rng.int(4) * 64;
    const block = 1 + rng.int(5);
    const ranks: RankPart[] = [];
    for (let r = 0; r < P; r++) {
      const count = rng.next() < 0.2 ? 0 : rng.int(40);
      const offset = rng.int(3) * block;
      if (kind === 0) {
        // Contiguous: rank r owns [base + r·64·8 ...) in its own 64-element band.
        const off = Math.min(offset, 24);
        ranks.push({ disp: base + r * 64 * 8, filetype: { kind: 'contiguous' }, offset: off, count: Math.min(count, 64 - off) });
      } else if (kind === 1) {
        // Block-cyclic: blocks of `block` elements, rank r every P·block.
        ranks.push({ disp: base + r * block * 8, filetype: { kind: 'vector', blocklength: block, stride: P * block }, offset, count });
      } else {
        // Tiles: a P-row array of 8 columns, rank r its own row (a 1×8 tile).
        ranks.push({ disp: base, filetype: { kind: 'subarray', sizes: [P, 8], subsizes: [1, 8], starts: [r, 0] }, offset, count });
      }
    }
    steps.push({ collective: rng.next() < 0.6, ranks, value: (rank, i) => s * 1e6 + rank * 1e3 + i + 0.5 });
  }
  return steps;
}

/** The file the plan writes, computed sequentially. */
export function expectedFile(steps: readonly PlanStep[], P: number): Uint8Array {
  let out = new Uint8Array(0);
  for (const step of steps) {
    for (let r = 0; r < P; r++) {
      const part = step.ranks[r];
      const v = new FileView({ disp: part.disp, etype: 'float64', filetype: part.filetype });
      const data = new Uint8Array(Float64Array.from({ length: part.count }, (_, i) => step.value(r, i)).buffer);
      let at = 0;
      for (const run of v.runs(part.offset, part.count)) {
        if (run.offset + run.bytes > out.byteLength) {
          const bigger = new Uint8Array(run.offset + run.bytes);
          bigger.set(out);
          out = bigger;
        }
        out.set(data.subarray(at, at + run.bytes), run.offset);
        at += run.bytes;
      }
    }
  }
  return out;
}
