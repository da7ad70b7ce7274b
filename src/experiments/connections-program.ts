/**
 * Rank program of the measured connection-policy experiment (`coll experiment
 * connections --measure`, connections-measure.ts): one rank per node, and whatever
 * the config asks for after init (the job report carries the start-up figures):
 *
 * - `latency` (2 ranks, seed 003 A3.11): a barrier, then `rounds` ping-pong round trips
 *   of `bytes` between rank 0 and rank 1, each timed by rank 0 (send, then the reply's
 *   receive). Under on-demand the pair's messages go as datagrams until their count
 *   (both directions) passes the threshold, then over the connection the crossing
 *   started. Rank 0 prints `EXP LATENCY {"rttUs":[…]}`.
 * - `mix` (any size, seed 003 claim 13): a barrier, then `small` allreduces of
 *   `smallBytes` and `large` of `largeBytes` (float64 sum), timed by every rank, `passes`
 *   times over (the first pass pays any on-demand connection set-up, later ones run on
 *   the connections made); the slowest rank's time per pass, `EXP MIX {"passMs":[…]}`.
 *
 * Without either it only joins the job and leaves (a barrier), like the start-up
 * experiment's program. Argument: the JSON of a ConnectionsProgramConfig.
 */
import { init } from '../runtime/init.js';
import type { Communicator } from '../runtime/communicator.js';
import { emit, programConfig } from './program-io.js';

export interface LatencyConfig {
  readonly rounds: number;
  readonly bytes: number;
}

export interface MixConfig {
  readonly small: number;
  readonly smallBytes: number;
  readonly large: number;
  readonly largeBytes: number;
  readonly passes: number;
}

export interface ConnectionsProgramConfig {
  readonly latency?: LatencyConfig;
  readonly mix?: MixConfig;
}

export interface LatencyRecord {
  /** Round trip of each ping-pong, µs, in order (message 1 first). */
  readonly rttUs: number[];
}

export interface MixRecord {
  /** The slowest rank's time of each pass of the mix, ms. */
  readonly passMs: number[];
}

const TAG = 7;

function pingPong(comm: Communicator, c: LatencyConfig): void {
  if (comm.size < 2) throw new Error('the latency measurement needs 2 ranks');
  const buf = new Uint8Array(Math.max(1, c.bytes));
  const rtt: number[] = [];
  comm.barrier();
  for (let i = 0; i < c.rounds; i++) {
    if (comm.rank === 0) {
      buf[0] = i & 0xff;
      const t0 = performance.now();
      comm.send(buf, 1, TAG);
      comm.recv(buf, 1, TAG);
      rtt.push((performance.now() - t0) * 1000);
      if (buf[0] !== ((i + 1) & 0xff)) throw new Error(`ping-pong ${i + 1}: reply carries ${buf[0]}, expected ${(i + 1) & 0xff}`);
    } else if (comm.rank === 1) {
      comm.recv(buf, 0, TAG);
      buf[0] = (buf[0] + 1) & 0xff;
      comm.send(buf, 0, TAG);
    }
  }
  emit(comm, 'LATENCY', { rttUs: rtt.map((x) => Math.round(x * 10) / 10) } satisfies LatencyRecord);
}

function mix(comm: Communicator, c: MixConfig): void {
  const small = comm.alloc('float64', Math.max(1, Math.floor(c.smallBytes / 8)));
  const smallOut = comm.alloc('float64', small.length);
  const large = comm.alloc('float64', Math.max(1, Math.floor(c.largeBytes / 8)));
  const largeOut = comm.alloc('float64', large.length);
  small.fill(comm.rank + 1);
  large.fill(comm.rank + 1);
  const expected = (comm.size * (comm.size + 1)) / 2;
  const passMs: number[] = [];
  comm.barrier();
  for (let p = 0; p < c.passes; p++) {
    const t0 = performance.now();
    for (let i = 0; i < c.small; i++) comm.allreduce(small, smallOut);
    for (let i = 0; i < c.large; i++) comm.allreduce(large, largeOut);
    const ms = performance.now() - t0;
    if (smallOut[0] !== expected || largeOut[large.length - 1] !== expected) throw new Error(`allreduce gave ${smallOut[0]} / ${largeOut[large.length - 1]}, expected ${expected}`);
    const slowest = comm.allreduce(Float64Array.of(ms), null, { op: 'max' });
    passMs.push(Math.round(slowest[0] * 100) / 100);
    comm.barrier();
  }
  emit(comm, 'MIX', { passMs } satisfies MixRecord);
  for (const b of [small, smallOut, large, largeOut]) comm.free(b);
}

export function runConnectionsProgram(comm: Communicator, c: ConnectionsProgramConfig): void {
  if (c.latency) pingPong(comm, c.latency);
  if (c.mix) mix(comm, c.mix);
  if (!c.latency && !c.mix) comm.barrier();
}

const config = programConfig<ConnectionsProgramConfig>();
if (config) runConnectionsProgram(init(), config);
