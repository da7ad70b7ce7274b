/**
 * Rank program of the multicast experiment (`coll experiment multicast`,
 * multicast-measure.ts; seed 003 ch. 5): one rank per node process, the root rank 0,
 * and a list of cases run in order, each a broadcast of `bytes` with one algorithm
 * (`multicast`: the node's UDP multicast agent; `binomial`: the point-to-point tree
 * over the node links):
 *
 * 1. `warmup` untimed calls (the seed: 20);
 * 2. `samples` samples of `calls` back-to-back broadcasts, each sample after a barrier
 *    (the seed's method: 1000 broadcasts per sample); a sample's time is the slowest
 *    rank's, from leaving the barrier to its last call's return, divided by `calls`;
 *    with `gapUs` the root sleeps that long before each call (Atomics.wait, so the
 *    receivers get the CPU): the broadcasts come at a pace the receivers can follow,
 *    which sets claim 3's time to use up a channel set;
 * 3. `single` calls each after a barrier, each timed by every rank; a call's latency is
 *    the slowest rank's (the root returns once its message is buffered, so this is the
 *    last receiver's wait from its barrier exit).
 *
 * Every call's data is checked. `verify: 'ends'` (timing runs): the root writes the
 * call's number into the first bytes and the last byte of a fixed pattern, receivers
 * check those after each call and the whole buffer after each sample; `verify: 'full'`
 * (fault runs): the root writes a pattern that depends on the call into every byte,
 * receivers zero their buffer before each call and check every byte after it. Rank 0
 * prints `EXP CASE {…}` per case (McastCaseRecord) with the errors summed over ranks.
 * Argument: the JSON of a McastProgramConfig.
 */
import { init } from '../runtime/init.js';
import type { Communicator } from '../runtime/communicator.js';
import { emit, programConfig } from './program-io.js';

export type McastAlgorithm = 'multicast' | 'binomial';

export interface McastCase {
  /** A label echoed in the record. */
  readonly name: string;
  readonly algorithm: McastAlgorithm;
  readonly bytes: number;
  readonly warmup: number;
  readonly samples: number;
  readonly calls: number;
  /** Calls each after a barrier, timed one by one (0 or absent: none). */
  readonly single?: number;
  /** The root sleeps this long before each back-to-back call (µs). */
  readonly gapUs?: number;
  /** 'ends' (default): the call number in the first and last bytes; 'full': every byte, every call. */
  readonly verify?: 'ends' | 'full';
}

export interface McastProgramConfig {
  readonly cases: readonly McastCase[];
}

export interface McastCaseRecord {
  readonly name: string;
  readonly algorithm: McastAlgorithm;
  readonly bytes: number;
  /** Back-to-back calls per sample. */
  readonly calls: number;
  /** Per sample: the slowest rank's time per call, µs. */
  readonly sampleUs: number[];
  /** Per single call: the slowest rank's time, µs. */
  readonly singleUs: number[];
  /** Calls whose data was wrong on some rank (summed over ranks), and calls checked. */
  readonly errors: number;
  readonly checked: number;
  /** Wall time of the case on rank 0, ms. */
  readonly ms: number;
}

const ROOT = 0;

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** Sleep without spinning (the receivers share the CPUs). */
function sleepUs(us: number): void {
  if (us > 0) Atomics.wait(SLEEPER, 0, 0, us / 1000);
}

/** The fixed pattern's byte j (timing runs). */
const base = (j: number): number => (j * 7 + 3) & 0xff;
/** The full pattern of call i, byte j (fault runs). */
const full = (i: number, j: number): number => (j * 7 + i * 13 + 5) & 0xff;

class CaseBuffer {
  readonly b: Uint8Array;
  errors = 0;
  checked = 0;

  constructor(
    private readonly comm: Communicator,
    readonly c: McastCase,
  ) {
    this.b = new Uint8Array(Math.max(1, c.bytes));
    if (comm.rank === ROOT || c.verify !== 'full') for (let j = 0; j < this.b.length; j++) this.b[j] = comm.rank === ROOT ? base(j) : 0;
  }

