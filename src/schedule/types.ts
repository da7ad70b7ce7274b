/**
 * The schedule IR: what one rank does in one collective.
 *
 * A schedule is a DAG of steps over named buffers. Every algorithm in the catalogue
 * is a pure generator of these per-rank schedules; the runtime executes them, the
 * models cost them and the simulator replays them.
 *
 * Semantics
 * - Regions are (buffer, offset, count) in elements of the collective's datatype.
 *   Buffer 0 is the user's input, buffer 1 the user's output, 2.. are scratch.
 * - A step may start once every step in `deps` has completed. Steps without a
 *   dependency path between them may run concurrently (and must not race).
 * - Messages: the k-th `send` from rank a to rank b matches the k-th `recv` at b
 *   from a, counting in step-index order. Matched sizes are equal. A schedule must
 *   not deadlock even if every send waits for its matching receive (synchronous).
 * - `reduce` computes dst = in[0] ∘ in[1] ∘ … (operands in the listed order, which
 *   matters for non-commutative operators). dst may be one of the inputs, exactly.
 * - `round` is the algorithm's communication step (for rendering, statistics and
 *   the loosely synchronous models); `phase` names the algorithm phase.
 */

export type CollectiveKind =
  | 'barrier'
  | 'bcast'
  | 'reduce'
  | 'allreduce'
  | 'allgather'
  | 'reduce_scatter'
  | 'gather'
  | 'scatter'
  | 'alltoall'
  | 'scan'
  | 'exscan';

export const COLLECTIVES: readonly CollectiveKind[] = Object.freeze([
  'barrier', 'bcast', 'reduce', 'allreduce', 'allgather', 'reduce_scatter', 'gather', 'scatter', 'alltoall', 'scan', 'exscan',
]);

/** Buffer ids with a fixed meaning. */
export const IN = 0;
export const OUT = 1;

export interface Region {
  readonly buf: number;
  readonly offset: number;
  readonly count: number;
}

interface StepBase {
  /** Steps of this rank (indices into `steps`) that must complete first. */
  readonly deps: readonly number[];
  readonly round: number;
  readonly phase?: string;
}

export interface SendStep extends StepBase {
  readonly kind: 'send';
  readonly peer: number;
  readonly region: Region;
  /**
   * One of the sends of a multicast: the sends of one step group marked so — same
   * region, same deps (and round), each to another peer as that peer's message of the
   * same index — may be carried as one multicast by a transport that has one (the
   * runtime executor posts them as one `Endpoint.imcast`). Consumers that do not know
   * multicast treat them as ordinary sends, which is also the transport's fallback.
   */
  readonly multicast?: true;
}

export interface RecvStep extends StepBase {
  readonly kind: 'recv';
  readonly peer: number;
  readonly region: Region;
}

export interface ReduceStep extends StepBase {
  readonly kind: 'reduce';
  /** Operands in order: dst = inputs[0] ∘ inputs[1] ∘ … (at least two). */
  readonly inputs: readonly Region[];
  readonly dst: Region;
}

export interface CopyStep extends StepBase {
  readonly kind: 'copy';
  readonly src: Region;
  readonly dst: Region;
}

export type Step = SendStep | RecvStep | ReduceStep | CopyStep;
export type StepKind = Step['kind'];

export interface BufferDecl {
  readonly name: string;
  /** Size in elements. */
  readonly count: number;
}

export interface RankSchedule {
  readonly collective: CollectiveKind;
  readonly algorithm: string;
  readonly rank: number;
  readonly size: number;
  /** Index = buffer id (0 = in, 1 = out, 2.. scratch). */
  readonly buffers: readonly BufferDecl[];
  readonly steps: readonly Step[];
  /** Number of rounds (max step round + 1; 0 for an empty schedule). */
  readonly rounds: number;
}

/** All ranks' schedules of one collective call. */
export type Schedule = readonly RankSchedule[];

export function stepRegions(step: Step): { reads: readonly Region[]; writes: readonly Region[] } {
  switch (step.kind) {
    case 'send':
      return { reads: [step.region], writes: [] };
    case 'recv':
      return { reads: [], writes: [step.region] };
    case 'reduce':
      return { reads: step.inputs, writes: [step.dst] };
    case 'copy':
      return { reads: [step.src], writes: [step.dst] };
  }
}

export function describeRegion(r: Region, buffers?: readonly BufferDecl[]): string {
  const name = buffers?.[r.buf]?.name ?? `b${r.buf}`;
  return `${name}[${r.offset}..${r.offset + r.count})`;
}

export function describeStep(step: Step, buffers?: readonly BufferDecl[]): string {
  switch (step.kind) {
    case 'send':
      return `send ${describeRegion(step.region, buffers)} -> ${step.peer}${step.multicast ? ' (multicast)' : ''}`;
    case 'recv':
      return `recv ${describeRegion(step.region, buffers)} <- ${step.peer}`;
    case 'reduce':
      return `reduce ${describeRegion(step.dst, buffers)} = ${step.inputs.map((r) => describeRegion(r, buffers)).join(' ∘ ')}`;
    case 'copy':
      return `copy ${describeRegion(step.dst, buffers)} = ${describeRegion(step.src, buffers)}`;
  }
}
