/**
 * A PMIx client through the system's libpmix (Open MPI's mpirun, Slurm `--mpi=pmix`),
 * called with koffi (a prebuilt FFI from the npm registry: no compiler needed). koffi is
 * an optional peer dependency: without it, a job under a PMIx launcher says how to get it.
 *
 * Only the stable C ABI is touched: pmix_proc_t (char nspace[256]; uint32 rank), a
 * pmix_value_t read and written as { uint16 type at 0; char *string at 8 } for
 * PMIX_STRING values, and one pmix_info_t { char key[512]; uint32 flags; pmix_value_t
 * value at 520 } for the fence. Put with scope PMIX_GLOBAL, Commit, Fence over the
 * namespace (rank PMIX_RANK_WILDCARD) with PMIX_COLLECT_DATA, Get from a process.
 *
 * The fence collects the data (a full modex) rather than leaving it to be fetched on
 * demand: a server fetches a remote process's data once, on the first Get, and keeps
 * it, so records that process puts in a later round (the start-up exchange has two)
 * would not be found on other hosts (Slurm's `srun --mpi=pmix` across nodes: PMIx_Get
 * status -46, not found).
 */
import { TransportError } from '../core/errors.js';
import type { Kvs } from './kvs.js';

const PMIX_STRING = 3;
const PMIX_GLOBAL = 3;
const PMIX_RANK_WILDCARD = 0xfffffffe;
const PMIX_BOOL = 1;
const PMIX_COLLECT_DATA = 'pmix.collect';
/** sizeof(pmix_info_t), and where its value starts (after key[512] and uint32 flags). */
const INFO_SIZE = 552;
const INFO_VALUE = 520;

type Koffi = typeof import('koffi');

interface Proc {
  nspace: string;
  rank: number;
}

export class PmixKvs implements Kvs {
  private constructor(
    readonly name: string,
    private readonly k: Koffi,
    private readonly fns: {
      put: (scope: number, key: string, val: Buffer) => number;
      commit: () => number;
      /** Asynchronous (koffi runs it on a pool thread): a fence may wait for minutes, and a thread blocked in native code could not be stopped when the process exits. */
      fence: (procs: Proc, n: number, info: Buffer, ninfo: number, done: (err: unknown, rc: number) => void) => void;
      get: (proc: Proc, key: string, info: null, ninfo: number, out: unknown[]) => number;
      finalize: (info: null, ninfo: number) => number;
      abort: (status: number, msg: string, procs: null, nprocs: number) => number;
    },
    private readonly me: Proc,
  ) {}

  /** Load koffi and libpmix (COLL_PMIX_LIB, default libpmix.so.2) and PMIx_Init. */
  static async open(libPath = process.env.COLL_PMIX_LIB || 'libpmix.so.2'): Promise<PmixKvs> {
    let k: Koffi;
    try {
      k = ((await import('koffi')) as { default: Koffi }).default;
    } catch {
      throw new TransportError(
        'this job runs under a PMIx launcher (mpirun, srun --mpi=pmix), and reaching PMIx needs the koffi package, which is not installed: npm install koffi (next to collectives)',
      );
    }
    let lib: ReturnType<Koffi['load']>;
    try {
      lib = k.load(libPath);
    } catch (e) {
      throw new TransportError(`cannot load ${libPath} (${(e as Error).message}); install the PMIx library (Debian: libpmix2) or set COLL_PMIX_LIB to its path`);
    }
    const proc = k.struct({ nspace: k.array('char', 256, 'String'), rank: 'uint32' });
    const init = lib.func('PMIx_Init', 'int', [k.out(k.pointer(proc)), 'void *', 'size_t']);
    const me: Partial<Proc> = {};
    const rc = init(me, null, 0) as number;
    if (rc !== 0 || typeof me.nspace !== 'string' || typeof me.rank !== 'number') throw new TransportError(`PMIx_Init failed (status ${rc}): is this process started by a PMIx launcher?`);
    const fns = {
      put: lib.func('PMIx_Put', 'int', ['uint8', 'const char *', 'void *']) as (scope: number, key: string, val: Buffer) => number,
      commit: lib.func('PMIx_Commit', 'int', []) as () => number,
      fence: lib.func('PMIx_Fence', 'int', [k.pointer(proc), 'size_t', 'void *', 'size_t']).async as (procs: Proc, n: number, info: Buffer, ninfo: number, done: (err: unknown, rc: number) => void) => void,
      get: lib.func('PMIx_Get', 'int', [k.pointer(proc), 'const char *', 'void *', 'size_t', k.out(k.pointer('void *'))]) as (proc: Proc, key: string, info: null, ninfo: number, out: unknown[]) => number,
      finalize: lib.func('PMIx_Finalize', 'int', ['void *', 'size_t']) as (info: null, ninfo: number) => number,
      abort: lib.func('PMIx_Abort', 'int', ['int', 'const char *', 'void *', 'size_t']) as (status: number, msg: string, procs: null, nprocs: number) => number,
    };
    return new PmixKvs(`PMIx (${libPath})`, k, fns, { nspace: me.nspace, rank: me.rank });
  }

  put(key: string, value: string): Promise<void> {
    const str = Buffer.from(`${value}\0`, 'utf8');
    const val = Buffer.alloc(64);
    val.writeUInt16LE(PMIX_STRING, 0);
    val.writeBigUInt64LE(this.k.address(str), 8);
    const rc = this.fns.put(PMIX_GLOBAL, key, val);
    if (rc !== 0) throw new TransportError(`PMIx_Put ${key} failed (status ${rc})`);
    return Promise.resolve();
  }

  fence(): Promise<void> {
    const c = this.fns.commit();
    if (c !== 0) throw new TransportError(`PMIx_Commit failed (status ${c})`);
    // One pmix_info_t: PMIX_COLLECT_DATA = true (a bool is one byte at the value's data).
    const collect = Buffer.alloc(INFO_SIZE);
    collect.write(PMIX_COLLECT_DATA, 0, 'latin1');
    collect.writeUInt16LE(PMIX_BOOL, INFO_VALUE);
    collect.writeUInt8(1, INFO_VALUE + 8);
    return new Promise((resolve, reject) => {
      this.fns.fence({ nspace: this.me.nspace, rank: PMIX_RANK_WILDCARD }, 1, collect, 1, (err, rc) => {
        void collect; // kept alive (by this callback) until the fence has returned
        if (err) reject(err instanceof Error ? err : new TransportError(String(err)));
        else if (rc !== 0) reject(new TransportError(`PMIx_Fence failed (status ${rc})`));
        else resolve();
      });
    });
  }

  get(rank: number, key: string): Promise<string> {
    const out: unknown[] = [null];
    const rc = this.fns.get({ nspace: this.me.nspace, rank }, key, null, 0, out);
    if (rc !== 0) throw new TransportError(`PMIx_Get ${key} of rank ${rank} failed (status ${rc})`);
    const type = this.k.decode(out[0], 'uint16') as number;
    if (type !== PMIX_STRING) throw new TransportError(`PMIx_Get ${key} of rank ${rank}: a value of type ${type}, not a string`);
    return Promise.resolve(this.k.decode(out[0], 8, 'char *') as string);
  }

  abort(code: number, message: string): Promise<void> {
    // Every process of the namespace (procs NULL); the server ends the job.
    this.fns.abort(code, message, null, 0);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.fns.finalize(null, 0);
    return Promise.resolve();
  }
}
