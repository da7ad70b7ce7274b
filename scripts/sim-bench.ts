/**
 * Simulator benchmark (not a test): `npx tsx scripts/sim-bench.ts [--quick]`.
 *
 * Targets (issue 6): 8-byte recursive-doubling allreduce over 1024 ranks on the fat
 * tree < 50 ms; 65,536-rank dissemination barrier < 3 s; 1,048,576-rank binomial
 * broadcast < 5 s with memory < 4 GB. Reports wall time (cold = first run in the
 * process, including schedule generation; warm = best of the repeats), events and
 * events per second, simulated time and peak RSS.
 */
import { getPreset, simulate, type SimOptions } from '../src/sim/index.js';

interface Case {
  readonly name: string;
  readonly target: number;
  readonly o: SimOptions;
  readonly repeats: number;
}

const quick = process.argv.includes('--quick');

const cases: Case[] = [
  {
    name: 'allreduce/recursive_doubling 8 B, 1024 ranks, fat tree (simgrid-ft), contention',
    target: 0.05,
    repeats: 10,
    o: { collective: 'allreduce', algorithm: 'recursive_doubling', machine: getPreset('simgrid-ft'), procs: 1024, bytes: 8 },
  },
  {
    name: 'allreduce/recursive_doubling 8 B, 1024 ranks, ALC 4-ary 5-tree, contention',
    target: 0.05,
    repeats: 10,
    o: { collective: 'allreduce', algorithm: 'recursive_doubling', machine: getPreset('alc'), procs: 1024, ppn: 2, bytes: 8 },
  },
  {
    name: 'barrier/dissemination, 65,536 ranks (loggopsim)',
    target: 3,
    repeats: quick ? 1 : 2,
    o: { collective: 'barrier', algorithm: 'dissemination', machine: getPreset('loggopsim'), procs: 65536, contention: false },
  },
  {
    name: 'bcast/binomial 8 B, 1,048,576 ranks (loggopsim)',
    target: 5,
    repeats: 1,
    o: { collective: 'bcast', algorithm: 'binomial', machine: getPreset('loggopsim'), procs: 1 << 20, bytes: 8, contention: false },
  },
];

let allOk = true;
for (const c of cases) {
  const walls: number[] = [];
  let events = 0;
  let time = 0;
  for (let i = 0; i < c.repeats; i++) {
    const t0 = performance.now();
    const r = simulate(c.o);
    walls.push((performance.now() - t0) / 1000);
    events = r.first.events;
    time = r.first.time;
  }
  const cold = walls[0];
  const warm = Math.min(...walls);
  const rss = process.memoryUsage().rss / 1024 ** 3;
  const ok = warm < c.target;
  allOk &&= ok;
  console.log(
    `${ok ? 'OK  ' : 'SLOW'} ${c.name}\n     simulated ${(time * 1e6).toFixed(3)} µs; wall cold ${(cold * 1000).toFixed(1)} ms, warm ${(warm * 1000).toFixed(1)} ms (target ${c.target * 1000} ms); ` +
      `${events} events, ${(events / warm / 1e6).toFixed(2)} M events/s; RSS ${rss.toFixed(2)} GiB`,
  );
}
process.exitCode = allOk ? 0 : 1;
