/**
 * Rank program: mismatched collective calls WITHOUT debug mode. The last rank
 * deviates in one argument (datatype, op, root, collective, count); each case runs
 * on a fresh dup of the world communicator (after a default-mode mismatch the
 * communicator is not to be used again) with a short timeout, small (the one-node
 * flat shared-memory path, and the typed-array allreduce lane), large (schedule
 * messages, zero-copy on one node) and with a named algorithm (schedule messages,
 * small). Every rank reports how its call ended; the world then gathers the
 * outcomes: at least one rank must raise MismatchError naming the mismatch (or, for
 * the schedule cases where the ranks only wait for each other, a timeout), no rank
 * another error than MismatchError or TimeoutError, and where every rank reads
 * everyone's data (allreduce) no rank may return normally.
 */
import { init, type Communicator } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const P = world.size;
const me = world.rank;
const odd = me === P - 1;
/**
 * Timeout of the mismatched calls (ranks left waiting by a peer that detected the
 * mismatch): most cases end with some rank waiting it out, so it sets the job's length.
 * A detection needs only the peer's message, posted right after the previous case's
 * allgather; every case still detects with 250 ms on 2 loaded cores (two other jobs and
 * two busy loops beside it).
 */
const T = 400;

type Outcome = 'ok' | 'mismatch' | 'timeout' | 'other';
const CODES: Outcome[] = ['ok', 'mismatch', 'timeout', 'other'];

interface MismatchCase {
  name: string;
  /** Every rank reads every rank's data: a normal return would be a wrong answer. */
  everyoneReads: boolean;
  /**
   * On the schedule path the mismatched ranks may only wait for each other (say, two
   * ranks that each expect the other to send): a timeout, not a wrong answer.
   */
  scheduleMayTimeOut?: boolean;
  run: (c: Communicator, n: number, algorithm: string | undefined) => unknown;
}

const CASES: MismatchCase[] = [
  {
    name: 'datatype int32/float32',
    everyoneReads: true,
    run: (c, n, algorithm) => c.allreduce(odd ? new Float32Array(n).fill(1) : new Int32Array(n).fill(1), null, { algorithm, timeoutMs: T }),
  },
  { name: 'op sum/max', everyoneReads: true, run: (c, n, algorithm) => c.allreduce(new Int32Array(n).fill(1), null, { op: odd ? 'max' : 'sum', algorithm, timeoutMs: T }) },
  { name: 'count', everyoneReads: true, run: (c, n, algorithm) => c.allreduce(new Int32Array(odd ? n + 1 : n).fill(1), null, { algorithm, timeoutMs: T }) },
  { name: 'typed-array lane count', everyoneReads: true, run: (c, n) => c.allreduce(new Float64Array(odd ? n + 1 : n).fill(1), null, { timeoutMs: T }) },
  {
    name: 'reduce root',
    everyoneReads: false,
    scheduleMayTimeOut: true,
    run: (c, n, algorithm) => c.reduce(new Int32Array(n).fill(1), new Int32Array(n), { root: odd ? 1 : 0, algorithm: algorithm && 'binomial', timeoutMs: T }),
  },
  {
    name: 'collective allreduce/reduce',
    everyoneReads: false,
    scheduleMayTimeOut: true,
    run: (c, n, algorithm) => (odd ? c.reduce(new Int32Array(n).fill(1), new Int32Array(n), { root: 0, algorithm: algorithm && 'binomial', timeoutMs: T }) : c.allreduce(new Int32Array(n).fill(1), null, { algorithm, timeoutMs: T })),
  },
  {
    name: 'bcast datatype',
    everyoneReads: false,
    run: (c, n, algorithm) => c.bcast(odd ? new Float32Array(n) : new Int32Array(n), { algorithm: algorithm && 'binomial', timeoutMs: T }),
  },
];

async function outcome(fn: () => unknown): Promise<{ code: Outcome; message: string }> {
  try {
    await fn();
    return { code: 'ok', message: '' };
  } catch (e) {
    const err = e as Error;
    const code: Outcome = err.name === 'MismatchError' ? 'mismatch' : err.name === 'TimeoutError' ? 'timeout' : 'other';
    return { code, message: `${err.name}: ${err.message}` };
  }
}

for (const [variant, n, algorithm] of [
  ['small', 3, undefined],
  ['large', 40_000, undefined],
  ['named algorithm', 3, 'ring'],
] as const) {
  for (const k of CASES) {
    if (k.name === 'typed-array lane count' && variant !== 'small') continue;
    if (variant === 'named algorithm' && world.localSize < P) continue; // small calls of a multi-node communicator already send messages
    const c = world.dup();
    const { code, message } = await outcome(() => k.run(c, n, algorithm));
    const all = world.allgather(Int32Array.of(CODES.indexOf(code)), new Int32Array(P));
    const codes = Array.from(all, (i) => CODES[i]);
    const label = `${k.name} (${variant}): outcomes ${codes.join(',')}`;
    // The flat path runs small calls of one-node communicators; everything else sends messages.
    if ((variant !== 'small' || world.localSize < P) && k.scheduleMayTimeOut) report.ok(codes.includes('mismatch') || codes.includes('timeout'), `${label}: no rank noticed`);
    else report.ok(codes.includes('mismatch'), `${label}: no rank raised MismatchError`);
    report.ok(code !== 'other', `${label}: rank ${me} raised ${message}`);
    if (code === 'mismatch') report.ok(/called|different call|disagree|received a \d+-byte message/.test(message), `${label}: unclear message: ${message}`);
    if (k.everyoneReads) report.ok(code !== 'ok', `${label}: rank ${me} returned normally from a mismatched call`);
  }
}
// The world communicator is unaffected.
const x = world.allreduce(Int32Array.of(me + 1));
report.ok(x[0] === (P * (P + 1)) / 2, 'world allreduce after the mismatches');
report.print();
