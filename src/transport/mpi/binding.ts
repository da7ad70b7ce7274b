/**
 * The optional MPI binding (native/mpi/coll-mpi.c): one Node-API addon per MPI
 * flavour, because Open MPI's libmpi and MPICH's libmpich differ in ABI. The
 * install step builds each flavour whose development files are present
 * (scripts/build-native.mjs); a job picks the flavour of the launcher that started
 * it (Open MPI's mpirun sets OMPI_COMM_WORLD_*, MPICH's hydra PMI_FD and MPI_LOCALRANKID).
 *
 * One session per process: MPI_Init_thread happens once, in the addon's progress
 * thread, and the session fans its "something happened" events out to the
 * key-value store (launch/mpi-kvs.ts) and the node link (link.ts).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ArgumentError } from '../../core/errors.js';
import { isOpenSocket } from '../../launch/pmi1.js';

export type MpiFlavour = 'openmpi' | 'mpich';
export const MPI_FLAVOURS: readonly MpiFlavour[] = ['openmpi', 'mpich'];
/** The node-to-node transports: TCP (with the datagram path) or the MPI binding. */
export type TransportName = 'tcp' | 'mpi';
export const TRANSPORTS = ['tcp', 'mpi', 'auto'] as const;
export type TransportRequest = (typeof TRANSPORTS)[number];

export interface MpiInfo {
  readonly rank: number;
  readonly size: number;
  /** MPI_THREAD_* level the library provides (3 = MULTIPLE). */
  readonly threadLevel: number;
  /** MPI_Get_library_version. */
  readonly version: string;
}

export interface MpiCounters {
  readonly framesSent: number;
  readonly framesReceived: number;
  readonly bytesSent: number;
  readonly bytesReceived: number;
  /** Iterations of the progress thread, and how many of them ended in a sleep. */
  readonly polls: number;
  readonly sleeps: number;
}

/** The addon's functions (native/mpi/coll-mpi.c documents each). */
export interface MpiAddon {
  init(onEvent: () => void): void;
  info(): MpiInfo | undefined;
  send(peer: number, header: Uint8Array, payload: Uint8Array, id: number): void;
  nextFrame(buf: Uint8Array, meta: Int32Array): number;
  completions(out: Int32Array): number;
  fenceStart(blob: Uint8Array): void;
  fenceResult(): Uint8Array[] | undefined;
  finalize(): void;
  finalized(): boolean;
  abort(code: number): void;
  counters(): MpiCounters;
}

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Where the install step puts the flavour's addon, and its build log. */
export function addonPath(flavour: MpiFlavour): string {
  return `${root}native/mpi/build/Release/coll_mpi_${flavour}.node`;
}
export function buildLogPath(flavour: MpiFlavour): string {
  return `${root}native/mpi/build-${flavour}.log`;
}

/** The MPI of the launcher that started this process (COLL_MPI_FLAVOUR overrides), if it is one. */
export function launcherFlavour(env: Readonly<Record<string, string | undefined>>): MpiFlavour | undefined {
  const forced = env.COLL_MPI_FLAVOUR;
  if (forced !== undefined && forced !== '') {
    if (!(MPI_FLAVOURS as readonly string[]).includes(forced)) throw new ArgumentError(`COLL_MPI_FLAVOUR='${forced}' is not an MPI flavour`, `use one of: ${MPI_FLAVOURS.join(', ')}`);
    return forced as MpiFlavour;
  }
  if (env.OMPI_COMM_WORLD_SIZE !== undefined) return 'openmpi';
  if (env.PMI_FD !== undefined && env.MPI_LOCALRANKID !== undefined && env.SLURM_STEP_ID === undefined) return 'mpich';
  return undefined;
}

/** Why the MPI transport cannot run here, or undefined when it can. */
export function mpiUnavailable(flavour: MpiFlavour | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (flavour === undefined) {
    return 'the MPI transport needs the job started by an MPI launcher (Open MPI mpirun or MPICH mpiexec; under Slurm set COLL_MPI_FLAVOUR to the MPI srun starts)';
  }
  if (flavour === 'mpich' && env.PMI_FD !== undefined && !isOpenSocket(Number(env.PMI_FD))) {
    return `PMI_FD ${env.PMI_FD} is not an open socket in this process, so MPICH cannot reach its launcher (npx and npm exec close it: start the program or coll directly)`;
  }
  if (!existsSync(addonPath(flavour))) {
    const log = buildLogPath(flavour);
    const pkg = flavour === 'openmpi' ? 'libopenmpi-dev' : 'libmpich-dev';
    return `the ${flavour} binding was not built (${existsSync(log) ? `build log: ${log}` : `no ${pkg} or no compiler when the package was installed`}); install ${pkg} and a C compiler, then run 'npm rebuild collectives' (or 'node scripts/build-native.mjs' in a checkout)`;
  }
  return undefined;
}

/**
 * Which node transport a job started by an MPI launcher uses: COLL_TRANSPORT (or the
 * caller's request) tcp | mpi | auto; auto (the default) takes MPI when the launcher is
 * an MPI whose binding is built, TCP otherwise. An explicit 'mpi' that cannot run is an
 * error saying why.
 */
