import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files that compute in the test process alone: no rank threads, node processes,
 * sockets, launchers, wall-clock deadlines or measured times (schedules against the
 * reference, models, the simulator, in-process CLI commands of those). They run first, two files at a time
 * in worker threads (the 'in-process' project: each of its files keeps one core busy, so
 * two of them use both cores of CI); everything else runs after them one file at a time,
 * each in its own process (the 'jobs' project), as before: jobs, launchers, fault
 * detection, timeouts and multicast loss get the machine to themselves. A new test file
 * lands in 'jobs' unless it is listed here.
 */
const IN_PROCESS = [
  'test/catalogue.test.ts',
  'test/catalogue.part2.test.ts',
  'test/architecture.test.ts',
  'test/algorithms/allreduce.test.ts',
  'test/algorithms/barrier_bcast.test.ts',
  'test/algorithms/mesh_allgather_alltoall.test.ts',
  'test/algorithms/multicast_collectives.test.ts',
  'test/algorithms/reduce_family.test.ts',
  'test/cli/args.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/model-cli.test.ts',
  'test/core/ops.test.ts',
  'test/core/table.test.ts',
  'test/exec/multicast-collectives.test.ts',
  'test/exec/multicast.test.ts',
  'test/experiments/helpers.test.ts',
  'test/experiments/stats.test.ts',
  'test/model/closed.test.ts',
  'test/model/dag.test.ts',
  'test/model/machines.test.ts',
  'test/model/reproduce.test.ts',
  'test/model/rounds.test.ts',
  'test/offload/allgather.test.ts',
  'test/offload/barrier.test.ts',
  'test/offload/bcast.test.ts',
  'test/offload/frame_mux.test.ts',
  'test/offload/sim_network.test.ts',
  'test/offload/engine/descriptor.test.ts',
  'test/plot/svg.test.ts',
  'test/runtime/call-signature.test.ts',
  'test/runtime/consistency.test.ts',
  'test/runtime/selection.test.ts',
  'test/runtime/simd.test.ts',
  'test/schedule/stats-closed-forms.test.ts',
  'test/schedule/validate.test.ts',
  'test/sim/alpha-per.test.ts',
  'test/sim/cli.test.ts',
  'test/sim/dag-exact.test.ts',
  'test/sim/engine.test.ts',
  'test/sim/ladder.test.ts',
  'test/sim/nbl.test.ts',
  'test/sim/network.test.ts',
  'test/sim/nic-packets.test.ts',
  'test/sim/phased.test.ts',
  'test/sim/reproduce.test.ts',
  'test/sim/seed002-mechanisms.test.ts',
  'test/sim/seeds.test.ts',
  'test/sim/wormhole.test.ts',
  'test/transport/shm.test.ts',
  'test/tune/fit.test.ts',
  'test/tune/tuner.test.ts',
];

/** The two halves of the catalogue test (about 30 s each in CI) start first, one per worker, whatever vitest's cache says. */
const FIRST = ['test/catalogue.test.ts', 'test/catalogue.part2.test.ts'];

class Sequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => (FIRST.some((p) => f.moduleId.endsWith(p)) ? 0 : 1);
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    sequence: { sequencer: Sequencer },
    // Per pool, not per project (vitest 3.2): the in-process project's threads, the jobs project's forks.
    poolOptions: { threads: { minThreads: 1, maxThreads: 2 }, forks: { minForks: 1, maxForks: 1 } },
    projects: [
      { extends: true, test: { name: 'in-process', include: IN_PROCESS, pool: 'threads', sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'jobs', include: ['test/**/*.test.ts'], exclude: IN_PROCESS, pool: 'forks', sequence: { groupOrder: 1 } } },
    ],
  },
});
