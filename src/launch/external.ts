/**
 * Jobs started by a cluster's own launcher: `mpirun -np 4 node prog.js` (Open MPI),
 * `mpiexec -n 4 node prog.js` (MPICH's hydra), `srun -n 4 node prog.js` (Slurm). Each
 * launcher task is one process; its rank, the job's size and its place among the tasks
 * of its host come from the launcher's environment, and the processes find each other
 * through the launcher's key-value store (kvs.ts). Detection reads only the
 * environment, so a program started by plain `node` is a singleton as before.
 */
import { ArgumentError } from '../core/errors.js';
import type { Kvs } from './kvs.js';
import { Pmi1Kvs } from './pmi1.js';
import { PmixKvs } from './pmix.js';

export interface ExternalLaunch {
  /** Which launcher: for messages and the job report. */
  readonly launcher: 'openmpi' | 'pmix' | 'slurm' | 'pmi';
  readonly rank: number;
  readonly size: number;
  /** This task's index among the tasks of its host, and their number. */
  readonly localRank: number;
  readonly localSize: number;
  /** How to reach the store: PMI-1 on a socket, or PMIx. */
  readonly kvs: { readonly kind: 'pmi1'; readonly fd: number } | { readonly kind: 'pmix' };
  /** An identifier of the job (shared by its tasks). */
  readonly jobKey: string;
}

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new ArgumentError(`launcher variable ${name}='${v}' is not a non-negative integer`, 'this process was started with inconsistent launcher variables; start it with the launcher (mpirun, mpiexec, srun), or unset them');
  return n;
}

function need(env: Env, name: string, launcher: string): number {
  const n = int(env, name);
  if (n === undefined) throw new ArgumentError(`started by ${launcher}, but ${name} is not set`, 'start the program with the launcher, or unset its other variables');
  return n;
}

/**
 * The launcher that started this process, or undefined (none, or a one-task job, which
 * is an ordinary singleton unless `single`). Throws on inconsistent variables (a rank
 * outside the size).
 */
export function detectLaunch(env: Env = process.env, o: { single?: boolean } = {}): ExternalLaunch | undefined {
  let l: ExternalLaunch | undefined;
  if (env.OMPI_COMM_WORLD_SIZE !== undefined) {
    l = {
      launcher: 'openmpi',
      rank: need(env, 'OMPI_COMM_WORLD_RANK', 'Open MPI'),
      size: need(env, 'OMPI_COMM_WORLD_SIZE', 'Open MPI'),
      localRank: int(env, 'OMPI_COMM_WORLD_LOCAL_RANK') ?? 0,
      localSize: int(env, 'OMPI_COMM_WORLD_LOCAL_SIZE') ?? 1,
      kvs: { kind: 'pmix' },
      jobKey: env.PMIX_NAMESPACE ?? env.OMPI_MCA_ess_base_jobid ?? 'ompi',
    };
  } else if (env.PMI_FD !== undefined && env.PMI_RANK !== undefined) {
    // PMI-1 wire: MPICH's hydra, or Slurm's pmi2 plugin (which also sets SLURM_*).
    const slurm = env.SLURM_STEP_ID !== undefined;
    l = {
      launcher: slurm ? 'slurm' : 'pmi',
      rank: need(env, 'PMI_RANK', 'a PMI launcher'),
      size: need(env, 'PMI_SIZE', 'a PMI launcher'),
      localRank: int(env, slurm ? 'SLURM_LOCALID' : 'MPI_LOCALRANKID') ?? 0,
      localSize: (slurm ? tasksOnThisNode(env) : int(env, 'MPI_LOCALNRANKS')) ?? 1,
      kvs: { kind: 'pmi1', fd: need(env, 'PMI_FD', 'a PMI launcher') },
      jobKey: slurm ? `${env.SLURM_JOB_ID ?? '?'}.${env.SLURM_STEP_ID ?? '?'}` : `pmi-${env.PMI_FD}`,
    };
  } else if (env.PMIX_RANK !== undefined && env.PMIX_NAMESPACE !== undefined) {
    // A PMIx launcher without Open MPI's variables (srun --mpi=pmix, prterun).
    const slurm = env.SLURM_STEP_ID !== undefined;
    l = {
      launcher: slurm ? 'slurm' : 'pmix',
      rank: need(env, 'PMIX_RANK', 'a PMIx launcher'),
      size: slurm ? need(env, 'SLURM_STEP_NUM_TASKS', 'Slurm') : need(env, 'PMIX_SIZE', 'a PMIx launcher'),
      localRank: int(env, 'SLURM_LOCALID') ?? 0,
      localSize: tasksOnThisNode(env) ?? 1,
      kvs: { kind: 'pmix' },
      jobKey: env.PMIX_NAMESPACE,
    };
  } else if (env.SLURM_STEP_ID !== undefined && (int(env, 'SLURM_STEP_NUM_TASKS') ?? int(env, 'SLURM_NTASKS') ?? 1) > 1) {
    throw new ArgumentError(
      'started by srun without a PMI server, so the tasks cannot find each other',
      'run with srun --mpi=pmi2 (or --mpi=pmix), or start one task per node with coll run inside the allocation',
    );
  }
  if (l === undefined) return undefined;
  if (l.rank >= l.size) throw new ArgumentError(`launcher variables say rank ${l.rank} of ${l.size} tasks`, 'the rank must be below the size: start the program with the launcher, or unset its variables');
  if (l.localRank >= l.localSize) throw new ArgumentError(`launcher variables say local rank ${l.localRank} of ${l.localSize} tasks on this host`, 'start the program with the launcher, or unset its variables');
  return l.size > 1 || o.single ? l : undefined;
}

/** SLURM_TASKS_PER_NODE like "2(x3),1" for this node (SLURM_NODEID). */
function tasksOnThisNode(env: Env): number | undefined {
  const spec = env.SLURM_STEP_TASKS_PER_NODE ?? env.SLURM_TASKS_PER_NODE;
  const node = int(env, 'SLURM_NODEID');
  if (spec === undefined || node === undefined) return undefined;
  const counts: number[] = [];
  for (const part of spec.split(',')) {
    const m = /^(\d+)(?:\(x(\d+)\))?$/.exec(part);
    if (!m) return undefined;
    for (let i = 0; i < Number(m[2] ?? 1); i++) counts.push(Number(m[1]));
  }
  return counts[node];
}

/** Open the launcher's key-value store. */
export async function openKvs(l: ExternalLaunch): Promise<Kvs> {
  return l.kvs.kind === 'pmi1' ? Pmi1Kvs.open(l.kvs.fd, l.rank) : PmixKvs.open();
}
