/**
 * Which path each collective call took, counted per rank in the node's control memory
 * (one cache line per rank, written only by its rank, read by the node process after
 * the ranks have returned) and summed into the job report's `paths` section: the flat
 * shared-memory path, its direct mode, direct calls that fell back to a schedule
 * because a rank could not share its buffer, schedules, offloaded calls, and the bytes
 * direct mode staged through the arena for buffers outside it.
 */
import { PATH_LINE_BYTES, type NodeLayout } from '../offload/engine/node-layout.js';

export const PATH_FIELDS = ['flat', 'direct', 'directFallbacks', 'scheduled', 'offloaded', 'stagedBytes'] as const;
export type PathField = (typeof PATH_FIELDS)[number];
export type PathCounters = Record<PathField, number>;

const enum F {
  Flat = 0,
  Direct = 1,
  DirectFallbacks = 2,
  Scheduled = 3,
  Offloaded = 4,
  StagedBytes = 5,
}

/** One rank's line (float64 counters: byte totals pass 2³¹). */
export class PathCounterLine {
  private readonly v: Float64Array;

  constructor(control: SharedArrayBuffer, nl: NodeLayout, localRank: number) {
    this.v = new Float64Array(control, nl.pathCounters + localRank * PATH_LINE_BYTES, PATH_FIELDS.length);
  }

  flat(): void {
    this.v[F.Flat]++;
  }
  direct(): void {
    this.v[F.Direct]++;
  }
  directFallback(): void {
    this.v[F.DirectFallbacks]++;
  }
  scheduled(): void {
    this.v[F.Scheduled]++;
  }
  offloaded(): void {
    this.v[F.Offloaded]++;
  }
  staged(bytes: number): void {
    this.v[F.StagedBytes] += bytes;
  }
}

export function zeroPaths(): PathCounters {
  return Object.fromEntries(PATH_FIELDS.map((f) => [f, 0])) as PathCounters;
}

/** The sum over a node's ranks (after they have returned). */
export function readPathCounters(control: SharedArrayBuffer, nl: NodeLayout, localSize: number): PathCounters {
  const out = zeroPaths();
  for (let l = 0; l < localSize; l++) {
    const v = new Float64Array(control, nl.pathCounters + l * PATH_LINE_BYTES, PATH_FIELDS.length);
    PATH_FIELDS.forEach((f, i) => (out[f] += v[i]));
  }
  return out;
}

/** Sum of several nodes' counters. */
export function addPathCounters(a: PathCounters, b: PathCounters): PathCounters {
  return Object.fromEntries(PATH_FIELDS.map((f) => [f, a[f] + b[f]])) as PathCounters;
}
