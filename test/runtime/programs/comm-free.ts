/**
 * comm.free(): communicators made and freed in a loop give back their shared-memory
 * block (the largest buffer alloc() can return is the same before and after hundreds
 * of dup/free cycles, which without free() exhaust rank 0's arena slice) and their
 * offload engine slot (more offloaded communicators than the engine's 32 slots, one
 * after the other); outstanding nonblocking collectives complete first; a freed
 * communicator, the world and a double free raise ArgumentError. Argument: cycles.
 */
import { init, type Communicator } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const cycles = Number(process.argv[2] ?? 600);
const offload = world.engineStats() !== undefined;

/** The largest buffer alloc() returns (binary search over sizes in 4 KiB steps). */
function largestAlloc(comm: Communicator): number {
  let lo = 0;
  let hi = 1 << 14; // × 4 KiB = 64 MiB
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    try {
      comm.free(comm.alloc('uint8', mid * 4096));
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  return lo * 4096;
}

function sumOfRanks(comm: Communicator): number {
  return (comm.size * (comm.size - 1)) / 2;
}

function cycle(i: number): void {
  const d = i % 2 === 0 ? world.dup() : (world.split(0, world.size - world.rank) as Communicator);
  const x = Float64Array.of(d.rank);
  d.allreduce(x);
  if (x[0] !== sumOfRanks(d)) report.ok(false, `cycle ${i}: allreduce gave ${x[0]}`);
  d.free();
}
// One dup and one split first: the world's own calls inside them (an allgather for split,
// node-leader algorithms across nodes) keep a small scratch set cached on the world for
// the next call of the same shape, which is not a leak of the freed communicators.
cycle(0);
cycle(1);
world.barrier();
const before = largestAlloc(world);
for (let i = 0; i < cycles; i++) cycle(i);
world.barrier();
const after = largestAlloc(world);
report.ok(after === before, `largest alloc ${before} bytes before ${cycles} dup/free cycles, ${after} after`);

if (offload) {
  // More offloaded communicators than the engine has slots, one after the other.
  for (let i = 0; i < 40; i++) {
    const d = world.dup();
    const x = Int32Array.of(d.rank + 1);
    try {
      d.allreduce(x, null, { mode: 'offload' });
      report.ok(x[0] === (d.size * (d.size + 1)) / 2, `offloaded communicator ${i}: allreduce gave ${x[0]}`);
    } catch (e) {
      report.ok(false, `offloaded communicator ${i}: ${(e as Error).name}: ${(e as Error).message}`);
    }
    d.free();
  }
  const d = world.dup();
  d.setMode('intermediate');
  const y = Float64Array.of(1);
  d.allreduce(y);
  report.ok(y[0] === d.size, `intermediate communicator: allreduce gave ${y[0]}`);
  d.free();
}

// Outstanding nonblocking collectives complete before free() returns.
const d = world.dup();
const a = Float64Array.of(world.rank);
const b = new Float64Array(1);
const r1 = d.iallreduce(a, b);
const g = new Float64Array(d.size);
const r2 = d.iallgather(Float64Array.of(world.rank * 2), g);
d.free();
report.ok(r1.test() && r2.test(), 'free() returned with requests still outstanding');
await r1;
await r2;
report.ok(b[0] === sumOfRanks(world), `iallreduce outstanding at free() gave ${b[0]}`);
report.ok(g.every((v, i) => v === 2 * i), `iallgather outstanding at free() gave ${Array.from(g).join(',')}`);

// A freed communicator, the world and a double free.
await report.throws('ArgumentError', 'has been freed', 'allreduce on a freed communicator', () => d.allreduce(Float64Array.of(1)));
await report.throws('ArgumentError', 'has been freed', 'iallreduce on a freed communicator', () => d.iallreduce(Float64Array.of(1)));
await report.throws('ArgumentError', 'has been freed', 'dup of a freed communicator', () => d.dup());
await report.throws('ArgumentError', 'has been freed', 'send on a freed communicator', () => d.send(Float64Array.of(1), (d.rank + 1) % d.size));
await report.throws('ArgumentError', 'has been freed', 'a second free()', () => d.free());
await report.throws('ArgumentError', 'world communicator cannot be freed', 'world.free()', () => world.free());
await report.throws('ArgumentError', 'obtained from comm.alloc()', 'free(undefined)', () => world.free(undefined as unknown as ArrayBufferView));
report.ok(d.isFreed && !world.isFreed, 'isFreed');

// The world is unaffected.
const z = Float64Array.of(1);
world.allreduce(z);
report.ok(z[0] === world.size, `world allreduce after the frees gave ${z[0]}`);
report.print();