  /** Before call i. */
  prepare(i: number): void {
    const b = this.b;
    if (this.c.verify === 'full') {
      if (this.comm.rank === ROOT) for (let j = 0; j < b.length; j++) b[j] = full(i, j);
      else b.fill(0);
      return;
    }
    if (this.comm.rank !== ROOT) return;
    this.stamp(i);
  }

  private stamp(i: number): void {
    const b = this.b;
    if (b.length >= 5) {
      b[0] = i & 0xff;
      b[1] = (i >>> 8) & 0xff;
      b[2] = (i >>> 16) & 0xff;
      b[3] = (i >>> 24) & 0xff;
      b[b.length - 1] = (i * 3) & 0xff;
    } else b[0] = i & 0xff;
  }

  /** After call i. */
  check(i: number): void {
    if (this.comm.rank === ROOT) return;
    const b = this.b;
    this.checked++;
    let ok = true;
    if (this.c.verify === 'full') {
      for (let j = 0; j < b.length && ok; j++) ok = b[j] === full(i, j);
    } else if (b.length >= 5) {
      ok = b[0] === (i & 0xff) && b[1] === ((i >>> 8) & 0xff) && b[2] === ((i >>> 16) & 0xff) && b[3] === ((i >>> 24) & 0xff) && b[b.length - 1] === ((i * 3) & 0xff);
    } else ok = b[0] === (i & 0xff);
    if (!ok) this.errors++;
  }

  /** After a run of calls ending with call i ('ends'): the whole buffer. */
  checkAll(i: number): void {
    if (this.comm.rank === ROOT || this.c.verify === 'full') return;
    const b = this.b;
    const head = b.length >= 5 ? 4 : 1;
    const tail = b.length >= 5 ? b.length - 1 : b.length;
    let ok = true;
    for (let j = head; j < tail && ok; j++) ok = b[j] === base(j);
    this.checked++;
    if (!ok) this.errors++;
    this.check(i);
  }
}

export function runCase(comm: Communicator, c: McastCase): McastCaseRecord {
  const t0 = performance.now();
  const buf = new CaseBuffer(comm, c);
  const o = { root: ROOT, algorithm: c.algorithm };
  let i = 0;
  const call = (): void => {
    buf.prepare(i);
    comm.bcast(buf.b, o);
    buf.check(i);
    i++;
  };
  comm.barrier();
  for (let w = 0; w < c.warmup; w++) call();
  const sampleUs: number[] = [];
  for (let s = 0; s < c.samples; s++) {
    comm.barrier();
    const a = performance.now();
    for (let k = 0; k < c.calls; k++) {
      if (comm.rank === ROOT) sleepUs(c.gapUs ?? 0);
      call();
    }
    const us = ((performance.now() - a) * 1000) / Math.max(1, c.calls);
    sampleUs.push(us);
    buf.checkAll(i - 1);
  }
  const single = new Float64Array(c.single ?? 0);
  for (let k = 0; k < single.length; k++) {
    comm.barrier();
    const a = performance.now();
    call();
    single[k] = (performance.now() - a) * 1000;
  }
  const slowest = sampleUs.length > 0 ? comm.allreduce(Float64Array.from(sampleUs), null, { op: 'max' }) : new Float64Array(0);
  const slowestSingle = single.length > 0 ? comm.allreduce(single, null, { op: 'max' }) : new Float64Array(0);
  const errs = comm.allreduce(Float64Array.of(buf.errors, buf.checked), null, { op: 'sum' });
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  const rec: McastCaseRecord = {
    name: c.name,
    algorithm: c.algorithm,
    bytes: c.bytes,
    calls: c.calls,
    sampleUs: Array.from(slowest, r2),
    singleUs: Array.from(slowestSingle, r2),
    errors: errs[0],
    checked: errs[1],
    ms: r2(performance.now() - t0),
  };
  emit(comm, 'CASE', rec);
  return rec;
}

export function runMcastProgram(comm: Communicator, config: McastProgramConfig): void {
  for (const c of config.cases) runCase(comm, c);
  comm.barrier();
}

const config = programConfig<McastProgramConfig>();
if (config) runMcastProgram(init(), config);
