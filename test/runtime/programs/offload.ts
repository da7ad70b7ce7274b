/**
 * Rank program: every offloaded collective (barrier, bcast, reduce, allreduce,
 * allgather) in offload and intermediate mode, blocking and nonblocking, shared and
 * private buffers, several datatypes/operators, counts and roots, named inter-node
 * algorithms, on the world, an uneven split and a communicator whose ranks are not in
 * node order; results against the sequential reference. Then the mode rules: per
 * communicator modes fall back to the host for calls the engine cannot run, explicit
 * per-call modes raise RestrictionError.
 */
import { defineOp, init, type Communicator, type DatatypeName, type ExecutionMode } from '../../helpers/rank-api.js';
import { isRooted } from '../../../src/schedule/context.js';
import { checkCase, describeCase, Report, type Case } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const quick = process.argv.includes('quick');
let seed = 1;

async function check(comm: Communicator, c: Case, tag: string): Promise<void> {
  await checkCase(report, comm, c, `${tag} P=${comm.size} ${describeCase(c)} mode=${c.mode}${c.nonblocking ? ' nb' : ''}${c.shared ? ' shared' : ''}`);
}

function cases(P: number, nodes: number, mode: ExecutionMode): Case[] {
  const out: Case[] = [];
  const roots = [...new Set([0, P - 1, Math.floor(P / 2)])];
  const counts = quick ? [1, 7] : [0, 1, 7, 1000];
  const types: { datatype: DatatypeName; op?: string }[] = [{ datatype: 'float64', op: 'sum' }, { datatype: 'int32', op: 'max' }, { datatype: 'float64_int32', op: 'minloc' }];
  const inter: Record<string, (string | undefined)[]> = {
    barrier: [undefined, 'dissemination', 'linear'],
    bcast: [undefined, 'binomial', 'chain'],
    reduce: [undefined, 'fnomial', 'binomial'],
    allreduce: [undefined, 'recursive_doubling', 'reduce_bcast', 'ring'],
    // The inter-node schedule runs over the NODES: recursive doubling needs a power-of-two node count.
    allgather: [undefined, 'ring', 'bruck', ...((nodes & (nodes - 1)) === 0 ? ['recursive_doubling'] : [])],
  };
  for (const collective of ['barrier', 'bcast', 'reduce', 'allreduce', 'allgather'] as const) {
    for (const algorithm of inter[collective]) {
      for (const count of collective === 'barrier' ? [0] : counts) {
        for (const root of isRooted(collective) ? roots : [0]) {
          const ts = collective === 'reduce' || collective === 'allreduce' ? types : [{ datatype: 'int32' as const }, { datatype: 'float64_int32' as const }];
          for (const t of ts) {
            const k = seed++;
            out.push({ collective, algorithm, count, root, ...t, mode, nonblocking: k % 3 === 0, shared: k % 2 === 0, seed: k });
          }
        }
      }
    }
  }
  out.push({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, count: 3, root: P - 1, datatype: 'float64', op: 'sum', mode, seed: seed++ });
  out.push({ collective: 'allreduce', count: 40000, datatype: 'float64', op: 'sum', mode, shared: true, seed: seed++ });
  out.push({ collective: 'allreduce', count: 40000, datatype: 'float64', op: 'sum', mode, nonblocking: true, seed: seed++ });
  return out;
}

async function suite(comm: Communicator, tag: string): Promise<void> {
  seed = 1; // inputs must agree across the ranks of the communicator (not every rank runs every suite)
  for (const mode of ['offload', 'intermediate'] as const) for (const c of cases(comm.size, comm.nodeCount, mode)) await check(comm, c, tag);
}

await suite(world, 'world');
// An uneven split (ranks 0, 2, 4, ...) and a communicator in reverse rank order (nodes not contiguous in rank order).
const even = world.split(world.rank % 2 === 0 ? 0 : null);
if (even) await suite(even, 'even');
const reversed = world.split(0, world.size - world.rank) as Communicator;
await suite(reversed, 'reversed');

// Mode rules.
const PERM = defineOp('offload-perm', { commutative: false, datatypes: ['int32'], combine: (a, b) => Number(a) * 2 + Number(b) });
await report.throws('RestrictionError', 'gather in offload mode', 'explicit offload gather', () => world.gather(new Int32Array(1), new Int32Array(world.size), { mode: 'offload' }));
await report.throws('RestrictionError', 'built-in operator', 'user-defined op offloaded', () => world.allreduce(new Int32Array(2), null, { mode: 'offload', op: PERM }));
await report.throws('ArgumentError', 'unknown execution mode', 'unknown mode', () => world.barrier({ mode: 'nic' as ExecutionMode }));
const dup = world.dup().setMode('offload');
report.ok(dup.mode === 'offload', 'setMode');
const all = new Int32Array(world.size);
dup.gather(Int32Array.of(world.rank * 3), world.rank === 0 ? all : null); // falls back to the host
report.ok(world.rank !== 0 || all.every((v, r) => v === r * 3), 'gather on an offload communicator runs on the host');
const v = dup.allreduce(Int32Array.of(world.rank + 1));
report.ok(v[0] === (world.size * (world.size + 1)) / 2, 'allreduce on an offload communicator');
const sub = dup.split(0);
report.ok(sub?.mode === 'offload', 'split inherits the mode');
report.print();
