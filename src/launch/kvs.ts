/**
 * The key-value store of a job started by an external launcher (PMI-like): each process
 * puts its records, a fence makes every process's puts visible to all, then any process
 * gets any other's. Served by the launcher's PMI server: PMI-1 wire protocol over
 * PMI_FD (MPICH's hydra, Slurm's `--mpi=pmi2`) or PMIx (Open MPI's mpirun, Slurm
 * `--mpi=pmix`) through the system's libpmix.
 */
export interface Kvs {
  /** What serves the store, for messages: 'PMI-1 (PMI_FD)', 'PMIx (libpmix.so.2)'. */
  readonly name: string;
  put(key: string, value: string): Promise<void>;
  /** Collective over every process of the job: returns once all have entered it. */
  fence(): Promise<void>;
  /** A record that process `rank` put before the last fence. */
  get(rank: number, key: string): Promise<string>;
  /** Ask the launcher to end the whole job with this exit code (PMI abort, as MPI_Abort does). */
  abort(code: number, message: string): Promise<void>;
  /** End the session with the server (PMI finalize). */
  close(): Promise<void>;
}