export function chooseTransport(request: TransportRequest | undefined, env: Readonly<Record<string, string | undefined>>): { transport: TransportName; mpiFlavour?: MpiFlavour } {
  const asked = request ?? parseTransport(env.COLL_TRANSPORT ?? 'auto', 'COLL_TRANSPORT');
  if (asked === 'tcp') return { transport: 'tcp' };
  const flavour = launcherFlavour(env);
  const why = mpiUnavailable(flavour, env);
  if (why === undefined && flavour !== undefined) return { transport: 'mpi', mpiFlavour: flavour };
  if (asked === 'mpi') throw new ArgumentError(`the MPI transport is not available: ${why}`, "run with COLL_TRANSPORT=tcp (or 'auto'), or fix the reason above");
  return { transport: 'tcp' };
}

export function parseTransport(v: string, where: string): TransportRequest {
  if ((TRANSPORTS as readonly string[]).includes(v)) return v as TransportRequest;
  throw new ArgumentError(`${where}='${v}' is not a transport`, `use one of: ${TRANSPORTS.join(', ')}`);
}

/**
 * Settings the MPI libraries must start with inside a Node process, each only where the
 * user has not set it. UCX (under Debian's MPICH, and Open MPI's UCX components) replaces
 * malloc and hooks mmap at load time by default, which corrupts V8's heap (a crash in
 * V8's compiler within seconds, measured); and both MPIs install SIGSEGV handlers that
 * would take the signals V8 uses on purpose; Open MPI's AVX reductions get small integer
 * sums wrong. UCX reads these when the binding loads, so
 * they must be in the environment of the process before that: prepareMpiEnvironment()
 * runs in the main thread (a worker's process.env is its own copy).
 */
export const MPI_ENVIRONMENT: Readonly<Record<string, string>> = {
  UCX_MEM_MALLOC_HOOKS: 'no',
  UCX_MEM_MALLOC_RELOC: 'no',
  UCX_MEM_MMAP_HOOK_MODE: 'none',
  UCX_MEMTYPE_CACHE: 'n',
  UCX_ERROR_SIGNALS: '',
  UCX_HANDLE_ERRORS: 'none',
  UCX_WARN_UNUSED_ENV_VARS: 'n',
  OMPI_MCA_opal_signal: '',
  // Open MPI 4.1's AVX reductions saturate int8/uint8 sums instead of wrapping (open-mpi/ompi#8045,
  // closed as won't fix; measured here: uint8 200 × 3 gives 255 instead of 88 from 32 elements on).
  OMPI_MCA_op: '^avx',
};

export function prepareMpiEnvironment(env: Record<string, string | undefined> = process.env): void {
  for (const [k, v] of Object.entries(MPI_ENVIRONMENT)) if (env[k] === undefined) env[k] = v;
}

/**
 * This process's MPI session: the addon loaded and MPI initialised (once), events
 * fanned out to every listener.
 */
export class MpiSession {
  private static current: Promise<MpiSession> | undefined;
  private readonly listeners = new Set<() => void>();
  private finishing: Promise<void> | undefined;

  private constructor(
    readonly addon: MpiAddon,
    readonly flavour: MpiFlavour,
    readonly info: MpiInfo,
  ) {}

  /**
   * This process's session, initialising MPI on first use. MPI_Init waits for every
   * process of the job, in the binding's thread: this thread stays free meanwhile (a
   * start-up timeout can fire).
   */
  static open(flavour: MpiFlavour): Promise<MpiSession> {
    const why = mpiUnavailable(flavour);
    if (why) return Promise.reject(new ArgumentError(`the MPI transport is not available: ${why}`, 'run with COLL_TRANSPORT=tcp'));
    MpiSession.current ??= new Promise<MpiSession>((resolve, reject) => {
      const addon = createRequire(import.meta.url)(addonPath(flavour)) as MpiAddon;
      let session: MpiSession | undefined;
      addon.init(() => {
        if (session) {
          for (const f of session.listeners) f();
          return;
        }
        try {
          const info = addon.info();
          if (!info) return;
          session = new MpiSession(addon, flavour, info);
          resolve(session);
        } catch (e) {
          reject(e as Error);
        }
      });
    });
    return MpiSession.current.then((s) => {
      if (s.flavour !== flavour) throw new Error(`MPI is already initialised as ${s.flavour}, not ${flavour}`);
      return s;
    });
  }

  /** Call `f` whenever the progress thread reports something; returns the unsubscribe. */
  listen(f: () => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  /** Gather one blob from every process (collective; at start-up only). */
  fence(blob: Uint8Array): Promise<Uint8Array[]> {
    return new Promise((resolve) => {
      const check = (): void => {
        const r = this.addon.fenceResult();
        if (r) {
          stop();
          resolve(r);
        }
      };
      const stop = this.listen(check);
      this.addon.fenceStart(blob);
      check();
    });
  }

  /** Complete the sends in flight and finalize MPI (once; later calls share the first). */
  finalize(): Promise<void> {
    this.finishing ??= new Promise<void>((resolve) => {
      const check = (): void => {
        if (this.addon.finalized()) {
          stop();
          resolve();
        }
      };
      const stop = this.listen(check);
      this.addon.finalize();
      check();
    });
    return this.finishing;
  }
}
