/**
 * Rank program: two nonblocking intermediate-mode calls outstanding at once.
 *
 *   intermediate-order.ts <marker dir>     (3 ranks on 2 nodes: {0, 1} and {2})
 *
 * Every rank posts an iallreduce and then an ireduce in intermediate mode (on two nodes
 * both nodes play host roles: the node's ranks combine over a per-node communicator and
 * one rank per node runs the inter-node steps). Rank 2, alone on node 1, posts only
 * after ranks 0 and 1 have posted both calls, so on node 0 the inter-node part of the
 * allreduce cannot finish before the reduce is posted. MPI allows any number of
 * outstanding nonblocking collectives; both must complete with the right results.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../helpers/rank-api.js';
import { Report } from '../../runtime/programs/cases.js';

const dir = process.argv[2];
const world = init({ timeoutMs: Number(process.env.ORDER_TIMEOUT_MS ?? 20_000) });
const report = new Report(world);
const P = world.size;
const me = world.rank;
const N = 4;

// The first intermediate call creates the per-node communicator (a blocking collective): do it once here.
world.barrier({ mode: 'intermediate' });

const cell = new Int32Array(new SharedArrayBuffer(4));
const marker = (r: number): string => join(dir, `posted-${r}`);
if (me === P - 1) {
  const end = Date.now() + 30_000;
  while (!Array.from({ length: P - 1 }, (_, r) => r).every((r) => existsSync(marker(r))) && Date.now() < end) Atomics.wait(cell, 0, 0, 2);
}
const a = Float64Array.from({ length: N }, (_, i) => me + i);
const ar = new Float64Array(N);
const b = Int32Array.from({ length: 2 * N }, (_, i) => me * 10 + i);
const br = new Int32Array(2 * N);
const r1 = world.iallreduce(a, ar, { mode: 'intermediate' });
const r2 = world.ireduce(b, me === 0 ? br : null, { mode: 'intermediate', op: 'max', root: 0 });
writeFileSync(marker(me), '');
for (const [name, req, check] of [
  ['iallreduce', r1, () => ar.every((v, i) => v === (P * (P - 1)) / 2 + P * i)],
  ['ireduce', r2, () => me !== 0 || br.every((v, i) => v === (P - 1) * 10 + i)],
] as const) {
  try {
    await req;
    report.ok(check(), `${name}: wrong result on rank ${me}`);
  } catch (e) {
    report.ok(false, `${name} on rank ${me}: ${(e as Error).message}`);
  }
}
report.print();
