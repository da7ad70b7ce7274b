/**
 * The measurement jigs' output protocol: a rank program prints one JSON object per
 * line after the marker `COLLFIT ` (the launcher prefixes `[rank] `); `coll fit`
 * collects those lines from the job's stdout and checks their shape. Anything else
 * on stdout is ignored, so a jig may also print human-readable progress.
 *
 * Records:
 * - `pingpong`: one-way seconds (half the median round trip) for `bytes`;
 * - `serial`: seconds of one serial reduction at the root (seed 000 §3.2.1) for P
 *   ranks and the series `op/dtype/count` ("noop/float64/1" for the NOP series);
 * - `nbl`: seconds of one exchange step of the NBL testjig (seed 004 Table 1) with
 *   L active links and blocks of S doubles;
 * - `loggp`: the gap g(b) per message of a burst (seconds), the time in send (oSend)
 *   and in recv of an arrived message (oRecv), and the round trip (rtt), for `bytes`.
 * Every record also carries `reps` (samples behind the median) and `spread`
 * ((p90 − p10) / median, a noise indicator).
 */
import { CollectivesError, type ErrorCode } from '../../core/errors.js';

export const JIG_MARKER = 'COLLFIT ';

export interface PingPongRecord {
  readonly jig: 'pingpong';
  readonly bytes: number;
  readonly seconds: number;
  readonly reps: number;
  readonly spread: number;
}

export interface SerialRecord {
  readonly jig: 'serial';
  readonly P: number;
  readonly series: string;
  readonly seconds: number;
  readonly reps: number;
  readonly spread: number;
}

export interface NblRecord {
  readonly jig: 'nbl';
  readonly L: number;
  readonly S: number;
  readonly seconds: number;
  readonly reps: number;
  readonly spread: number;
}

/** LogGP between two ranks: seconds = the gap g(b) per message of a burst. */
export interface LogGPRecord {
  readonly jig: 'loggp';
  readonly bytes: number;
  readonly seconds: number;
  /** Median seconds in send (o_s) and in recv of an arrived message (o_r). */
  readonly oSend: number;
  readonly oRecv: number;
  /** Median round trip of a b-byte message and an empty acknowledgement. */
  readonly rtt: number;
  readonly reps: number;
  readonly spread: number;
}

export type JigRecord = PingPongRecord | SerialRecord | NblRecord | LogGPRecord;
export type JigName = JigRecord['jig'];

/**
 * A measurement job failed (code RANK_FAILED or TIMEOUT) or printed output that is
 * not what the jig promises (code ARGUMENT: the output is malformed).
 */
export class JigError extends CollectivesError {
  constructor(message: string, hint?: string, code: ErrorCode = 'ARGUMENT') {
    super(code, message, hint);
  }
}

/** Print a record (rank programs). */
export function emitRecord(r: JigRecord): void {
  console.log(`${JIG_MARKER}${JSON.stringify(r)}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(o: Record<string, unknown>, k: string, line: number, min = 0): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    throw new JigError(`jig output line ${line}: field '${k}' must be a finite number ≥ ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** Check one parsed object; `line` is for error messages. */
export function toRecord(o: unknown, line: number): JigRecord {
  if (!isRecord(o)) throw new JigError(`jig output line ${line}: expected a JSON object`);
  const common = { seconds: num(o, 'seconds', line), reps: num(o, 'reps', line, 1), spread: num(o, 'spread', line) };
  switch (o.jig) {
    case 'pingpong':
      return { jig: 'pingpong', bytes: num(o, 'bytes', line), ...common };
    case 'serial': {
      if (typeof o.series !== 'string' || o.series.split('/').length !== 3) {
        throw new JigError(`jig output line ${line}: field 'series' must be "op/dtype/count", got ${JSON.stringify(o.series)}`);
      }
      return { jig: 'serial', P: num(o, 'P', line, 2), series: o.series, ...common };
    }
    case 'nbl':
      return { jig: 'nbl', L: num(o, 'L', line, 1), S: num(o, 'S', line, 1), ...common };
    case 'loggp':
      return { jig: 'loggp', bytes: num(o, 'bytes', line), oSend: num(o, 'oSend', line), oRecv: num(o, 'oRecv', line), rtt: num(o, 'rtt', line), ...common };
    default:
      throw new JigError(`jig output line ${line}: unknown jig ${JSON.stringify(o.jig)}`);
  }
}

/**
 * The records of one jig in a job's stdout (lines without the marker are skipped).
 * Malformed marked lines are errors, not silently dropped; so is a job that printed
 * no record of `jig` at all.
 */
export function parseJigOutput<K extends JigName>(stdout: string, jig: K): Extract<JigRecord, { jig: K }>[] {
  const out: Extract<JigRecord, { jig: K }>[] = [];
  const lines = stdout.split('\n');
  lines.forEach((l, i) => {
    const at = l.indexOf(JIG_MARKER);
    if (at < 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(l.slice(at + JIG_MARKER.length));
    } catch (e) {
      throw new JigError(`jig output line ${i + 1} is not valid JSON after '${JIG_MARKER.trim()}': ${(e as Error).message}`, l.slice(0, 200));
    }
    const r = toRecord(parsed, i + 1);
    if (r.jig !== jig) throw new JigError(`jig output line ${i + 1}: expected a '${jig}' record, got '${r.jig}'`);
    out.push(r as Extract<JigRecord, { jig: K }>);
  });
  if (out.length === 0) throw new JigError(`the ${jig} jig printed no '${JIG_MARKER.trim()}' records`, 'the job ended normally but measured nothing; run it with `coll run` to see its output');
  return out;
}
