/**
 * Typed errors. Every error carries a stable `code` and a `hint` that tells the
 * user what to do about it; messages name the offending value and the accepted range.
 */

export type ErrorCode =
  | 'ARGUMENT'
  | 'DATATYPE'
  | 'OP'
  | 'UNKNOWN_ALGORITHM'
  | 'RESTRICTION'
  | 'SCHEDULE'
  | 'MISMATCH'
  | 'TIMEOUT'
  | 'RANK_FAILED'
  | 'DEADLOCK'
  | 'TRANSPORT'
  | 'CHECKPOINT'
  | 'IO'
  | 'ABORTED';

export class CollectivesError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, hint?: string) {
    super(hint ? `${message}\n  hint: ${hint}` : message);
    this.name = new.target.name;
    this.code = code;
    this.hint = hint;
  }
}

/** A function argument is invalid (count, rank, buffer size, option value ...). */
export class ArgumentError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('ARGUMENT', message, hint);
  }
}

/** An unknown datatype name, or a buffer that does not fit the datatype. */
export class DatatypeError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('DATATYPE', message, hint);
  }
}

/** A reduction operator that is unknown or not defined for the datatype (e.g. bitwise on floats). */
export class OpError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('OP', message, hint);
  }
}

export class UnknownAlgorithmError extends CollectivesError {
  readonly algorithm: string;
  constructor(algorithm: string, collective: string | undefined, known: readonly string[]) {
    super(
      'UNKNOWN_ALGORITHM',
      `unknown algorithm '${algorithm}'${collective ? ` for ${collective}` : ''}`,
      `known algorithms: ${known.join(', ')} (run 'coll algorithms' to list them)`,
    );
    this.algorithm = algorithm;
  }
}

/** The configuration violates a declared restriction of the chosen algorithm. */
export class RestrictionError extends CollectivesError {
  readonly algorithm: string;
  readonly restriction: string;
  constructor(algorithm: string, restriction: string, detail: string, hint?: string) {
    super('RESTRICTION', `algorithm '${algorithm}' requires ${restriction}: ${detail}`, hint);
    this.algorithm = algorithm;
    this.restriction = restriction;
  }
}

/** A schedule is malformed: out-of-bounds region, unmatched message, race, or deadlock. */
export class ScheduleError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('SCHEDULE', message, hint);
  }
}

/** Ranks disagree about a collective call (kind, count, datatype, op or root). */
export class MismatchError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('MISMATCH', message, hint);
  }
}

/** A peer did not arrive in time. `missingRanks` names who was waited for. */
export class TimeoutError extends CollectivesError {
  readonly missingRanks: readonly number[];
  constructor(message: string, missingRanks: readonly number[], hint?: string) {
    super('TIMEOUT', `${message}; missing ranks: [${missingRanks.join(', ')}]`, hint);
    this.missingRanks = missingRanks;
  }
}

/** Another rank of the job failed; this rank's operation cannot complete. */
export class RankFailedError extends CollectivesError {
  readonly failedRank: number;
  /** `failedRank` −1: a node thread that is not a rank (the offload engine) failed; `reason` says which. */
  constructor(failedRank: number, reason: string) {
    super('RANK_FAILED', failedRank >= 0 ? `rank ${failedRank} failed: ${reason}` : reason);
    this.failedRank = failedRank;
  }
}

/** A schedule cannot make progress (reported with the stuck ranks and steps). */
export class DeadlockError extends CollectivesError {
  readonly stuck: readonly { rank: number; step: number; description: string }[];
  constructor(stuck: readonly { rank: number; step: number; description: string }[]) {
    const shown = stuck.slice(0, 8).map((s) => `rank ${s.rank} step ${s.step} (${s.description})`);
    super(
      'DEADLOCK',
      `schedule cannot make progress: ${stuck.length} stuck step(s): ${shown.join('; ')}${stuck.length > 8 ? '; ...' : ''}`,
    );
    this.stuck = stuck;
  }
}

export class TransportError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('TRANSPORT', message, hint);
  }
}

/** Throw an ArgumentError unless `value` is a non-negative safe integer. */
export function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ArgumentError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
}

/** Throw an ArgumentError unless `value` is an integer in [lo, hi]. */
export function checkIntRange(name: string, value: number, lo: number, hi: number): void {
  if (!Number.isSafeInteger(value) || value < lo || value > hi) {
    throw new ArgumentError(`${name} must be an integer in [${lo}, ${hi}], got ${String(value)}`);
  }
}

/** A checkpoint cannot be taken or loaded (a receive left pending, a corrupted or truncated file, another rank count). */
export class CheckpointError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('CHECKPOINT', message, hint);
  }
}
